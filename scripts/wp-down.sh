#!/usr/bin/env bash
# wp-down.sh — stop the calshim WordPress test rig started by scripts/wp-up.sh.
#   (no argument)  stop the PHP built-in server (its whole process group: master and workers)
#   --all          also stop MariaDB (mysqladmin shutdown)
# Only the processes wp-up.sh started are touched (by the pid recorded in $CALSHIM_STATE/php-server.pid).
set -euo pipefail
STATE=${CALSHIM_STATE:-/tmp/calshim-wp}
all=false
case ${1:-} in
  --all) all=true ;;
  "") ;;
  *) echo "usage: $0 [--all]" >&2; exit 2 ;;
esac

pidfile=$STATE/php-server.pid
if pid=$(cat "$pidfile" 2>/dev/null) && kill -0 "$pid" 2>/dev/null; then
  # wp-up.sh starts the server with setsid, so its pid is also its process-group id.
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  if kill -0 "$pid" 2>/dev/null; then kill -KILL -- "-$pid" 2>/dev/null || true; fi
  echo "wp-down: PHP server (pid $pid) stopped"
else
  echo "wp-down: PHP server not running"
fi
rm -f "$pidfile" "$STATE/php-server.port"

if $all; then
  if mysqladmin --protocol=socket --socket=/run/mysqld/mysqld.sock -uroot ping >/dev/null 2>&1; then
    mysqladmin --protocol=socket --socket=/run/mysqld/mysqld.sock -uroot shutdown
    echo "wp-down: MariaDB stopped"
  else
    echo "wp-down: MariaDB not running"
  fi
fi
