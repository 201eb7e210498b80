package adapter

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"go.uber.org/zap"

	"calshim/internal/testkit/wpfake"
	"calshim/mapping"
)

// The feed lists what the JSON list lists for the same arguments, every page at once.
func TestICalFeedMatchesTheJSONList(t *testing.T) {
	h := newTestServer(t)
	queries := []string{"", "?start_date=2000-01-01&end_date=2100-01-01", "?featured=false&per_page=3"}
	for _, q := range queries {
		list := serve(h, http.MethodGet, "/wp-json/cal/events/v1/events"+q)
		feed := serve(h, http.MethodGet, "/wp-json/cal/events/v1/events.ics"+q)
		if feed.Code != http.StatusOK || feed.Header().Get("Content-Type") != icalContentType {
			t.Fatalf("events.ics%s = %d %s %.200s", q, feed.Code, feed.Header().Get("Content-Type"),
				feed.Body.String())
		}

		total, _ := strconv.Atoi(list.Header().Get("X-TEC-Total"))
		if got := strings.Count(feed.Body.String(), "BEGIN:VEVENT"); got != total {
			t.Errorf("events.ics%s has %d events, the JSON list %d", q, got, total)
		}
	}
}

// Every addressing form answers the feed; arguments are validated as on the list.
func TestICalFeedAddressesAndErrors(t *testing.T) {
	h := newTestServer(t)
	for _, target := range []string{
		"/wp-json/tribe/events/v1/events.ics",
		"/?rest_route=/cal/events/v1/events.ics",
		"/de/wp-json/cal/events/v1/events.ics",
	} {
		if rec := serve(h, http.MethodGet, target); rec.Code != http.StatusOK ||
			!strings.HasPrefix(rec.Body.String(), "BEGIN:VCALENDAR\r\n") {
			t.Errorf("GET %s = %d %.200s", target, rec.Code, rec.Body.String())
		}
	}

	list := serve(h, http.MethodGet, "/wp-json/cal/events/v1/events?start_date=nonsense&_fields=id")
	feed := serve(h, http.MethodGet, "/wp-json/cal/events/v1/events.ics?start_date=nonsense&_fields=id")
	if feed.Code != list.Code || feed.Body.String() != list.Body.String() || feed.Code != 400 {
		t.Errorf("invalid argument: feed %d %s, list %d %s", feed.Code, feed.Body.String(), list.Code,
			list.Body.String())
	}

	rec := serve(h, http.MethodGet, "/wp-json/cal/events/v1/events/999999.ics")
	if rec.Code != http.StatusNotFound {
		t.Errorf("unknown event = %d %s", rec.Code, rec.Body.String())
	}
}

// One event's feed, its ETag and 304, and the documents that must not mention the feed.
func TestICalSingleEventETagAndDocs(t *testing.T) {
	h := newTestServer(t)
	list := serve(h, http.MethodGet, "/wp-json/cal/events/v1/events?per_page=1")
	var body struct{ Events []struct{ ID int } }
	if err := json.Unmarshal(list.Body.Bytes(), &body); err != nil || len(body.Events) == 0 {
		t.Fatalf("list: %v %s", err, list.Body.String())
	}

	id := strconv.Itoa(body.Events[0].ID)
	rec := serve(h, http.MethodGet, "/wp-json/cal/events/v1/events/"+id+".ics")
	if rec.Code != http.StatusOK || strings.Count(rec.Body.String(), "BEGIN:VEVENT") != 1 ||
		!strings.Contains(rec.Body.String(), "UID:"+id+"@") {
		t.Fatalf("events/%s.ics = %d %s", id, rec.Code, rec.Body.String())
	}

	etag := rec.Header().Get("ETag")
	again := serve(h, http.MethodGet, calV1+"/events/"+id+".ics", withHeader("If-None-Match", etag))
	if etag == "" || again.Code != http.StatusNotModified {
		t.Errorf("ETag %q, revalidation %d", etag, again.Code)
	}

	for _, doc := range []string{"/wp-json/cal/events/v1", "/wp-json/cal/events/v1/doc"} {
		if body := serve(h, http.MethodGet, doc).Body.String(); strings.Contains(body, ".ics") {
			t.Errorf("%s mentions the feed", doc)
		}
	}
}

// The feed stops at ICalMaxEvents, the first events in the list's order.
func TestICalFeedCap(t *testing.T) {
	opt := testOptions()
	opt.ICalMaxEvents = 2
	h := NewServer(fakeCatalog(t, wpfake.New(t)), zap.NewNop(), opt)
	feed := serve(h, http.MethodGet, "/wp-json/cal/events/v1/events.ics?start_date=2000-01-01&end_date=2100-01-01")
	if got := strings.Count(feed.Body.String(), "BEGIN:VEVENT"); got != 2 {
		t.Errorf("capped feed has %d events", got)
	}
}

