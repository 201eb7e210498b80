package shadow

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseLogLine(t *testing.T) {
	for _, tc := range []struct {
		line string
		want LogLine
		ok   bool
	}{
		{`203.0.113.7 - - [28/Nov/2026:10:00:01 +0000] "GET /wp-json/tribe/events/v1/events?page=2 HTTP/1.1" 200 5120 "-" "curl/8.5"`,
			LogLine{Method: "GET", Target: "/wp-json/tribe/events/v1/events?page=2", Status: 200}, true},
		{`::1 - editor [28/Nov/2026:10:00:01 +0000] "POST /wp-json/tribe/events/v1/events HTTP/2.0" 201 99 "-" "x"`,
			LogLine{Method: "POST", Target: "/wp-json/tribe/events/v1/events", Status: 201, User: "editor"}, true},
		// Apache's common format: no referer, no agent.
		{`10.0.0.1 - - [28/Nov/2026:10:00:01 +0000] "GET /?rest_route=/tribe/events/v1/events/17 HTTP/1.0" 404 12`,
			LogLine{Method: "GET", Target: "/?rest_route=/tribe/events/v1/events/17", Status: 404}, true},
		// Escaped quotes in the request line (Apache \", nginx \x22), a quote in the agent.
		{`1.2.3.4 - - [28/Nov/2026:10:00:01 +0000] "GET /a\"b HTTP/1.1" 200 1 "-" "a \"q\" agent"`,
			LogLine{Method: "GET", Target: `/a\"b`, Status: 200}, true},
		{`1.2.3.4 - - [28/Nov/2026:10:00:01 +0000] "GET /a\x22b HTTP/1.1" 200 1 "-" "-"`,
			LogLine{Method: "GET", Target: `/a\x22b`, Status: 200}, true},
		// HTTP/0.9 has no protocol.
		{`1.2.3.4 - - [t] "GET /x" 200 1`, LogLine{Method: "GET", Target: "/x", Status: 200}, true},
		{`1.2.3.4 - - [t] "-" 400 0 "-" "-"`, LogLine{}, false},       // nginx: a request it could not read
		{`1.2.3.4 - - [t] "GET /x HTTP/1.1" abc 1`, LogLine{}, false}, // no status
		{`1.2.3.4 - - [t] "GET /x HTTP/1.1 200 1`, LogLine{}, false},  // unterminated
		{`{"level":"info","route":"/events"}`, LogLine{}, false},      // not the format
		{``, LogLine{}, false},
	} {
		got, ok := ParseLogLine(tc.line)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("%s:\n got %+v %v\nwant %+v %v", tc.line, got, ok, tc.want, tc.ok)
		}
	}
}

func TestQueryOf(t *testing.T) {
	for _, tc := range []struct {
		target string
		want   Query
		ok     bool
	}{
		{"/wp-json/tribe/events/v1/events?per_page=5", Query{Route: "GET /events", Path: "/events",
			Query: "per_page=5", NS: "tribe/events/v1"}, true},
		{"/wp-json/cal/events/v1/events/17/", Query{Route: "GET /events/{id}", Path: "/events/17",
			NS: "cal/events/v1"}, true},
		{"/?rest_route=/tribe/events/v1/venues/by-slug/hall&x=1", Query{Route: "GET /venues/by-slug/{slug}",
			Path: "/venues/by-slug/hall", Query: "x=1", NS: "tribe/events/v1"}, true},
		{"/index.php?rest_route=%2Ftribe%2Fevents%2Fv1%2Fdoc", Query{Route: "GET /doc", Path: "/doc",
			NS: "tribe/events/v1"}, true},
		{"/wp-json/TRIBE/events/v1/tags", Query{Route: "GET /tags", Path: "/tags", NS: "TRIBE/events/v1"}, true},
		{"/wp-json/tribe/events/v1", Query{Route: "GET /", Path: "", NS: "tribe/events/v1"}, true},
		{"/wp-json/tribe/events/v1/events/by-slug/%25", Query{Route: "GET /events/by-slug/{slug}",
			Path: "/events/by-slug/%25", NS: "tribe/events/v1"}, true},
		{"/?rest_route=/tribe/events/v1/events/by-slug/%25", Query{Route: "GET /events/by-slug/{slug}",
			Path: "/events/by-slug/%25", NS: "tribe/events/v1"}, true},
		{"/wp-json/wp/v2/posts", Query{}, false},
		{"/wp-json/tribe/events/v10/events", Query{}, false},
		{"/events/", Query{}, false},
		{"/wp-json/cal/events/v1/events.ics", Query{}, false},            // calshim's own
		{"/wp-json/cal/events/v1/events?sync_token=abc", Query{}, false}, // calshim's own
		{"http://evil/wp-json/tribe/events/v1/events", Query{}, false},   // not a request URI of this site
	} {
		got, ok := QueryOf(tc.target, "/wp-json")
		tc.want.Target = tc.target
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("%s:\n got %+v %v\nwant %+v %v", tc.target, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzParseLogLine: any line is read or refused, never a panic; what is read has a method and a
// target without spaces (the request line's separator) and a status of three digits.
func FuzzParseLogLine(f *testing.F) {
	f.Add(`203.0.113.7 - - [28/Nov/2026:10:00:01 +0000] "GET /wp-json/tribe/events/v1/events HTTP/1.1" 200 5 "-" "-"`)
	f.Add(`1.2.3.4 - u [t] "GET /a\"b HTTP/1.1" 200 1`)
	f.Add(`a b c [d] "\`)
	f.Fuzz(func(t *testing.T, line string) {
		l, ok := ParseLogLine(line)
		if !ok {
			return
		}
		if l.Method == "" || l.Target == "" || strings.Contains(l.Method+l.Target, " ") ||
			l.Status < 100 || l.Status > 999 {
			t.Fatalf("%q read as %+v", line, l)
		}
		QueryOf(l.Target, "/wp-json") // never panics either
	})
}

// FuzzLogLineRoundTrip: a line written the way nginx writes one is read back as written, whatever
// the target, user and agent hold (by input class: a target and agent with quotes escaped).
func FuzzLogLineRoundTrip(f *testing.F) {
	f.Add("GET", "/wp-json/tribe/events/v1/events?a=1", "-", 200, `curl "x"`)
	f.Add("HEAD", `/?rest_route=/tribe/events/v1/doc&q="`, "bob", 404, "")
	f.Fuzz(func(t *testing.T, method, target, user string, status int, agent string) {
		if method == "" || target == "" || user == "" || strings.Contains(method+target+user, " ") ||
			status < 100 || status > 999 {
			return
		}
		esc := strings.NewReplacer(`\`, `\x5C`, `"`, `\x22`)
		line := fmt.Sprintf(`127.0.0.1 - %s [28/Nov/2026:10:00:01 +0000] "%s %s HTTP/1.1" %d 0 "-" "%s"`,
			user, esc.Replace(method), esc.Replace(target), status, esc.Replace(agent))
		l, ok := ParseLogLine(line)
		want := LogLine{Method: esc.Replace(method), Target: esc.Replace(target), Status: status}
		if user != "-" {
			want.User = user
		}
		if !ok || l != want {
			t.Fatalf("%q read as %+v %v, want %+v", line, l, ok, want)
		}
	})
}
