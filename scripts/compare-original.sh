#!/usr/bin/env bash
# compare-original.sh — differential harness: the same requests to the original plugin (The Events
# Calendar, tribe/events/v1 on the rig's WordPress) and to calshim, every difference reported.
# A development tool only: never part of make test or CI (they cannot fetch the original).
#
# Usage (as root, the rig up: scripts/wp-up.sh):
#   scripts/compare-original.sh [--seed] [--writes] [--reseed-writes] [--seeds "1 2 3"] [--n 2000]
#                               [-- extra driver flags]
#   --seed           reseed the rig first (scripts/wp-seed.sh, then the original's sync.php). It changes
#                    the data every user of the shared rig sees: announced by /tmp/calshim-wp/RESEEDING.
#   --writes         also replay the write sequence; without --reseed-writes the calshim run works on
#                    the data the original's run left (cleaned up, but IDs and slugs drift)
#   --reseed-writes  reseed between the original's and calshim's write runs (the validated comparison:
#                    each site on its own copy of the same data); calshim is restarted after it
#   --seeds LIST     seeds of the random GETs (default "1 2 3"); --n N requests per seed (default 2000)
#   --no-reads       skip the random GETs
#   reseed-hook      (internal) what the driver runs between the two write runs
# Environment:
#   ORIGINAL_DIR     the original's build kit (default /work/shared/original): build.sh, install.sh, sync.php
#   MIRROR           mirrored repositories for build.sh, when the original is not installed yet
#   CALSHIM_PORT     port of the calshim started here (default 8090); ORIGINAL_URL (default from wp.env)
#   OUT              where reports go (default /work): harness-report-<seed>.txt/.json, harness-writes.*
#   KEEP_ORIGINAL=1  leave the original active afterwards (by default a run that activated it deactivates it)
# What it does: installs/activates the original if /wp-json/tribe/events/v1/ does not answer (build.sh with
# MIRROR when no build exists), optionally reseeds, builds calshim from this checkout and starts it on
# CALSHIM_PORT (the rig's reader credential, 1 s polls), runs the Go driver (scripts/compare) once per seed,
# then the write sequence, and stops calshim. The driver's own flags: go run ./scripts/compare -h.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
STATE=${CALSHIM_STATE:-/tmp/calshim-wp}
ORIGINAL_DIR=${ORIGINAL_DIR:-/work/shared/original}
PORT=${CALSHIM_PORT:-8090}
OUT=${OUT:-/work}
mkdir -p "$OUT" # the driver writes its reports there only after its requests
PIDFILE=$STATE/compare-calshim-$PORT.pid
GO=$(command -v go || echo /usr/local/go/bin/go)

[ -f "$STATE/wp.env" ] || { echo "compare: $STATE/wp.env missing: run scripts/wp-up.sh first" >&2; exit 1; }
set -a; . "$STATE/wp.env"; set +a
ORIGINAL_URL=${ORIGINAL_URL:-$WP_URL}

asweb() { if [ "$(id -u)" = 0 ]; then runuser -u www-data --preserve-environment -- "$@"; else "$@"; fi; }

original_up() {
  [ "$(curl -s -o /dev/null -w '%{http_code}' "$ORIGINAL_URL/wp-json/tribe/events/v1/")" = 200 ]
}

ACTIVATED=0
ensure_original() {
  original_up && return 0
  ACTIVATED=1
  local build=${TEC_BUILD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/original-plugin}/the-events-calendar
  if [ ! -f "$build/the-events-calendar.php" ]; then
    [ -n "${MIRROR:-}" ] || { echo "compare: no original build: set MIRROR (see $ORIGINAL_DIR/README.md)" >&2; exit 1; }
    MIRROR=$MIRROR "$ORIGINAL_DIR/build.sh"
  fi
  SITE=$ORIGINAL_URL "$ORIGINAL_DIR/install.sh" activate
}

