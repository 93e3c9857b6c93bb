#!/bin/sh
# A test suite in plain shell (curl and python3 for JSON) against a running
# `mobisite --admin` (MOBISITE_URL, default http://127.0.0.1:3000).
# Run: sh examples/testing/curl-suite.sh   Exit status 0 when every check passes.
set -eu
BASE="${MOBISITE_URL:-http://127.0.0.1:3000}"
HERE="$(cd "$(dirname "$0")" && pwd)"
USERPW='tester:tester-secret'
fail() { echo "not ok - $1"; exit 1; }
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
admin() { curl -sS -X "$1" -H 'content-type: application/json' ${3:+--data "$3"} "$BASE/__admin$2"; }

admin POST /reset
curl -sS -f -X POST -H 'content-type: application/json' --data @"$HERE/fixtures.json" "$BASE/__admin/seed"
admin PUT /clock '{"now":"2025-03-01T08:30:00"}' >/dev/null

status=$(curl -sS -o /dev/null -w '%{http_code}' -u "$USERPW" -H 'content-type: application/json' \
  --data '{"site_data":{"site_name":"cafe","original_site_url":"https://cafe.example"},"publish_now":true}' "$BASE/api/sites/create")
[ "$status" = 200 ] || fail "create answered $status"
published=$(curl -sS -u "$USERPW" "$BASE/api/sites/cafe" | json 'd["last_published_date"]')
[ "$published" = 2025-03-01T08:30:00 ] || fail "published at $published"
echo "ok - published at the frozen clock"

admin POST /faults '{"route":"/sites/{site_name}","site_name":"cafe","error":{"status":429,"error_code":"SlowDown"},"times":1}' >/dev/null
status=$(curl -sS -o /dev/null -w '%{http_code}' -u "$USERPW" "$BASE/api/sites/cafe")
[ "$status" = 429 ] || fail "the fault answered $status"
echo "ok - the injected fault"

statuses=$(admin GET '/requests?route=/sites/%7Bsite_name%7D' | json '",".join(str(r["status"]) for r in d["requests"])')
[ "$statuses" = "200,429" ] || fail "journal statuses $statuses"
echo "ok - the journal"
