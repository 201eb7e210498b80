#!/usr/bin/env bash
# bench-sync.sh — measures calshim's sync with WordPress in one run, on loopback only:
#   1. cold load: calshim without a snapshot, SEED_EVENTS (default 100,000) generated events: seconds
#      until /readyz answers 200, and RSS;
#   2. idle upstream load: requests calshim sends WordPress in IDLE seconds (default 60) with nothing
#      changing, counted by a proxy in front of WordPress (scripts/countproxy);
#   3. freshness: EDITS (default 20) direct edits in WordPress of every kind (event title, meta, status,
#      trash, untrash, create, permanent delete, venue, organizer, term rename) at random moments, and
#      how long each takes to show in calshim: p50, p95, max per kind and over all;
#   4. warm restart: calshim stopped (it writes its snapshot) and started again: seconds until /readyz
#      answers 200 with the complete, current catalog, and RSS.
# calshim talks to WordPress through the counting proxy throughout. It reseeds the WordPress of
# $CALSHIM_STATE (default /tmp/calshim-wp) and restores the default seed at the end. PUSH=1 turns the
# plugin's push notices on (calshim_notify_urls/_secret options, CALSHIM_CATALOG_NOTIFY_SECRET);
# the default is polling alone.
# Usage: make bench-sync, or e.g. CALSHIM_STATE=/tmp/calshim-wp2 SEED_EVENTS=100000 scripts/bench-sync.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
STATE=${CALSHIM_STATE:-/tmp/calshim-wp}
BULK=${SEED_EVENTS:-100000} IDLE=${IDLE:-60} EDITS=${EDITS:-20}
PORT=${BENCH_PORT:-18090} PROXY_PORT=${BENCH_PROXY_PORT:-18091} PUSH=${PUSH:-0}
[ -f "$STATE/wp.env" ] || { echo "bench-sync: $STATE/wp.env missing: start WordPress (scripts/wp-up.sh)" >&2; exit 1; }
set -a; . "$STATE/wp.env"; set +a
go build -o "$STATE/calshim-bench" "$ROOT/cmd/calshim"
go build -o "$STATE/countproxy" "$ROOT/scripts/countproxy"
SNAP=$STATE/bench-snapshot.gob COUNT=$STATE/bench-proxy.count
shim_pid="" proxy_pid=""
stop_shim() { [ -n "$shim_pid" ] && kill -INT "$shim_pid" 2>/dev/null && wait "$shim_pid" 2>/dev/null || true; shim_pid=""; }
# wp_php runs PHP inside the site as the web server's user, as WP-CLI would.
wp_php() {
  local host=${WP_URL#*://}
  setpriv --reuid=www-data --regid=www-data --init-groups -- php -r "\$_SERVER['HTTP_HOST'] = '${host%:*}';
    \$_SERVER['REQUEST_URI'] = '/'; require '/usr/share/wordpress/wp-load.php'; $1"
}
# Push notices: the plugin notifies calshim (on localhost: the rig blocks other hosts) with this secret.
PUSH_SECRET=bench-sync-push-notice-secret
# The plugin sends notices to an option's URL only when wp-config.php (here a mu-plugin) allows its origin.
push_origins() { echo "$(wp_php 'echo WPMU_PLUGIN_DIR;')/calshim-bench-notify-origins.php"; }
push_options() {
  if [ "$1" = on ]; then
    echo "<?php define( 'CALSHIM_NOTIFY_ALLOWED_ORIGINS', 'http://localhost:$PORT' );" >"$(push_origins)"
    wp_php "update_option( 'calshim_notify_urls', 'http://localhost:$PORT/calshim/notify' );
      update_option( 'calshim_notify_secret', '$PUSH_SECRET' );"
  else
    rm -f "$(push_origins)"
    wp_php "delete_option( 'calshim_notify_urls' ); delete_option( 'calshim_notify_secret' );"
  fi
}
cleanup() {
  stop_shim
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null || true
  push_options off
  SEED_EVENTS=0 "$ROOT/scripts/wp-seed.sh" >/dev/null
}
trap cleanup EXIT

rm -f "$COUNT"
"$STATE/countproxy" "$PROXY_PORT" "$WP_URL" "$COUNT" &
proxy_pid=$!
requests() { cat "$COUNT" 2>/dev/null || echo 0; }
# CPU seconds used so far by WordPress (the PHP server's process group) and by calshim: on a shared
# machine the wall time of a load depends on the others, its CPU time does not.
php_cpu() { awk -v g="$(cat "$STATE/php-server.pid")" '$5==g {s+=$14+$15} END {printf "%.1f", s/100}' /proc/[0-9]*/stat 2>/dev/null; }
shim_cpu() { awk '{printf "%.1f", ($14+$15)/100}' "/proc/$shim_pid/stat"; }
# MariaDB's, which other sites on the machine share: an upper bound of what the load cost it.
db_cpu() { awk '{printf "%.1f", ($14+$15)/100}' "/proc/$(pgrep -xo mariadbd)/stat" 2>/dev/null || echo 0; }

# start_shim starts calshim through the proxy and sets ready_s (seconds until /readyz) and rss (MiB).
start_shim() {
  local t0 t1 secret=""
  [ "$PUSH" = 1 ] && secret=$PUSH_SECRET
  t0=$(date +%s.%N)
  CALSHIM_LISTEN=127.0.0.1:$PORT CALSHIM_LOG_LEVEL=warn CALSHIM_CATALOG_SNAPSHOT=$SNAP CALSHIM_CATALOG_NOTIFY_SECRET=$secret \
    CALSHIM_UPSTREAM_URL=http://127.0.0.1:$PROXY_PORT/wp-json "$STATE/calshim-bench" 2>>"$STATE/bench-sync-shim.log" &
  shim_pid=$!
  until curl -sf -o /dev/null "http://127.0.0.1:$PORT/readyz"; do sleep 0.02; done
  t1=$(date +%s.%N)
  ready_s=$(echo "$t1 - $t0" | bc)
  rss=$(awk '/VmRSS/ {printf "%.0f", $2/1024}' "/proc/$shim_pid/status")
}
listed() {
  curl -s -D - -o /dev/null "http://127.0.0.1:$PORT/wp-json/cal/events/v1/events?per_page=1&start_date=1970-01-02&end_date=2100-01-01" |
    awk -F': ' 'tolower($1)=="x-tec-total" {print $2+0}'
}

echo "== seeding $BULK events"
SEED_EVENTS=$BULK "$ROOT/scripts/wp-seed.sh" | tail -1
rm -f "$SNAP"
if [ "$PUSH" = 1 ]; then push_options on; else push_options off; fi
echo "== cold load"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
p0=$(php_cpu) d0=$(db_cpu)
start_shim; cold_s=$ready_s cold_rss=$rss cold_n=$(listed)
cold_php=$(echo "$(php_cpu) - $p0" | bc) cold_db=$(echo "$(db_cpu) - $d0" | bc) cold_shim=$(shim_cpu)

echo "== idle upstream requests over ${IDLE}s"
sleep 2
r0=$(requests); sleep "$IDLE"; r1=$(requests)
idle_per_min=$(echo "($r1 - $r0) * 60 / $IDLE" | bc)

echo "== freshness: $EDITS edits of every kind"
fresh=$(python3 "$ROOT/scripts/bench-sync.py" freshness "http://127.0.0.1:$PORT" "$EDITS")

echo "== warm restart"
stop_shim
start_shim; warm_s=$ready_s warm_rss=$rss warm_n=$(listed) warm_shim=$(shim_cpu)
stop_shim

push=off
[ "$PUSH" = 1 ] && push=on
cat <<TABLE
| measure (push notices $push) | value |
|---|---|
| events in WordPress (seed + generated) | $cold_n listed after the cold load, $warm_n after the warm restart |
| cold load (no snapshot) until /readyz | ${cold_s} s, RSS ${cold_rss} MiB; CPU: WordPress ${cold_php} s (+ MariaDB, shared: ${cold_db} s), calshim ${cold_shim} s |
| warm restart (snapshot + feed catch-up) until /readyz | ${warm_s} s, RSS ${warm_rss} MiB; CPU: calshim ${warm_shim} s |
| idle upstream requests | ${idle_per_min} per minute (counted by a proxy over ${IDLE} s) |

Freshness of direct WordPress edits (seconds from the edit's answer until calshim shows it):

| kind | edits | p50 | p95 | max |
|---|---|---|---|---|
$fresh
TABLE
echo "load average: $load0 before the cold load, $(cut -d' ' -f1-3 /proc/loadavg) at the end, on $(nproc) cores"
