package mapping

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// DBDateTimeLayout is PHP's "Y-m-d H:i:s" (Tribe__Date_Utils::DBDATETIMEFORMAT), the format of every
// effective archive date and of the events' stored wall times.
const DBDateTimeLayout = "2006-01-02 15:04:05"

// ParseTime parses s the way PHP 8.2's strtotime does (timelib 2022.12, parse_date.re and
// tm2unixtime.c), relative to now, with loc the default time zone for values that carry no zone of
// their own. For the archive loc is UTC: WordPress forces PHP's default zone to UTC. It reports false
// where strtotime returns false, and for the few formats this subset leaves out (listed below).
//
// One deliberate addition: a value PHP's is_numeric accepts and that is integral ("1700000000", "-5",
// "12.0", "1e3") is a Unix timestamp, because TEC decides that (Tribe__Date_Utils::is_timestamp) before
// it calls strtotime or DateTime; plain strtotime would read "2026" as 20:26 today. Callers that must
// not treat numbers as timestamps test IsTimestamp first.
//
// Accepted, case-insensitively except where PHP is case-sensitive (day suffixes "st/nd/rd/th", Roman
// month numerals, the "T" of some ISO forms, the "GMT" of "GMT+2"); blanks, no-break spaces, commas and
// dots separate tokens; each kind of token at most once, as in PHP:
//   - dates: Y-m-d, y-m-d, Y-m (day 1), Y/m/d, m/d/Y, m/d/y, m/d, d-m-Y, d.m.Y, d.m.y, Ymd, Y.z and
//     Y-z (day of year), ISO weeks ("2026W48", "2026-W48-3"), month names full, abbreviated or Roman:
//     "December 22, 2026", "22 December 2026", "Dec 22 2026", "Dec 22", "22 Dec", "December 2026" (day 1),
//     "2026 December", "Dec-22-2026", "2026-Dec-22", "22 XII 2026", "December" (this day of December);
//   - times: H:i, H:i:s, H:i:s.frac, "." instead of ":", an optional leading "T" ("2026-12-01T10:00:00"),
//     "T10", hhmm and hhmmss, 9am, 9 a.m., 9:30pm, 9:30:15 pm, "back of 7pm" (19:15), "front of 7pm"
//     (18:45), a bare 4-digit year after a time ("10am 2026"), and the XMLRPC, SOAP, WDDX, EXIF, CLF and
//     MSSQL forms;
//   - zones: ±h, ±hh, ±hmm, ±hhmm, ±hh:mm, ±hhmmss, ±hh:mm:ss, GMT±…, and the abbreviations timelib
//     knows (Z, UTC, GMT, EST, CEST, PST, military letters…);
//   - keywords: now, today, midnight, noon, tomorrow, yesterday; "@<timestamp>[.<fraction>]";
//   - relative: ±N sec/min/hour/day/week/fortnight/month/year, ms/µs, or weekday name, singular or
//     plural ("+1 week 2 days", "-3 days", "--1 day"), "… ago"; first…twelfth/next/last/previous/this +
//     unit or weekday ("next monday", "last friday", "third day"); next/last/previous/this week (Monday of
//     that ISO week, or the weekday named with it); weekday names ("monday": today if it is Monday, else
//     the next one); "first day of"/"last day of" (+ "next month", a date…); "first|…|last <weekday> of".
//
// Semantics are timelib's: today/midnight/tomorrow/yesterday/noon and weekday names reset the time read
// so far to 00:00 ("10:00 tomorrow" is midnight, "tomorrow 10:00" is ten o'clock); a date without a time
// is at 00:00; fields not given come from now in loc; out-of-range days and months overflow
// ("2026-02-30" is 2026-03-02, "2026-01-31 +1 month" is 2026-03-03, "24:30" is 00:30 the next day);
// relative amounts are added to the wall clock, and the wall time is placed in loc as timelib does at
// DST changes (a time in a spring-forward gap moves forward by the gap: New York 02:30 → 03:30 EDT; an
// ambiguous fall-back time is EDT in New York but CET in Berlin). A non-empty all-blank string is now.
//
// Rejected although PHP accepts them: zone identifiers in the string ("Europe/Paris", "Japan", "NZ"),
// the "weekday(s)" business-day unit, strings over 256 bytes, and results before 0000-01-01 or after
// 9999-12-31 UTC, including years written with five digits or more (so that every result formats as
// "Y-m-d H:i:s"). Anything else PHP rejects is rejected too (empty string, "foo", "2026-13-45",
// "Dec 22 10am", a second date or time).
//
// Like strtotime's integer result, the time has no fraction of a second. It carries the zone PHP's
// DateTime would: UTC for timestamps and Z/UTC/GMT, the string's own offset or abbreviation when it has
// one, else loc. ParseTime never panics.
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
	p := stParse{y: stUnset, m: stUnset, d: stUnset, h: stUnset, i: stUnset, s: stUnset, us: stUnset}
	if !p.scan(s) {
		return time.Time{}, false
	}
	return p.instant(now, loc)
}

// IsNumeric reports whether PHP's is_numeric accepts s: optional surrounding whitespace, a sign, digits
// with an optional fraction (or a fraction alone) and an optional exponent. Hex and "." alone are not.
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

