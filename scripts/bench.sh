#!/usr/bin/env bash
# bench.sh — measures calshim against the local WordPress rig, in one run, on loopback only:
#   1. catalog load time and RSS with the seed data set, then with 10,000 generated events (SEED_EVENTS);
#   2. requests/s of a warm GET /wp-json/cal/events/v1/events through calshim next to WordPress' own
#      GET /wp-json/wp/v2/tribe_events?per_page=10, with wrk (DURATION each, CONNECTIONS connections).
# It reseeds the rig (the default seed is restored at the end). Usage: make bench
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
STATE=${CALSHIM_STATE:-/tmp/calshim-wp}
DURATION=${DURATION:-10s} CONNECTIONS=${CONNECTIONS:-16} BULK=${SEED_EVENTS:-10000} PORT=${BENCH_PORT:-18080}
command -v wrk >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
"$ROOT/scripts/wp-up.sh" >/dev/null
. "$STATE/wp.env"
go build -o "$STATE/calshim-bench" "$ROOT/cmd/calshim"
shim_pid=""
stop_shim() { [ -n "$shim_pid" ] && kill "$shim_pid" 2>/dev/null && wait "$shim_pid" 2>/dev/null; shim_pid=""; }
trap 'stop_shim; SEED_EVENTS=0 "$ROOT/scripts/wp-seed.sh" >/dev/null' EXIT

# start_shim starts calshim and sets load_time (seconds until /readyz), rss (MiB) and listed (events).
start_shim() {
  local t0 t1
  t0=$(date +%s.%N)
  CALSHIM_LISTEN=127.0.0.1:$PORT CALSHIM_LOG_LEVEL=warn CALSHIM_UPSTREAM_URL=$CALSHIM_UPSTREAM_URL \
    CALSHIM_UPSTREAM_USER=$CALSHIM_UPSTREAM_USER CALSHIM_UPSTREAM_APP_PASSWORD=$CALSHIM_UPSTREAM_APP_PASSWORD \
    "$STATE/calshim-bench" 2>"$STATE/bench-shim.log" &
  shim_pid=$!
  for _ in $(seq 1 1200); do
    curl -sf -o /dev/null "http://127.0.0.1:$PORT/readyz" && break
    sleep 0.1
  done
  t1=$(date +%s.%N)
  load_time=$(echo "$t1 - $t0" | bc)
  rss=$(awk '/VmRSS/ {printf "%.1f", $2/1024}' "/proc/$shim_pid/status")
  listed=$(curl -s -D - -o /dev/null "http://127.0.0.1:$PORT/wp-json/cal/events/v1/events?per_page=1&start_date=1970-01-02&end_date=2100-01-01" |
    awk -F': ' 'tolower($1)=="x-tec-total" {print $2+0}')
}

rps() { wrk -t2 -c"$CONNECTIONS" -d"$DURATION" "$@" | awk '/Requests\/sec/ {print $2}'; }
# A query parameter calshim ignores but that makes every request a cache miss: the full filter, sort and
# render path over the whole catalog.
cat >"$STATE/uncached.lua" <<'LUA'
local n = 0
request = function() n = n + 1; return wrk.format("GET", wrk.path .. "&nocache=" .. n) end
LUA

echo "== seed data set"
SEED_EVENTS=0 "$ROOT/scripts/wp-seed.sh" | tail -1
start_shim; load_s=$load_time rss_s=$rss n_s=$listed
curl -s -o /dev/null "http://127.0.0.1:$PORT/wp-json/cal/events/v1/events"  # warm the cache
shim_rps=$(rps "http://127.0.0.1:$PORT/wp-json/cal/events/v1/events")
uncached_s=$(rps -s "$STATE/uncached.lua" "http://127.0.0.1:$PORT/wp-json/cal/events/v1/events?per_page=10")
wp_rps=$(rps "$WP_URL/wp-json/wp/v2/tribe_events?per_page=10")
stop_shim

echo "== seed + $BULK generated events"
SEED_EVENTS=$BULK "$ROOT/scripts/wp-seed.sh" | tail -1
start_shim; load_b=$load_time rss_b=$rss n_b=$listed
curl -s -o /dev/null "http://127.0.0.1:$PORT/wp-json/cal/events/v1/events"
shim_rps_b=$(rps "http://127.0.0.1:$PORT/wp-json/cal/events/v1/events")
uncached_b=$(rps -s "$STATE/uncached.lua" "http://127.0.0.1:$PORT/wp-json/cal/events/v1/events?per_page=10")
stop_shim

cat <<TABLE
| data set | events listed | catalog load (s) | RSS after load (MiB) | calshim GET /events (req/s) | WordPress GET /wp/v2/tribe_events?per_page=10 (req/s) | ratio |
|---|---|---|---|---|---|---|
| seed | $n_s | $load_s | $rss_s | $shim_rps (every request a cache miss: $uncached_s) | $wp_rps | $(echo "scale=1; $shim_rps / $wp_rps" | bc)x |
| seed + $BULK | $n_b | $load_b | $rss_b | $shim_rps_b (every request a cache miss: $uncached_b) | | |
TABLE
echo "wrk: -t2 -c$CONNECTIONS -d$DURATION on loopback, 2 cores shared by wrk, calshim and WordPress"
