#!/usr/bin/env bash
# Runs every Go fuzz target of the module for the time given (default 60s) each, and stops at the
# first failure (go test then keeps the failing input under the package's testdata/fuzz, where the
# next `go test` replays it). Only the packages whose test files declare a FuzzXxx are listed with
# `go test -list`: listing runs a package's TestMain, and the black-box suite's starts calshim.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${1:-60s}
GO=${GO:-go}

# fuzz_one runs one target. Go's fuzzer sometimes ends a run with "context deadline exceeded" and no
# failing input when the time runs out while a worker is busy (a loaded machine, a short time): that
# is no finding, so the run is repeated once; a real failure names its input under testdata/fuzz.
fuzz_one() {
	local out
	if out=$("$GO" test -run '^$' -fuzz "^$2\$" -fuzztime "$fuzztime" "$1" 2>&1); then
		echo "$out"
		return
	fi
	echo "$out"
	if grep -q 'context deadline exceeded' <<<"$out" && ! grep -q 'Failing input' <<<"$out"; then
		echo "fuzz: $2 ran out of time without a finding; once more"
		"$GO" test -run '^$' -fuzz "^$2\$" -fuzztime "$fuzztime" "$1"
		return
	fi
	return 1
}

count=0
while read -r dir pkg; do
	grep -qs '^func Fuzz' "$dir"/*_test.go || continue
	listed=$("$GO" test -list '^Fuzz' "$pkg")
	for name in $(grep '^Fuzz' <<<"$listed"); do
		echo "fuzz: $pkg $name for $fuzztime"
		fuzz_one "$pkg" "$name"
		count=$((count + 1))
	done
done < <("$GO" list -f '{{.Dir}} {{.ImportPath}}' ./...)

echo "fuzz: $count targets passed"
