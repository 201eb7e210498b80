package mapping

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // zones must not depend on the host's zoneinfo files

	"calshim/mapping/php"
)

// Window is the effective date filter of an event archive request (Archive_Event::get): "Y-m-d
// H:i:s" wall times, exactly as TEC writes them into rest_url and compares them with the events'
// local start and end (_EventStartDate, _EventEndDate). "" means the bound is absent.
type Window struct {
	StartDate    string // event start ≥
	EndDate      string // event end ≤
	StartsBefore string // event start <
	StartsAfter  string // event start >
	EndsBefore   string // event end <
	EndsAfter    string // event end >
}

// WindowQuery holds the date arguments of an event archive request as the client sent them, already
// validated with ValidDateArg (TEC answers 400 rest_invalid_param before any of this runs).
type WindowQuery struct {
	// StartDate and EndDate are start_date and end_date; "" when not given, so that the argument
	// defaults (DefaultStart, DefaultEnd) apply.
	StartDate, EndDate string
	// StartDateInQuery and EndDateInQuery report whether the argument appears in the URL query string
	// itself: when any starts_*/ends_* is given, TEC keeps start_date/end_date only then
	// ($request->get_query_params()). For a GET request this is StartDate != "" / EndDate != "".
	StartDateInQuery, EndDateInQuery bool
	// StartsBefore, StartsAfter, EndsBefore and EndsAfter are the starts_*/ends_* arguments; "" = not
	// given.
	StartsBefore, StartsAfter, EndsBefore, EndsAfter string
	// StrictDates is the raw strict_dates value; "" = not given, i.e. the default "false" (inclusive
	// mode).
	StrictDates string
	// Include reports that a non-empty include list was given.
	Include bool
	// Cutoff is TEC's multiDayCutoff option ("HH:MM"); "" = "00:00".
	Cutoff string
}

// EffectiveWindow computes the dates an archive request filters on, following
// Tribe__Events__REST__V1__Endpoints__Archive_Event::get (TEC 6.17.2):
//
//  1. every given date is localized (Localize); start_date and end_date fall back to their
//     defaults, which are localized again (the default start, already site time, moves a second
//     time);
//  2. inclusive mode (strict_dates not truthy per php.FilterBool): start_date becomes BeginningOfDay
//     and end_date and all four starts_*/ends_* become EndOfDay of the raw values (so
//     starts_after=X excludes the whole of day X);
//  3. include given: start_date/end_date are replaced by the raw defaults, whatever was asked;
//  4. any starts_*/ends_* given: start_date/end_date are dropped unless they are in the query
//     string.
//
// site is the zone TEC localizes with: LocalizeZone of the site's time zone setting.
func EffectiveWindow(q WindowQuery, now time.Time, site *time.Location) Window {
	defStart, defEnd := DefaultStart(now, site), DefaultEnd(now)
	start, end := q.StartDate, q.EndDate
	if start == "" {
		start = defStart
	}

	if end == "" {
		end = defEnd
	}

	w := localizedWindow(q, start, end, now, site)
	if !php.FilterBool(q.StrictDates) {
		w = inclusiveWindow(w, q, start, end, now)
	}

	if q.Include {
		w.StartDate, w.EndDate = defStart, defEnd
	}

	if q.StartsBefore != "" || q.StartsAfter != "" || q.EndsBefore != "" || q.EndsAfter != "" {
		if !q.StartDateInQuery {
			w.StartDate = ""
		}
		if !q.EndDateInQuery {
			w.EndDate = ""
		}
	}

	return w
}

// localizedWindow is step 1 of EffectiveWindow: every given date localized, start and end being
// start_date and end_date with their defaults.
func localizedWindow(q WindowQuery, start, end string, now time.Time, site *time.Location) Window {
	loc := func(v string) string {
		if v == "" {
			return ""
		}
		return Localize(v, now, site)
	}

	return Window{
		StartDate: loc(start), EndDate: loc(end),
		StartsBefore: loc(q.StartsBefore), StartsAfter: loc(q.StartsAfter),
		EndsBefore: loc(q.EndsBefore), EndsAfter: loc(q.EndsAfter),
	}
}

// inclusiveWindow is step 2 of EffectiveWindow: the bounds of w widened to whole days, computed
// from the raw values; a bound that failed to localize stays "", as TEC skips it.
func inclusiveWindow(w Window, q WindowQuery, start, end string, now time.Time) Window {
	bound := func(effective, raw string, f func(string, time.Time, string) string) string {
		if effective == "" {
			return ""
		}
		return f(raw, now, q.Cutoff)
	}

	w.StartDate = bound(w.StartDate, start, BeginningOfDay)
	w.EndDate = bound(w.EndDate, end, EndOfDay)
	w.StartsBefore = bound(w.StartsBefore, q.StartsBefore, EndOfDay)
	w.StartsAfter = bound(w.StartsAfter, q.StartsAfter, EndOfDay)
	w.EndsBefore = bound(w.EndsBefore, q.EndsBefore, EndOfDay)
	w.EndsAfter = bound(w.EndsAfter, q.EndsAfter, EndOfDay)
	return w
}

