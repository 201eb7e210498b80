#!/usr/bin/env bash
# record.sh — record the wp/v2 answers calshim's catalog reads, from the real WordPress rig, into
# cmsclient/testdata/wp/ for the unit tests (served back by internal/testkit/wpfake).
#
#   scripts/wp-up.sh && scripts/wp-seed.sh     # a freshly seeded rig: record the seed's data set only
#   cmsclient/testdata/record.sh               # then review `git diff --stat` and commit
#
# Every request is made as the catalog makes it: as the read-only service user (CALSHIM_UPSTREAM_USER /
# CALSHIM_UPSTREAM_APP_PASSWORD from $CALSHIM_STATE/wp.env), with the catalog's query parameters. Bodies are
# stored byte for byte; manifest.tsv lists, per file, the status, X-WP-Total, X-WP-TotalPages and the request.
# The only trimming is server-side, on the REST index: _fields drops its 220 KB route table, which calshim
# never reads. Credentials never reach the files (responses do not echo them).
#
# The seed dates everything from "today" and numbers the posts it adds to the original recording's data
# set anew on every run: after re-recording, only the pinned dates in cmsclient/decode_test.go change
# (tests find the added posts by slug).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$HERE/wp}
STATE=${CALSHIM_STATE:-/tmp/calshim-wp}
[ -f "$STATE/wp.env" ] || { echo "record: $STATE/wp.env missing: run scripts/wp-up.sh and scripts/wp-seed.sh first" >&2; exit 1; }
. "$STATE/wp.env"
command -v jq >/dev/null || { echo "record: jq is needed (apt-get install jq)" >&2; exit 1; }
ROOT=${CALSHIM_UPSTREAM_URL:-$WP_URL/wp-json}
READER="$CALSHIM_UPSTREAM_USER:$CALSHIM_UPSTREAM_APP_PASSWORD"
STATUSES=publish,future,draft,pending,private,trash
mkdir -p "$OUT"
manifest=$OUT/manifest.tsv.tmp
printf '# file\tstatus\tx-wp-total\tx-wp-totalpages\trequest (relative to the REST root; recorded by record.sh)\n' >"$manifest"

# record FILE AUTH PATH: GET $ROOT$PATH as AUTH ("reader" or "anonymous") into $OUT/FILE.
record() {
	local file=$1 auth=$2 path=$3 headers status total pages
	headers=$(mktemp)
	local creds=()
	[ "$auth" = reader ] && creds=(-u "$READER")
	status=$(curl -sS "${creds[@]}" -D "$headers" -o "$OUT/$file" -w '%{http_code}' "$ROOT$path")
	total=$(tr -d '\r' <"$headers" | awk -F': ' 'tolower($1)=="x-wp-total"{print $2}')
	pages=$(tr -d '\r' <"$headers" | awk -F': ' 'tolower($1)=="x-wp-totalpages"{print $2}')
	rm -f "$headers"
	printf '%s\t%s\t%s\t%s\t%s %s\n' "$file" "$status" "${total:--}" "${pages:--}" "$auth" "$path" >>"$manifest"
	echo "record: $status $path -> $file" >&2
}

record index.json reader '/?_fields=name,description,url,home,gmt_offset,timezone_string,namespaces,calshim'
for type in tribe_events tribe_venue tribe_organizer; do
	record "$type.json" reader "/wp/v2/$type?status=$STATUSES&orderby=id&order=asc&per_page=100&page=1"
done
record tribe_events_cat.json reader '/wp/v2/tribe_events_cat?hide_empty=false&per_page=100&page=1'
record tags.json reader '/wp/v2/tags?hide_empty=false&per_page=100&page=1'
# The featured images the posts use, as the catalog asks for them.
media=$(jq -s -r '[.[][] | .featured_media | select(. > 0)] | unique | map(tostring) | join(",")' \
	"$OUT/tribe_events.json" "$OUT/tribe_venue.json" "$OUT/tribe_organizer.json")
record media.json reader "/wp/v2/media?include=${media//,/%2C}&per_page=100&page=1"
# Error answers, for the client's error typing.
record error-400-per-page.json reader '/wp/v2/tribe_events?per_page=1000'
record error-401-context-edit.json anonymous '/wp/v2/tribe_events?context=edit'
record error-403-settings.json reader '/wp/v2/settings'
record error-404-no-route.json reader '/wp/v2/no-such-route'
mv "$manifest" "$OUT/manifest.tsv"

# Only the seed: posts and terms left behind by other tests (black-box tests create and delete some) would
# make the fixtures differ from run to run.
if [ -f "$STATE/seed-ids.json" ] && [ -z "${FORCE:-}" ]; then
	extra=$(jq -r --slurpfile seed "$STATE/seed-ids.json" '
		($seed[0] | [.events, .venues, .organizers, .categories, .tags, .media] | map(values[]) ) as $ids
		| [.[] | select(.id as $id | $ids | index($id) | not) | "\(.id) \(.slug)"] | .[]' \
		"$OUT"/tribe_events.json "$OUT"/tribe_venue.json "$OUT"/tribe_organizer.json \
		"$OUT"/tribe_events_cat.json "$OUT"/tags.json "$OUT"/media.json)
	if [ -n "$extra" ]; then
		echo "record: not from the seed (reseed with scripts/wp-seed.sh, or FORCE=1 to keep them):" >&2
		echo "$extra" >&2
		exit 1
	fi
fi
