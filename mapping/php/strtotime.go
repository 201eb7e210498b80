package php

import (
	"math"
	"strconv"
	"strings"
	"time"

	"calshim/internal/memo"
)

// ParseTime parses s the way PHP 8.2's strtotime does (timelib 2022.12, parse_date.re and
// tm2unixtime.c), relative to now, with loc the default time zone for values that carry no zone of
// their own. For the archive loc is UTC: WordPress forces PHP's default zone to UTC. It reports
// false where strtotime returns false, and for the few formats this subset leaves out (listed
// below).
//
// One deliberate addition: a value PHP's is_numeric accepts and that is integral ("1700000000",
// "-5", "12.0", "1e3") is a Unix timestamp, because TEC decides that
// (Tribe__Date_Utils::is_timestamp) before it calls strtotime or DateTime; plain strtotime would
// read "2026" as 20:26 today. Callers that must not treat numbers as timestamps test IsTimestamp
// first.
//
// Accepted, case-insensitively except where PHP is case-sensitive (day suffixes "st/nd/rd/th",
// Roman month numerals, the "T" of some ISO forms, the "GMT" of "GMT+2"); blanks, no-break spaces,
// commas and dots separate tokens; each kind of token at most once, as in PHP:
//   - dates: Y-m-d, y-m-d, Y-m (day 1), Y/m/d, m/d/Y, m/d/y, m/d, d-m-Y, d.m.Y, d.m.y, Ymd, Y.z and
//     Y-z (day of year), ISO weeks ("2026W48", "2026-W48-3"), month names full, abbreviated or
//     Roman: "December 22, 2026", "22 December 2026", "Dec 22 2026", "Dec 22", "22 Dec", "December
//     2026" (day 1), "2026 December", "Dec-22-2026", "2026-Dec-22", "22 XII 2026", "December" (this
//     day of December);
//   - times: H:i, H:i:s, H:i:s.frac, "." instead of ":", an optional leading "T"
//     ("2026-12-01T10:00:00"), "T10", hhmm and hhmmss, 9am, 9 a.m., 9:30pm, 9:30:15 pm, "back of
//     7pm" (19:15), "front of 7pm" (18:45), a bare 4-digit year after a time ("10am 2026"), and the
//     XMLRPC, SOAP, WDDX, EXIF, CLF and MSSQL forms;
//   - zones: ±h, ±hh, ±hmm, ±hhmm, ±hh:mm, ±hhmmss, ±hh:mm:ss, GMT±…, and the abbreviations timelib
//     knows (Z, UTC, GMT, EST, CEST, PST, military letters…);
//   - keywords: now, today, midnight, noon, tomorrow, yesterday; "@<timestamp>[.<fraction>]";
//   - relative: ±N sec/min/hour/day/week/fortnight/month/year, ms/µs, or weekday name, singular or
//     plural ("+1 week 2 days", "-3 days", "--1 day"), "… ago";
//     first…twelfth/next/last/previous/this + unit or weekday ("next monday", "last friday", "third
//     day"); next/last/previous/this week (Monday of that ISO week, or the weekday named with it);
//     weekday names ("monday": today if it is Monday, else the next one); "first day of"/"last day
//     of" (+ "next month", a date…); "first|…|last <weekday> of".
//
// Semantics are timelib's: today/midnight/tomorrow/yesterday/noon and weekday names reset the time
// read so far to 00:00 ("10:00 tomorrow" is midnight, "tomorrow 10:00" is ten o'clock); a date
// without a time is at 00:00; fields not given come from now in loc; out-of-range days and months
// overflow ("2026-02-30" is 2026-03-02, "2026-01-31 +1 month" is 2026-03-03, "24:30" is 00:30 the
// next day); relative amounts are added to the wall clock, and the wall time is placed in loc as
// timelib does at DST changes (a time in a spring-forward gap moves forward by the gap: New York
// 02:30 → 03:30 EDT; an ambiguous fall-back time is EDT in New York but CET in Berlin). A non-empty
// all-blank string is now.
//
// Rejected although PHP accepts them: zone identifiers in the string ("Europe/Paris", "Japan",
// "NZ"), the "weekday(s)" business-day unit, strings over 256 bytes, and results before 0000-01-01
// or after 9999-12-31 UTC, including years written with five digits or more (so that every result
// formats as "Y-m-d H:i:s"). Anything else PHP rejects is rejected too (empty string, "foo",
// "2026-13-45", "Dec 22 10am", a second date or time).
//
// Like strtotime's integer result, the time has no fraction of a second. It carries the zone PHP's
// DateTime would: UTC for timestamps and Z/UTC/GMT, the string's own offset or abbreviation when it
// has one, else loc. ParseTime never panics.
func ParseTime(s string, now time.Time, loc *time.Location) (time.Time, bool) {
	if loc == nil {
		loc = time.UTC
	}

	if s == "" {
		return time.Time{}, false
	}

	s = strings.TrimFunc(s, isPHPSpace) // timelib keeps one blank of an all-blank string: "now"
	if ts, ok := IsTimestamp(s); ok {
		return stInRange(time.Unix(ts, 0).UTC())
	}

	if len(s) > 256 || !stASCII(s) {
		return time.Time{}, false
	}

	p, ok := scanned(s)
	if !ok {
		return time.Time{}, false
	}

	return p.instant(now, loc)
}

