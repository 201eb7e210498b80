package mapping

import (
	"html"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// ICalEvent is one VEVENT of an iCalendar feed (RFC 5545), in the values the feed writes.
type ICalEvent struct {
	UID         string
	Summary     string
	Description string // plain text
	Location    string
	Geo         *[2]float64 // latitude, longitude; nil when the venue has none
	Organizer   *ICalPerson
	Categories  []string
	URL         string
	Status      string // CONFIRMED, TENTATIVE or CANCELLED
	// Start and End are instants; Zone is the IANA zone they are written in ("" = UTC). Of all-day
	// events only the dates count (End exclusive), as Start.Date() and End.Date() give them.
	Start, End      time.Time
	Zone            string
	AllDay          bool
	Stamp, Modified time.Time // DTSTAMP and LAST-MODIFIED (UTC)
}

// ICalPerson is an ORGANIZER: a display name and a mail address.
type ICalPerson struct{ Name, Email string }

// ICalendar writes a VCALENDAR holding one VTIMEZONE for each zone the events use (its transitions
// over the years the events span, from Go's time zone database) and one VEVENT per event: CRLF line
// ends, lines folded at 75 octets. Every value that comes from a string goes through ICalText,
// icalURI or icalParam, or is a zone name ICalZone accepted, so no stored text can add a line.
func ICalendar(prodID, name string, events []ICalEvent) []byte {
	w := &icalWriter{}
	w.line("BEGIN:VCALENDAR")
	w.line("VERSION:2.0")
	w.line("PRODID:" + ICalText(prodID))
	w.line("CALSCALE:GREGORIAN")
	w.line("METHOD:PUBLISH")
	if name != "" {
		w.line("X-WR-CALNAME:" + ICalText(name))
	}

	for _, z := range zonesUsed(events) {
		w.timezone(z.loc, z.from, z.to)
	}

	for i := range events {
		w.event(&events[i])
	}

	w.line("END:VCALENDAR")
	return []byte(w.b.String())
}

// zones caches the time zones feeds use: time.LoadLocation reads the database file on every call.
var zones sync.Map // name → *time.Location, or nil when the database has no such zone

// ICalZone returns the zone of the database with that name; false for names it lacks ("UTC+2"),
// for "Local", which is no zone a calendar can name, and for names with other characters than the
// database's, since a TZID parameter is written unquoted.
func ICalZone(name string) (*time.Location, bool) {
	if strings.TrimLeft(name, zoneNameChars) != "" {
		return nil, false
	}

	if v, ok := zones.Load(name); ok {
		loc, _ := v.(*time.Location)
		return loc, loc != nil
	}

	loc, err := time.LoadLocation(name)
	if err != nil || name == "" || name == "Local" {
		loc = nil
	}

	zones.Store(name, loc)
	return loc, loc != nil
}

// zoneNameChars are the characters of the database's zone names ("America/Port-au-Prince",
// "Etc/GMT+5").
const zoneNameChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/_+-"

// zoneSpan is a time zone and the instants the feed needs it for.
type zoneSpan struct {
	loc      *time.Location
	from, to time.Time
}

// zonesUsed lists the zones of timed events, by name, each with the span of its events.
func zonesUsed(events []ICalEvent) []zoneSpan {
	spans := map[string]*zoneSpan{}
	for i := range events {
		e := &events[i]
		if e.AllDay || e.Zone == "" {
			continue
		}

		z, ok := spans[e.Zone]
		if !ok {
			loc, ok := ICalZone(e.Zone)
			if !ok {
				continue
			}
			z = &zoneSpan{loc: loc, from: e.Start, to: e.End}
			spans[e.Zone] = z
		}

		z.from, z.to = earlier(z.from, e.Start), later(z.to, e.End)
	}

	names := make([]string, 0, len(spans))
	for n := range spans {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]zoneSpan, len(names))
	for i, n := range names {
		out[i] = *spans[n]
	}

	return out
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// icalWriter accumulates content lines.
type icalWriter struct{ b strings.Builder }

// line writes one content line, folded (RFC 5545 §3.1): at most 75 octets per physical line, the
// continuation lines starting with a space, never splitting a UTF-8 sequence.
func (w *icalWriter) line(s string) {
	limit := 75
	for len(s) > limit {
		cut := limit
		for cut > limit-utf8.UTFMax && !utf8.RuneStart(s[cut]) {
			cut--
		}
		w.b.WriteString(s[:cut])
		w.b.WriteString("\r\n ")
		s = s[cut:]
		limit = 74 // the leading space counts
	}

	w.b.WriteString(s)
	w.b.WriteString("\r\n")
}

// ICalText escapes a TEXT value (RFC 5545 §3.3.11): backslash, semicolon and comma escaped, every
// line break written as \n. Lossy: icalClean's steps.
func ICalText(s string) string { return textEscapes.Replace(icalClean(s, "\n")) }

var textEscapes = strings.NewReplacer(`\`, `\\`, ";", `\;`, ",", `\,`, "\n", `\n`)

// icalClean makes stored text safe on one content line: invalid UTF-8 becomes U+FFFD, each line
// break (CRLF, CR, LF, NEL, U+2028, U+2029: parsers such as Python's split lines at the last
// three too) becomes newline, and every other control character but TAB is dropped.
func icalClean(s, newline string) string {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\r\n", "\n"), "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\u0085' || r == '\u2028' || r == '\u2029':
			b.WriteString(newline)
		case r == '\t' || !unicode.IsControl(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// icalParam quotes a parameter value (the CN of an organizer, RFC 5545 §3.2), after icalClean with
// line breaks as spaces. A quoted value cannot hold DQUOTE, so it is written as RFC 6868 says:
// ^' for ", ^^ for ^. Backslashes are dropped: RFC 5545 has no escapes in parameters, but parsers
// (ical.js, python-icalendar) take \: or \, for one and then split the line elsewhere.
func icalParam(s string) string {
	return `"` + paramEscapes.Replace(icalClean(s, " ")) + `"`
}

var paramEscapes = strings.NewReplacer("^", "^^", `"`, "^'", `\`, "")

// icalURI writes a URI value (URL, ORGANIZER's mailto:), which has no escapes: every byte that is
// not one of RFC 3986's characters (controls, space, quotes, backslash, non-ASCII) is
// percent-encoded, so the value stays one piece of one line.
func icalURI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < utf8.RuneSelf && strings.IndexByte(uriChars, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&15])
	}
	return b.String()
}

