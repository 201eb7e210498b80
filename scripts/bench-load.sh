#!/usr/bin/env bash
# bench-load.sh — how long calshim takes to be ready and to be current, at SEED_EVENTS (default 100,000)
# generated events, measured in one run and printed beside the previous run's figures:
#   1. cold load (no snapshot file): seconds until /readyz answers 200, RSS after and at its peak, CPU
#      seconds of PHP, MariaDB and calshim, and calshim's own split of the load (its log line "catalog load split": fetch,
#      decode, build);
#   2. restart from the snapshot, nothing changed: seconds until /readyz answers 200 and until it no
#      longer says catching_up (the snapshot confirmed against WordPress);
#   3. restart from an older snapshot after IMPORT (default 90% of SEED_EVENTS) events were added by SQL
#      while calshim was stopped (scripts/seed.php --append, as an importer writes rows): the same two
#      times, and the events listed once converged;
#   4. list latency at SEED_EVENTS (curl, median of 20 each): the default list, an uncached list (a new
#      start_date each time), a date window, a category, a venue, a search; and the snapshot file's size;
#   5. (ROLL=1, the default) a rolling restart of three replicas behind haproxy (scripts/benchroll): how
#      long it took and how long haproxy had fewer than three replicas up.
# WordPress is served by nginx + php-fpm with 4 workers (WP_SERVER=fpm, the default: started here on
# BENCH_WP_PORT in front of the rig's WordPress, php-fpm installed when missing) or the rig's PHP
# built-in server (WP_SERVER=php). The figures are kept in $CALSHIM_STATE/bench-load.last and the next
# run prints them beside its own. BIN=/path/to/calshim measures another build (default: this checkout).
# It reseeds the rig when it does not hold SEED_EVENTS generated events, removes the imported ones at
# the end, and leaves the generated events in place (scripts/wp-seed.sh restores the default seed).
# Usage: make bench-load, or e.g. CALSHIM_STATE=/tmp/calshim-wp2 SEED_EVENTS=1000000 scripts/bench-load.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
STATE=${CALSHIM_STATE:-/tmp/calshim-wp}
N=${SEED_EVENTS:-100000} IMPORT=${IMPORT:-$((${SEED_EVENTS:-100000} * 9 / 10))}
PORT=${BENCH_PORT:-18092} WP_SERVER=${WP_SERVER:-fpm} FPM_PORT=${BENCH_WP_PORT:-18093}
LAST=$STATE/bench-load.last LABEL=${LABEL:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo now)}
[ -f "$STATE/wp.env" ] || { echo "bench-load: $STATE/wp.env missing: start WordPress (scripts/wp-up.sh)" >&2; exit 1; }
set -a; . "$STATE/wp.env"; set +a
BIN=${BIN:-$STATE/calshim-bench-load}
[ "$BIN" = "$STATE/calshim-bench-load" ] && go build -o "$BIN" "$ROOT/cmd/calshim"
SNAP=$STATE/bench-load-snapshot.gob LOG=$STATE/bench-load-shim.log
host=${WP_URL#*://}; host=${host%:*}
shim_pid="" fpm_pid="" nginx_pid=""
declare -A fig

wp_php() {
  setpriv --reuid=www-data --regid=www-data --init-groups -- php -r "\$_SERVER['HTTP_HOST'] = '$host';
    \$_SERVER['REQUEST_URI'] = '/'; require '/usr/share/wordpress/wp-load.php'; $1"
}

# fpm_up serves the rig's WordPress with nginx and a php-fpm pool of 4 workers on $host:$FPM_PORT.
fpm_up() {
  command -v php-fpm8.2 >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends -o DPkg::Lock::Timeout=300 php8.2-fpm >/dev/null
  local d=$STATE/bench-fpm
  mkdir -p "$d/nginx"
  cat >"$d/php-fpm.conf" <<CONF
[global]
error_log = $d/php-fpm.log
daemonize = no
[bench]
user = www-data
group = www-data
listen = $d/php-fpm.sock
listen.owner = www-data
listen.group = www-data
pm = static
pm.max_children = 4
php_admin_value[memory_limit] = 256M
CONF
  cat >"$d/nginx.conf" <<CONF
daemon off;
user www-data;
worker_processes 1;
pid $d/nginx.pid;
error_log $d/nginx-error.log;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $d/nginx/body; fastcgi_temp_path $d/nginx/fastcgi; proxy_temp_path $d/nginx/proxy;
  uwsgi_temp_path $d/nginx/uwsgi; scgi_temp_path $d/nginx/scgi;
  server {
    listen $host:$FPM_PORT;
    root /usr/share/wordpress;
    location /wp-content/ { alias $WP_CONTENT/; }
    location / { try_files \$uri \$uri/ /index.php?\$args; }
    location ~ \.php\$ {
      include /etc/nginx/fastcgi_params;
      fastcgi_param SCRIPT_FILENAME \$document_root\$fastcgi_script_name;
      fastcgi_param HTTP_AUTHORIZATION \$http_authorization;
      fastcgi_buffers 64 64k;
      fastcgi_pass unix:$d/php-fpm.sock;
    }
  }
}
CONF
  php-fpm8.2 -y "$d/php-fpm.conf" -F & fpm_pid=$!
  nginx -c "$d/nginx.conf" & nginx_pid=$!
  UPSTREAM=http://$host:$FPM_PORT/wp-json
  for _ in $(seq 100); do curl -sf -o /dev/null "$UPSTREAM/" && return; sleep 0.1; done
  echo "bench-load: nginx + php-fpm do not answer on $UPSTREAM" >&2; exit 1
}
WP_CONTENT=$(wp_php 'echo WP_CONTENT_DIR;')
stop_shim() { [ -n "$shim_pid" ] && kill -INT "$shim_pid" 2>/dev/null && wait "$shim_pid" 2>/dev/null || true; shim_pid=""; }
cleanup() {
  stop_shim
  for p in $nginx_pid $fpm_pid; do kill "$p" 2>/dev/null || true; done
  [ "${imported:-0}" = 1 ] && remove_import
  true
}
trap cleanup EXIT
remove_import() {
  wp_php "global \$wpdb; \$ids = \$wpdb->get_col( \"SELECT ID FROM {\$wpdb->posts} WHERE post_type = 'tribe_events'
    AND post_name LIKE 'load-test-event-%' ORDER BY ID DESC LIMIT $IMPORT\" );
    foreach ( array_chunk( \$ids, 5000 ) as \$c ) { \$in = implode( ',', \$c );
      \$wpdb->query( \"DELETE FROM {\$wpdb->postmeta} WHERE post_id IN (\$in)\" );
      \$wpdb->query( \"DELETE FROM {\$wpdb->term_relationships} WHERE object_id IN (\$in)\" );
      \$wpdb->query( \"DELETE FROM {\$wpdb->posts} WHERE ID IN (\$in)\" ); }"
  imported=0
}

# CPU seconds so far: PHP (the fpm pool or the built-in server's process group), MariaDB, calshim.
php_cpu() {
  local g
  if [ "$WP_SERVER" = fpm ]; then g=$fpm_pid; else g=$(cat "$STATE/php-server.pid"); fi
  # cat, not awk on the files: awk stops at a process that exited meanwhile (another rig's), cat goes on.
  cat /proc/[0-9]*/stat 2>/dev/null | awk -v g="$g" '$5==g || $4==g {s+=$14+$15} END {printf "%.1f", s/100}'
}
db_cpu() { awk '{printf "%.1f", ($14+$15)/100}' "/proc/$(pgrep -xo mariadbd)/stat" 2>/dev/null || echo 0; }
shim_cpu() { awk '{printf "%.1f", ($14+$15)/100}' "/proc/$shim_pid/stat"; }
status_kb() { awk -v k="$1:" '$1==k {printf "%.0f", $2/1024}' "/proc/$shim_pid/status"; }
readyz() { curl -s "http://127.0.0.1:$PORT/readyz" 2>/dev/null || true; }

# start_shim starts calshim and sets ready_s (until /readyz answers 200) and converged_s (until it no
# longer says catching_up; a build without the flag is converged when ready).
start_shim() {
  local t0 body
  t0=$(date +%s.%N)
  CALSHIM_LISTEN=127.0.0.1:$PORT CALSHIM_LOG_LEVEL=info CALSHIM_CATALOG_SNAPSHOT=$SNAP CALSHIM_UPSTREAM_URL=$UPSTREAM \
    CALSHIM_UPSTREAM_TIMEOUT=120s CALSHIM_SHUTDOWN_DRAIN=0s "$BIN" 2>>"$LOG" >/dev/null &
  shim_pid=$!
  until curl -sf -o /dev/null "http://127.0.0.1:$PORT/readyz"; do sleep 0.02; done
  ready_s=$(echo "$(date +%s.%N) - $t0" | bc)
  while body=$(readyz) && [[ $body == *'"catching_up":true'* ]]; do sleep 0.05; done
  converged_s=$(echo "$(date +%s.%N) - $t0" | bc)
}
listed() {
  curl -s -D - -o /dev/null "http://127.0.0.1:$PORT/wp-json/cal/events/v1/events?per_page=1&start_date=1970-01-02&end_date=2100-01-01" |
    awk -F': ' 'tolower($1)=="x-tec-total" {print $2+0}'
}
# median_ms PATH-PREFIX: the median time of 20 requests, each with a distinct suffix when the prefix ends
# in "=" (no response cache has seen it).
median_ms() {
  local i suffix
  for i in $(seq 1 20); do
    suffix=""; [[ $1 == *= ]] && suffix="2027-01-$(printf %02d $((i % 28 + 1)))"
    curl -s -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$PORT/wp-json/cal/events/v1/$1$suffix"
  done | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)]*1000}'
}

generated=$(wp_php "global \$wpdb; echo \$wpdb->get_var( \"SELECT COUNT(*) FROM {\$wpdb->posts} WHERE post_name LIKE 'load-test-event-%' AND post_type = 'tribe_events'\" );")
if [ "$generated" != "$N" ]; then
  echo "== seeding $N events (the rig holds $generated)"
  SEED_EVENTS=$N "$ROOT/scripts/wp-seed.sh" | tail -1
fi
if [ "$WP_SERVER" = fpm ]; then fpm_up; else UPSTREAM=$WP_URL/wp-json; fi
: >"$LOG"

echo "== cold load of $N events ($WP_SERVER)"
rm -f "$SNAP"
p0=$(php_cpu) d0=$(db_cpu)
start_shim
fig[cold_s]=$ready_s
# /readyz answers once the catalog is published; the load then hands its garbage back to the system and
# logs its split: the RSS after the load is read then (up to 5 minutes: a million events take that long).
for _ in $(seq 1500); do grep -aq '"catalog load split"' "$LOG" && break; sleep 0.2; done
fig[cold_rss]="$(status_kb VmRSS) / $(status_kb VmHWM)"
fig[cold_cpu]="$(echo "$(php_cpu) - $p0" | bc) / $(echo "$(db_cpu) - $d0" | bc) / $(shim_cpu)"
fig[cold_split]=$(grep -a '"catalog load split"' "$LOG" | tail -1 | grep -o '"fetch_s":[0-9.]*,"decode_s":[0-9.]*,"build_s":[0-9.]*' |
  tr -d '"' | sed 's/_s:/ /g; s/,/ s, /g; s/$/ s/' || true)
fig[listed]=$(listed)
fig[lat_list]=$(median_ms 'events?per_page=10')
fig[lat_uncached]=$(median_ms 'events?per_page=10&start_date=')
fig[lat_window]=$(median_ms 'events?per_page=10&end_date=2027-02-28&start_date=')
fig[lat_category]=$(median_ms 'events?per_page=10&categories=music&start_date=')
fig[lat_venue]=$(median_ms "events?per_page=10&venue=$(curl -s "http://127.0.0.1:$PORT/wp-json/cal/events/v1/venues?per_page=1" |
  grep -o '"id":[0-9]*' | head -1 | cut -d: -f2)&start_date=")
fig[lat_search]=$(median_ms 'events?per_page=10&search=Event%20000&start_date=')

echo "== restart, nothing changed"
stop_shim
start_shim
fig[warm_ready]=$ready_s fig[warm_converged]=$converged_s fig[warm_rss]="$(status_kb VmRSS) / $(status_kb VmHWM)"
fig[snap_mb]=$(awk -v b="$(stat -c %s "$SNAP" 2>/dev/null || echo 0)" 'BEGIN {printf "%.0f", b/1048576}')

echo "== restart after $IMPORT events were added by SQL while calshim was stopped"
stop_shim
imported=1
SEED_EVENTS=0 "$ROOT/scripts/wp-seed.sh" --append "$IMPORT" | tail -1
start_shim
fig[import_ready]=$ready_s fig[import_converged]=$converged_s fig[import_listed]=$(listed)
fig[import_rss]="$(status_kb VmRSS) / $(status_kb VmHWM)"
stop_shim
remove_import

if [ "${ROLL:-1}" = 1 ]; then
  echo "== rolling restart of three replicas behind haproxy"
  roll=$(cd "$ROOT" && go run ./scripts/benchroll -bin "$BIN" -wp "${UPSTREAM%/wp-json}" -user "$CALSHIM_UPSTREAM_USER" \
    -password "$CALSHIM_UPSTREAM_APP_PASSWORD" | tail -1)
  echo "$roll"
  fig[roll]=$(echo "$roll" | sed 's/rolling restart: \([0-9.]*\) s, of which \([0-9.]*\) s.*/\1 s, \2 s with fewer than 3 up/')
fi

declare -A prev
[ -f "$LAST" ] && while IFS=$'\t' read -r k v; do prev[$k]=$v; done <"$LAST"
row() { printf '| %s | %s | %s |\n' "$1" "${prev[$2]:-}" "${fig[$2]:-}"; }
echo
echo "| $N events, WordPress on $WP_SERVER | previous (${prev[label]:-none}) | now ($LABEL) |"
echo "|---|---|---|"
row "events listed after the cold load" listed
row "cold load until /readyz, s" cold_s
row "cold load: RSS after / peak, MiB" cold_rss
row "cold load CPU: PHP / MariaDB (shared) / calshim, s" cold_cpu
row "cold load split (calshim's log)" cold_split
row "restart, nothing changed: ready, s" warm_ready
row "restart, nothing changed: converged, s" warm_converged
row "restart: RSS / peak, MiB" warm_rss
row "snapshot file, MiB" snap_mb
row "restart after $IMPORT added by SQL: ready, s" import_ready
row "restart after $IMPORT added by SQL: converged, s" import_converged
row "  events listed then" import_listed
row "  RSS / peak, MiB" import_rss
row "list, ms (median of 20)" lat_list
row "uncached list, ms" lat_uncached
row "date window (start_date to 2027-02-28), ms" lat_window
row "category, ms" lat_category
row "venue, ms" lat_venue
row "search, ms" lat_search
row "rolling restart of 3 replicas: took, reduced" roll
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
fig[label]=$LABEL
for k in "${!fig[@]}"; do printf '%s\t%s\n' "$k" "${fig[$k]}"; done >"$LAST"
