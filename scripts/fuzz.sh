#!/usr/bin/env bash
# Runs every Go fuzz target of the module for the time given (default 60s) each, and stops at the
# first failure (go test then keeps the failing input under the package's testdata/fuzz, where the
# next `go test` replays it). Only the packages whose test files declare a FuzzXxx are listed with
# `go test -list`: listing runs a package's TestMain, and the black-box suite's starts calshim.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${1:-60s}
GO=${GO:-go}

count=0
while read -r dir pkg; do
	grep -qs '^func Fuzz' "$dir"/*_test.go || continue
	listed=$("$GO" test -list '^Fuzz' "$pkg")
	for name in $(grep '^Fuzz' <<<"$listed"); do
		echo "fuzz: $pkg $name for $fuzztime"
		"$GO" test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" "$pkg"
		count=$((count + 1))
	done
done < <("$GO" list -f '{{.Dir}} {{.ImportPath}}' ./...)

echo "fuzz: $count targets passed"
