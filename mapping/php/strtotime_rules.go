package php

// The scanner rules of ParseTime (timelib's parse_date.re, in order) and their actions.

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// stRule is one rule of timelib's scanner: a pattern (anchored, longest match) and the action run
// on the matched token, lowercased.
type stRule struct {
	re  *regexp.Regexp
	act func(p *stParse, t *stTok)
}

// Building blocks of the rules, named as in parse_date.re. Patterns are compiled
// case-insensitively; (?-i:…) marks what timelib matches case-sensitively.
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
	reMonthName = `(?:january|february|march|april|may|june|july|august|september|october|november|` +
		`december|` +
		`jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|dec)`
	reMonthText = `(?:` + reMonthName + `|(?-i:I|II|III|IV|V|VI|VII|VIII|IX|X|XI|XII))`
	reRelNumber = `(?:first|second|third|fourth|fifth|sixth|seventh|eighth?|ninth|tenth|eleventh|` +
		`twelfth)`
	reRelText = `(?:next|last|previous|this)`
	reRelUnit = `(?:ms|(?-i:` + stMicro + `)s|` +
		`(?:msec|millisecond|(?-i:` + stMicro + `)sec|microsecond|usec|sec|second|` +
		`min|minute|hour|day|fortnight|forthnight|month|year)s?|weeks|` + reDayText + `)`
	reTZ        = `\(?[a-z]{1,6}\)?|(?-i:[A-Z][a-z]+(?:[_/-][A-Za-z]+)+)`
	reTZCorrect = `(?-i:GMT)?[+-](?:` + reHour24 + `(?::?` + reMinute + `)?|` +
		reHour24lz + reMinutelz + reSecondlz +
		`|` + reHour24lz + `:` + reMinutelz + `:` + reSecondlz + `)`
	reTime12 = reHour12 + `(?:[:.]` + reMinutelz + `|[:.]` + reMinute + `[:.]` + reSecondlz + `)?` +
		reSpace + `?` + reMeridian
	reTime12hm = reHour12 + `(?:[:.]` + reMinutelz + `|[:.]` + reMinute + `[:.]` + reSecondlz + `)` +
		reSpace + `?` + reMeridian
	reTime24 = `t?` + reHour24 + `[:.]` + reMinute + `(?:[:.]` + reSecond + `(?:` + reFrac + `)?)?|` +
		`t` + reHour24
	reTime24nf = `t?` + reHour24 + `[:.]` + reMinute + `(?:[:.]` + reSecond + `)?`
	reTime24tz = `t?` + reHour24 + `[:.]` + reMinute + `[:.]` + reSecondlz +
		reSpace + `?(?:` + reTZCorrect + `|` + reTZ + `)`
	reNoYear = reMonthText + `[ .\t-]*` + reDay + `(?:(?-i:[,.stndrh\t ])+|\x00|$)`
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
	{stRe(`(?:` + reRelNumber + `|` + reRelText + `)` + reSpace +
		`(?:` + reDayFull + `|` + reDayAbbr + `)` + reSpace + `of`), stWeekdayOf},
	{stRe(reTime12), func(p *stParse, t *stTok) {
		p.haveTimeOnce()
		t.clock(p, false)
		p.h += t.meridian(p.h)
	}},
	// mssqltime
	{stRe(reHour12 + `:` + reMinutelz + `:` + reSecondlz + `[:.][0-9]+` + reMeridian),
		func(p *stParse, t *stTok) {
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
	// american(short)
	{stRe(reMonth + `/` + reDay + `(?:/` + reYear + `)?`), func(p *stParse, t *stTok) {
		p.haveDateOnce()
		p.m, p.d = t.nr(2), t.nr(2)
		if t.cur() == '/' {
			p.y = stYear(t.nrLen(4))
		}
	}},
	// iso8601date4, iso8601dateslash, dateslash
	{stRe(`[+-]?` + reYear4 + `-` + reMonthlz + `-` + reDaylz + `|` +
		reYear4 + `/` + reMonthlz + `/` + reDaylz + `/?|` +
		reYear4 + `/` + reMonth + `/` + reDay), func(p *stParse, t *stTok) {
		p.haveDateOnce()
		p.y = t.signedNr(p, 4)
		p.m, p.d = t.nr(2), t.nr(2)
	}},
	{stRe(reYear2 + `-` + reMonthlz + `-` + reDaylz), stYMD}, // iso8601date2
	// iso8601datex: years we cannot format
	{stRe(`[+-][0-9]{5,19}-` + reMonthlz + `-` + reDaylz),
		func(p *stParse, _ *stTok) { p.err = true }},
	{stRe(reYear4 + `-` + reMonth), func(p *stParse, t *stTok) { // gnudateshorter
		p.haveDateOnce()
		p.y = stYear(t.nrLen(4))
		p.m, p.d = t.nr(2), 1
	}},
	{stRe(reYear + `-` + reMonth + `-` + reDay), stYMD}, // gnudateshort
	// datefull
	{stRe(reDay + `[ \t.-]*` + reMonthText + `[ \t.-]*` + reYear), func(p *stParse, t *stTok) {
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
	// datetextual, datenoyear
	{stRe(reMonthText + `[ .\t-]*` + reDay + `(?-i:[,.stndrh\t ])+` + reYear + `|` + reNoYear), stMDY},
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
	{stRe(reYear4 + reMonthlz + reDaylz + `(?-i:T)` + // xmlrpc
		reHour24 + `:` + reMinutelz + `:` + reSecondlz + `|` +
		reYear4 + reMonthlz + reDaylz + `t` + reHour24 + reMinutelz + reSecondlz + `|` + // xmlrpcnocolon
		reYear4 + `-` + reMonthlz + `-` + reDaylz + `(?-i:T)` + // soap
		reHour24lz + `:` + reMinutelz + `:` + reSecondlz + reFrac + `(?:` + reTZCorrect + `)?|` +
		reYear4 + `-` + reMonth + `-` + reDay + `(?-i:T)` + // wddx
		reHour24 + `:` + reMinute + `:` + reSecond + `|` +
		reYear4 + `:` + reMonthlz + `:` + reDaylz + ` ` + // exif
		reHour24lz + `:` + reMinutelz + `:` + reSecondlz),
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
	// isoweekday, isoweek
	{stRe(reYear4 + `-?(?-i:W)` + reWeekOfYr + `(?:-?[0-7])?`), func(p *stParse, t *stTok) {
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
	{stRe(reDay + `/` + reMonthAbbr + `/` + reYear4 + `:` + // clf
		reHour24lz + `:` + reMinutelz + `:` + reSecondlz + reSpace + reTZCorrect),
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
	// relativetext
	{stRe(`(?:` + reRelNumber + `|` + reRelText + `)` + reSpace + reRelUnit),
		func(p *stParse, t *stTok) {
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
	// dateshortwithtime(short|long|longtz)
	{stRe(reNoYear + `(?:` + reTime24nf + `|` + reTime24tz + `)`), func(p *stParse, t *stTok) {
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
	// relative
	{stRe(`[+-]*[ \t]*[0-9]{1,13}` + reSpace + `?(?:` + reRelUnit + `|week)`),
		func(p *stParse, t *stTok) {
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