// IsTimestamp reports whether TEC treats s as a Unix timestamp (Tribe__Date_Utils::is_timestamp: numeric
// and integral, e.g. "1700000000", "-5", "12.0", "1e3") and returns it. Values beyond ±10^15 are not.
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

// stASCII reports whether s is ASCII apart from the no-break spaces and the "µ" timelib knows: timelib
// works on bytes, and any other non-ASCII byte is an "Unexpected character" there.
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

// stRelMax bounds every accumulated relative amount (timelib errors on int64 overflow only; beyond this
// no result can be within years 0–9999, and smaller bounds keep the arithmetic below overflow).
const stRelMax = 1e17

// Kinds of stParse.special and stRel.firstLast.
const (
	stFirstDayOf = 1 + iota
	stLastDayOf
	stDayOfWeekInMonth
	stLastDayOfWeekInMonth
)

// stParse is timelib's parsed time: absolute fields, the flags that catch double specifications, the
// zone and the relative part, filled token by token.
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

// haveTZ is TIMELIB_HAVE_TZ: it reports whether the token may go on to set the zone. A second zone is
// ignored (a warning in timelib), a third is an error.
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

// scan splits s into tokens the way timelib's re2c scanner does: at each position the longest match of
// any rule wins, ties going to the rule listed first; separators are skipped, anything else is an error.
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
	wall := time.Date(int(f[0]), time.Month(f[1]), int(f[2]), int(f[3]), int(f[4]), int(f[5]), 0, time.UTC).Unix()
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

// stNormalize carries overflowing microseconds … months into the larger fields (timelib_do_normalize),
// refusing values whose year could not be written with four digits.
func stNormalize(f *[7]int64) bool {
	f[5] += stFloorDiv(f[6], 1e6)
	f[6] -= stFloorDiv(f[6], 1e6) * 1e6
	years := float64(f[0]) + float64(f[1])/12 + float64(f[2])/365.25 +
		float64(f[3])/8766 + float64(f[4])/525960 + float64(f[5])/31557600
	if years < -10 || years > 10010 {
		return false
	}
	t := time.Date(int(f[0]), time.Month(f[1]), int(f[2]), int(f[3]), int(f[4]), int(f[5]), 0, time.UTC)
	*f = [7]int64{int64(t.Year()), int64(t.Month()), int64(t.Day()), int64(t.Hour()), int64(t.Minute()), int64(t.Second()), f[6]}
	return true
}

func stFloorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// stWeekdayShift is timelib's do_adjust_for_weekday: the days to add to reach the requested weekday.
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

// stResolve places a wall time (seconds, read as if UTC) in loc the way timelib's do_adjust_timezone
// does: take the offset in force at the wall time read as UTC, re-check with the offset found there, and
// keep the first offset when the time falls in a transition gap.
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

// stRule is one rule of timelib's scanner: a pattern (anchored, longest match) and the action run on
// the matched token, lowercased.
type stRule struct {
	re  *regexp.Regexp
	act func(p *stParse, t *stTok)
}

// Building blocks of the rules, named as in parse_date.re. Patterns are compiled case-insensitively;
// (?-i:…) marks what timelib matches case-sensitively.
const (
	reSpace     = `(?:[ \t]+|(?:` + stNBSP + `)+|(?:` + stNNBSP + `)+)`
	reHour24    = `(?:2[0-4]|[01]?[0-9])`
	reHour24lz  = `(?:[01][0-9]|2[0-4])`
	reHour12    = `(?:1[0-2]|0?[1-9])`
	reMinute    = `[0-5]?[0-9]`
	reMinutelz  = `[0-5][0-9]`
	reSecond    = `(?:60|[0-5]?[0-9])`
	reSecondlz  = `(?:60|[0-5][0-9])`
	reMeridian  = `[ap]\.?m\.?(?:[\t ]|\x00|$)`
	reFrac      = `\.[0-9]+`
	reMonth     = `(?:1[0-2]|0?[0-9])`
	reMonthlz   = `(?:0[0-9]|1[0-2])`
	reDay       = `(?:3[01]|[0-2]?[0-9])(?-i:st|nd|rd|th)?`
	reDaylz     = `(?:0[0-9]|[12][0-9]|3[01])`
	reYear      = `[0-9]{1,4}`
	reYear2     = `[0-9]{2}`
	reYear4     = `[0-9]{4}`
	reDayOfYear = `(?:00[1-9]|0[1-9][0-9]|[12][0-9][0-9]|3[0-5][0-9]|36[0-6])`
	reWeekOfYr  = `(?:0[1-9]|[1-4][0-9]|5[0-3])`
	reDayFull   = `(?:sunday|monday|tuesday|wednesday|thursday|friday|saturday)s?`
	reDayAbbr   = `(?:sun|mon|tue|wed|thu|fri|sat)`
	reDayText   = `(?:` + reDayFull + `|` + reDayAbbr + `|weekdays?)`
	reMonthAbbr = `(?:jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|dec)`
	reMonthName = `(?:january|february|march|april|may|june|july|august|september|october|november|december|` +
		`jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|dec)`
	reMonthText = `(?:` + reMonthName + `|(?-i:I|II|III|IV|V|VI|VII|VIII|IX|X|XI|XII))`
	reRelNumber = `(?:first|second|third|fourth|fifth|sixth|seventh|eighth?|ninth|tenth|eleventh|twelfth)`
	reRelText   = `(?:next|last|previous|this)`
	reRelUnit   = `(?:ms|(?-i:` + stMicro + `)s|(?:msec|millisecond|(?-i:` + stMicro + `)sec|microsecond|usec|sec|second|` +
		`min|minute|hour|day|fortnight|forthnight|month|year)s?|weeks|` + reDayText + `)`
	reTZ        = `\(?[a-z]{1,6}\)?|(?-i:[A-Z][a-z]+(?:[_/-][A-Za-z]+)+)`
	reTZCorrect = `(?-i:GMT)?[+-](?:` + reHour24 + `(?::?` + reMinute + `)?|` + reHour24lz + reMinutelz + reSecondlz +
		`|` + reHour24lz + `:` + reMinutelz + `:` + reSecondlz + `)`
	reTime12   = reHour12 + `(?:[:.]` + reMinutelz + `|[:.]` + reMinute + `[:.]` + reSecondlz + `)?` + reSpace + `?` + reMeridian
	reTime12hm = reHour12 + `(?:[:.]` + reMinutelz + `|[:.]` + reMinute + `[:.]` + reSecondlz + `)` + reSpace + `?` + reMeridian
	reTime24   = `t?` + reHour24 + `[:.]` + reMinute + `(?:[:.]` + reSecond + `(?:` + reFrac + `)?)?|t` + reHour24
	reTime24nf = `t?` + reHour24 + `[:.]` + reMinute + `(?:[:.]` + reSecond + `)?`
	reTime24tz = `t?` + reHour24 + `[:.]` + reMinute + `[:.]` + reSecondlz + reSpace + `?(?:` + reTZCorrect + `|` + reTZ + `)`
	reNoYear   = reMonthText + `[ .\t-]*` + reDay + `(?:(?-i:[,.stndrh\t ])+|\x00|$)`
)