// scanned is scan's result for s, memoized: scan runs every rule's regexp at each position (about
// 60 per token), which was over a quarter of an uncached event list's CPU, while the strings
// repeat (the listed events' dates, a request's bounds checked then applied). What scan reads
// depends on s alone — the clock and the zone come in with instant —, so a result can be reused.
func scanned(s string) (stParse, bool) {
	r := scans.Get(s, func(s string) scanResult {
		p := stParse{y: stUnset, m: stUnset, d: stUnset, h: stUnset, i: stUnset, s: stUnset, us: stUnset}
		ok := p.scan(s)
		return scanResult{p: p, ok: ok}
	})
	return r.p, r.ok // a copy: instant changes its parse
}

type scanResult struct {
	p  stParse
	ok bool
}

// scanMemoMax bounds the strings whose scan is kept (about 200 bytes each).
const scanMemoMax = 8192

var scans = memo.New[scanResult](scanMemoMax)

// IsNumeric reports whether PHP's is_numeric accepts s: optional surrounding whitespace, a sign,
// digits with an optional fraction (or a fraction alone) and an optional exponent. Hex and "."
// alone are not.
func IsNumeric(s string) bool {
	s = strings.TrimFunc(s, isPHPSpace)
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}

	digits := func() int {
		n := len(s) - len(strings.TrimLeft(s, "0123456789"))
		s = s[n:]
		return n
	}
	mantissa := digits()
	if s != "" && s[0] == '.' {
		s = s[1:]
		mantissa += digits()
	}

	if mantissa == 0 {
		return false
	}

	if s != "" && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if s != "" && (s[0] == '+' || s[0] == '-') {
			s = s[1:]
		}
		if digits() == 0 {
			return false
		}
	}

	return s == ""
}

// IsTimestamp reports whether TEC treats s as a Unix timestamp (Tribe__Date_Utils::is_timestamp:
// numeric and integral, e.g. "1700000000", "-5", "12.0", "1e3") and returns it. Values beyond
// ±10^15 are not.
func IsTimestamp(s string) (int64, bool) {
	if !IsNumeric(s) {
		return 0, false
	}

	s = strings.TrimFunc(s, isPHPSpace)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, n > -1e15 && n < 1e15
	}

	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= 1e15 {
		return 0, false
	}

	return int64(f), true
}

// isPHPSpace is C's isspace, which timelib trims and is_numeric skips.
func isPHPSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
}

// stASCII reports whether s is ASCII apart from the no-break spaces and the "µ" timelib knows:
// timelib works on bytes, and any other non-ASCII byte is an "Unexpected character" there.
func stASCII(s string) bool {
	for k := 0; k < len(s); k++ {
		if s[k] < 0x80 {
			continue
		}
		switch {
		case strings.HasPrefix(s[k:], stNBSP), strings.HasPrefix(s[k:], stMicro):
			k++
		case strings.HasPrefix(s[k:], stNNBSP):
			k += 2
		default:
			return false
		}
	}

	return true
}

const (
	stNBSP  = "\u00a0"
	stNNBSP = "\u202f"
	stMicro = "\u00b5"
)

// stUnset marks a field the string did not set (TIMELIB_UNSET).
const stUnset = math.MinInt64

// stRelMax bounds every accumulated relative amount (timelib errors on int64 overflow only; beyond
// this no result can be within years 0–9999, and smaller bounds keep the arithmetic below
// overflow).
const stRelMax = 1e17

// Kinds of stParse.special and stRel.firstLast.
const (
	stFirstDayOf = 1 + iota
	stLastDayOf
	stDayOfWeekInMonth
	stLastDayOfWeekInMonth
)