// DefaultStart is the start_date argument default as the namespace index shows it and include uses
// it: localize("yesterday 23:59"), i.e. yesterday's UTC date at 23:59 UTC expressed in site time.
func DefaultStart(now time.Time, site *time.Location) string {
	return Localize("yesterday 23:59", now, site)
}

// DefaultEnd is the end_date argument default: now + 24 months as a UTC wall time, not converted to
// the site zone (date('Y-m-d H:i:s', strtotime('+24 months'))).
func DefaultEnd(now time.Time) string {
	t, _ := php.ParseTime("+24 months", now, time.UTC)
	return t.UTC().Format(DBDateTimeLayout)
}

// Localize is Tribe__Timezones::localize_date: v read as UTC wall time unless it carries its own
// offset (timestamps are instants), expressed in site time as "Y-m-d H:i:s". It returns "" where
// TEC gets false: v does not parse, or is a timestamp DateTime("@…") refuses ("1e3", "+5", " 123").
func Localize(v string, now time.Time, site *time.Location) string {
	if _, ok := php.IsTimestamp(v); ok {
		v = "@" + v
	}

	t, ok := php.ParseTime(v, now, time.UTC)
	if !ok {
		return ""
	}

	return t.In(site).Format(DBDateTimeLayout)
}

// BeginningOfDay is tribe_beginning_of_day: the UTC calendar date of v at 00:00:00 plus the
// multiDayCutoff ("HH:MM", "" = "00:00"). As in PHP, an empty v or "0" means today (PHP's empty()),
// and a v that does not parse gives 1970-01-01 (validation keeps that from happening).
func BeginningOfDay(v string, now time.Time, cutoff string) string {
	return winDayStart(v, now, cutoff).Format(DBDateTimeLayout)
}

// EndOfDay is tribe_end_of_day: one second before the next day's BeginningOfDay, so 23:59:59 with
// the default cutoff.
func EndOfDay(v string, now time.Time, cutoff string) string {
	return winDayStart(v, now, cutoff).AddDate(0, 0, 1).Add(-time.Second).Format(DBDateTimeLayout)
}

// winDayStart is the UTC date of v (PHP's date('Y-m-d', strtotime($v))) at 00:00 plus the cutoff.
func winDayStart(v string, now time.Time, cutoff string) time.Time {
	day := time.Unix(0, 0).UTC() // date('Y-m-d', false)
	if php.Empty(v) {
		day = now.UTC()
	} else if t, ok := php.ParseTime(v, now, time.UTC); ok {
		day = t.UTC()
	}

	h, m := winCutoff(cutoff)
	return time.Date(day.Year(), day.Month(), day.Day(), h, m, 0, 0, time.UTC)
}

// winCutoff reads multiDayCutoff "H:MM"/"HH:MM"; anything else counts as "00:00".
func winCutoff(c string) (hours, minutes int) {
	hs, ms, ok := strings.Cut(c, ":")
	h, err1 := strconv.Atoi(hs)
	m, err2 := strconv.Atoi(ms)
	if !ok || err1 != nil || err2 != nil || h < 0 || h > 23 || m < 0 || m > 59 {
		return 0, 0
	}
	return h, m
}

// ValidDateArg is TEC's is_time validator for date arguments: numeric (PHP is_numeric), or a string
// strtotime parses to something other than the epoch (strtotime's 0 is falsy in PHP, so
// "1970-01-01 00:00:00" is rejected as TEC rejects it).
func ValidDateArg(v string, now time.Time) bool {
	if php.IsNumeric(v) {
		return true
	}
	t, ok := php.ParseTime(v, now, time.UTC)
	return ok && t.Unix() != 0
}

// LoadZone returns the zone named by a WordPress/TEC time zone setting: an IANA name
// ("America/New_York"), "UTC", a WordPress manual offset in TEC's form ("UTC+5.5", "UTC-3",
// "UTC+0", "UTC+5:30") or WordPress' own ("+05:30"). Offsets become fixed zones named as written,
// as TEC applies them to event dates. "Local" and "" are refused.
func LoadZone(name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	if off, ok := winUTCOffset(name); ok {
		return time.FixedZone(name, off), nil
	}

	if name == "" || name == "Local" {
		return nil, fmt.Errorf("mapping: invalid time zone %q", name)
	}

	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("mapping: invalid time zone %q: %w", name, err)
	}

	return loc, nil
}