// stRules lists the rules in parse_date.re order, which breaks ties between equally long matches.
var stRules = []stRule{
	{stRe(`yesterday`), func(p *stParse, t *stTok) { p.unhaveTime(); p.rel.d = -1 }},
	{stRe(`now`), func(p *stParse, t *stTok) {}},
	{stRe(`noon`), func(p *stParse, t *stTok) { p.unhaveTime(); p.haveTimeOnce(); p.h = 12 }},
	{stRe(`midnight|today`), func(p *stParse, t *stTok) { p.unhaveTime() }},
	{stRe(`tomorrow`), func(p *stParse, t *stTok) { p.unhaveTime(); p.rel.d = 1 }},
	{stRe(`@-?[0-9]+`), stTimestamp},
	{stRe(`@-?[0-9]+\.[0-9]{0,6}`), stTimestamp},
	{stRe(`first day of|last day of`), func(p *stParse, t *stTok) {
		p.rel.firstLast = stFirstDayOf
		if t.s[0] == 'l' {
			p.rel.firstLast = stLastDayOf
		}
	}},
	{stRe(`(?:back|front) of ` + reHour24 + `(?:` + reSpace + `?` + reMeridian + `)?`), stBackFrontOf},
	{stRe(`(?:` + reRelNumber + `|` + reRelText + `)` + reSpace + `(?:` + reDayFull + `|` + reDayAbbr + `)` + reSpace + `of`), stWeekdayOf},
	{stRe(reTime12), func(p *stParse, t *stTok) { p.haveTimeOnce(); t.clock(p, false); p.h += t.meridian(p.h) }},
	{stRe(reHour12 + `:` + reMinutelz + `:` + reSecondlz + `[:.][0-9]+` + reMeridian), func(p *stParse, t *stTok) { // mssqltime
		p.haveTimeOnce()
		t.clock(p, true)
		p.h += t.meridian(p.h)
	}},
	{stRe(reTime24), func(p *stParse, t *stTok) { p.haveTimeOnce(); t.clock(p, true) }},
	{stRe(`t?` + reHour24lz + reMinutelz), func(p *stParse, t *stTok) { // gnunocolon
		switch p.haveTime {
		case 0:
			p.h, p.i, p.s = t.nr(2), t.nr(2), 0
		case 1:
			p.y = t.nr(4)
		default:
			p.err = true
		}
		p.haveTime++
	}},
	{stRe(`t?` + reHour24lz + reMinutelz + reSecondlz), func(p *stParse, t *stTok) { // iso8601nocolon
		p.haveTimeOnce()
		p.h, p.i, p.s = t.nr(2), t.nr(2), t.nr(2)
	}},
	{stRe(reMonth + `/` + reDay + `(?:/` + reYear + `)?`), func(p *stParse, t *stTok) { // american(short)
		p.haveDateOnce()
		p.m, p.d = t.nr(2), t.nr(2)
		if t.cur() == '/' {
			p.y = stYear(t.nrLen(4))
		}
	}},
	{stRe(`[+-]?` + reYear4 + `-` + reMonthlz + `-` + reDaylz + `|` + reYear4 + `/` + reMonthlz + `/` + reDaylz + `/?|` +
		reYear4 + `/` + reMonth + `/` + reDay), func(p *stParse, t *stTok) { // iso8601date4, iso8601dateslash, dateslash
		p.haveDateOnce()
		p.y = t.signedNr(p, 4)
		p.m, p.d = t.nr(2), t.nr(2)
	}},
	{stRe(reYear2 + `-` + reMonthlz + `-` + reDaylz), stYMD},                                            // iso8601date2
	{stRe(`[+-][0-9]{5,19}-` + reMonthlz + `-` + reDaylz), func(p *stParse, t *stTok) { p.err = true }}, // iso8601datex: years we cannot format
	{stRe(reYear4 + `-` + reMonth), func(p *stParse, t *stTok) { // gnudateshorter
		p.haveDateOnce()
		p.y = stYear(t.nrLen(4))
		p.m, p.d = t.nr(2), 1
	}},
	{stRe(reYear + `-` + reMonth + `-` + reDay), stYMD}, // gnudateshort
	{stRe(reDay + `[ \t.-]*` + reMonthText + `[ \t.-]*` + reYear), func(p *stParse, t *stTok) { // datefull
		p.haveDateOnce()
		p.d = t.nr(2)
		t.skipDaySuffix()
		p.m = t.month()
		p.y = stYear(t.nrLen(4))
	}},
	{stRe(reDay + `[.\t-]` + reMonth + `[.-]` + reYear4), func(p *stParse, t *stTok) { // pointeddate4
		p.haveDateOnce()
		p.d, p.m, p.y = t.nr(2), t.nr(2), t.nr(4)
	}},
	{stRe(reDay + `[.\t]` + reMonth + `\.` + reYear2), func(p *stParse, t *stTok) { // pointeddate2
		p.haveDateOnce()
		p.d, p.m = t.nr(2), t.nr(2)
		p.y = stYear(t.nrLen(2))
	}},
	{stRe(reMonthText + `[ .\t-]*` + reYear4), func(p *stParse, t *stTok) { // datenoday
		p.haveDateOnce()
		p.m = t.month()
		p.y, p.d = stYear(t.nrLen(4)), 1
	}},
	{stRe(reYear4 + `[ .\t-]*` + reMonthText), func(p *stParse, t *stTok) { // datenodayrev
		p.haveDateOnce()
		p.y = stYear(t.nrLen(4))
		p.m, p.d = t.month(), 1
	}},
	{stRe(reMonthText + `[ .\t-]*` + reDay + `(?-i:[,.stndrh\t ])+` + reYear + `|` + reNoYear), stMDY}, // datetextual, datenoyear
	{stRe(reDay + `[ .\t-]*` + reMonthText), func(p *stParse, t *stTok) { // datenoyearrev
		p.haveDateOnce()
		p.d = t.nr(2)
		t.skipDaySuffix()
		p.m = t.month()
	}},
	{stRe(reYear4 + reMonthlz + reDaylz), func(p *stParse, t *stTok) { // datenocolon
		p.haveDateOnce()
		p.y, p.m, p.d = t.nr(4), t.nr(2), t.nr(2)
	}},
	{stRe(reYear4 + reMonthlz + reDaylz + `(?-i:T)` + reHour24 + `:` + reMinutelz + `:` + reSecondlz + `|` + // xmlrpc
		reYear4 + reMonthlz + reDaylz + `t` + reHour24 + reMinutelz + reSecondlz + `|` + // xmlrpcnocolon
		reYear4 + `-` + reMonthlz + `-` + reDaylz + `(?-i:T)` + reHour24lz + `:` + reMinutelz + `:` + reSecondlz + reFrac + `(?:` + reTZCorrect + `)?|` + // soap
		reYear4 + `-` + reMonth + `-` + reDay + `(?-i:T)` + reHour24 + `:` + reMinute + `:` + reSecond + `|` + // wddx
		reYear4 + `:` + reMonthlz + `:` + reDaylz + ` ` + reHour24lz + `:` + reMinutelz + `:` + reSecondlz), // exif
		func(p *stParse, t *stTok) {
			p.haveTimeOnce()
			p.haveDateOnce()
			p.y, p.m, p.d = t.nr(4), t.nr(2), t.nr(2)
			p.h, p.i, p.s = t.nr(2), t.nr(2), t.nr(2)
			if t.cur() == '.' {
				p.us = t.frac()
				if t.p < len(t.s) {
					p.inlineZone(t.s[t.p:])
				}
			}
		}},
	{stRe(reYear4 + `[.-]?` + reDayOfYear), func(p *stParse, t *stTok) { // pgydotd
		p.haveDateOnce()
		p.y = stYear(t.nrLen(4))
		p.d, p.m = t.nr(3), 1
	}},
	{stRe(reYear4 + `-?(?-i:W)` + reWeekOfYr + `(?:-?[0-7])?`), func(p *stParse, t *stTok) { // isoweekday, isoweek
		p.haveDateOnce()
		p.y = t.nr(4)
		w, d := t.nr(2), t.nr(1)
		if d == stUnset {
			d = 1
		}
		jan1 := int64(time.Date(int(p.y), 1, 1, 0, 0, 0, 0, time.UTC).Weekday())
		if jan1 > 4 {
			jan1 -= 7
		}
		p.m, p.d, p.rel.d = 1, 1, -jan1+(w-1)*7+d
	}},
	{stRe(reMonthAbbr + `-` + reDaylz + `-` + reYear), stMDY}, // pgtextshort
	{stRe(reYear + `-` + reMonthAbbr + `-` + reDaylz), func(p *stParse, t *stTok) { // pgtextreverse
		p.haveDateOnce()
		p.y = stYear(t.nrLen(4))
		p.m, p.d = t.month(), t.nr(2)
	}},
	{stRe(reDay + `/` + reMonthAbbr + `/` + reYear4 + `:` + reHour24lz + `:` + reMinutelz + `:` + reSecondlz + reSpace + reTZCorrect), // clf
		func(p *stParse, t *stTok) {
			p.haveTimeOnce()
			p.haveDateOnce()
			p.d = t.nr(2)
			p.m = t.month()
			p.y, p.h, p.i, p.s = t.nr(4), t.nr(2), t.nr(2), t.nr(2)
			p.inlineZone(t.s[t.p:])
		}},
	{stRe(reYear4), func(p *stParse, t *stTok) { p.y = t.nr(4) }},
	{stRe(`ago`), stAgo},
	{stRe(reDayText), func(p *stParse, t *stTok) {
		u := stRelUnits[t.s]
		if u.field != 'w' {
			p.err = true // "weekday": timelib's business-day special, not implemented
			return
		}
		p.rel.haveWeekday = true
		p.unhaveTime()
		p.rel.weekday = u.n
		if p.rel.behavior != 2 {
			p.rel.behavior = 1
		}
	}},
	{stRe(reRelText + reSpace + `week`), func(p *stParse, t *stTok) { // relativetextweek
		amount, behavior := t.relText()
		p.setRelative(t, amount, behavior, false)
		p.rel.behavior = 2
		if !p.rel.haveWeekday {
			p.rel.haveWeekday, p.rel.weekday = true, 1
		}
	}},
	{stRe(`(?:` + reRelNumber + `|` + reRelText + `)` + reSpace + reRelUnit), func(p *stParse, t *stTok) { // relativetext
		amount, behavior := t.relText()
		p.setRelative(t, amount, behavior, false)
	}},
	{stRe(reMonthName), func(p *stParse, t *stTok) { p.haveDateOnce(); p.m = t.month() }},
	{stRe(reTZCorrect + `|` + reTZ), func(p *stParse, t *stTok) { // tzcorrection, tz
		if p.haveTZ() {
			p.inlineZone(t.s)
		}
	}},
	{stRe(reNoYear + reTime12hm), func(p *stParse, t *stTok) { // dateshortwithtime(short|long)12
		p.haveDateOnce()
		p.m, p.d = t.month(), t.nr(2)
		p.haveTimeOnce()
		t.clock(p, true)
		p.h += t.meridian(p.h)
	}},
	{stRe(reNoYear + `(?:` + reTime24nf + `|` + reTime24tz + `)`), func(p *stParse, t *stTok) { // dateshortwithtime(short|long|longtz)
		p.haveDateOnce()
		p.m, p.d = t.month(), t.nr(2)
		p.haveTimeOnce()
		p.h, p.i = t.nr(2), t.nr(2)
		if t.cur() == ':' {
			p.s = t.nr(2)
		}
		if t.p < len(t.s) {
			p.inlineZone(t.s[t.p:])
		}
	}},
	{stRe(`[+-]*[ \t]*[0-9]{1,13}` + reSpace + `?(?:` + reRelUnit + `|week)`), func(p *stParse, t *stTok) { // relative
		p.setRelative(t, t.signedNr(p, 24), 1, true)
	}},
}

