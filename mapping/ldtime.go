package mapping

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"calshim/mapping/php"

	_ "time/tzdata" // event time zones must resolve the same on every host, scratch images included
)

// isoLayout is PHP's date format "c" (ISO 8601 with a numeric offset, "+00:00" for UTC).
const isoLayout = "2006-01-02T15:04:05-07:00"

// DBDateTimeLayout is PHP's "Y-m-d H:i:s" (Tribe__Date_Utils::DBDATETIMEFORMAT), the format of
// every effective archive date and of the events' stored wall times.
const DBDateTimeLayout = "2006-01-02 15:04:05"

// jsonLDDate renders an event's stored local wall time as TEC's JSON-LD startDate/endDate do
// (Tribe__Events__Timezones::to_utc, then JSON_LD__Event::get_localized_iso8601_string): the wall
// time read in the zone tz, written in ISO 8601 with that zone's offset on that date. tz is an IANA
// name or a "UTC+5.5"-style pseudo zone. Failures fall back as the original does: an unknown zone
// name reads the wall time as UTC ("+00:00"); an unreadable date is returned unchanged.
func jsonLDDate(local, tz string) string {
	wall, ok := parseStoredDate(local)
	if isUTCOffset(tz) {
		utc := local
		if m := applyOffsetMinutes(tz); m != 0 && ok {
			utc = wall.Add(-time.Duration(m) * time.Minute).Format(DBDateTimeLayout)
		}
		loc, zok := pseudoZone(tz)
		if !zok {
			return utc
		}
		t, tok := parseStoredDate(utc)
		if !tok {
			return utc
		}
		return t.In(loc).Format(isoLayout)
	}

	if !ok {
		return local
	}

	loc, err := loadZone(tz)
	if err != nil {
		return wall.Format(isoLayout) // to_utc falls back to UTC, the re-localisation then fails
	}

	return inZone(wall, loc).Format(isoLayout)
}

// loadZone loads an IANA zone; names Go would take from the host ("", "Local") are refused, as
// PHP's DateTimeZone refuses them.
func loadZone(name string) (*time.Location, error) {
	if name == "" || name == "Local" {
		return nil, errUnknownZone
	}
	return time.LoadLocation(name)
}

type zoneError string

func (e zoneError) Error() string { return string(e) }

const errUnknownZone = zoneError("mapping: unknown time zone")

// inZone returns the instant at which the wall clock in loc shows the date and time of wall (whose
// own location is ignored). A wall time skipped by a DST change moves forward by the gap (02:30 →
// 03:30 EDT); one that occurs twice takes its first occurrence (the daylight-saving one), both as
// PHP does.
func inZone(wall time.Time, loc *time.Location) time.Time {
	y, mo, d := wall.Date()
	h, mi, s := wall.Clock()
	t := time.Date(y, mo, d, h, mi, s, 0, loc)
	if !sameWall(t, wall) {
		// In a gap, time.Date may read the wall time with the offset of either side. PHP reads it with
		// the offset before the change, which lands after it: take whichever candidate is later.
		_, off := t.Zone()
		alt := time.Date(y, mo, d, h, mi, s, 0, time.UTC).Add(-time.Duration(off) * time.Second).In(loc)
		if alt.After(t) {
			return alt
		}
		return t
	}

	// time.Date leaves the choice between two occurrences open: prefer the earlier one.
	if earlier := t.Add(-time.Hour); sameWall(earlier, wall) {
		return earlier
	}

	if earlier := t.Add(-30 * time.Minute); sameWall(earlier, wall) { // 30-minute DST (Lord Howe)
		return earlier
	}

	return t
}

func sameWall(t, wall time.Time) bool {
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	wy, wmo, wd := wall.Date()
	wh, wmi, ws := wall.Clock()
	return y == wy && mo == wmo && d == wd && h == wh && mi == wmi && s == ws
}

// isUTCOffset is Tribe__Timezones::is_utc_offset: "UTC" followed by anything.
func isUTCOffset(tz string) bool {
	tz = php.Trim(tz)
	return strings.HasPrefix(tz, "UTC") && len(tz) > 3
}

var pseudoZonePattern = regexp.MustCompile(`^UTC[+-][0-9.]{1,4}$`)

// pseudoZone is Tribe__Timezones::timezone_from_utc_offset: "UTC+5.5" is +05:30, "UTC-3.75" -03:45,
// "UTC+0" UTC. Other spellings are refused.
func pseudoZone(tz string) (*time.Location, bool) {
	if !pseudoZonePattern.MatchString(tz) {
		return nil, false
	}

	parts := strings.Split(tz[4:], ".")
	hours := php.Int(parts[0])
	minutes := 0
	if len(parts) > 1 {
		frac, _ := strconv.ParseFloat("0."+strconv.Itoa(php.Int(parts[1])), 64)
		minutes = int(frac * 60)
	}

	if hours > 99 {
		return nil, false
	}

	offset := hours*3600 + minutes*60
	if offset == 0 {
		return time.UTC, true
	}

	if tz[3] == '-' {
		offset = -offset
	}

	return time.FixedZone("", offset), true
}

var offsetFraction = strings.NewReplacer(":15", ".25", ":30", ".5", ":45", ".75")

// applyOffsetMinutes is the shift of Tribe__Timezones::apply_offset for a pseudo zone, in minutes.
// Like the original, it skips the shift when the whole hours are 0, so "UTC+0.5" is not shifted at
// all.
func applyOffsetMinutes(tz string) int {
	off := strings.TrimPrefix(strings.ToLower(php.Trim(tz)), "utc")
	if php.Int(off) == 0 {
		return 0
	}

	if strings.HasSuffix(off, ":15") || strings.HasSuffix(off, ":30") ||
		strings.HasSuffix(off, ":45") {
		off = off[:len(off)-3] + offsetFraction.Replace(off[len(off)-3:])
	}

	return int(php.Float(off) * 60)
}
