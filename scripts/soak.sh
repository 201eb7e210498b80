#!/usr/bin/env bash
# soak.sh — 10 minutes of reads and writes through three calshim replicas behind haproxy, with
# WordPress stopped and started twice and one replica killed (scripts/soak/main.go). Reports failed
# reads (goal 0), writes reported as done that WordPress does not have (goal 0), and each replica's
# RSS every 30 s. Needs the rig (make seed) and haproxy (scripts/tools-up.sh); uses the ports
# SOAK_BASE_PORT..+7 (default 18160). Not part of make test.
#
#   scripts/soak.sh [-duration 10m]      (with the rig's CALSHIM_STATE/WP_* exports, as make test)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
GO=${GO:-$(command -v go || echo /usr/local/go/bin/go)}
"$GO" build -o bin/calshim ./cmd/calshim
"$GO" build -o bin/soak ./scripts/soak
exec bin/soak -bin bin/calshim -base-port "${SOAK_BASE_PORT:-18160}" "$@"
