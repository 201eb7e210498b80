package mapping

import (
	"testing"
	"time"
)

// TestWindowRecordedExamples reproduces the effective dates in the rest_url of the original's
// recorded responses (shared/spec/examples, now = 2026-11-22 18:54:25 UTC, site America/New_York).
func TestWindowRecordedExamples(t *testing.T) {
	ny := mustLocalizeZone(t, "America/New_York")
	for _, tc := range []struct {
		name string
		q    WindowQuery
		now  time.Time
		want Window
	}{
		{"010 default", WindowQuery{}, stNow,
			Window{StartDate: "2026-11-21 00:00:00", EndDate: "2028-11-22 23:59:59"}},
		{"030 start_date", WindowQuery{StartDate: "2026-12-22", StartDateInQuery: true}, stNow,
			Window{StartDate: "2026-12-22 00:00:00", EndDate: "2028-11-22 23:59:59"}},
		{"032 start and end", WindowQuery{StartDate: "2026-11-27", StartDateInQuery: true, EndDate: "2026-12-12", EndDateInQuery: true}, stNow,
			Window{StartDate: "2026-11-27 00:00:00", EndDate: "2026-12-12 23:59:59"}},
		{"044 strict", WindowQuery{StartDate: "2026-11-26", StartDateInQuery: true, EndDate: "2026-11-27", EndDateInQuery: true, StrictDates: "true"}, stNow,
			Window{StartDate: "2026-11-25 19:00:00", EndDate: "2026-11-26 19:00:00"}},
		{"048 starts_after", WindowQuery{StartsAfter: "2026-12-22"}, stNow,
			Window{StartsAfter: "2026-12-22 23:59:59"}},
		{"092 include", WindowQuery{Include: true}, stNow.Add(7 * time.Second),
			Window{StartDate: "2026-11-21 18:59:00", EndDate: "2028-11-22 18:54:32"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := EffectiveWindow(tc.q, tc.now, ny); got != tc.want {
				t.Errorf("EffectiveWindow = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestWindowDefaults checks the raw argument defaults the namespace index shows (001-index.json).
func TestWindowDefaults(t *testing.T) {
	ny := mustLocalizeZone(t, "America/New_York")
	if got, want := DefaultStart(stNow, ny), "2026-11-21 18:59:00"; got != want {
		t.Errorf("DefaultStart = %q, want %q", got, want)
	}

	if got, want := DefaultEnd(stNow), "2028-11-22 18:54:25"; got != want {
		t.Errorf("DefaultEnd = %q, want %q", got, want)
	}

	// +24 months from a leap day overflows as PHP does.
	if got, want := DefaultEnd(time.Date(2028, 2, 29, 12, 0, 0, 0, time.UTC)), "2030-03-01 12:00:00"; got != want {
		t.Errorf("DefaultEnd(2028-02-29) = %q, want %q", got, want)
	}
}

// TestWindowReferenceExamples covers the default window and strict/inclusive modes as
// Archive_Event::get computes them, on the examples of TEC's source documentation.
func TestWindowReferenceExamples(t *testing.T) {
	ny := mustLocalizeZone(t, "America/New_York")
	june := time.Date(2024, 6, 10, 12, 0, 0, 0, time.UTC)
	if got, want := DefaultStart(june, ny), "2024-06-09 19:59:00"; got != want {
		t.Errorf("DefaultStart = %q, want %q", got, want)
	}

	for _, tc := range []struct {
		name string
		q    WindowQuery
		want Window
	}{
		{"defaults, inclusive", WindowQuery{},
			Window{StartDate: "2024-06-09 00:00:00", EndDate: "2026-06-10 23:59:59"}},
		// The default start is already site time and the original converts it again.
		{"defaults, strict", WindowQuery{StrictDates: "1"},
			Window{StartDate: "2024-06-09 15:59:00", EndDate: "2026-06-10 08:00:00"}},
		{"source docs, strict", WindowQuery{StartDate: "2017-12-21", EndDate: "2017-12-22", StartDateInQuery: true, EndDateInQuery: true, StrictDates: "true"},
			Window{StartDate: "2017-12-20 19:00:00", EndDate: "2017-12-21 19:00:00"}},
		{"source docs, inclusive", WindowQuery{StartDate: "2017-12-21", EndDate: "2017-12-22", StartDateInQuery: true, EndDateInQuery: true},
			Window{StartDate: "2017-12-21 00:00:00", EndDate: "2017-12-22 23:59:59"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := EffectiveWindow(tc.q, june, ny); got != tc.want {
				t.Errorf("EffectiveWindow = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestWindowEastOfUTC: for sites east of UTC the default start falls on UTC-today's date.
func TestWindowEastOfUTC(t *testing.T) {
	tokyo := mustLocalizeZone(t, "Asia/Tokyo")
	if got, want := DefaultStart(stNow, tokyo), "2026-11-22 08:59:00"; got != want {
		t.Errorf("DefaultStart = %q, want %q", got, want)
	}

	want := Window{StartDate: "2026-11-22 00:00:00", EndDate: "2028-11-22 23:59:59"}
	if got := EffectiveWindow(WindowQuery{}, stNow, tokyo); got != want {
		t.Errorf("EffectiveWindow = %+v, want %+v", got, want)
	}

	utc := mustLocalizeZone(t, "UTC")
	want = Window{StartDate: "2026-11-21 00:00:00", EndDate: "2028-11-22 23:59:59"}
	if got := EffectiveWindow(WindowQuery{}, stNow, utc); got != want {
		t.Errorf("EffectiveWindow (UTC) = %+v, want %+v", got, want)
	}
}

// TestWindowDST checks localization on both sides of New York's daylight saving changes.
func TestWindowDST(t *testing.T) {
	ny := mustLocalizeZone(t, "America/New_York")
	for _, tc := range []struct{ now, want string }{
		{"2026-03-08 12:00:00", "2026-03-07 18:59:00"}, // yesterday 23:59 UTC is still EST
		{"2026-03-09 12:00:00", "2026-03-08 19:59:00"}, // … and now EDT
		{"2026-11-01 12:00:00", "2026-10-31 19:59:00"},
		{"2026-11-02 12:00:00", "2026-11-01 18:59:00"},
	} {
		now, _ := time.Parse(DBDateTimeLayout, tc.now)
		if got := DefaultStart(now, ny); got != tc.want {
			t.Errorf("DefaultStart(%s) = %q, want %q", tc.now, got, tc.want)
		}
	}

	for in, want := range map[string]string{
		"2026-11-01 05:30:00":       "2026-11-01 01:30:00", // EDT
		"2026-11-01 06:30:00":       "2026-11-01 01:30:00", // EST: the hour repeats
		"2026-03-08 06:59:59":       "2026-03-08 01:59:59",
		"2026-03-08 07:00:00":       "2026-03-08 03:00:00",
		"2026-03-08T02:30:00-05:00": "2026-03-08 03:30:00",
		"1700000000":                "2023-11-14 17:13:20",
		"12.0":                      "1969-12-31 19:00:12",
		"-5":                        "1969-12-31 18:59:55",
		"1e3":                       "", // numeric, but DateTime("@1e3") throws
		"+5":                        "",
		" 123":                      "",
		"notadate":                  "",
	} {
		if got := Localize(in, stNow, ny); got != want {
			t.Errorf("Localize(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWindowCutoff checks TEC's multiDayCutoff option in the inclusive bounds.
func TestWindowCutoff(t *testing.T) {
	for _, tc := range []struct{ v, cutoff, bod, eod string }{
		{"2026-12-22", "", "2026-12-22 00:00:00", "2026-12-22 23:59:59"},
		{"2026-12-22", "00:00", "2026-12-22 00:00:00", "2026-12-22 23:59:59"},
		{"2026-12-22 18:00", "05:30", "2026-12-22 05:30:00", "2026-12-23 05:29:59"},
		{"2026-12-31", "5:00", "2026-12-31 05:00:00", "2027-01-01 04:59:59"},
		{"2026-12-22T23:30:00-05:00", "", "2026-12-23 00:00:00", "2026-12-23 23:59:59"}, // the UTC date
		{"1700000000", "", "2023-11-14 00:00:00", "2023-11-14 23:59:59"},
		{"", "", "2026-11-22 00:00:00", "2026-11-22 23:59:59"},  // PHP empty(): today
		{"0", "", "2026-11-22 00:00:00", "2026-11-22 23:59:59"}, // "0" too
		{"notadate", "", "1970-01-01 00:00:00", "1970-01-01 23:59:59"},
		{"2026-12-22", "bogus", "2026-12-22 00:00:00", "2026-12-22 23:59:59"},
	} {
		if got := BeginningOfDay(tc.v, stNow, tc.cutoff); got != tc.bod {
			t.Errorf("BeginningOfDay(%q, %q) = %q, want %q", tc.v, tc.cutoff, got, tc.bod)
		}
		if got := EndOfDay(tc.v, stNow, tc.cutoff); got != tc.eod {
			t.Errorf("EndOfDay(%q, %q) = %q, want %q", tc.v, tc.cutoff, got, tc.eod)
		}
	}

	ny := mustLocalizeZone(t, "America/New_York")
	q := WindowQuery{StartDate: "2026-12-01", StartDateInQuery: true, EndsAfter: "2026-12-05", Cutoff: "06:00"}
	want := Window{StartDate: "2026-12-01 06:00:00", EndsAfter: "2026-12-06 05:59:59"}
	if got := EffectiveWindow(q, stNow, ny); got != want {
		t.Errorf("EffectiveWindow with cutoff = %+v, want %+v", got, want)
	}
}

// TestWindowSteps covers how Archive_Event::get treats include (the default window replaces any
// start_date/end_date), starts_*/ends_* (start_date/end_date dropped unless in the query string)
// and the strict/inclusive switch.
func TestWindowSteps(t *testing.T) {
	ny := mustLocalizeZone(t, "America/New_York")
	for _, tc := range []struct {
		name string
		q    WindowQuery
		want Window
	}{
		{"include replaces explicit dates with the raw defaults",
			WindowQuery{StartDate: "2026-12-01", EndDate: "2026-12-31", StartDateInQuery: true, EndDateInQuery: true, Include: true},
			Window{StartDate: "2026-11-21 18:59:00", EndDate: "2028-11-22 18:54:25"}},
		{"include in strict mode",
			WindowQuery{Include: true, StrictDates: "yes"},
			Window{StartDate: "2026-11-21 18:59:00", EndDate: "2028-11-22 18:54:25"}},
		{"starts_* keeps start_date from the query string",
			WindowQuery{StartDate: "2026-12-01", StartDateInQuery: true, StartsBefore: "2026-12-10"},
			Window{StartDate: "2026-12-01 00:00:00", StartsBefore: "2026-12-10 23:59:59"}},
		{"start_date only in the body is dropped",
			WindowQuery{StartDate: "2026-12-01", EndsBefore: "2026-12-10"},
			Window{EndsBefore: "2026-12-10 23:59:59"}},
		{"include and starts_after: defaults dropped unless in the query",
			WindowQuery{Include: true, StartsAfter: "2026-12-01", EndDate: "2026-12-31", EndDateInQuery: true},
			Window{EndDate: "2028-11-22 18:54:25", StartsAfter: "2026-12-01 23:59:59"}},
		{"all four relative bounds, inclusive",
			WindowQuery{StartsBefore: "2026-12-10", StartsAfter: "2026-12-01", EndsBefore: "2026-12-20", EndsAfter: "2026-12-02"},
			Window{StartsBefore: "2026-12-10 23:59:59", StartsAfter: "2026-12-01 23:59:59", EndsBefore: "2026-12-20 23:59:59", EndsAfter: "2026-12-02 23:59:59"}},
		{"all four relative bounds, strict",
			WindowQuery{StartsBefore: "2026-12-10", StartsAfter: "2026-12-01 10:00", EndsBefore: "2026-12-20", EndsAfter: "2026-12-02", StrictDates: "ON"},
			Window{StartsBefore: "2026-12-09 19:00:00", StartsAfter: "2026-12-01 05:00:00", EndsBefore: "2026-12-19 19:00:00", EndsAfter: "2026-12-01 19:00:00"}},
		{"strict_dates=false is inclusive",
			WindowQuery{StartDate: "2026-12-01 10:00", StartDateInQuery: true, StrictDates: "false"},
			Window{StartDate: "2026-12-01 00:00:00", EndDate: "2028-11-22 23:59:59"}},
		{"strict_dates=2 is inclusive",
			WindowQuery{StartDate: "2026-12-01 10:00", StartDateInQuery: true, StrictDates: "2"},
			Window{StartDate: "2026-12-01 00:00:00", EndDate: "2028-11-22 23:59:59"}},
		{"timestamps and relative phrases",
			WindowQuery{StartDate: "1796083200", EndDate: "+1 week", StartDateInQuery: true, EndDateInQuery: true, StrictDates: "1"},
			Window{StartDate: "2026-11-30 19:00:00", EndDate: "2026-11-29 13:54:25"}},
		{"explicit offset", WindowQuery{StartDate: "2026-12-01T09:00:00+01:00", StartDateInQuery: true, StrictDates: "true"},
			Window{StartDate: "2026-12-01 03:00:00", EndDate: "2028-11-22 13:54:25"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := EffectiveWindow(tc.q, stNow, ny); got != tc.want {
				t.Errorf("EffectiveWindow = %+v,\n want %+v", got, tc.want)
			}
		})
	}
}

func TestValidDateArg(t *testing.T) {
	for in, want := range map[string]bool{
		"2026-12-22": true, "tomorrow 9am": true, "next wednesday 4pm": true, "1700000000": true,
		"1.5": true, "-5": true, "  ": true, // strtotime("  ") is now
		"": false, "foo": false, "notadate": false, "alsonot": false, "2026-13-45": false,
		"1970-01-01 00:00:00": false, "@0": false, // strtotime's 0 is falsy
		"1970-01-01 00:00:01": true,
	} {
		if got := ValidDateArg(in, stNow); got != want {
			t.Errorf("ValidDateArg(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestLoadZone(t *testing.T) {
	at := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		off  int // seconds east of UTC on 2026-07-01
	}{
		{"America/New_York", -4 * 3600}, {"Asia/Tokyo", 9 * 3600}, {"UTC", 0},
		{"UTC+0", 0}, {"UTC-3", -3 * 3600}, {"UTC+5.5", 19800}, {"UTC+5.75", 20700},
		{"UTC-9.5", -34200}, {"UTC+13.75", 49500}, {"UTC+5:30", 19800}, {"+05:30", 19800}, {"-03:00", -10800},
		{" Europe/Paris ", 2 * 3600},
	} {
		loc, err := LoadZone(tc.name)
		if err != nil {
			t.Errorf("LoadZone(%q): %v", tc.name, err)
			continue
		}
		if _, off := at.In(loc).Zone(); off != tc.off {
			t.Errorf("LoadZone(%q) offset = %d, want %d", tc.name, off, tc.off)
		}
	}

	if loc := mustZone(t, "UTC+5.5"); loc.String() != "UTC+5.5" {
		t.Errorf("LoadZone(UTC+5.5) is named %q", loc)
	}

	for _, name := range []string{"", "Local", "UTCx", "UTC+", "UTC+abc", "UTC+0x1p3", "UTC+99", "Mars/Olympus", "EST5EDTX"} {
		if _, err := LoadZone(name); err == nil {
			t.Errorf("LoadZone(%q) succeeded", name)
		}
	}
}

// TestLocalizeZone checks the zone Tribe__Timezones::localize_date derives from a "UTC±h" setting,
// oddities included.
func TestLocalizeZone(t *testing.T) {
	for name, want := range map[string]string{
		"America/New_York": "America/New_York",
		"UTC":              "UTC",
		"UTC-5":            "America/New_York",
		"UTC+0":            "Europe/London",
		"UTC+5.5":          "Asia/Kolkata",
		"UTC+6":            "UTC",
		"UTC-10.5":         "Pacific/Honolulu",
		"UTC-5:30":         "America/Caracas", // TEC adds the minutes to -5 hours: -4:30
		"UTC+14":           "UTC",
		"+05:30":           "+05:30",
	} {
		loc, err := LocalizeZone(name)
		if err != nil || loc.String() != want {
			t.Errorf("LocalizeZone(%q) = %v, %v, want %s", name, loc, err, want)
		}
	}

	// An offset WordPress does not offer stays fixed.
	loc, err := LocalizeZone("UTC+3.2")
	if _, off := stNow.In(loc).Zone(); err != nil || off != 11520 {
		t.Errorf("LocalizeZone(UTC+3.2) = %v, %v", loc, err)
	}

	// A UTC-5 site localizes with New York's daylight saving time, as TEC does.
	summer := time.Date(2026, 7, 10, 12, 0, 0, 0, time.UTC)
	if got, want := DefaultStart(summer, mustLocalizeZone(t, "UTC-5")), "2026-07-09 19:59:00"; got != want {
		t.Errorf("DefaultStart for a UTC-5 site in July = %q, want %q", got, want)
	}

	if _, err := LocalizeZone("Nowhere/Special"); err == nil {
		t.Error("LocalizeZone(Nowhere/Special) succeeded")
	}
}

func mustLocalizeZone(tb testing.TB, name string) *time.Location {
	tb.Helper()
	loc, err := LocalizeZone(name)
	if err != nil {
		tb.Fatal(err)
	}
	return loc
}
