package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"calshim/mapping"
)

// icalEvent is one VEVENT as the parsers in testdata/ical print it.
type icalEvent struct {
	UID, Summary, Start, End, Location, Description, URL string
	Geo                                                  []float64
	Organizer                                            string
	OrganizerCN                                          string `json:"organizer_cn"`
	AllDay                                               bool   `json:"all_day"`
	Categories                                           []string
	Properties                                           []string // names, in the parser's order
}

// icalFeed is what a parser found in a feed.
type icalFeed struct {
	Events     []icalEvent
	Components []string // the names of every component, the VCALENDAR first
}

// parseFeed reads a feed with Debian's python3-icalendar and npm's ical.js (scripts/test-deps.sh
// installs both) and returns the events each found, by parser name.
func parseFeed(t *testing.T, feed []byte) map[string][]icalEvent {
	t.Helper()
	out := map[string][]icalEvent{}
	for name, parsed := range parseCalendar(t, feed) {
		out[name] = parsed.Events
	}
	return out
}

// parseCalendar is parseFeed with the components each parser found.
func parseCalendar(t *testing.T, feed []byte) map[string]icalFeed {
	t.Helper()
	state := os.Getenv("CALSHIM_STATE")
	if state == "" {
		state = "/tmp/calshim-wp"
	}
	icaljs := filepath.Join(state, "node/node_modules/ical.js/dist/ical.js")
	out := map[string]icalFeed{}
	for name, argv := range map[string][]string{
		"python3-icalendar": {"/usr/bin/python3", "testdata/ical/parse.py"},
		"ical.js":           {"node", "testdata/ical/parse.mjs", icaljs},
	} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Stdin = bytes.NewReader(feed)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		raw, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v\n%s\n(run scripts/test-deps.sh)", name, err, stderr.String())
		}
		var parsed icalFeed
		if err := json.Unmarshal(raw, &parsed); err != nil {
			t.Fatalf("%s printed %s: %v", name, raw, err)
		}
		out[name] = parsed
	}
	return out
}

// feedLines checks the framing both parsers forgive: CRLF only, physical lines of at most 75
// octets.
func feedLines(t *testing.T, feed []byte) {
	t.Helper()
	if bytes.Contains(bytes.ReplaceAll(feed, []byte("\r\n"), nil), []byte("\n")) {
		t.Error("a line ends without CR")
	}
	for _, l := range strings.Split(string(feed), "\r\n") {
		if len(l) > 75 {
			t.Errorf("line of %d octets: %q", len(l), l)
		}
	}
}

// icalFixtures creates, through the v1 write API, events across time zones (one over the switch to
// summer time, one over midnight), an all-day multi-day event and one with text to escape, in 2033
// (outside every other test's dates); they are deleted at the end.
func icalFixtures(t *testing.T, venueName string) []string {
	venue := map[string]any{"venue": venueName, "address": "1-1 Chiyoda", "city": "Tokyo",
		"country": "Japan"}
	long := strings.Repeat("Über Grüße, Ständchen; und \\ mehr. ", 8)
	fixtures := []map[string]any{
		{"title": "ICS Tokyo Night", "start_date": "2033-03-10 22:00:00",
			"end_date": "2033-03-11 02:00:00",
			"timezone": "Asia/Tokyo", "venue": venue, "categories": []any{"ICS Test Category", "Music"},
			"organizer": []any{map[string]any{"organizer": venueName + " Org", "email": "ics@example.org"}}},
		{"title": "ICS Berlin Clock Change", "start_date": "2033-03-27 01:30:00",
			"end_date": "2033-03-27 04:00:00", "timezone": "Europe/Berlin"},
		{"title": "ICS All-day Fair", "start_date": "2033-03-14 00:00:00",
			"end_date": "2033-03-16 23:59:59",
			"all_day":  true, "timezone": "America/New_York", "categories": []any{"ICS Test Category"}},
		{"title": "ICS LA, with; commas & \"quotes\"", "start_date": "2033-04-20 09:00:00",
			"end_date": "2033-04-21 10:00:00", "timezone": "America/Los_Angeles",
			"description": "<p>" + long + "</p><p>Zweiter Absatz</p>"},
	}
	var ids []string
	for _, body := range fixtures {
		r := send(t, "admin", http.MethodPost, "/events", body)
		wantStatus(t, r, http.StatusCreated)
		id := str(at(r.body, "id"))
		ids = append(ids, id)
		wpDeleteLater(t, "/wp/v2/tribe_events/"+id)
		for _, c := range list(at(r.body, "categories")) {
			if str(at(c, "slug")) == "ics-test-category" {
				wpDeleteLater(t, "/wp/v2/tribe_events_cat/"+str(at(c, "id")))
			}
		}
		if v := str(at(r.body, "venue", "id")); v != "" {
			wpDeleteLater(t, "/wp/v2/tribe_venue/"+v)
		}
		for _, o := range list(at(r.body, "organizer")) {
			wpDeleteLater(t, "/wp/v2/tribe_organizer/"+str(at(o, "id")))
		}
	}
	return ids
}

