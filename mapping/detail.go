package mapping

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// storedDate matches the date strings TEC stores and reads back with strtotime: "Y-m-d", optionally
// followed by a time with or without seconds.
var storedDate = regexp.MustCompile(
	`^\s*([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:[ T]([0-9]{1,2}):([0-9]{2})(?::([0-9]{2}))?)?\s*$`)

// parseStoredDate reads a stored "Y-m-d H:i:s" wall time as strtotime does in a UTC process:
// out-of-range days and times roll over (2026-02-30 is 2026-03-02), an impossible month or an
// unreadable string fails.
func parseStoredDate(s string) (time.Time, bool) {
	m := storedDate.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, false
	}

	n := make([]int, 7)
	for i := 1; i <= 6; i++ {
		n[i], _ = strconv.Atoi(m[i])
	}

	if n[2] < 1 || n[2] > 12 || n[3] > 31 || n[4] > 24 || n[5] > 59 || n[6] > 60 {
		return time.Time{}, false
	}

	return time.Date(n[1], time.Month(n[2]), n[3], n[4], n[5], n[6], 0, time.UTC), true
}

// DateDetails is the "*_date_details" object of a stored "Y-m-d H:i:s" date
// (Post_Repository::get_date_details): year, month, day, hour, minutes and seconds as zero-padded
// strings (the Swagger schema says integers; the original sends strings). Like the original's
// strtotime/date pair, it mirrors the stored digits, rolls over out-of-range values and yields the
// Unix epoch ("1970", "01", …) for a missing or unreadable date.
func DateDetails(s string) Object {
	t, ok := parseStoredDate(s)
	if !ok {
		t = time.Unix(0, 0).UTC()
	}

	return Object{
		{"year", t.Format("2006")},
		{"month", t.Format("01")},
		{"day", t.Format("02")},
		{"hour", t.Format("15")},
		{"minutes", t.Format("04")},
		{"seconds", t.Format("05")},
	}
}

// GlobalID is TEC's global ID of a post (Tribe__Utils__Global_ID, type "url"): the home URL without
// its scheme and port — host, path and query kept — with "id=<id>" added as a query argument, e.g.
// GlobalID("http://127.0.0.1:8881", 54) = "127.0.0.1?id=54", GlobalID("https://example.com/blog",
// 3) =
// "example.com/blog?id=3".
func GlobalID(home string, id int) string {
	origin := home
	if u, err := url.Parse(home); err == nil && u.Host != "" {
		host := u.Hostname()
		if strings.Contains(host, ":") {
			host = "[" + host + "]" // IPv6 literal, as wp_parse_url reports it
		}
		origin = host + u.EscapedPath()
		if u.RawQuery != "" {
			origin += "?" + u.RawQuery
		}
	}

	sep := "?"
	if strings.Contains(origin, "?") {
		sep = "&"
	}

	return origin + sep + "id=" + strconv.Itoa(id)
}
