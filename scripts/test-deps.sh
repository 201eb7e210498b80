#!/usr/bin/env bash
# Installs the independent iCalendar parsers the black-box suite checks the feed with
# (test/ical_test.go):
#   1. Debian's python3-icalendar, and nodejs + npm (apt-get only when one is missing);
#   2. npm's ical.js into $CALSHIM_STATE/node (npm only when it is not there yet).
# Idempotent; run as root on a fresh Debian machine (make test runs it).
set -euo pipefail
STATE="${CALSHIM_STATE:-/tmp/calshim-wp}"
ICALJS_VERSION="${ICALJS_VERSION:-2.2.1}"
mkdir -p "$STATE"
die() { echo "test-deps: $*" >&2; exit 1; }

missing=()
[ "$(dpkg-query -W -f='${db:Status-Status}' python3-icalendar 2>/dev/null || true)" = installed ] \
  || missing+=(python3-icalendar)
# node and npm by command: a Node.js installed otherwise (its nodejs package bundles npm and
# conflicts with Debian's npm) serves as well.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "test-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  log="$STATE/apt-test-deps.log"
  apt-get -o DPkg::Lock::Timeout=300 update -qq >"$log" 2>&1 || die "apt-get update failed (see $log)"
  apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${missing[@]}" >>"$log" 2>&1 \
    || die "apt-get install failed (see $log)"
fi

NODE_DIR="$STATE/node"
if [ ! -f "$NODE_DIR/node_modules/ical.js/package.json" ]; then
  echo "test-deps: npm install ical.js@$ICALJS_VERSION into $NODE_DIR"
  mkdir -p "$NODE_DIR"
  (cd "$NODE_DIR" && npm install --silent --no-audit --no-fund --cache "$STATE/npm-cache" \
    "ical.js@$ICALJS_VERSION" >"$STATE/npm-test-deps.log" 2>&1) \
    || die "npm install ical.js failed (see $STATE/npm-test-deps.log)"
fi
pyver=$(/usr/bin/python3 -c 'import icalendar; print(icalendar.__version__)')
jsver=$(node -p "require('$NODE_DIR/node_modules/ical.js/package.json').version")
echo "test-deps: python3-icalendar $pyver, ical.js $jsver"
