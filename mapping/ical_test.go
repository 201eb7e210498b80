package mapping

import (
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

func TestICalendarFoldsEscapesAndUsesCRLF(t *testing.T) {
	long := strings.Repeat("Grüße, Welt; ", 12) + "\nzweite\\Zeile"
	e := ICalEvent{UID: "7@example.org", Summary: long, Status: "CONFIRMED",
		Start: time.Date(2026, 3, 29, 0, 30, 0, 0, time.UTC), Zone: "Europe/Berlin",
		Categories: []string{"A,B", "C"}}
	e.End, e.Stamp, e.Modified = e.Start.Add(3*time.Hour), e.Start, e.Start
	out := string(ICalendar("-//t//t//EN", "", []ICalEvent{e}))
	checkLines(t, []byte(out), 1, eventProps(&e))
	unfolded := strings.ReplaceAll(out, "\r\n ", "")
	for _, want := range []string{
		"SUMMARY:" + strings.Repeat(`Grüße\, Welt\; `, 12) + `\nzweite\\Zeile` + "\r\n",
		"CATEGORIES:A\\,B,C\r\n",
		// 00:30 UTC on the day of the switch to summer time is 01:30 CET; the end, 03:30 UTC, 05:30 CEST.
		"DTSTART;TZID=Europe/Berlin:20260329T013000\r\n",
		"DTEND;TZID=Europe/Berlin:20260329T053000\r\n",
		"BEGIN:DAYLIGHT\r\nDTSTART:20260329T020000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\n",
		"BEGIN:STANDARD\r\nDTSTART:20251026T030000\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\n",
	} {
		wantIn(t, unfolded, want)
	}
}

func wantIn(t *testing.T, feed, want string) {
	t.Helper()
	if !strings.Contains(feed, want) {
		t.Errorf("feed lacks %q:\n%s", want, feed)
	}
}

func TestICalendarAllDayAndZonesWithoutTransitions(t *testing.T) {
	day := ICalEvent{UID: "1@h", Summary: "Fair", AllDay: true, Status: "CONFIRMED",
		Start: time.Date(2026, 12, 30, 0, 0, 0, 0, time.UTC), End: time.Date(2027, 1, 2, 0, 0, 0, 0, time.UTC)}
	tokyo := ICalEvent{UID: "2@h", Summary: "Talk", Zone: "Asia/Tokyo", Status: "TENTATIVE",
		Start: time.Date(2026, 5, 1, 1, 0, 0, 0, time.UTC),
		End:   time.Date(2026, 5, 1, 2, 0, 0, 0, time.UTC),
		Geo:   &[2]float64{35.68, 139.76}, Organizer: &ICalPerson{Name: `Ann "A" \Lee`, Email: "a@h"}}
	out := strings.ReplaceAll(string(ICalendar("p", "n", []ICalEvent{day, tokyo})), "\r\n ", "")
	for _, want := range []string{
		"DTSTART;VALUE=DATE:20261230\r\nDTEND;VALUE=DATE:20270102\r\n",
		"TZID:Asia/Tokyo\r\nBEGIN:STANDARD\r\n",
		"TZOFFSETTO:+0900\r\nTZNAME:JST\r\n",
		"DTSTART;TZID=Asia/Tokyo:20260501T100000\r\n",
		"GEO:35.68;139.76\r\n",
		"ORGANIZER;CN=\"Ann ^'A^' Lee\":mailto:a@h\r\n",
	} {
		wantIn(t, out, want)
	}

	if strings.Count(out, "BEGIN:VTIMEZONE") != 1 {
		t.Errorf("want one VTIMEZONE (all-day events use none):\n%s", out)
	}
}

func TestPlainText(t *testing.T) {
	got := PlainText("<p>Doors &amp; bar<br/>open&nbsp;at 7</p>\n\n\n<p>Don&#8217;t  miss</p>")
	if want := "Doors & bar\nopen at 7\n\nDon\u2019t miss"; got != want {
		t.Errorf("PlainText = %q, want %q", got, want)
	}
}

// valarm is a stored organizer e-mail that once put an alarm into every subscriber's calendar.
const valarm = "x@example.com\nBEGIN:VALARM\r\nACTION:DISPLAY\rDESCRIPTION:injected\u2028END:VALARM"

// FuzzICalendarStoredText renders a feed whose every value built from stored text is arbitrary
// and checks that none of them adds, splits or ends a content line.
func FuzzICalendarStoredText(f *testing.F) {
	f.Add("Summary", "Desc", "Hall", "Ann", "a@h", "Music", "https://h/e/", "1@h", "Europe/Berlin", "CONFIRMED", false)
	f.Add("S", "D", "L", "N", "x@example.com\nBEGIN:VALARM\nDESCRIPTION:injected\nEND:VALARM", "C", "https://h/",
		"1@h", "UTC", "CONFIRMED", false)
	f.Add(valarm, valarm, valarm, valarm, valarm, valarm, valarm, valarm, valarm, valarm, true)
	f.Add("a\x85b\u2029c\x0bd\x0ce\x1cf", "\\;,\"", "\xff\xfe", "\"CN\";x=y:z", "a@h>\r\n ", "A,B;C",
		"http://h/\"a b\"", "\x00", "UTC\n", "1\nBEGIN:VA", true)
	f.Add("\xf0\x9f\x98", strings.Repeat("\x80", 200), strings.Repeat("😀", 80), strings.Repeat("^\"", 50),
		strings.Repeat("ü", 90), "", "", "", "Etc/GMT+5", "", false)
	f.Fuzz(func(t *testing.T, summary, desc, loc, name, email, cat, url, uid, zone, status string, allDay bool) {
		e := ICalEvent{UID: uid, Summary: summary, Description: desc, Location: loc, URL: url,
			Organizer: &ICalPerson{Name: name, Email: email}, Categories: []string{cat, cat},
			Status: status, Zone: zone, AllDay: allDay, Start: time.Date(2026, 3, 29, 0, 30, 0, 0, time.UTC)}
		e.End = e.Start.Add(time.Hour)
		checkLines(t, ICalendar("-//t//t//EN", summary, []ICalEvent{e, e}), 2, eventProps(&e))
	})
}

// checkLines checks a feed's framing: CRLF line ends only, valid UTF-8 without a character any
// parser takes for a line break or a control, and, unfolded, exactly the lines the writer writes.
func checkLines(t *testing.T, feed []byte, events int, want []string) {
	t.Helper()
	s := string(feed)
	if !utf8.ValidString(s) {
		t.Fatalf("feed is not UTF-8:\n%q", s)
	}
	if !strings.HasSuffix(s, "\r\n") {
		t.Fatalf("feed does not end with CRLF:\n%q", s)
	}
	for _, l := range strings.Split(strings.TrimSuffix(s, "\r\n"), "\r\n") {
		if len(l) > 75 || !utf8.ValidString(l) {
			t.Fatalf("line of %d octets or cut inside a character: %q", len(l), l)
		}
	}
	lines := strings.Split(strings.ReplaceAll(strings.TrimSuffix(s, "\r\n"), "\r\n ", ""), "\r\n")
	for _, l := range lines {
		if i := strings.IndexFunc(l, breaksOrControls); i >= 0 {
			t.Fatalf("line holds %q:\n%q", l[i:], l)
		}
	}
	var inEvent []string
	nEvents := 0
	for _, l := range lines {
		name := l[:max(0, strings.IndexAny(l, ":;"))]
		switch {
		case l == "BEGIN:VEVENT":
			inEvent = []string{}
		case l == "END:VEVENT":
			if strings.Join(inEvent, " ") != strings.Join(want, " ") {
				t.Fatalf("event has properties %v, want %v:\n%s", inEvent, want, s)
			}
			inEvent = nil
			nEvents++
		case inEvent != nil:
			inEvent = append(inEvent, name)
		case !icalOuter[name]:
			t.Fatalf("unexpected line %q:\n%s", l, s)
		case name == "BEGIN" || name == "END":
			if !icalComponents[l[len(name)+1:]] {
				t.Fatalf("unexpected component %q:\n%s", l, s)
			}
		}
	}
	if nEvents != events || lines[0] != "BEGIN:VCALENDAR" || lines[len(lines)-1] != "END:VCALENDAR" {
		t.Fatalf("%d events, want %d:\n%s", nEvents, events, s)
	}
}

// eventProps are the names of the properties the writer writes for an event, in order.
func eventProps(e *ICalEvent) []string {
	names := []string{"UID", "DTSTAMP", "DTSTART", "DTEND", "SUMMARY"}
	for _, p := range []struct {
		name string
		has  bool
	}{
		{"DESCRIPTION", e.Description != ""}, {"LOCATION", e.Location != ""}, {"GEO", e.Geo != nil},
		{"ORGANIZER", e.Organizer != nil}, {"CATEGORIES", len(e.Categories) > 0}, {"URL", e.URL != ""},
	} {
		if p.has {
			names = append(names, p.name)
		}
	}
	return append(names, "LAST-MODIFIED", "STATUS")
}

var (
	icalOuter = map[string]bool{"BEGIN": true, "END": true, "VERSION": true, "PRODID": true,
		"CALSCALE": true, "METHOD": true, "X-WR-CALNAME": true, "TZID": true, "DTSTART": true,
		"TZOFFSETFROM": true, "TZOFFSETTO": true, "TZNAME": true}
	icalComponents = map[string]bool{"VCALENDAR": true, "VTIMEZONE": true, "STANDARD": true,
		"DAYLIGHT": true}
)

// breaksOrControls are the characters a parser may split lines at (Python's str.splitlines takes
// \v, \f, \x1c-\x1e, \x85, U+2028 and U+2029 besides CR and LF) and the other controls but TAB.
func breaksOrControls(r rune) bool {
	return r != '\t' && unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}