const (
	uriChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%"
	upperHex = "0123456789ABCDEF"
)

const (
	icalUTC   = "20060102T150405Z"
	icalLocal = "20060102T150405"
	icalDate  = "20060102"
)

// event writes one VEVENT.
func (w *icalWriter) event(e *ICalEvent) {
	w.line("BEGIN:VEVENT")
	w.line("UID:" + ICalText(e.UID))
	w.line("DTSTAMP:" + e.Stamp.UTC().Format(icalUTC))
	w.dates(e)
	w.line("SUMMARY:" + ICalText(e.Summary))
	if e.Description != "" {
		w.line("DESCRIPTION:" + ICalText(e.Description))
	}

	if e.Location != "" {
		w.line("LOCATION:" + ICalText(e.Location))
	}

	if e.Geo != nil {
		w.line("GEO:" + icalFloat(e.Geo[0]) + ";" + icalFloat(e.Geo[1]))
	}

	if o := e.Organizer; o != nil {
		w.line("ORGANIZER;CN=" + icalParam(o.Name) + ":mailto:" + icalURI(o.Email))
	}

	w.categories(e.Categories)
	if e.URL != "" {
		w.line("URL;VALUE=URI:" + icalURI(e.URL))
	}

	w.line("LAST-MODIFIED:" + e.Modified.UTC().Format(icalUTC))
	w.line("STATUS:" + ICalText(e.Status))
	w.line("END:VEVENT")
}

