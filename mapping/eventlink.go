package mapping

import (
	"calshim/mapping/php"
	"fmt"
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
		value = phpURLEncode(php.URLDecode(value))
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

// phpURLEncode is PHP's urlencode: a space is "+", every byte but A-Z a-z 0-9 - _ . is %XX.
func phpURLEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
			b.WriteByte('+')
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}

	return b.String()
}