// The feed of a query holds every event of the JSON list of the same query with the same instants,
// title, venue and categories, as two independent parsers read it; anonymous and logged-in callers
// alike, under the default window and explicit dates.
func TestICalFeedAgainstTheJSONList(t *testing.T) {
	icalFixtures(t, "ICS Hall, Tokyo")
	for _, tc := range []struct{ role, query string }{
		{"", "?start_date=2033-03-01&end_date=2033-04-30"},
		{"admin", "?start_date=2033-03-01&end_date=2033-04-30"},
		{"", ""},
		{"editor", ""},
		{"", "?categories=music&start_date=2000-01-01&end_date=2040-01-01"},
	} {
		// Another test's clean-up may reach the catalog between the two reads: then read both again.
		var diffs []string
		for try := 0; try < 3; try++ {
			diffs = feedVersusList(t, tc.role, tc.query)
			if len(diffs) == 0 {
				break
			}
			time.Sleep(1500 * time.Millisecond)
		}
		for _, d := range diffs {
			t.Error(d)
		}
	}
}

// feedVersusList reads the JSON list and the feed of a query and returns how they differ.
func feedVersusList(t *testing.T, role, query string) []string {
	jsonList := icalJSONList(t, role, query)
	feed := call(t, http.MethodGet, "/wp-json/cal/events/v1/events.ics"+query, as(role))
	calendar := feed.header.Get("Content-Type") == "text/calendar; charset=utf-8"
	if feed.status != http.StatusOK || !calendar {
		t.Fatalf("%s events.ics%s: %d %s", role, query, feed.status, feed.raw)
	}
	feedLines(t, feed.raw)
	var diffs []string
	// Named after the site's title (the REST index' name), not its host.
	name, _ := wp(t, http.MethodGet, "/", nil)["name"].(string)
	if name == "" || !strings.Contains(string(feed.raw), "\r\nX-WR-CALNAME:"+name+"\r\n") {
		diffs = append(diffs, "X-WR-CALNAME is not the site's name "+name)
	}
	for parser, events := range parseFeed(t, feed.raw) {
		diffs = append(diffs, compareFeed(parser+" "+role+query, jsonList, events)...)
	}
	return diffs
}

// icalJSONList is every event of the JSON list of a query, page by page.
func icalJSONList(t *testing.T, role, query string) []any {
	t.Helper()
	sep := "?"
	if query != "" {
		sep = "&"
	}
	var all []any
	for page := 1; ; page++ {
		r := call(t, http.MethodGet, "/wp-json/cal/events/v1/events"+query+sep+"per_page=50&page="+
			strconv.Itoa(page), as(role))
		if r.status == http.StatusNotFound && page > 1 {
			return all
		}
		wantStatus(t, r, http.StatusOK)
		all = append(all, list(at(r.body, "events"))...)
		if at(r.body, "next_rest_url") == nil {
			return all
		}
	}
}

