package mapping

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestICalendarFoldsEscapesAndUsesCRLF(t *testing.T) {
	long := strings.Repeat("Grüße, Welt; ", 12) + "\nzweite\\Zeile"
	e := ICalEvent{UID: "7@example.org", Summary: long, Status: "CONFIRMED",
		Start: time.Date(2026, 3, 29, 0, 30, 0, 0, time.UTC), Zone: "Europe/Berlin",
		Categories: []string{"A,B", "C"}}
	e.End, e.Stamp, e.Modified = e.Start.Add(3*time.Hour), e.Start, e.Start
	out := string(ICalendar("-//t//t//EN", "", []ICalEvent{e}))
	if strings.Contains(strings.ReplaceAll(out, "\r\n", ""), "\n") || !strings.HasSuffix(out, "\r\n") {
		t.Fatalf("line ends are not CRLF:\n%q", out)
	}

	for _, l := range strings.Split(strings.TrimSuffix(out, "\r\n"), "\r\n") {
		if len(l) > 75 || !utf8.ValidString(l) {
			t.Errorf("line of %d octets or cut inside a character: %q", len(l), l)
		}
	}

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
	day := ICalEvent{UID: "1@h", Summary: "Fair", AllDay: true, StartDay: "2026-12-30",
		EndDay: "2027-01-02", Status: "CONFIRMED"}
	tokyo := ICalEvent{UID: "2@h", Summary: "Talk", Zone: "Asia/Tokyo", Status: "TENTATIVE",
		Start: time.Date(2026, 5, 1, 1, 0, 0, 0, time.UTC),
		End:   time.Date(2026, 5, 1, 2, 0, 0, 0, time.UTC),
		Geo:   &[2]float64{35.68, 139.76}, Organizer: &ICalPerson{Name: `Ann "A" Lee`, Email: "a@h"}}
	out := strings.ReplaceAll(string(ICalendar("p", "n", []ICalEvent{day, tokyo})), "\r\n ", "")
	for _, want := range []string{
		"DTSTART;VALUE=DATE:20261230\r\nDTEND;VALUE=DATE:20270102\r\n",
		"TZID:Asia/Tokyo\r\nBEGIN:STANDARD\r\n",
		"TZOFFSETTO:+0900\r\nTZNAME:JST\r\n",
		"DTSTART;TZID=Asia/Tokyo:20260501T100000\r\n",
		"GEO:35.68;139.76\r\n",
		"ORGANIZER;CN=\"Ann A Lee\":mailto:a@h\r\n",
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