// LocalizeZone returns the zone TEC's localize_date really uses for a site time zone setting, the
// one to pass to EffectiveWindow, DefaultStart and Localize. It is LoadZone's, except for "UTC±h"
// settings: TEC turns those into a zone name with timezone_name_from_abbr
// (Tribe__Timezones::generate_timezone_string_from_utc_offset), so "UTC-5" localizes as
// America/New_York, daylight saving included, "UTC+0" as Europe/London and "UTC+6" as UTC. The
// table is what PHP 8.2 answers for every offset WordPress offers; other offsets stay fixed.
func LocalizeZone(name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	secs, ok := tecOffsetSeconds(name)
	if !ok {
		return LoadZone(name)
	}

	if zone, ok := tecOffsetZones[secs]; ok {
		return time.LoadLocation(zone)
	}

	return time.FixedZone(name, secs), nil
}

// winUTCOffset parses "UTC±h[.frac]", "UTC±h:mm" and "±hh:mm" into seconds east of UTC ("UTC"
// itself is left to time.LoadLocation).
func winUTCOffset(name string) (int, bool) {
	rest, isUTC := strings.CutPrefix(name, "UTC")
	if name == "UTC" || !isUTC && !strings.HasPrefix(name, "+") && !strings.HasPrefix(name, "-") {
		return 0, false
	}

	sign := 1
	switch {
	case strings.HasPrefix(rest, "-"):
		sign, rest = -1, rest[1:]
	case strings.HasPrefix(rest, "+"):
		rest = rest[1:]
	}

	var secs float64
	if hs, ms, colon := strings.Cut(rest, ":"); colon {
		h, err1 := strconv.Atoi(hs)
		m, err2 := strconv.Atoi(ms)
		if err1 != nil || err2 != nil || m < 0 || m > 59 {
			return 0, false
		}
		secs = float64(h*3600 + m*60)
	} else {
		if !winDecimal(rest) {
			return 0, false
		}
		h, _ := strconv.ParseFloat(rest, 64)
		secs = h * 3600
	}

	if secs < 0 || secs > 18*3600 {
		return 0, false
	}

	return sign * int(secs+0.5), true
}

// tecOffsetSeconds is generate_timezone_string_from_utc_offset's arithmetic on "UTC±…" (anything
// longer than "UTC" starting with it): hours*3600 + minutes*60, the sign applying to the hours
// only.
func tecOffsetSeconds(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "UTC")
	if !ok || rest == "" {
		return 0, false
	}

	hs, ms, _ := strings.Cut(rest, ":")
	if ms == "" {
		ms = "0"
	}

	if !winDecimal(strings.TrimLeft(hs, "+-")) || len(hs)-len(strings.TrimLeft(hs, "+-")) > 1 ||
		!winDecimal(ms) {
		return 0, false
	}

	h, _ := strconv.ParseFloat(hs, 64)
	m, _ := strconv.ParseFloat(ms, 64)
	if h < -18 || h > 18 || m > 59 {
		return 0, false
	}

	return int(h*3600 + m*60), true
}

// winDecimal reports whether s is digits with at most one decimal point.
func winDecimal(s string) bool {
	if s == "" || s == "." || strings.Count(s, ".") > 1 {
		return false
	}
	return strings.Trim(s, "0123456789.") == ""
}

// tecOffsetZones is what generate_timezone_string_from_utc_offset returns on PHP 8.2 for the manual
// offsets WordPress offers, by offset in seconds (timezone_name_from_abbr, then the first
// standard-time entry of timezone_abbreviations_list, then "UTC").
var tecOffsetZones = map[int]string{
	-43200: "UTC", -41400: "UTC", -39600: "Pacific/Apia", -37800: "Pacific/Honolulu",
	-36000: "Pacific/Honolulu", -34200: "UTC", -32400: "America/Anchorage", -30600: "UTC",
	-28800: "America/Los_Angeles", -27000: "UTC", -25200: "America/Denver", -23400: "UTC",
	-21600: "America/Chicago", -19800: "UTC", -18000: "America/New_York", -16200: "America/Caracas",
	-14400: "America/Halifax", -12600: "America/St_Johns", -10800: "America/Sao_Paulo", -9000: "UTC",
	-7200: "UTC", -5400: "UTC", -3600: "Atlantic/Azores", -1800: "UTC", 0: "Europe/London",
	1800: "UTC",
	3600: "Europe/Paris", 5400: "Africa/Johannesburg", 7200: "Europe/Helsinki", 9000: "UTC",
	10800: "Europe/Moscow", 12600: "UTC", 14400: "Asia/Dubai", 16200: "UTC", 18000: "Asia/Karachi",
	19800: "Asia/Kolkata", 20700: "Asia/Katmandu", 21600: "UTC", 23400: "UTC",
	25200: "Asia/Krasnoyarsk",
	27000: "UTC", 28800: "Asia/Shanghai", 30600: "Asia/Hong_Kong", 31500: "UTC", 32400: "Asia/Tokyo",
	34200: "Australia/Adelaide", 36000: "Australia/Melbourne", 37800: "UTC", 39600: "UTC",
	41400: "Pacific/Auckland", 43200: "Pacific/Auckland", 45900: "UTC", 46800: "UTC", 49500: "UTC",
	50400: "UTC",
}