// compareFeed checks that the feed holds exactly the listed events, each as the list shows it.
func compareFeed(what string, jsonList []any, events []icalEvent) []string {
	var out []string
	if len(events) != len(jsonList) {
		out = append(out, fmt.Sprintf("%s: %d events in the feed, %d in the list", what, len(events),
			len(jsonList)))
	}
	byUID := map[string]icalEvent{}
	for _, e := range events {
		byUID[strings.Split(e.UID, "@")[0]] = e
	}
	for _, ev := range jsonList {
		id := str(at(ev, "id"))
		e, ok := byUID[id]
		if !ok {
			out = append(out, fmt.Sprintf("%s: event %s (%s) missing from the feed", what, id,
				str(at(ev, "title"))))
			continue
		}
		for _, d := range feedDiffs(ev, e) {
			out = append(out, fmt.Sprintf("%s: event %s: %s", what, id, d))
		}
	}
	return out
}

// feedDiffs lists how a VEVENT differs from the event's JSON.
func feedDiffs(ev any, e icalEvent) []string {
	var diffs []string
	check := func(name, got, want string) {
		if got != want {
			diffs = append(diffs, name+" = "+got+", want "+want)
		}
	}
	check("summary", e.Summary, html.UnescapeString(str(at(ev, "title"))))
	start, end := str(at(ev, "utc_start_date")), str(at(ev, "utc_end_date"))
	if at(ev, "all_day") == true {
		start = str(at(ev, "start_date"))[:10]
		last, _ := time.Parse(time.DateOnly, str(at(ev, "end_date"))[:10])
		end = last.AddDate(0, 0, 1).Format(time.DateOnly)
	}
	check("start", e.Start, start)
	check("end", e.End, end)
	if e.AllDay != (at(ev, "all_day") == true) {
		diffs = append(diffs, "all-day differs")
	}
	if v := str(at(ev, "venue", "venue")); !strings.HasPrefix(e.Location, html.UnescapeString(v)) {
		diffs = append(diffs, "location "+e.Location+" lacks the venue "+v)
	}
	var cats []string
	for _, c := range list(at(ev, "categories")) {
		cats = append(cats, html.UnescapeString(str(at(c, "name"))))
	}
	if !slices.Equal(e.Categories, cats) {
		diffs = append(diffs, "categories "+strings.Join(e.Categories, "|")+", want "+
			strings.Join(cats, "|"))
	}
	check("url", e.URL, str(at(ev, "url")))
	return diffs
}

// One event's feed, the same validation as the list, ETag revalidation, and the original's
// documents.
func TestICalSingleAndErrors(t *testing.T) {
	id := icalFixtures(t, "ICS Single Hall")[3]
	r := get(t, "/events?include="+id)
	evs := list(at(r.body, "events"))
	if len(evs) != 1 {
		t.Fatalf("fixture not listed: %s", r.raw)
	}
	for _, path := range []string{"/wp-json/cal/events/v1/events/" + id + ".ics",
		"/wp-json/tribe/events/v1/events/" + id + ".ics",
		"/?rest_route=/cal/events/v1/events/" + id + ".ics",
		"/fr/wp-json/cal/events/v1/events/" + id + ".ics"} {
		one := call(t, http.MethodGet, path)
		if one.status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, one.status, one.raw)
		}
		for parser, events := range parseFeed(t, one.raw) {
			for _, d := range compareFeed(parser+" "+path, evs, events) {
				t.Error(d)
			}
		}
		again := call(t, http.MethodGet, path, header("If-None-Match", one.header.Get("ETag")))
		if again.status != http.StatusNotModified {
			t.Errorf("%s revalidation: %d", path, again.status)
		}
	}

	invalid := []string{"?start_date=not-a-date", "?per_page=0", "?venue=abc", "?status=nonsense"}
	for _, q := range invalid {
		l, f := get(t, "/events"+q), get(t, "/events.ics"+q)
		if l.status != f.status || string(l.raw) != string(f.raw) {
			t.Errorf("%s: list %d %s, feed %d %s", q, l.status, l.raw, f.status, f.raw)
		}
	}
	if r := get(t, "/events/99999999.ics"); r.status != http.StatusNotFound {
		t.Errorf("unknown event: %d %s", r.status, r.raw)
	}
	for _, doc := range []string{"", "/doc"} {
		if strings.Contains(string(get(t, doc).raw), ".ics") {
			t.Errorf("%q mentions the feed", doc)
		}
	}
}

