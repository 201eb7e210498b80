#!/usr/bin/env bash
# wp-seed.sh — (re)create calshim's test calendar in the running rig (scripts/wp-up.sh first).
# Runs scripts/seed.php with php-cli as www-data (the web server's user, so uploads belong to it).
#   scripts/wp-seed.sh [--events N]     N bulk events for load tests (or env SEED_EVENTS=N)
# Writes the IDs it created to $CALSHIM_STATE/seed-ids.json ({kind: {key: id}}) and prints counts.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
STATE=${CALSHIM_STATE:-/tmp/calshim-wp}
[ -f "$STATE/wp.env" ] || { echo "wp-seed: $STATE/wp.env missing: run scripts/wp-up.sh first" >&2; exit 1; }
. "$STATE/wp.env"
host=${WP_URL#http://}; host=${host%%:*}
# A copy in the state dir: the checkout may not be readable by www-data.
install -m 644 "$ROOT/scripts/seed.php" "$STATE/seed.php"
touch "$STATE/seed-ids.json" && chown www-data:www-data "$STATE/seed-ids.json"
cd /tmp
exec setpriv --reuid=www-data --regid=www-data --init-groups -- \
  env SEED_EVENTS="${SEED_EVENTS:-0}" php -d memory_limit=1024M "$STATE/seed.php" --host "$host" --out "$STATE/seed-ids.json" "$@"
