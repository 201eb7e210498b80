package mapping

import (
	"calshim/mapping/php"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// EventDates is the date meta TEC stores for an event.
type EventDates struct {
	Start, End       string // _EventStartDate, _EventEndDate: local wall time "Y-m-d H:i:s"
	StartUTC, EndUTC string // _EventStartDateUTC, _EventEndDateUTC
	Timezone         string // _EventTimezone
	Abbr             string // _EventTimezoneAbbr
	// Duration is _EventDuration in seconds; -1 on the all-day path, which does not write it.
	Duration int
	AllDay   bool
}

// ValidEventTimezone is TEC's timezone validator: empty, a zone identifier PHP knows, or any string
// starting with "UTC" longer than three characters.
func ValidEventTimezone(tz string) bool {
	if tz == "" || isUTCOffset(tz) {
		return true
	}
	_, err := loadZone(tz)
	return err == nil
}

// EventZone returns the zone event wall times are read and converted in when an event is saved: the
// event's own time zone when given and valid, else site. A "UTC±h" zone is the named zone the
// original saves it in (offsetZone).
func EventZone(tz string, site *time.Location) *time.Location {
	if tz == "" {
		return site
	}

	if isUTCOffset(tz) {
		return offsetZone(tz)
	}

	if loc, err := loadZone(tz); err == nil {
		return loc
	}

	return site
}

// NewEventDates computes the stored date meta from the start and end wall times (already expressed
// in the event's time zone), as Tribe__Events__API::saveEventMeta does: all-day events span whole
// days (from the start day's cutoff to one second before the cutoff after the end day), an end
// before the start becomes the start, UTC values are the wall times read in tz (siteTZ when tz is
// ""), and the abbreviation is the zone's at the start (a "UTC±h" zone is its own abbreviation).
func NewEventDates(
	start, end time.Time, allDay bool, tz, siteTZ, cutoff string, site *time.Location,
) EventDates {
	if tz == "" {
		tz = siteTZ
	}

	loc := EventZone(tz, site)
	s, e := start.Format(DBDateTimeLayout), end.Format(DBDateTimeLayout)
	d := EventDates{Timezone: tz, AllDay: allDay, Duration: -1}
	if allDay {
		s, e = BeginningOfDay(s, start, cutoff), EndOfDay(e, end, cutoff)
	}

	su, eu := wallIn(s, loc), wallIn(e, loc)
	// The UTC values are computed before an end before the start is moved to the start, so the UTC
	// end keeps the end that was given (Tribe__Events__API::prepare_event_date_meta).
	d.StartUTC, d.EndUTC = su.UTC().Format(DBDateTimeLayout), eu.UTC().Format(DBDateTimeLayout)
	if eu.Before(su) {
		e, eu = s, su
	}

	d.Start, d.End = s, e
	if !allDay {
		d.Duration = int(eu.Sub(su).Seconds())
	}

	d.Abbr, _ = su.Zone()
	if isUTCOffset(tz) {
		d.Abbr = tz
	}

	return d
}

// wallIn reads a "Y-m-d H:i:s" wall time in loc.
func wallIn(wall string, loc *time.Location) time.Time {
	t, _ := time.ParseInLocation(DBDateTimeLayout, wall, time.UTC)
	return inZone(t, loc)
}

// CostCurrency derives _EventCurrencySymbol and _EventCurrencyPosition from cost values, as TEC's
// Tribe__Cost_Utils::parse_currency_symbol/position do: the text around the single number of each
// value ("20$" → "$", "postfix"; "€ 5" → "€", "prefix"). Values must agree on the symbol; values
// without exactly one number, or plain numbers, give no symbol (ok false).
func CostCurrency(values []string) (symbol, position string, ok bool) {
	for i, v := range values {
		m := costParts.FindStringSubmatch(strings.TrimSpace(v))
		if m == nil {
			return "", "", false
		}
		sym, pos := strings.TrimSpace(m[1]), "prefix"
		if sym == "" {
			sym, pos = strings.TrimSpace(m[2]), "postfix"
		}
		if sym == "" || (i > 0 && sym != symbol) {
			return "", "", false
		}
		symbol, position = sym, pos
	}

	return symbol, position, symbol != ""
}

var costParts = regexp.MustCompile(`^([^0-9]*?)\s*[0-9][0-9.,]*\s*([^0-9]*)$`)

// StateProvince is the venue's stored _VenueStateProvince when none is given: the
// state for US addresses (or no country), else the province.
func StateProvince(state, province, country string) string {
	us := country == "" || country == "US" || country == "United States"
	if state != "" && us {
		return state
	}
	return province
}

// SanitizeURL is esc_url_raw's cleaning of a URL for storage: characters that cannot appear in a
// URL are dropped, and a URL without a scheme gets "http://".
func SanitizeURL(u string) string {
	u = strings.TrimSpace(u)
	if u == "" {
		return ""
	}

	u = strings.ReplaceAll(u, " ", "%20")
	u = urlJunk.ReplaceAllString(u, "")
	if !strings.Contains(u, "://") && !strings.HasPrefix(u, "/") &&
		!strings.HasPrefix(u, "#") && !strings.HasPrefix(u, "?") {
		u = "http://" + u
	}

	return u
}

var urlJunk = regexp.MustCompile(`[^a-zA-Z0-9\-~+_.?#=!&;,/:%@$|*'()\[\]\x80-\xff]`)

// FormatID writes a post ID as TEC stores it in meta.
func FormatID(id int) string { return strconv.Itoa(id) }

// SameContent reports whether a post's rendered content is what raw post_content renders to, as far
// as paragraphs go (wpautop), compared case-insensitively as MySQL compares post_content.
func SameContent(rendered, raw string) bool {
	rendered, raw = strings.TrimSpace(rendered), strings.TrimSpace(raw)
	return strings.EqualFold(rendered, raw) ||
		strings.EqualFold(rendered, strings.TrimSpace(php.Wpautop(raw)))
}

// offsetZone is the zone the original saves a "UTC±h" event in
// (Tribe__Timezones::get_valid_timezone and generate_timezone_string_from_utc_offset): "UTC+0" and
// "UTC-0" are UTC; else the offset in seconds (hours * 3600 + minutes * 60, from "±h", "±h.f" or
// "±h:mm") names the zone that PHP's timezone_name_from_abbr finds for it (no abbreviation,
// standard time), else the first standard-time zone of that offset in
// timezone_abbreviations_list(), else UTC. So "UTC-5" is America/New_York, daylight saving
// included, and "UTC+99" is UTC.
func offsetZone(tz string) *time.Location {
	s := utcZeroSuffix.ReplaceAllString(php.Trim(tz), "")
	if !isUTCOffset(s) {
		return time.UTC
	}

	if !strings.Contains(s, ":") {
		s += ":00"
	}

	parts := strings.Split(strings.ReplaceAll(s, "UTC", ""), ":")
	seconds := int(phpNumber(parts[0])*3600 + phpNumber(parts[1])*60)
	name, ok := phpOffsetZones[seconds/60]
	if !ok || seconds%60 != 0 {
		return time.UTC
	}

	loc, err := loadZone(name)
	if err != nil {
		return time.UTC
	}

	return loc
}

var utcZeroSuffix = regexp.MustCompile(`[+-]0$`)

// phpNumber is the number a PHP string stands for in arithmetic: its leading numeric part, else 0.
func phpNumber(s string) float64 {
	f, _ := strconv.ParseFloat(phpNumberPrefix.FindString(strings.TrimLeft(s, " \t\n\r\v\f")), 64)
	return f
}

var phpNumberPrefix = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?`)

// phpOffsetZones is what Tribe__Timezones::generate_timezone_string_from_utc_offset answers for
// each whole-minute offset (minutes east of UTC) that is not UTC, computed with PHP 8.2 and its
// time zone database (the server's clock in UTC, so standard-time entries).
var phpOffsetZones = map[int]string{
	-660: "Pacific/Apia", -630: "Pacific/Honolulu", -600: "Pacific/Honolulu",
	-540: "America/Anchorage", -480: "America/Los_Angeles", -420: "America/Denver",
	-360: "America/Chicago", -314: "America/Guayaquil", -300: "America/New_York",
	-289: "America/Port-au-Prince", -280: "America/Santo_Domingo", -270: "America/Caracas",
	-240: "America/Halifax", -210: "America/St_Johns", -180: "America/Sao_Paulo",
	-60: "Atlantic/Azores", 0: "Europe/London", 60: "Europe/Paris", 84: "Europe/Vilnius",
	90: "Africa/Johannesburg", 99: "Europe/Tallinn", 110: "Europe/Minsk", 115: "Europe/Chisinau",
	120: "Europe/Helsinki", 136: "Europe/Simferopol", 180: "Europe/Moscow", 240: "Asia/Dubai",
	294: "Indian/Maldives", 300: "Asia/Karachi", 330: "Asia/Kolkata", 345: "Asia/Katmandu",
	420: "Asia/Krasnoyarsk", 480: "Asia/Shanghai", 510: "Asia/Hong_Kong", 540: "Asia/Tokyo",
	570: "Australia/Adelaide", 600: "Australia/Melbourne", 690: "Pacific/Auckland",
	720: "Pacific/Auckland",
}