// GEO comes from the venue's stored coordinates (set here directly in WordPress, as geocoding
// would) and ORGANIZER from the first organizer with an e-mail address; both parsers read them
// back.
func TestICalGeoAndOrganizer(t *testing.T) {
	id := icalFixtures(t, "ICS Geo Hall")[0]
	venue := str(at(get(t, "/events/"+id).body, "venue", "id"))
	wp(t, http.MethodPost, "/wp/v2/tribe_venue/"+venue,
		map[string]any{"meta": map[string]any{"_VenueLat": "35.6812", "_VenueLng": "139.7671"}})
	var feed reply
	eventually(t, "coordinates", func() bool {
		feed = get(t, "/events/"+id+".ics")
		return strings.Contains(string(feed.raw), "GEO:35.6812;139.7671\r\n")
	})
	for parser, events := range parseFeed(t, feed.raw) {
		if len(events) != 1 {
			t.Fatalf("%s: %d events", parser, len(events))
		}
		e := events[0]
		if !slices.Equal(e.Geo, []float64{35.6812, 139.7671}) ||
			!strings.EqualFold(e.Organizer, "mailto:ics@example.org") ||
			e.OrganizerCN != "ICS Geo Hall Org" ||
			!strings.HasPrefix(e.Location, "ICS Geo Hall, 1-1 Chiyoda, Tokyo") {
			t.Errorf("%s read geo %v, organizer %q (%q), location %q", parser, e.Geo, e.Organizer,
				e.OrganizerCN, e.Location)
		}
	}
}

// hostileText are stored values the feed must carry without letting them add a line: the organizer
// e-mail that once put an alarm into every subscriber's calendar, the characters TEXT escapes,
// quotes and RFC 6868's caret, line separators other than CR and LF, controls, broken UTF-8 and a
// 300-character value.
var hostileText = []string{
	"x@example.com\nBEGIN:VALARM\nACTION:DISPLAY\nDESCRIPTION:injected\nEND:VALARM",
	`a, b; c \ d "e" 'f' ^n ^' ^^ <g> :h`,
	"Grüße 😀 \u2028BEGIN:VALARM\u2029 x\u0085y \r\nEND:VEVENT\r z\x00\x1b\x7f\tTab",
	strings.Repeat("Zwölf Ständchen, 😀; ", 15),
	"\xffbroken\xc3",
	`C:\new\Notes\, \; \:`,
}

// The writer's escaping read back by both parsers: each stored value comes back as stored, less the
// documented lossy steps, and no value adds a component or a property.
func TestICalRoundTripOfHostileText(t *testing.T) {
	var events []mapping.ICalEvent
	for i, h := range hostileText {
		start := time.Date(2033, 5, 1+i, 10, 0, 0, 0, time.UTC)
		events = append(events, mapping.ICalEvent{UID: strconv.Itoa(i) + "@" + h, Summary: h,
			Description: h, Location: h, URL: "https://example.org/e/" + h, Status: "CONFIRMED",
			Organizer: &mapping.ICalPerson{Name: h, Email: h}, Categories: []string{h, "plain"},
			Start: start, End: start.Add(time.Hour), Zone: "Europe/Berlin", Stamp: start, Modified: start})
	}
	feed := mapping.ICalendar("-//calshim//test//EN", "Hostile", events)
	feedLines(t, feed)
	for parser, cal := range parseCalendar(t, feed) {
		checkComponents(t, parser, cal, len(events), "CATEGORIES DESCRIPTION DTEND DTSTAMP DTSTART "+
			"LAST-MODIFIED LOCATION ORGANIZER STATUS SUMMARY UID URL")
		for i, e := range cal.Events {
			for _, d := range hostileDiffs(parser, hostileText[i], e) {
				t.Errorf("%s, value %d: %s", parser, i, d)
			}
		}
	}
}