func stRe(pattern string) *regexp.Regexp {
	re := regexp.MustCompile(`^(?i:` + pattern + `)`)
	re.Longest()
	return re
}

// stTimestamp is the "@1700000000" and "@1700000000.5" rule.
func stTimestamp(p *stParse, t *stTok) {
	p.haveDate, p.y, p.m, p.d = false, 0, 0, 0
	p.unhaveTime()
	if !p.haveTZ() {
		return // timelib abandons the token after a double zone
	}
	n := t.signedNr(p, 24)
	p.y, p.m, p.d = 1970, 1, 1
	p.addRel(&p.rel.s, n)
	p.zone, p.zoneUTC, p.zoneSet = 0, true, true
	if t.cur() != '.' {
		return
	}
	digits := t.s[t.p+1:]
	if digits == "" {
		p.err = true // "Found unexpected data"
		return
	}
	us, _ := strconv.ParseInt((digits + "00000")[:6], 10, 64)
	if strings.HasPrefix(t.s, "@-") {
		us = -us
	}
	p.rel.us = us
}

// stBackFrontOf is "back of 7pm" (19:15) and "front of 7pm" (18:45).
func stBackFrontOf(p *stParse, t *stTok) {
	p.unhaveTime()
	p.haveTimeOnce()
	p.h, p.i = t.nr(2), 15
	if t.orig[0] != 'b' { // timelib tests for a lowercase 'b' only: "Back of" is "front of"
		p.h, p.i = p.h-1, 45
	}
	if t.p < len(t.s) {
		p.h += t.meridian(p.h)
	}
}

