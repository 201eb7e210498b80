package mapping

import (
	"calshim/mapping/php"
	"strings"
)

// eventLDLink is the url TEC's JSON-LD gives an event (tribe_get_event_link): the permalink with a
// trailing slash, passed through add_query_arg. A permalink with a query string (drafts, pending
// and scheduled events have "?post_type=tribe_events&p=39") therefore gets its slash inside the
// last value, re-encoded, and another after it: "?post_type=tribe_events&p=39%2F/".
func eventLDLink(permalink string) string {
	link := trailingSlash(permalink)
	base, query, hasQuery := strings.Cut(link, "?")
	if !hasQuery {
		return link
	}

	var pairs []string
	for _, part := range strings.Split(query, "&") {
		if part == "" {
			continue
		}
		key, value, _ := strings.Cut(part, "=")
		value = php.URLEncode(php.URLDecode(value))
		if value == "" {
			pairs = append(pairs, key) // add_query_arg drops the "=" of empty values
			continue
		}
		pairs = append(pairs, key+"="+value)
	}

	return trailingSlash(base + "?" + strings.Join(pairs, "&"))
}

// trailingSlash is WordPress' trailingslashit.
func trailingSlash(s string) string { return strings.TrimRight(s, "/\\") + "/" }