// FuzzICalFeedStoredFields stores arbitrary text in every field of an event, its venue, organizer
// and category that the feed shows, and checks that the event's feed still has exactly its own
// lines: the organizer e-mail "x@example.com&#10;BEGIN:VALARM&#10;..." once put an alarm into it.
func FuzzICalFeedStoredFields(f *testing.F) {
	alarm := "x@example.com&#10;BEGIN:VALARM&#10;ACTION:DISPLAY&#10;DESCRIPTION:injected&#10;END:VALARM"
	f.Add("Gala", "<p>Doors at 7</p>", "Hall", "1 Main St", "Ann", "ann@example.org", "Music",
		"America/New_York", "40.7")
	f.Add("Gala", "x", "Hall", "1 Main St", "Ann", alarm, "Music", "America/New_York", "40.7")
	f.Add("a&#13;&#10;END:VEVENT", "b&#x2028;BEGIN:VALARM\r\nX:y", "c&#133;END:VCALENDAR", "d\x00\x1b;,\\",
		"\"Ann\"&#10;ORGANIZER:mailto:evil@example.org", "e@x\r\n URL:y", "f\u2029CATEGORIES:g",
		"Europe/Berlin\r\nX", "NaN")
	f.Fuzz(func(t *testing.T, title, content, venue, address, name, email, category, zone, lat string) {
		wp := wpfake.New(t)
		wp.Modify("tribe_events", 17, func(o wpfake.Object) {
			c := wp.Sub(o, "calshim")
			c["title"], c["content"] = title, content
			wp.Sub(c, "meta")["_EventTimezone"] = []any{zone}
		})
		wp.Modify("tribe_venue", 5, func(o wpfake.Object) {
			c := wp.Sub(o, "calshim")
			c["title"] = venue
			meta := wp.Sub(c, "meta")
			meta["_VenueAddress"], meta["_VenueLat"], meta["_VenueLng"] = []any{address}, []any{lat}, []any{lat}
		})
		wp.Modify("tribe_organizer", 12, func(o wpfake.Object) {
			c := wp.Sub(o, "calshim")
			c["title"] = name
			wp.Sub(c, "meta")["_OrganizerEmail"] = []any{email}
		})
		wp.Modify("tribe_events_cat", 2, func(o wpfake.Object) { o["name"] = category })
		feed := serve(fakeServer(t, wp), http.MethodGet, "/wp-json/cal/events/v1/events/17.ics").Body.String()
		checkFeedLines(t, feed)
	})
}

// checkFeedLines checks that a feed of one event has CRLF line ends only, no control or line
// separator in any line, and, unfolded, only the lines the writer writes, each once and in order.
func checkFeedLines(t *testing.T, feed string) {
	t.Helper()
	if !utf8.ValidString(feed) {
		t.Fatalf("feed is not UTF-8:\n%q", feed)
	}
	lines := strings.Split(strings.ReplaceAll(strings.TrimSuffix(feed, "\r\n"), "\r\n ", ""), "\r\n")
	head := strings.Fields("BEGIN VERSION PRODID CALSCALE METHOD X-WR-CALNAME TZID DTSTART TZOFFSETFROM " +
		"TZOFFSETTO TZNAME END")
	order := strings.Fields("BEGIN:VEVENT UID DTSTAMP DTSTART DTEND SUMMARY DESCRIPTION LOCATION GEO " +
		"ORGANIZER CATEGORIES URL LAST-MODIFIED STATUS END:VEVENT END:VCALENDAR")
	next := -1
	for _, l := range lines {
		if i := strings.IndexFunc(l, func(r rune) bool {
			return r != '\t' && unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
		}); i >= 0 {
			t.Fatalf("line holds %q:\n%s", l[i:], feed)
		}
		name := l[:max(0, strings.IndexAny(l, ":;"))]
		if next < 0 {
			if l == order[0] {
				next = 1
			} else if !slices.Contains(head, name) {
				t.Fatalf("line %q before the event:\n%s", l, feed)
			}
			continue
		}
		for next < len(order) && order[next] != name && order[next] != l {
			next++
		}
		if next == len(order) {
			t.Fatalf("line %q is none the event may have next:\n%s", l, feed)
		}
		next++
	}
	if next != len(order) {
		t.Fatalf("the feed does not end with its event:\n%s", feed)
	}
}

// The feed is named after the site's title as WordPress shows it (blogname is stored HTML-escaped),
// and after its host when the title is empty.
func TestCalendarName(t *testing.T) {
	for _, tc := range []struct{ name, home, want string }{
		{"calshim test site", "http://127.0.0.1:8881", "calshim test site"},
		{"Tom &amp; Jerry&#039;s &lt;Events&gt;", "https://example.org/blog", "Tom & Jerry's <Events>"},
		{"", "https://www.example.org", "www.example.org"},
		{"  ", "https://www.example.org:8443/x", "www.example.org:8443"},
	} {
		if got := calendarName(mapping.Site{Name: tc.name, Home: tc.home}); got != tc.want {
			t.Errorf("calendarName(%q, %q) = %q, want %q", tc.name, tc.home, got, tc.want)
		}
	}
}
