#!/usr/bin/env bash
# A local Redis Cluster for tests: 3 primaries + 3 replicas, redis-server in
# cluster mode on free ports under a temporary directory.
#
#   scripts/redis-cluster.sh start [DIR]   starts it, waits for cluster_state:ok,
#                                          prints the seed URL (redis-cluster://...)
#   scripts/redis-cluster.sh stop [DIR]    kills exactly the processes it started
#
# DIR defaults to $REDIS_CLUSTER_DIR or /tmp/mobisite-redis-cluster. The pids
# are in DIR/pids, the seed URL in DIR/url. A low cluster-node-timeout keeps
# failovers (and the tests that provoke them) short.
set -euo pipefail
cmd="${1:-}"
dir="${2:-${REDIS_CLUSTER_DIR:-/tmp/mobisite-redis-cluster}}"
node_timeout="${REDIS_CLUSTER_NODE_TIMEOUT:-1500}"

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

stop() {
  if [ -f "$dir/pids" ]; then
    while read -r pid; do
      # Only a redis-server (a pid is reused once its process has gone).
      if [ "$(ps -o comm= -p "$pid" 2>/dev/null)" = redis-server ]; then kill -9 "$pid" 2>/dev/null || true; fi
    done <"$dir/pids"
    rm -f "$dir/pids"
    # Only what start made: the node folders, the URL and the create log.
    for node in "$dir"/[0-9]*; do [ -f "$node/nodes.conf" ] && rm -rf "$node"; done
    rm -f "$dir/url" "$dir/create.log"
    rmdir "$dir" 2>/dev/null || true
  fi
}

start() {
  if [ -f "$dir/pids" ]; then stop; fi
  mkdir -p "$dir"
  : >"$dir/pids"
  ports=()
  for i in 1 2 3 4 5 6; do
    port=$(free_port)
    mkdir -p "$dir/$port"
    redis-server --port "$port" --bind 127.0.0.1 --dir "$dir/$port" --cluster-enabled yes \
      --cluster-config-file nodes.conf --cluster-node-timeout "$node_timeout" --appendonly no \
      --cluster-require-full-coverage no \
      --save '' --daemonize no --logfile "$dir/$port/log" </dev/null >/dev/null 2>&1 &
    echo $! >>"$dir/pids"
    ports+=("$port")
  done
  for port in "${ports[@]}"; do
    for _ in $(seq 1 50); do
      redis-cli -p "$port" ping >/dev/null 2>&1 && break
      sleep 0.1
    done
  done
  hosts=()
  for port in "${ports[@]}"; do hosts+=("127.0.0.1:$port"); done
  redis-cli --cluster create "${hosts[@]}" --cluster-replicas 1 --cluster-yes </dev/null >"$dir/create.log" 2>&1
  for _ in $(seq 1 100); do
    ok=1
    for port in "${ports[@]}"; do
      redis-cli -p "$port" cluster info 2>/dev/null | grep -q 'cluster_state:ok' || ok=0
    done
    [ "$ok" = 1 ] && break
    sleep 0.1
  done
  # Every replica must be in sync before writes can be confirmed (WAIT 1).
  for _ in $(seq 1 100); do
    synced=0
    for port in "${ports[@]}"; do
      redis-cli -p "$port" info replication | grep -q 'master_link_status:up' && synced=$((synced + 1))
    done
    [ "$synced" -ge 3 ] && break
    sleep 0.1
  done
  url="redis-cluster://$(
    IFS=,
    echo "${hosts[*]:0:3}"
  )"
  echo "$url" >"$dir/url"
  echo "$url"
}

case "$cmd" in
start) start ;;
stop) stop ;;
*)
  echo "usage: $0 start|stop [DIR]" >&2
  exit 2
  ;;
esac
