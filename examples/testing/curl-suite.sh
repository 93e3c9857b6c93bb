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

# A webhook received by the app's own HTTP server (here a few lines of python3).
HOOKDIR="$(mktemp -d)"
python3 -c '
import http.server, os, sys
folder = sys.argv[1]
class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["content-length"]))
        with open(os.path.join(folder, "received"), "ab") as out:
            out.write(body + b"\n")
        self.send_response(204)
        self.end_headers()
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
with open(os.path.join(folder, "port.tmp"), "w") as out:
    out.write(str(server.server_port))
os.rename(os.path.join(folder, "port.tmp"), os.path.join(folder, "port"))
server.serve_forever()
' "$HOOKDIR" &
RECEIVER=$!
trap 'kill "$RECEIVER" 2>/dev/null; rm -rf "$HOOKDIR"' EXIT
tries=0
while [ ! -s "$HOOKDIR/port" ]; do
  tries=$((tries + 1)); [ "$tries" -lt 100 ] || fail "the receiver did not start"; sleep 0.1
done
admin POST /webhooks "{\"url\":\"http://127.0.0.1:$(cat "$HOOKDIR/port")/hook\",\"events\":[\"UNPUBLISH\"]}" >/dev/null
curl -sS -f -o /dev/null -X POST -u "$USERPW" "$BASE/api/sites/unpublish/cafe"
admin POST /webhooks/settle
event=$(head -n 1 "$HOOKDIR/received" | json 'd["event_type"] + " " + d["resource_data"]["site_name"]')
[ "$event" = "UNPUBLISH cafe" ] || fail "the webhook received $event"
echo "ok - the webhook"
