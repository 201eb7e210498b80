package shadow

import (
	"net/url"
	"strconv"
	"strings"
)

// LogLine is what the replay reads of an access log line.
type LogLine struct {
	Method string
	Target string // the request URI as logged
	Status int
	User   string // the authenticated user ("-" in the log: "")
}

// ParseLogLine reads a line in the combined log format of nginx and Apache:
//
//	host ident user [time] "METHOD target PROTO" status bytes "referer" "agent"
//
// (the common format, without referer and agent, too). ok is false when the line is not one.
// Both servers escape a quote inside the request line (nginx \x22, Apache \"), so the request ends
// at the first unescaped quote.
func ParseLogLine(line string) (l LogLine, ok bool) {
	fields := strings.SplitN(line, " ", 4) // host ident user rest
	if len(fields) < 4 {
		return l, false
	}
	if fields[2] != "-" {
		l.User = fields[2]
	}

	rest := fields[3]
	if !strings.HasPrefix(rest, "[") {
		return l, false
	}
	end := strings.Index(rest, "] \"")
	if end < 0 {
		return l, false
	}
	rest = rest[end+3:]

	request, after, ok := cutQuoted(rest)
	if !ok {
		return l, false
	}
	parts := strings.Split(request, " ") // HTTP's request line: spaces only between its parts
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return l, false
	}
	l.Method, l.Target = parts[0], parts[1]

	status, _, _ := strings.Cut(strings.TrimPrefix(after, " "), " ")
	if l.Status, ok = atoiStatus(status); !ok {
		return l, false
	}

	return l, true
}

// cutQuoted splits s at the first quote no backslash escapes: the quoted text, the rest after it.
func cutQuoted(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return s[:i], s[i+1:], true
		}
	}

	return "", "", false
}

func atoiStatus(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 100 && n <= 999
}

// Namespaces are the namespaces the replay picks requests of: the original's and calshim's own.
var Namespaces = []string{Namespace, "cal/events/v1"}

// QueryOf reads a logged target as a request of the v1 API: /wp-json/{ns}/… (restRoot) or
// ?rest_route=/{ns}/… (at / or /index.php), ns one of Namespaces. ok is false for anything else
// (another API, a page, calshim's own iCalendar routes or sync tokens, which the original lacks).
func QueryOf(target, restRoot string) (q Query, ok bool) {
	u, err := url.ParseRequestURI(target)
	if err != nil || !strings.HasPrefix(target, "/") { // the absolute form is a proxy's request
		return q, false
	}

	var below string
	if u.Path == "/" || u.Path == "/index.php" {
		values, err := url.ParseQuery(u.RawQuery)
		if err != nil || values.Get("rest_route") == "" {
			return q, false
		}
		below = (&url.URL{Path: values.Get("rest_route")}).EscapedPath() // the original is asked at a path
	} else if rest, found := strings.CutPrefix(u.EscapedPath(), restRoot+"/"); found { // as sent: %25 stays
		below = "/" + rest
	} else {
		return q, false
	}

	below = strings.TrimSuffix(below, "/")
	for _, ns := range Namespaces {
		if !strings.EqualFold(below, "/"+ns) && !strings.HasPrefix(strings.ToLower(below), "/"+ns+"/") {
			continue
		}
		q = Query{Target: target, NS: below[1 : len(ns)+1], Path: below[len(ns)+1:],
			Query: WithoutParam(u.RawQuery, "rest_route")}
		q.Route = "GET " + Template(q.Path)
		own := strings.HasSuffix(strings.ToLower(q.Path), ".ics") || strings.Contains(u.RawQuery, "sync_token=")
		return q, !own
	}

	return q, false
}

// Template names the route of a path below the namespace as the deliberate table does: numbers
// are {id}, what follows by-slug is {slug} ("/events/by-slug/jazz" → "/events/by-slug/{slug}").
func Template(path string) string {
	segs := strings.Split(strings.ToLower(strings.Trim(path, "/")), "/")
	for i, s := range segs {
		switch {
		case i > 0 && segs[i-1] == "by-slug":
			segs[i] = "{slug}"
		case s != "" && strings.Trim(s, "0123456789") == "":
			segs[i] = "{id}"
		}
	}

	return "/" + strings.Join(segs, "/")
}

// WithoutParam drops a parameter from a raw query, leaving the others as they were written.
func WithoutParam(raw, name string) string {
	var kept []string
	for _, p := range strings.Split(raw, "&") {
		if p != "" && p != name && !strings.HasPrefix(p, name+"=") {
			kept = append(kept, p)
		}
	}

	return strings.Join(kept, "&")
}
