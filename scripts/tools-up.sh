#!/usr/bin/env bash
# tools-up.sh — installs the Debian packages the replica, routing, image and edge cache tests use, when
# missing: haproxy (the load balancer of test/replicas_test.go and scripts/soak.sh, and with nginx the
# front of test/routing_test.go, which checks deploy/routing/), podman (builds the container image in
# test/image_test.go; running containers is not possible on these machines), and varnish with
# varnish-modules (the edge cache with xkey purges of test/varnish_test.go).
# Idempotent: a second run only checks dpkg. Runs as root (apt-get), like scripts/wp-up.sh.
# For test machines only (make test, make soak): it stops Debian's own haproxy, varnish and nginx services,
# which the tests replace with their own. No operator target runs it (make image installs podman alone).
set -euo pipefail

STATE=${CALSHIM_STATE:-/tmp/calshim-wp}
PKGS=(haproxy nginx podman varnish varnish-modules)

missing=()
for p in "${PKGS[@]}"; do
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

[ "$(id -u)" = 0 ] || { echo "tools-up: run as root to install ${missing[*]}" >&2; exit 1; }
mkdir -p "$STATE"
echo "tools-up: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=300 update -qq >"$STATE/apt-tools.log" 2>&1 || { echo "tools-up: apt-get update failed (see $STATE/apt-tools.log)" >&2; exit 1; }
apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${missing[@]}" >>"$STATE/apt-tools.log" 2>&1 \
  || { echo "tools-up: apt-get install failed (see $STATE/apt-tools.log)" >&2; exit 1; }
# Debian starts haproxy's and varnish's own services where systemd runs; the tests start their own.
for svc in haproxy varnish; do
  if pgrep -x "${svc}d" >/dev/null || pgrep -x "$svc" >/dev/null; then
    command -v systemctl >/dev/null && systemctl stop "$svc" >/dev/null 2>&1 || true
  fi
done
# Likewise nginx's, on port 80: the routing test starts its own nginx with its own prefix.
if [ -s /run/nginx.pid ] && kill -0 "$(cat /run/nginx.pid)" 2>/dev/null; then
  if command -v systemctl >/dev/null && systemctl stop nginx >/dev/null 2>&1; then :; else nginx -s quit 2>/dev/null || true; fi
fi