// stParse is timelib's parsed time: absolute fields, the flags that catch double specifications,
// the zone and the relative part, filled token by token.
type stParse struct {
	y, m, d, h, i, s, us int64
	haveDate             bool
	haveTime             int // gnunocolon counts up: a bare "hhmm" after a time is a year
	haveZone             int
	zone                 int64  // seconds east of UTC, when haveZone > 0
	zoneUTC              bool   // the zone is UTC itself (Z, UTC, GMT, timestamps)
	zoneSet              bool   // some token set the zone (not all of them count in haveZone)
	zoneName             string // an abbreviation's name ("EST"), "" for offsets
	special              int
	rel                  stRel
	err                  bool
}

// stRel is timelib's relative part.
type stRel struct {
	y, m, d, h, i, s, us int64
	haveWeekday          bool
	weekday              int64 // 0 = Sunday; negative after "ago"
	behavior             int64 // 0: strictly after today, 1: today counts, 2: within the ISO week
	firstLast            int
}

// haveTimeOnce is TIMELIB_HAVE_TIME: a second time is an error.
func (p *stParse) haveTimeOnce() {
	if p.haveTime > 0 {
		p.err = true
	}

	p.haveTime, p.h, p.i, p.s, p.us = 1, 0, 0, 0, 0
}

// unhaveTime is TIMELIB_UNHAVE_TIME: today, midnight, weekday names… reset the time read so far.
func (p *stParse) unhaveTime() { p.haveTime, p.h, p.i, p.s, p.us = 0, 0, 0, 0, 0 }

// haveDateOnce is TIMELIB_HAVE_DATE: a second date is an error.
func (p *stParse) haveDateOnce() {
	if p.haveDate {
		p.err = true
	}

	p.haveDate = true
}

// haveTZ is TIMELIB_HAVE_TZ: it reports whether the token may go on to set the zone. A second zone
// is ignored (a warning in timelib), a third is an error.
func (p *stParse) haveTZ() bool {
	p.haveZone++
	if p.haveZone > 2 {
		p.err = true
	}

	return p.haveZone == 1
}

// addRel adds v to a relative field, failing on amounts no valid result can have.
func (p *stParse) addRel(f *int64, v int64) {
	if v > stRelMax || v < -stRelMax {
		p.err = true
		return
	}

	*f += v
	if *f > stRelMax || *f < -stRelMax {
		p.err = true
	}
}

// scan splits s into tokens the way timelib's re2c scanner does: at each position the longest match
// of any rule wins, ties going to the rule listed first; separators are skipped, anything else is
// an error.
func (p *stParse) scan(s string) bool {
	for pos := 0; pos < len(s) && !p.err; {
		rest := s[pos:]
		best, n := -1, 0
		for k := range stRules {
			if m := stRules[k].re.FindStringIndex(rest); m != nil && m[1] > n {
				best, n = k, m[1]
			}
		}
		if best >= 0 {
			stRules[best].act(p, &stTok{s: strings.ToLower(rest[:n]), orig: rest[:n]})
			pos += n
			continue
		}
		switch {
		case strings.IndexByte(" \t\n\x00.,", rest[0]) >= 0:
			pos++
		case strings.HasPrefix(rest, stNBSP):
			pos += len(stNBSP)
		case strings.HasPrefix(rest, stNNBSP):
			pos += len(stNNBSP)
		default:
			return false
		}
	}

	return !p.err
}

// instant turns the parsed fields into a time: timelib_fill_holes, then timelib_update_ts
// (do_adjust_special_early, do_adjust_relative, do_adjust_timezone).
func (p *stParse) instant(now time.Time, loc *time.Location) (time.Time, bool) {
	n := now.In(loc)
	if p.haveDate && p.haveTime == 0 {
		p.h, p.i, p.s, p.us = 0, 0, 0, 0
	}

	f := [7]int64{p.y, p.m, p.d, p.h, p.i, p.s, p.us}
	for k, v := range [7]int{n.Year(), int(n.Month()), n.Day(), n.Hour(), n.Minute(), n.Second(), 0} {
		if f[k] == stUnset {
			f[k] = int64(v)
		}
	}

	r := p.rel
	switch p.special {
	case stDayOfWeekInMonth:
		f[2], f[1], r.m = 1, f[1]+r.m, 0
	case stLastDayOfWeekInMonth:
		f[2], f[1], r.m = 1, f[1]+r.m+1, 0
	}

	stFirstLast(&f, r.firstLast) // here and again after the relative part, as timelib does
	if !stNormalize(&f) {
		return time.Time{}, false
	}

	if r.haveWeekday {
		dow := int64(time.Date(int(f[0]), time.Month(f[1]), int(f[2]), 0, 0, 0, 0, time.UTC).Weekday())
		f[2] += stWeekdayShift(dow, &r)
		if !stNormalize(&f) {
			return time.Time{}, false
		}
	}

	for k, v := range [7]int64{r.y, r.m, r.d, r.h, r.i, r.s, r.us} {
		f[k] += v
	}

	stFirstLast(&f, r.firstLast)
	if !stNormalize(&f) {
		return time.Time{}, false
	}

	wall := time.Date(int(f[0]), time.Month(f[1]), int(f[2]), int(f[3]), int(f[4]), int(f[5]), 0,
		time.UTC).Unix()
	if !p.zoneSet {
		return stInRange(time.Unix(stResolve(wall, loc), 0).In(loc))
	}

	zone := time.UTC
	if !p.zoneUTC {
		name := p.zoneName
		if name == "" {
			name = stOffsetName(p.zone)
		}
		zone = time.FixedZone(name, int(p.zone))
	}

	return stInRange(time.Unix(wall-p.zone, 0).In(zone))
}

