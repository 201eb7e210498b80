package mapping

import (
	"testing"
	"time"
)

func TestNewEventDates(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	wall := func(s string) time.Time { t, _ := time.ParseInLocation(DBDateTimeLayout, s, time.UTC); return t }
	for _, tc := range []struct {
		name       string
		start, end string
		allDay     bool
		tz         string
		want       EventDates
	}{
		{"site zone", "2027-01-12 10:00:00", "2027-01-12 11:00:00", false, "",
			EventDates{"2027-01-12 10:00:00", "2027-01-12 11:00:00", "2027-01-12 15:00:00", "2027-01-12 16:00:00", "America/New_York", "EST", 3600, false}},
		{"given zone", "2027-01-11 18:00:00", "2027-01-11 21:00:00", false, "Europe/London",
			EventDates{"2027-01-11 18:00:00", "2027-01-11 21:00:00", "2027-01-11 18:00:00", "2027-01-11 21:00:00", "Europe/London", "GMT", 10800, false}},
		{"summer abbreviation", "2027-07-01 09:00:00", "2027-07-01 10:00:00", false, "Europe/Paris",
			EventDates{"2027-07-01 09:00:00", "2027-07-01 10:00:00", "2027-07-01 07:00:00", "2027-07-01 08:00:00", "Europe/Paris", "CEST", 3600, false}},
		{"all day, multi-day", "2027-01-13 09:00:00", "2027-01-14 11:00:00", true, "",
			EventDates{"2027-01-13 00:00:00", "2027-01-14 23:59:59", "2027-01-13 05:00:00", "2027-01-15 04:59:59", "America/New_York", "EST", -1, true}},
		// The original's answers to POST /events with these dates (6.17.2): the end moves to the start,
		// the UTC end stays the one given.
		{"end before start", "2026-12-10 10:00:00", "2026-12-10 08:00:00", false, "",
			EventDates{"2026-12-10 10:00:00", "2026-12-10 10:00:00", "2026-12-10 15:00:00", "2026-12-10 13:00:00", "America/New_York", "EST", 0, false}},
		{"end before start, other zone", "2026-12-10 10:00:00", "2026-12-09 12:00:00", false, "Europe/Paris",
			EventDates{"2026-12-10 10:00:00", "2026-12-10 10:00:00", "2026-12-10 09:00:00", "2026-12-09 11:00:00", "Europe/Paris", "CET", 0, false}},
		{"all day, end day before start day", "2026-12-10 10:00:00", "2026-12-08 11:00:00", true, "Asia/Tokyo",
			EventDates{"2026-12-10 00:00:00", "2026-12-10 00:00:00", "2026-12-09 15:00:00", "2026-12-08 14:59:59", "Asia/Tokyo", "JST", -1, true}},
		{"UTC offset zone", "2027-01-12 10:00:00", "2027-01-12 11:00:00", false, "UTC+5.5",
			EventDates{"2027-01-12 10:00:00", "2027-01-12 11:00:00", "2027-01-12 04:30:00", "2027-01-12 05:30:00", "UTC+5.5", "UTC+5.5", 3600, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := NewEventDates(wall(tc.start), wall(tc.end), tc.allDay, tc.tz, "America/New_York", "00:00", ny)
			if got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestCostCurrency(t *testing.T) {
	for _, tc := range []struct {
		in       []string
		sym, pos string
		ok       bool
	}{
		{[]string{"20$"}, "$", "postfix", true},
		{[]string{"$23"}, "$", "prefix", true},
		{[]string{"€ 5", "€10"}, "€", "prefix", true},
		{[]string{"5-10"}, "", "", false},
		{[]string{"Free"}, "", "", false},
		{[]string{"25"}, "", "", false},
		{[]string{"$5", "10€"}, "", "", false},
	} {
		sym, pos, ok := CostCurrency(tc.in)
		if sym != tc.sym || pos != tc.pos || ok != tc.ok {
			t.Errorf("CostCurrency(%q) = %q %q %v, want %q %q %v", tc.in, sym, pos, ok, tc.sym, tc.pos, tc.ok)
		}
	}
}

func TestValidEventTimezone(t *testing.T) {
	for tz, want := range map[string]bool{"": true, "Europe/Rome": true, "UTC": true, "UTC+3": true, "UTC-5.5": true,
		"Mars/Olympus": false, "Local": false, "EST5EDT": true} {
		if got := ValidEventTimezone(tz); got != want {
			t.Errorf("ValidEventTimezone(%q) = %v", tz, got)
		}
	}
}

func TestStateProvinceAndURL(t *testing.T) {
	if got := StateProvince("TX", "", "United States"); got != "TX" {
		t.Errorf("US state: %q", got)
	}
	if got := StateProvince("TX", "Ontario", "Canada"); got != "Ontario" {
		t.Errorf("province: %q", got)
	}
	if got := SanitizeURL(" example.com/a b<c> "); got != "http://example.com/a%20bc" {
		t.Errorf("SanitizeURL = %q", got)
	}
}

func TestSameContent(t *testing.T) {
	for _, tc := range []struct {
		rendered, raw string
		want          bool
	}{
		{"<p>D1</p>", "D1", true},
		{"<p>d1</p>", "D1", true},
		{"<p>a</p>\n<p>b</p>", "a\n\nb", true},
		{"<p>D1</p>", "D2", false},
		{"", "", true},
	} {
		if got := SameContent(tc.rendered, tc.raw); got != tc.want {
			t.Errorf("SameContent(%q, %q) = %v", tc.rendered, tc.raw, got)
		}
	}
}

// TestOffsetZone: the original's UTC dates for events saved in "UTC±h" zones on 2026-07-10 10:00 (its
// answers to POST /events): they follow the named zone of the offset, daylight saving included.
func TestOffsetZone(t *testing.T) {
	wall := time.Date(2026, 7, 10, 10, 0, 0, 0, time.UTC).Format(DBDateTimeLayout)
	for tz, want := range map[string]string{
		"UTC-5": "2026-07-10 14:00:00", "UTC+1": "2026-07-10 08:00:00", "UTC+99": "2026-07-10 10:00:00",
		"UTC+13.75": "2026-07-10 10:00:00", "UTC+5.5": "2026-07-10 04:30:00", "UTC+0": "2026-07-10 10:00:00",
		"UTC-8": "2026-07-10 17:00:00", "UTC+2": "2026-07-10 07:00:00", "UTC+9.5": "2026-07-10 00:30:00",
		"UTC+10": "2026-07-10 00:00:00",
	} {
		if got := wallIn(wall, EventZone(tz, time.UTC)).UTC().Format(DBDateTimeLayout); got != want {
			t.Errorf("%s: %s, want %s", tz, got, want)
		}
	}
}
