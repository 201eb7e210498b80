#!/usr/bin/env bash
# bench.sh — measures calshim against the local WordPress rig and a static gin server, in one run,
# on loopback only (wrk -t2 -cCONNECTIONS -dDURATION per figure):
#   1. with the seed data set (50 events), then with BULK (100,000) generated events: catalog load
#      time and RSS after the load;
#   2. the warm GET /wp-json/cal/events/v1/events (answered from the response cache) next to
#      scripts/staticgin, a gin handler serving the same bytes from memory (the ceiling): the same
#      headers and body, then the body alone;
#   3. the uncached list: every request a new start_date (same day, so the same events), which no
#      response cache has seen: the filter, page and render path;
#   4. WordPress' own GET /wp-json/wp/v2/tribe_events?per_page=10 (seed data set only);
#   5. RSS after the runs.
# It reseeds the rig (the default seed is restored at the end). Usage: make bench
# Ports: BENCH_PORT (calshim), BENCH_PROXY_PORT (staticgin).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
STATE=${CALSHIM_STATE:-/tmp/calshim-wp}
DURATION=${DURATION:-10s} CONNECTIONS=${CONNECTIONS:-32} BULK=${SEED_EVENTS:-100000}
PORT=${BENCH_PORT:-18080} STATIC_PORT=${BENCH_PROXY_PORT:-18081}
command -v wrk >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq wrk >/dev/null
"$ROOT/scripts/wp-up.sh" >/dev/null
. "$STATE/wp.env"
go build -o "$STATE/calshim-bench" "$ROOT/cmd/calshim"
go build -o "$STATE/staticgin-bench" "$ROOT/scripts/staticgin"
shim_pid="" static_pid=""
stop() { # stop PIDVAR: ends the process the variable names, if any
  local pid=${!1}
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true # its status is that of the signal
  fi
  printf -v "$1" '%s' ""
}
trap 'stop shim_pid; stop static_pid; SEED_EVENTS=0 "$ROOT/scripts/wp-seed.sh" >/dev/null' EXIT
EVENTS="http://127.0.0.1:$PORT/wp-json/cal/events/v1/events"

# start_shim starts calshim with its defaults (JSON access logs, to a file here; metrics; response
# cache) but no snapshot file (a full load), and sets load_time (seconds until
# /readyz answers 200), rss (MiB) and listed (events in the widest window).
start_shim() {
  local t0 t1
  t0=$(date +%s.%N)
  CALSHIM_LISTEN=127.0.0.1:$PORT CALSHIM_CATALOG_SNAPSHOT=none \
    CALSHIM_UPSTREAM_URL=$CALSHIM_UPSTREAM_URL CALSHIM_UPSTREAM_USER=$CALSHIM_UPSTREAM_USER \
    CALSHIM_UPSTREAM_APP_PASSWORD=$CALSHIM_UPSTREAM_APP_PASSWORD \
    "$STATE/calshim-bench" 2>"$STATE/bench-shim.log" &
  shim_pid=$!
  for _ in $(seq 1 1200); do
    curl -sf -o /dev/null "http://127.0.0.1:$PORT/readyz" && break
    sleep 0.1
  done
  t1=$(date +%s.%N)
  load_time=$(printf '%.1f' "$(echo "$t1 - $t0" | bc)")
  sleep 1
  rss=$(rss_of "$shim_pid")
  listed=$(curl -s -D - -o /dev/null "$EVENTS?per_page=1&start_date=1970-01-02&end_date=2100-01-01" |
    awk -F': ' 'tolower($1)=="x-tec-total" {print $2+0}')
}

rss_of() { awk '/VmRSS/ {printf "%.0f", $2/1024}' "/proc/$1/status"; }

# start_static [body]: serves the warm list's response from staticgin: its headers and body (the
# same bytes calshim writes), or with "body" its body alone (Content-Type the only header).
start_static() {
  local headers=(-headers "$STATE/bench-headers.txt")
  [ "${1:-}" = body ] && headers=()
  curl -s -D "$STATE/bench-headers.txt" -o "$STATE/bench-body.json" "$EVENTS"
  "$STATE/staticgin-bench" -listen "127.0.0.1:$STATIC_PORT" -body "$STATE/bench-body.json" \
    "${headers[@]}" 2>"$STATE/bench-static.log" &
  static_pid=$!
  for _ in $(seq 1 100); do
    curl -sf -o /dev/null "http://127.0.0.1:$STATIC_PORT/" && break
    sleep 0.1
  done
}

# measure URL [wrk args]: sets rps, p50 and p99 (ms) of one wrk run.
measure() {
  local url=$1 out
  shift
  out=$(wrk -t2 -c"$CONNECTIONS" -d"$DURATION" --latency "$@" "$url")
  rps=$(awk '/Requests\/sec/ {printf "%.0f", $2}' <<<"$out")
  p50=$(awk '$1=="50%" {print ms($2)} function ms(v) {
    if (v ~ /us$/) return sprintf("%.2f", v/1000); if (v ~ /ms$/) return sprintf("%.2f", v+0);
    return sprintf("%.2f", v*1000) }' <<<"$out")
  p99=$(awk '$1=="99%" {print ms($2)} function ms(v) {
    if (v ~ /us$/) return sprintf("%.2f", v/1000); if (v ~ /ms$/) return sprintf("%.2f", v+0);
    return sprintf("%.2f", v*1000) }' <<<"$out")
}