func stWeekdayOf(p *stParse, t *stTok) {
	p.special = stLastDayOfWeekInMonth
	amount, behavior := t.relText()
	if amount > 0 {
		p.special, behavior = stDayOfWeekInMonth, 1
	}
	p.setRelative(t, amount, behavior, false)
}

func stYMD(p *stParse, t *stTok) {
	p.haveDateOnce()
	p.y = stYear(t.nrLen(4))
	p.m, p.d = t.nr(2), t.nr(2)
}

func stMDY(p *stParse, t *stTok) {
	p.haveDateOnce()
	p.m, p.d = t.month(), t.nr(2)
	p.y = stYear(t.nrLen(4))
}

func stAgo(p *stParse, t *stTok) {
	r := &p.rel
	r.y, r.m, r.d, r.h, r.i, r.s = -r.y, -r.m, -r.d, -r.h, -r.i, -r.s // not the microseconds
	r.weekday = -r.weekday
	if r.weekday == 0 {
		r.weekday = -7
	}
}

// inlineZone is timelib_parse_zone on the rest of a token (lowercased): an offset or an abbreviation.
// Zone identifiers ("Europe/Paris", "Japan") are left out and make the parse fail.
func (p *stParse) inlineZone(s string) {
	s = strings.TrimLeft(s, " \t(")
	if len(s) > 4 && strings.HasPrefix(s, "gmt") && (s[3] == '+' || s[3] == '-') {
		s = s[3:] // the scanner only lets an uppercase "GMT" through here
	}
	if s != "" && (s[0] == '+' || s[0] == '-') {
		digits := strings.TrimRight(s[1:], ")")
		if strings.Trim(digits, "0123456789:") != "" {
			p.err = true
			return
		}
		off := stTZCorrection(digits)
		if s[0] == '-' {
			off = -off
		}
		p.zone, p.zoneUTC, p.zoneSet, p.zoneName = off, false, true, ""
		return
	}
	abbr := strings.TrimRight(s, ")")
	if abbr == "utc" || abbr == "gmt" || abbr == "z" {
		p.zone, p.zoneUTC, p.zoneSet = 0, true, true
		return
	}
	off, ok := stAbbrs[abbr]
	if !ok {
		p.err = true // "The timezone could not be found in the database", or an identifier
		return
	}
	p.zone, p.zoneUTC, p.zoneSet, p.zoneName = off, false, true, strings.ToUpper(abbr)
}

