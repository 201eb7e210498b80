package php

// The lexical side of ParseTime: zone offsets and abbreviations, relative units, the token reader.

import (
	"strconv"
	"strings"
)

// inlineZone is timelib_parse_zone on the rest of a token (lowercased): an offset or an
// abbreviation. Zone identifiers ("Europe/Paris", "Japan") are left out and make the parse fail.
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

// stAbbrs maps the zone abbreviations timelib knows (timezonemap.h, first entry of each name,
// shorter than six letters) to their UTC offsets in seconds. "utc" and "gmt" are UTC itself.
var stAbbrs = func() map[string]int64 {
	m := map[string]int64{}
	for _, e := range strings.Fields(stAbbrTable) {
		name, off, _ := strings.Cut(e, ":")
		m[name], _ = strconv.ParseInt(off, 10, 64)
	}

	return m
}()

const stAbbrTable = "" +
	"acdt:37800 acst:34200 addt:-7200 adt:-10800 aedt:39600 aest:36000 ahdt:-32400 " +
	"ahst:-36000 akdt:-28800 akst:-32400 amt:-13840 apt:-10800 ast:-14400 awdt:32400 " +
	"awst:28800 awt:-10800 bdst:7200 bdt:-36000 bmt:-14309 bst:3600 cast:34200 cat:7200 " +
	"cddt:-14400 cdt:-18000 cemt:10800 cest:7200 cet:3600 cmt:-15408 cpt:-18000 cst:-21600 " +
	"cwt:-18000 chst:36000 dmt:-1521 eat:10800 eddt:-10800 edt:-14400 eest:10800 eet:7200 " +
	"emt:-26248 ept:-14400 est:-18000 ewt:-14400 ffmt:-14660 fmt:-4056 gdt:39600 gst:36000 " +
	"hdt:-34200 hkst:32400 hkt:28800 hmt:-19776 hpt:-34200 hst:-36000 hwt:-34200 iddt:14400 " +
	"idt:10800 imt:25025 ist:7200 jdt:36000 jmt:8440 jst:32400 kdt:36000 kmt:5736 kst:30600 " +
	"lst:9394 mddt:-18000 mdst:16279 mdt:-21600 mest:7200 met:3600 mmt:9017 mpt:-21600 " +
	"msd:14400 msk:10800 mst:-25200 mwt:-21600 nddt:-5400 ndt:-9052 npt:-9000 nst:-12600 " +
	"nwt:-9000 nzdt:46800 nzmt:41400 nzst:43200 pddt:-21600 pdt:-25200 pkst:21600 pkt:18000 " +
	"plmt:25590 pmt:-13236 ppmt:-17340 ppt:-25200 pst:-28800 pwt:-25200 qmt:-18840 rmt:5794 " +
	"sast:7200 sdmt:-16800 sjmt:-20173 smt:-13884 sst:-39600 tbmt:10751 tmt:12344 uct:0 " +
	"wast:7200 wat:3600 wemt:7200 west:3600 wet:0 wib:25200 wita:28800 wit:32400 wmt:5040 " +
	"yddt:-25200 ydt:-28800 ypt:-28800 yst:-32400 ywt:-28800 a:3600 b:7200 c:10800 d:14400 " +
	"e:18000 f:21600 g:25200 h:28800 i:32400 k:36000 l:39600 m:43200 n:-3600 o:-7200 " +
	"p:-10800 q:-14400 r:-18000 s:-21600 t:-25200 u:-28800 v:-32400 w:-36000 x:-39600 " +
	"y:-43200 z:0"

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
		"ms": {'u', 1000}, "msec": {'u', 1000}, "msecs": {'u', 1000},
		"millisecond": {'u', 1000}, "milliseconds": {'u', 1000},
		stMicro + "s": {'u', 1}, "usec": {'u', 1}, "usecs": {'u', 1},
		stMicro + "sec": {'u', 1}, stMicro + "secs": {'u', 1},
		"microsecond": {'u', 1}, "microseconds": {'u', 1},
		"sec": {'s', 1}, "secs": {'s', 1}, "second": {'s', 1}, "seconds": {'s', 1},
		"min": {'i', 1}, "mins": {'i', 1}, "minute": {'i', 1}, "minutes": {'i', 1},
		"hour": {'h', 1}, "hours": {'h', 1}, "day": {'d', 1}, "days": {'d', 1},
		"week": {'d', 7}, "weeks": {'d', 7}, "fortnight": {'d', 14}, "fortnights": {'d', 14},
		"forthnight": {'d', 14}, "forthnights": {'d', 14},
		"month": {'m', 1}, "months": {'m', 1}, "year": {'y', 1}, "years": {'y', 1},
		"weekday": {'x', 0}, "weekdays": {'x', 0}, // business days: not implemented
	}
	days := []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}
	for n, day := range days {
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
	"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6,
	"vii": 7, "viii": 8, "ix": 9, "x": 10, "xi": 11, "xii": 12,
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

// nrLen is timelib_get_nr_ex: skip to the next digit, read at most maxDigits digits; stUnset when
// none.
func (t *stTok) nrLen(maxDigits int) (int64, int) {
	for t.p < len(t.s) && !stIsDigit(t.s[t.p]) {
		t.p++
	}

	start := t.p
	for t.p < len(t.s) && t.p-start < maxDigits && stIsDigit(t.s[t.p]) {
		t.p++
	}

	if t.p == start {
		return stUnset, 0
	}

	n, _ := strconv.ParseInt(t.s[start:t.p], 10, 64)
	return n, t.p - start
}

func (t *stTok) nr(maxDigits int) int64 {
	n, _ := t.nrLen(maxDigits)
	return n
}

// signedNr is timelib_get_signed_nr: every '-' before the digits flips the sign; out of range is an
// error.
func (t *stTok) signedNr(p *stParse, maxDigits int) int64 {
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
	for t.p < len(t.s) && t.p-start < maxDigits && stIsDigit(t.s[t.p]) {
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
	t.p++
	start := t.p
	for t.p < len(t.s) && stIsDigit(t.s[t.p]) {
		t.p++
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