# A new start_date per request, on today's date (the events listed stay the same: without
# strict_dates the window starts at the beginning of that day).
cat >"$STATE/uncached.lua" <<LUA
local n = 0
request = function()
  n = n + 1
  local t = string.format("%02d:%02d:%02d", math.floor(n / 3600) % 24, math.floor(n / 60) % 60, n % 60)
  return wrk.format("GET", wrk.path .. "?per_page=10&start_date=$(date +%F)%20" .. t .. "&x=" .. n)
end
LUA

# run_set NAME: load, warm vs static, uncached, RSS; results in variables suffixed with NAME.
run_set() {
  local name=$1
  start_shim
  printf -v "load_$name" '%s' "$load_time"
  printf -v "rss_$name" '%s' "$rss"
  printf -v "listed_$name" '%s' "$listed"
  start_static
  measure "$EVENTS"
  printf -v "warm_$name" '%s' "$rps"; printf -v "warm50_$name" '%s' "$p50"; printf -v "warm99_$name" '%s' "$p99"
  measure "http://127.0.0.1:$STATIC_PORT/wp-json/cal/events/v1/events"
  printf -v "static_$name" '%s' "$rps"; printf -v "static99_$name" '%s' "$p99"
  stop static_pid
  start_static body
  measure "http://127.0.0.1:$STATIC_PORT/wp-json/cal/events/v1/events"
  printf -v "bodyonly_$name" '%s' "$rps"; printf -v "bodyonly99_$name" '%s' "$p99"
  stop static_pid
  measure "$EVENTS" -s "$STATE/uncached.lua"
  printf -v "unc_$name" '%s' "$rps"; printf -v "unc50_$name" '%s' "$p50"; printf -v "unc99_$name" '%s' "$p99"
  printf -v "rssafter_$name" '%s' "$(rss_of "$shim_pid")"
  stop shim_pid
}

echo "== seed data set"
SEED_EVENTS=0 "$ROOT/scripts/wp-seed.sh" | tail -1
run_set seed
measure "$WP_URL/wp-json/wp/v2/tribe_events?per_page=10"
wp_rps=$rps wp99=$p99

echo "== seed + $BULK generated events"
SEED_EVENTS=$BULK "$ROOT/scripts/wp-seed.sh" | tail -1
run_set bulk

ratio() { echo "scale=2; $1 / $2" | bc; }
cat <<TABLE

| figure | seed ($listed_seed events listed) | seed + $BULK ($listed_bulk listed) |
|---|---|---|
| catalog load (s) | $load_seed | $load_bulk |
| RSS after load / after the runs (MiB) | $rss_seed / $rssafter_seed | $rss_bulk / $rssafter_bulk |
| RSS per generated event after load (KB) | | $(echo "($rss_bulk - $rss_seed) * 1024 / $BULK" | bc -l | xargs printf '%.2f') |
| warm GET /events: req/s, p50, p99 (ms) | $warm_seed, $warm50_seed, $warm99_seed | $warm_bulk, $warm50_bulk, $warm99_bulk |
| static gin, same headers and body: req/s, p99 (ms) | $static_seed, $static99_seed | $static_bulk, $static99_bulk |
| warm / static: req/s, p99 | $(ratio "$warm_seed" "$static_seed"), $(ratio "$warm99_seed" "$static99_seed") | $(ratio "$warm_bulk" "$static_bulk"), $(ratio "$warm99_bulk" "$static99_bulk") |
| static gin, body only: req/s, p99 (ms) | $bodyonly_seed, $bodyonly99_seed | $bodyonly_bulk, $bodyonly99_bulk |
| warm / static body only: req/s, p99 | $(ratio "$warm_seed" "$bodyonly_seed"), $(ratio "$warm99_seed" "$bodyonly99_seed") | $(ratio "$warm_bulk" "$bodyonly_bulk"), $(ratio "$warm99_bulk" "$bodyonly99_bulk") |
| uncached list (new start_date each): req/s, p50, p99 (ms) | $unc_seed, $unc50_seed, $unc99_seed | $unc_bulk, $unc50_bulk, $unc99_bulk |
| uncached p50, 100k / seed | | $(ratio "$unc50_bulk" "$unc50_seed") |
| WordPress wp/v2 tribe_events?per_page=10: req/s, p99 (ms) | $wp_rps, $wp99 | |
| warm calshim / WordPress | $(ratio "$warm_seed" "$wp_rps")x | |
TABLE
echo "wrk -t2 -c$CONNECTIONS -d$DURATION on loopback; 2 cores shared by wrk, calshim and WordPress"
