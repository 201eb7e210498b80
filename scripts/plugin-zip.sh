#!/usr/bin/env bash
# plugin-zip.sh — packages the WordPress plugin for Plugins > Add New > Upload Plugin: a zip holding
# calshim/calshim.php (the loader), its classes (calshim/calshim/class-calshim-*.php) and calshim/readme.txt,
# as they are in cmsclient/wordpress/ and in a must-use install, written to bin/calshim-plugin.zip or to
# the path given as the first argument. Refuses when the plugin's version and the readme's stable tag differ.
# Needs python3 (its zipfile module), which every Debian has; no zip package.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SRC=$ROOT/cmsclient/wordpress
OUT=${1:-$ROOT/bin/calshim-plugin.zip}

version=$(sed -n 's/^ \* Version: *//p' "$SRC/calshim.php" | head -n1) # the header's; doc comments below may say "Version:" too
stable=$(sed -n 's/^Stable tag: *//p' "$SRC/readme.txt")
[ -n "$version" ] && [ "$version" = "$stable" ] \
  || { echo "plugin-zip: calshim.php says Version $version, readme.txt Stable tag $stable" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/calshim"
cp "$SRC/calshim.php" "$SRC/readme.txt" "$stage/calshim/"
mkdir "$stage/calshim/calshim"
cp "$SRC"/calshim/class-calshim-*.php "$stage/calshim/calshim/"
mkdir -p "$(dirname "$OUT")"
rm -f "$OUT"
OUT=$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")
(cd "$stage" && python3 -m zipfile -c "$OUT" calshim/)
echo "plugin-zip: $OUT (calshim bridge $version)"