// stAbbrs maps the zone abbreviations timelib knows (timezonemap.h, first entry of each name, shorter
// than six letters) to their UTC offsets in seconds. "utc" and "gmt" are UTC itself.
var stAbbrs = func() map[string]int64 {
	m := map[string]int64{}
	for _, e := range strings.Fields(stAbbrTable) {
		name, off, _ := strings.Cut(e, ":")
		m[name], _ = strconv.ParseInt(off, 10, 64)
	}
	return m
}()

const stAbbrTable = "acdt:37800 acst:34200 addt:-7200 adt:-10800 aedt:39600 aest:36000 ahdt:-32400 ahst:-36000 " +
	"akdt:-28800 akst:-32400 amt:-13840 apt:-10800 ast:-14400 awdt:32400 awst:28800 awt:-10800 bdst:7200 " +
	"bdt:-36000 bmt:-14309 bst:3600 cast:34200 cat:7200 cddt:-14400 cdt:-18000 cemt:10800 cest:7200 " +
	"cet:3600 cmt:-15408 cpt:-18000 cst:-21600 cwt:-18000 chst:36000 dmt:-1521 eat:10800 eddt:-10800 " +
	"edt:-14400 eest:10800 eet:7200 emt:-26248 ept:-14400 est:-18000 ewt:-14400 ffmt:-14660 fmt:-4056 " +
	"gdt:39600 gst:36000 hdt:-34200 hkst:32400 hkt:28800 hmt:-19776 hpt:-34200 hst:-36000 hwt:-34200 " +
	"iddt:14400 idt:10800 imt:25025 ist:7200 jdt:36000 jmt:8440 jst:32400 kdt:36000 kmt:5736 kst:30600 " +
	"lst:9394 mddt:-18000 mdst:16279 mdt:-21600 mest:7200 met:3600 mmt:9017 mpt:-21600 msd:14400 " +
	"msk:10800 mst:-25200 mwt:-21600 nddt:-5400 ndt:-9052 npt:-9000 nst:-12600 nwt:-9000 nzdt:46800 " +
	"nzmt:41400 nzst:43200 pddt:-21600 pdt:-25200 pkst:21600 pkt:18000 plmt:25590 pmt:-13236 ppmt:-17340 " +
	"ppt:-25200 pst:-28800 pwt:-25200 qmt:-18840 rmt:5794 sast:7200 sdmt:-16800 sjmt:-20173 smt:-13884 " +
	"sst:-39600 tbmt:10751 tmt:12344 uct:0 wast:7200 wat:3600 wemt:7200 west:3600 wet:0 wib:25200 " +
	"wita:28800 wit:32400 wmt:5040 yddt:-25200 ydt:-28800 ypt:-28800 yst:-32400 ywt:-28800 a:3600 b:7200 " +
	"c:10800 d:14400 e:18000 f:21600 g:25200 h:28800 i:32400 k:36000 l:39600 m:43200 n:-3600 o:-7200 " +
	"p:-10800 q:-14400 r:-18000 s:-21600 t:-25200 u:-28800 v:-32400 w:-36000 x:-39600 y:-43200 z:0"