// stFirstLast applies "first day of" / "last day of" (day 0 of the next month).
func stFirstLast(f *[7]int64, kind int) {
	switch kind {
	case stFirstDayOf:
		f[2] = 1
	case stLastDayOf:
		f[2], f[1] = 0, f[1]+1
	}
}

// stNormalize carries overflowing microseconds … months into the larger fields
// (timelib_do_normalize), refusing values whose year could not be written with four digits.
func stNormalize(f *[7]int64) bool {
	f[5] += stFloorDiv(f[6], 1e6)
	f[6] -= stFloorDiv(f[6], 1e6) * 1e6
	years := float64(f[0]) + float64(f[1])/12 + float64(f[2])/365.25 +
		float64(f[3])/8766 + float64(f[4])/525960 + float64(f[5])/31557600
	if years < -10 || years > 10010 {
		return false
	}

	t := time.Date(int(f[0]), time.Month(f[1]), int(f[2]), int(f[3]), int(f[4]), int(f[5]), 0,
		time.UTC)
	*f = [7]int64{
		int64(t.Year()), int64(t.Month()), int64(t.Day()),
		int64(t.Hour()), int64(t.Minute()), int64(t.Second()), f[6],
	}
	return true
}

func stFloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}

	return q
}

// stWeekdayShift is timelib's do_adjust_for_weekday: the days to add to reach the requested
// weekday.
func stWeekdayShift(dow int64, r *stRel) int64 {
	if r.behavior == 2 { // within the current ISO week: "monday next week", "this week"
		wd := r.weekday
		if dow == 0 && wd != 0 {
			wd -= 7
		}
		if wd == 0 && dow != 0 {
			wd = 7
		}
		return wd - dow
	}

	diff := r.weekday - dow
	if (r.d < 0 && diff < 0) || (r.d >= 0 && diff <= -r.behavior) {
		diff += 7
	}

	if r.weekday >= 0 {
		return diff
	}

	return -(7 - (-r.weekday - dow))
}

// stResolve places a wall time (seconds, read as if UTC) in loc the way timelib's
// do_adjust_timezone does: take the offset in force at the wall time read as UTC, re-check with the
// offset found there, and keep the first offset when the time falls in a transition gap.
func stResolve(wall int64, loc *time.Location) int64 {
	_, cur := time.Unix(wall, 0).In(loc).Zone()
	t := time.Unix(wall-int64(cur), 0).In(loc)
	_, after := t.Zone()
	if cur == after {
		return wall - int64(cur)
	}

	start, _ := t.ZoneBounds()
	local := wall - int64(after)
	inGap := !start.IsZero() && local >= start.Unix()+int64(cur-after) && local < start.Unix()
	if inGap {
		return wall - int64(cur)
	}

	return local
}

func stInRange(t time.Time) (time.Time, bool) {
	if y := t.UTC().Year(); y < 0 || y > 9999 {
		return time.Time{}, false
	}

	return t, true
}

// stOffsetName names a fixed zone as PHP does: "+02:00".
func stOffsetName(off int64) string {
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}

	name := sign + stTwoDigits(off/3600) + ":" + stTwoDigits(off%3600/60)
	if off%60 != 0 {
		name += ":" + stTwoDigits(off%60)
	}

	return name
}

func stTwoDigits(n int64) string {
	if n < 10 {
		return "0" + strconv.FormatInt(n, 10)
	}

	return strconv.FormatInt(n, 10)
}