// dates writes DTSTART and DTEND: DATE values for all-day events, local times with TZID in the
// event's zone, UTC times when it has none the database knows.
func (w *icalWriter) dates(e *ICalEvent) {
	switch {
	case e.AllDay:
		w.line("DTSTART;VALUE=DATE:" + e.Start.Format(icalDate))
		w.line("DTEND;VALUE=DATE:" + e.End.Format(icalDate))
	case e.Zone != "":
		if loc, ok := ICalZone(e.Zone); ok {
			w.line("DTSTART;TZID=" + e.Zone + ":" + e.Start.In(loc).Format(icalLocal))
			w.line("DTEND;TZID=" + e.Zone + ":" + e.End.In(loc).Format(icalLocal))
			return
		}
		fallthrough
	default:
		w.line("DTSTART:" + e.Start.UTC().Format(icalUTC))
		w.line("DTEND:" + e.End.UTC().Format(icalUTC))
	}
}

func (w *icalWriter) categories(names []string) {
	if len(names) == 0 {
		return
	}

	escaped := make([]string, len(names))
	for i, n := range names {
		escaped[i] = ICalText(n)
	}
	w.line("CATEGORIES:" + strings.Join(escaped, ","))
}

func icalFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// timezone writes a VTIMEZONE for loc covering [from, to]: one STANDARD or DAYLIGHT observance per
// transition, starting with the one in force at from, so every local time of the events resolves
// to the instant Go's database gives (no RRULEs to get wrong across rule changes).
func (w *icalWriter) timezone(loc *time.Location, from, to time.Time) {
	w.line("BEGIN:VTIMEZONE")
	w.line("TZID:" + loc.String())
	for _, t := range transitions(loc, from, to) {
		w.observance(loc, t)
	}
	w.line("END:VTIMEZONE")
}

// transitions are the instants loc changes offset, from the one in force at from up to to; a
// zone without any yields the zero time (one observance from 1970).
func transitions(loc *time.Location, from, to time.Time) []time.Time {
	start, _ := from.In(loc).ZoneBounds()
	out := []time.Time{start}
	for t := start; ; {
		_, next := t.In(loc).ZoneBounds()
		if next.IsZero() || next.After(to) {
			return out
		}
		out = append(out, next)
		t = next
	}
}

// observance writes the STANDARD or DAYLIGHT block of the period starting at t.
func (w *icalWriter) observance(loc *time.Location, t time.Time) {
	kind, always := "STANDARD", t.IsZero()
	if always {
		t = time.Date(1970, 1, 1, 0, 0, 0, 0, loc)
	}

	at := t.In(loc)
	abbr, to := at.Zone()
	_, fromOffset := at.Add(-time.Second).Zone()
	if at.IsDST() {
		kind = "DAYLIGHT"
	}

	if always {
		fromOffset = to
	}

	w.line("BEGIN:" + kind)
	// DTSTART of an observance is the local time of the transition in the offset before it.
	w.line("DTSTART:" + t.UTC().Add(time.Duration(fromOffset)*time.Second).Format(icalLocal))
	w.line("TZOFFSETFROM:" + icalOffset(fromOffset))
	w.line("TZOFFSETTO:" + icalOffset(to))
	w.line("TZNAME:" + ICalText(abbr))
	w.line("END:" + kind)
}

// icalOffset formats seconds east of UTC as RFC 5545's UTC-OFFSET (+HHMM, +HHMMSS with seconds).
func icalOffset(sec int) string {
	sign := "+"
	if sec < 0 {
		sign, sec = "-", -sec
	}

	s := sign + twoDigits(sec/3600) + twoDigits(sec/60%60)
	if sec%60 != 0 {
		s += twoDigits(sec % 60)
	}
	return s
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

var (
	htmlBreak  = regexp.MustCompile(`(?i)<br\s*/?>|</(p|div|li|h[1-6]|tr|blockquote)>`)
	htmlTag    = regexp.MustCompile(`<[^>]*>`)
	blankRun   = regexp.MustCompile(`[ \t\x{a0}]+`)
	emptyLines = regexp.MustCompile(`\n{3,}`)
)

// PlainText turns rendered HTML (a description, a texturized title) into plain text: line breaks
// for breaks and block ends, tags dropped, entities decoded, runs of blanks collapsed.
func PlainText(s string) string {
	s = htmlBreak.ReplaceAllString(s, "\n")
	s = html.UnescapeString(htmlTag.ReplaceAllString(s, ""))
	s = blankRun.ReplaceAllString(strings.ReplaceAll(s, "\r", ""), " ")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.TrimSpace(emptyLines.ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
}