# reseed: the shared rig's data anew, announced to the other users of the rig while it happens.
reseed() {
  local rc=0 host=${WP_URL#http://}
  touch "$STATE/RESEEDING"
  { "$ROOT/scripts/wp-seed.sh" &&
    (cd /tmp && asweb env WP_LOAD=/usr/share/wordpress/wp-load.php WP_HOST="${host%%[:/]*}" \
      php "$ORIGINAL_DIR/sync.php" 2>&1 | grep '^sync: [0-9]'); } || rc=$?
  rm -f "$STATE/RESEEDING"
  return $rc
}

start_calshim() {
  stop_calshim
  (cd "$ROOT" && "$GO" build -o bin/calshim ./cmd/calshim)
  # No drain on stop: nothing balances load onto it, and a restart reuses the port at once.
  CALSHIM_LISTEN=127.0.0.1:$PORT CALSHIM_CATALOG_POLL_INTERVAL=1s CALSHIM_SHUTDOWN_DRAIN=0s \
    nohup "$ROOT/bin/calshim" >"$STATE/compare-calshim-$PORT.log" 2>&1 &
  echo $! >"$PIDFILE"
  # Ready from a snapshot file is not yet caught up with the rig (it may hold another run's data): the
  # comparison starts once /readyz no longer says catching_up.
  for _ in $(seq 1 240); do
    curl -sf "http://127.0.0.1:$PORT/readyz" | grep -q '"catching_up":false' && return 0
    sleep 0.5
  done
  echo "compare: calshim did not get ready (see $STATE/compare-calshim-$PORT.log)" >&2; exit 1
}

stop_calshim() {
  [ -f "$PIDFILE" ] || return 0
  local pid; pid=$(cat "$PIDFILE")
  kill "$pid" 2>/dev/null || true
  # the port is free once the process has exited
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "$PIDFILE"
}

if [ "${1:-}" = reseed-hook ]; then
  reseed; start_calshim; exit 0
fi

SEED=0; WRITES=0; RESEED_WRITES=0; READS=1; SEEDS="1 2 3"; N=2000; EXTRA=()
while [ $# -gt 0 ]; do
  case $1 in
    --seed) SEED=1 ;;
    --writes) WRITES=1 ;;
    --reseed-writes) WRITES=1; RESEED_WRITES=1 ;;
    --no-reads) READS=0 ;;
    --seeds) SEEDS=$2; shift ;;
    --n) N=$2; shift ;;
    --) shift; EXTRA=("$@"); break ;;
    *) echo "compare: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
  esac
  shift
done

# The original stays active only for this run (KEEP_ORIGINAL=1 keeps it): the rig's other users, the tests
# first, expect calshim alone (scripts/wp-up.sh deactivates what it finds active anyway).
finish() {
  stop_calshim
  if [ "$ACTIVATED" = 1 ] && [ "${KEEP_ORIGINAL:-0}" != 1 ]; then
    SITE=$ORIGINAL_URL "$ORIGINAL_DIR/install.sh" deactivate || true
  fi
}
trap finish EXIT
ensure_original
[ "$SEED" = 1 ] && reseed
start_calshim

(cd "$ROOT" && "$GO" build -o bin/compare ./scripts/compare)
DRIVER=("$ROOT/bin/compare" -calshim "http://127.0.0.1:$PORT" -original "$ORIGINAL_URL" -env "$STATE/wp.env")

if [ "$READS" = 1 ]; then
  for s in $SEEDS; do
    "${DRIVER[@]}" -seed "$s" -n "$N" -report "$OUT/harness-report-$s.txt" -json "$OUT/harness-report-$s.json" \
      "${EXTRA[@]}"
  done
fi

if [ "$WRITES" = 1 ]; then
  hook=()
  [ "$RESEED_WRITES" = 1 ] && hook=(-reseed "CALSHIM_PORT=$PORT $ROOT/scripts/compare-original.sh reseed-hook")
  "${DRIVER[@]}" -writes -seed-ids "$STATE/seed-ids.json" "${hook[@]}" -report "$OUT/harness-writes.txt" \
    -json "$OUT/harness-writes.json" "${EXTRA[@]}"
fi