// checkComponents checks that a parser found the VCALENDAR, time zones and events, nothing else,
// and in each event exactly the properties named (sorted, space-separated), each once.
func checkComponents(t *testing.T, parser string, cal icalFeed, events int, properties string) {
	t.Helper()
	vevents := 0
	for _, c := range cal.Components {
		vevents += strings.Count(c, "VEVENT")
		if !slices.Contains([]string{"VCALENDAR", "VTIMEZONE", "STANDARD", "DAYLIGHT", "VEVENT"}, c) {
			t.Errorf("%s found a %s component", parser, c)
		}
	}
	if vevents != events || len(cal.Events) != events {
		t.Errorf("%s found %d events, want %d", parser, vevents, events)
	}
	want := strings.Fields(properties)
	for _, e := range cal.Events {
		if got := slices.Sorted(slices.Values(e.Properties)); !slices.Equal(got, want) {
			t.Errorf("%s read the properties %v, want %v", parser, got, want)
		}
	}
}

// hostileDiffs lists how the values a parser read from an event of hostile text differ from what
// was stored. URIs are compared percent-decoded: the writer percent-encodes what a URI cannot hold.
// python3-icalendar 4.0.3 (Debian 12's) reads a few things otherwise than RFC 5545 says, and is
// held to what it can read: it decodes no RFC 6868 in parameters, splits CATEGORIES at escaped
// commas too, decodes %2C, %3A, %3B and %5C in any value, and takes a backslash before n, N, a
// comma, semicolon or colon for an escape even when the backslash is itself escaped.
func hostileDiffs(parser, h string, e icalEvent) []string {
	python := parser == "python3-icalendar"
	var diffs []string
	check := func(name, got, want string) {
		if got != want {
			diffs = append(diffs, fmt.Sprintf("%s = %q, want %q", name, got, want))
		}
	}
	uri := func(name, got, prefix string) {
		if len(got) >= len(prefix) && strings.EqualFold(got[:len(prefix)], prefix) {
			got = got[len(prefix):]
		}
		if decoded, err := url.PathUnescape(got); err != nil || decoded != h {
			diffs = append(diffs, fmt.Sprintf("%s = %q, want %q percent-encoded", name, got, h))
		}
	}
	uri("organizer", e.Organizer, "mailto:")
	uri("url", e.URL, "https://example.org/e/")
	if python && regexp.MustCompile(`\\[nN,;:]`).MatchString(h) {
		return diffs
	}
	text := keptText(h, "\n")
	_, uid, _ := strings.Cut(e.UID, "@")
	check("uid", uid, text)
	check("summary", e.Summary, text)
	check("description", e.Description, text)
	check("location", e.Location, text)
	cn, sep := e.OrganizerCN, "\x00" // no kept text holds NUL
	if python {
		cn = strings.NewReplacer("^^", "^", "^'", `"`, "^n", "\n").Replace(cn)
		sep = ","
	}
	check("organizer CN", cn, strings.ReplaceAll(keptText(h, " "), `\`, "")) // dropped: see icalParam
	check("categories", strings.Join(e.Categories, sep), text+sep+"plain")
	return diffs
}

// keptText is what the feed keeps of stored text, mapping.ICalText's lossy steps: broken UTF-8 as
// U+FFFD, each line break (CRLF, CR, LF, NEL, U+2028, U+2029) as lineBreak, other controls but
// TAB dropped.
func keptText(s, lineBreak string) string {
	s = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\u0085", "\n", "\u2028", "\n", "\u2029", "\n").
		Replace(strings.ToValidUTF8(s, "\uFFFD"))
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return []rune(lineBreak)[0]
		case r != '\t' && unicode.IsControl(r):
			return -1
		}
		return r
	}, s)
}

// The organizer e-mail that once put an alarm into the feed, saved in WordPress itself (as
// entities, which the feed decodes) with a hostile organizer name: calshim's real feed carries both
// as values of ORGANIZER, and both parsers find one event with its own properties and no alarm.
func TestICalHostileOrganizerSavedInWordPress(t *testing.T) {
	r := send(t, "admin", http.MethodPost, "/events", map[string]any{"title": "ICS Hostile Organizer",
		"start_date": "2033-06-01 10:00:00", "end_date": "2033-06-01 11:00:00", "timezone": "Europe/Berlin",
		"organizer": []any{map[string]any{"organizer": "ICS Hostile Org", "email": "ics-hostile@example.org"}}})
	wantStatus(t, r, http.StatusCreated)
	id, org := str(at(r.body, "id")), str(at(r.body, "organizer", 0, "id"))
	wpDeleteLater(t, "/wp/v2/tribe_events/"+id)
	wpDeleteLater(t, "/wp/v2/tribe_organizer/"+org)
	email := "x@example.com&#10;BEGIN:VALARM&#10;ACTION:DISPLAY&#10;DESCRIPTION:injected&#10;END:VALARM"
	name := `ICS Hostile Org; a, b ^n&#13;&#10;END:VEVENT&#x2028;BEGIN:VALARM`
	wp(t, http.MethodPost, "/wp/v2/tribe_organizer/"+org,
		map[string]any{"title": name, "meta": map[string]any{"_OrganizerEmail": email}})
	var feed reply
	eventually(t, "the hostile organizer", func() bool {
		feed = get(t, "/events/"+id+".ics")
		return strings.Contains(strings.ReplaceAll(string(feed.raw), "\r\n ", ""), "mailto:x@example.com")
	})
	feedLines(t, feed.raw)
	for parser, cal := range parseCalendar(t, feed.raw) {
		checkComponents(t, parser, cal, 1, "DTEND DTSTAMP DTSTART LAST-MODIFIED ORGANIZER STATUS SUMMARY UID URL")
		e := cal.Events[0]
		mailto, _ := url.PathUnescape(e.Organizer[len("mailto:"):])
		cn := strings.NewReplacer("^^", "^", "^'", `"`).Replace(e.OrganizerCN) // python-icalendar 4: no RFC 6868
		if mailto != html.UnescapeString(email) || cn != `ICS Hostile Org; a, b ^n END:VEVENT BEGIN:VALARM` {
			t.Errorf("%s read the organizer %q (%q)", parser, e.Organizer, e.OrganizerCN)
		}
	}
}

// A site renamed in WordPress renames its calendar: blogname is among the options the change log
// follows, and the feed is named after the title as WordPress shows it (stored HTML-escaped).
func TestICalNameFollowsTheSiteTitle(t *testing.T) {
	old, _ := wp(t, http.MethodGet, "/wp/v2/settings", nil)["title"].(string)
	t.Cleanup(func() { wp(t, http.MethodPost, "/wp/v2/settings", map[string]any{"title": old}) })
	wp(t, http.MethodPost, "/wp/v2/settings", map[string]any{"title": "Concerts & Talks <2027>"})
	eventually(t, "the calendar renamed", func() bool {
		feed := call(t, http.MethodGet, v1+"/events.ics")
		return strings.Contains(string(feed.raw), "\r\nX-WR-CALNAME:Concerts & Talks <2027>\r\n")
	})
}