// stTZCorrection is timelib_parse_tz_cor: "h", "hh", "hmm", "h:mm", "hhmm", "hh:mm", "hhmmss",
// "hh:mm:ss" → seconds.
func stTZCorrection(s string) int64 {
	atoi := func(x string) int64 {
		n, _ := strconv.ParseInt(strings.TrimRight(x, ":"), 10, 64)
		return n
	}
	switch len(s) {
	case 1, 2:
		return atoi(s) * 3600
	case 3, 4:
		switch {
		case s[1] == ':':
			return atoi(s[:1])*3600 + atoi(s[2:])*60
		case s[2] == ':':
			return atoi(s[:2])*3600 + atoi(s[3:])*60
		}
		n := atoi(s)
		return n/100*3600 + n%100*60
	case 5:
		if s[2] == ':' {
			return atoi(s[:2])*3600 + atoi(s[3:])*60
		}
	case 6:
		n := atoi(s)
		return n/10000*3600 + n/100%100*60 + n%100
	case 8:
		if s[2] == ':' && s[5] == ':' {
			return atoi(s[:2])*3600 + atoi(s[3:5])*60 + atoi(s[6:])
		}
	}
	return 0
}

// stYear is TIMELIB_PROCESS_YEAR: years written with fewer than four digits below 70 are 20xx, the
// other two-digit ones 19xx.
func stYear(y int64, length int) int64 {
	switch {
	case y == stUnset || length >= 4:
		return y
	case y < 70:
		return y + 2000
	case y < 100:
		return y + 1900
	}
	return y
}

// stRelUnit is an entry of timelib's relative unit table.
type stRelUnit struct {
	field byte  // 'y', 'm', 'd', 'h', 'i', 's', 'u' (µs), 'w' for a weekday, 'x' unsupported
	n     int64 // multiplier, or the weekday number (0 = Sunday)
}

var stRelUnits = func() map[string]stRelUnit {
	units := map[string]stRelUnit{
		"ms": {'u', 1000}, "msec": {'u', 1000}, "msecs": {'u', 1000}, "millisecond": {'u', 1000}, "milliseconds": {'u', 1000},
		stMicro + "s": {'u', 1}, "usec": {'u', 1}, "usecs": {'u', 1}, stMicro + "sec": {'u', 1}, stMicro + "secs": {'u', 1},
		"microsecond": {'u', 1}, "microseconds": {'u', 1},
		"sec": {'s', 1}, "secs": {'s', 1}, "second": {'s', 1}, "seconds": {'s', 1},
		"min": {'i', 1}, "mins": {'i', 1}, "minute": {'i', 1}, "minutes": {'i', 1},
		"hour": {'h', 1}, "hours": {'h', 1}, "day": {'d', 1}, "days": {'d', 1},
		"week": {'d', 7}, "weeks": {'d', 7}, "fortnight": {'d', 14}, "fortnights": {'d', 14},
		"forthnight": {'d', 14}, "forthnights": {'d', 14},
		"month": {'m', 1}, "months": {'m', 1}, "year": {'y', 1}, "years": {'y', 1},
		"weekday": {'x', 0}, "weekdays": {'x', 0}, // business days: not implemented
	}
	for n, day := range []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"} {
		for _, name := range []string{day, day + "s", day[:3]} {
			units[name] = stRelUnit{'w', int64(n)}
		}
	}
	return units
}()

// stRelTexts maps timelib's relative words to an amount and a weekday behaviour.
var stRelTexts = map[string][2]int64{
	"last": {-1, 0}, "previous": {-1, 0}, "this": {0, 1}, "next": {1, 0}, "first": {1, 0},
	"second": {2, 0}, "third": {3, 0}, "fourth": {4, 0}, "fifth": {5, 0}, "sixth": {6, 0},
	"seventh": {7, 0}, "eight": {8, 0}, "eighth": {8, 0}, "ninth": {9, 0}, "tenth": {10, 0},
	"eleventh": {11, 0}, "twelfth": {12, 0},
}

var stMonths = map[string]int64{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8,
	"sep": 9, "sept": 9, "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11,
	"dec": 12, "december": 12,
	"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10, "xi": 11, "xii": 12,
}

// setRelative is timelib_set_relative: it reads a unit word and adds amount of it.
func (p *stParse) setRelative(t *stTok, amount, behavior int64, keepTime bool) {
	t.eatSpaces()
	u, ok := stRelUnits[t.word()]
	if !ok {
		return
	}
	r := &p.rel
	switch u.field {
	case 'y':
		p.addRel(&r.y, amount*u.n)
	case 'm':
		p.addRel(&r.m, amount*u.n)
	case 'd':
		p.addRel(&r.d, amount*u.n)
	case 'h':
		p.addRel(&r.h, amount*u.n)
	case 'i':
		p.addRel(&r.i, amount*u.n)
	case 's':
		p.addRel(&r.s, amount*u.n)
	case 'u':
		p.addRel(&r.us, amount*u.n)
	case 'x':
		p.err = true
	case 'w':
		r.haveWeekday = true
		if !keepTime {
			p.unhaveTime()
		}
		weeks := amount
		if amount > 0 {
			weeks = amount - 1
		}
		p.addRel(&r.d, weeks*7)
		r.weekday, r.behavior = u.n, behavior
	}
}

// stTok walks one matched token (lowercased) the way timelib's actions walk theirs with ptr.
type stTok struct {
	s    string // the token, lowercased
	orig string // as written, for the one action that looks at case
	p    int
}

func (t *stTok) cur() byte {
	if t.p < len(t.s) {
		return t.s[t.p]
	}
	return 0
}

func stIsDigit(c byte) bool { return c >= '0' && c <= '9' }

// nrLen is timelib_get_nr_ex: skip to the next digit, read at most max digits; stUnset when none.
func (t *stTok) nrLen(max int) (int64, int) {
	for t.p < len(t.s) && !stIsDigit(t.s[t.p]) {
		t.p++
	}
	start := t.p
	for t.p < len(t.s) && t.p-start < max && stIsDigit(t.s[t.p]) {
		t.p++
	}
	if t.p == start {
		return stUnset, 0
	}
	n, _ := strconv.ParseInt(t.s[start:t.p], 10, 64)
	return n, t.p - start
}

func (t *stTok) nr(max int) int64 {
	n, _ := t.nrLen(max)
	return n
}

// signedNr is timelib_get_signed_nr: every '-' before the digits flips the sign; out of range is an
// error.
func (t *stTok) signedNr(p *stParse, max int) int64 {
	for t.p < len(t.s) && !stIsDigit(t.s[t.p]) && t.s[t.p] != '+' && t.s[t.p] != '-' {
		t.p++
	}
	sign := int64(1)
	for ; t.p < len(t.s) && (t.s[t.p] == '+' || t.s[t.p] == '-'); t.p++ {
		if t.s[t.p] == '-' {
			sign = -sign
		}
	}
	for t.p < len(t.s) && !stIsDigit(t.s[t.p]) {
		t.p++
	}
	start := t.p
	for t.p < len(t.s) && t.p-start < max && stIsDigit(t.s[t.p]) {
		t.p++
	}
	n, err := strconv.ParseInt(t.s[start:t.p], 10, 64)
	if err != nil {
		p.err = true
	}
	return sign * n
}

// frac is timelib_get_frac_nr on ".ddd": microseconds.
func (t *stTok) frac() int64 {
	start := t.p + 1
	for t.p++; t.p < len(t.s) && stIsDigit(t.s[t.p]); t.p++ {
	}
	us, _ := strconv.ParseInt((t.s[start:t.p] + "000000")[:6], 10, 64)
	return us
}

// clock reads "h[:i[:s[.frac]]]" into p; withFrac reads a fraction after the seconds.
func (t *stTok) clock(p *stParse, withFrac bool) {
	p.h = t.nr(2)
	if c := t.cur(); c != ':' && c != '.' {
		return
	}
	p.i = t.nr(2)
	if c := t.cur(); c != ':' && c != '.' {
		return
	}
	p.s = t.nr(2)
	if withFrac && t.cur() == '.' {
		p.us = t.frac()
	}
}

// meridian is timelib_meridian: the hours to add for "am"/"pm" to a 12-hour clock value.
func (t *stTok) meridian(h int64) int64 {
	for t.p < len(t.s) && t.s[t.p] != 'a' && t.s[t.p] != 'p' {
		t.p++
	}
	am := t.cur() == 'a'
	t.p = len(t.s)
	switch {
	case am && h == 12:
		return -12
	case !am && h != 12:
		return 12
	}
	return 0
}

// month is timelib_get_month: skip separators, look the next word up as a month name.
func (t *stTok) month() int64 {
	for t.p < len(t.s) && strings.IndexByte(" \t-./", t.s[t.p]) >= 0 {
		t.p++
	}
	start := t.p
	for t.p < len(t.s) && t.s[t.p] >= 'a' && t.s[t.p] <= 'z' {
		t.p++
	}
	return stMonths[t.s[start:t.p]] // the patterns only let month names through
}

func (t *stTok) skipDaySuffix() {
	switch rest := t.s[t.p:]; {
	case strings.HasPrefix(rest, "st"), strings.HasPrefix(rest, "nd"),
		strings.HasPrefix(rest, "rd"), strings.HasPrefix(rest, "th"):
		t.p += 2
	}
}

// eatSpaces is timelib_eat_spaces: blanks, tabs and no-break spaces.
func (t *stTok) eatSpaces() {
	for t.p < len(t.s) {
		switch rest := t.s[t.p:]; {
		case rest[0] == ' ' || rest[0] == '\t':
			t.p++
		case strings.HasPrefix(rest, stNBSP):
			t.p += len(stNBSP)
		case strings.HasPrefix(rest, stNNBSP):
			t.p += len(stNNBSP)
		default:
			return
		}
	}
}

// word reads a unit word up to timelib's separators (timelib_lookup_relunit).
func (t *stTok) word() string {
	start := t.p
	for t.p < len(t.s) && strings.IndexByte(" ,\t;:/.-()", t.s[t.p]) < 0 {
		t.p++
	}
	return t.s[start:t.p]
}

// relText is timelib_get_relative_text: a relative word's amount and weekday behaviour.
func (t *stTok) relText() (amount, behavior int64) {
	for t.p < len(t.s) && strings.IndexByte(" \t-/", t.s[t.p]) >= 0 {
		t.p++
	}
	start := t.p
	for t.p < len(t.s) && t.s[t.p] >= 'a' && t.s[t.p] <= 'z' {
		t.p++
	}
	v := stRelTexts[t.s[start:t.p]]
	return v[0], v[1]
}
