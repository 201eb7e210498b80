package adapter

import (
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"calshim/mapping"
)

// The iCalendar feed (RFC 5545): GET {ns}/events.ics takes the events list's arguments (same
// validation, errors, default window and visibility) and answers every matching event, up to
// Options.ICalMaxEvents; GET {ns}/events/{id}.ics one event, with the single read's answers. The
// routes are hidden in the route table, so the namespace index and /doc stay the original's.

const (
	icalProdID      = "-//calshim//The Events Calendar REST API v1 feed//EN"
	icalContentType = "text/calendar; charset=utf-8"
)

// rawBody is a response body sent as is (not JSON); its Content-Type is among the response headers.
type rawBody []byte

// icalList answers GET {ns}/events.ics.
func icalList(s *Server, r *request) (*response, error) {
	f, _, _, err := s.eventQuery(r)
	if err != nil {
		return nil, err
	}

	ctx := r.ctx(false)
	var events []mapping.ICalEvent
	for _, p := range r.snap.Events {
		if len(events) == s.opt.ICalMaxEvents {
			break
		}
		if !mapping.MatchEvent(p, f) {
			continue
		}
		if e, ok := icalEvent(r, ctx.Event(p)); ok {
			events = append(events, e)
		}
	}

	return icalResponse(r, events), nil
}

// icalSingle answers GET {ns}/events/{id}.ics with the answers of GET {ns}/events/{id}.
func icalSingle(s *Server, r *request) (*response, error) {
	if _, err := r.readArgs(); err != nil {
		return nil, err
	}

	res, err := singleEvent(s, r)
	if err != nil {
		return nil, err
	}

	var events []mapping.ICalEvent
	if e, ok := icalEvent(r, res.body.(mapping.Object)); ok {
		events = append(events, e)
	}

	return icalResponse(r, events), nil
}

// icalResponse encodes the calendar. `_fields` selects JSON members and has no meaning here, so it
// is dropped before the generic response filter sees the body.
func icalResponse(r *request, events []mapping.ICalEvent) *response {
	delete(r.params, "_fields")
	body := mapping.ICalendar(icalProdID, calendarName(r.snap.Site), events)
	return &response{status: http.StatusOK, body: rawBody(body),
		headers: []header{{"Content-Type", icalContentType}}}
}

// icalEvent turns an event's v1 representation into a VEVENT, so the feed shows exactly what the
// JSON list shows the same caller. An event without a start has no place in a calendar.
func icalEvent(r *request, o mapping.Object) (mapping.ICalEvent, bool) {
	id, _ := member[int](o, "id")
	e := mapping.ICalEvent{
		UID:         strconv.Itoa(id) + "@" + siteHost(r.snap.Site.Home),
		Summary:     mapping.PlainText(str(o, "title")),
		Description: mapping.PlainText(str(o, "description")),
		URL:         str(o, "url"),
		Status:      icalStatus(str(o, "status")),
		Categories:  termNames(o),
	}
	e.Modified = utcTime(str(o, "modified_utc"))
	e.Stamp = e.Modified
	if !icalDates(r, o, &e) {
		return e, false
	}

	if v, ok := member[mapping.Object](o, "venue"); ok {
		e.Location = venueLocation(v)
		e.Geo = venueGeo(r, v)
	}

	e.Organizer = firstOrganizer(o)
	return e, true
}

// icalDates sets the event's DTSTART/DTEND values: whole days for all-day events (DTEND the day
// after the last), else the UTC instants shown in the event's own zone.
func icalDates(r *request, o mapping.Object, e *mapping.ICalEvent) bool {
	start, end := str(o, "start_date"), str(o, "end_date")
	if start == "" {
		return false
	}

	if end == "" {
		end = start
	}

	if allDay, _ := member[bool](o, "all_day"); allDay {
		e.AllDay = true
		e.Start, e.End = day(start), day(end)
		e.End = e.End.AddDate(0, 0, 1) // DTEND is the day after the last
		return !e.Start.IsZero() && e.End.After(e.Start)
	}

	e.Start, e.End = utcTime(str(o, "utc_start_date")), utcTime(str(o, "utc_end_date"))
	if e.Start.IsZero() { // no UTC copy stored: the wall time in the site's zone
		e.Start = wallTime(start, r.snap.Location)
	}

	if e.End.IsZero() {
		e.End = wallTime(end, r.snap.Location)
	}

	// Offsets such as "UTC+2" are no zone of the database: those events are written in UTC.
	if tz := str(o, "timezone"); tz != "" {
		if _, ok := mapping.ICalZone(tz); ok {
			e.Zone = tz
		}
	}

	return !e.Start.IsZero() && !e.End.Before(e.Start)
}

const storedLayout = "2006-01-02 15:04:05"

func utcTime(s string) time.Time {
	t, err := time.ParseInLocation(storedLayout, s, time.UTC)
	if err != nil {
		return time.Time{}
	}
	return t
}

func wallTime(s string, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}

	t, err := time.ParseInLocation(storedLayout, s, loc)
	if err != nil {
		return time.Time{}
	}
	return t
}

// day is the date a stored date-time starts with ("YYYY-MM-DD"); zero when it starts with none.
func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s[:min(len(time.DateOnly), len(s))])
	if err != nil {
		return time.Time{}
	}
	return t
}

// icalStatus maps a post status: published events are confirmed, the others (drafts, pending,
// scheduled, private, only shown to who may read them) tentative.
func icalStatus(status string) string {
	if status == "publish" {
		return "CONFIRMED"
	}
	return "TENTATIVE"
}

// venueLocation is the venue's name and address on one line.
func venueLocation(v mapping.Object) string {
	var parts []string
	for _, k := range []string{"venue", "address", "city", "stateprovince", "zip", "country"} {
		if s := mapping.PlainText(str(v, k)); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ", ")
}

// venueGeo reads the venue's stored coordinates (_VenueLat/_VenueLng, set by geocoding); nil when
// either is missing or not a number.
func venueGeo(r *request, v mapping.Object) *[2]float64 {
	id, _ := member[int](v, "id")
	p, ok := r.snap.Post(id)
	if !ok {
		return nil
	}

	lat, okLat := p.MetaFirst("_VenueLat")
	lng, okLng := p.MetaFirst("_VenueLng")
	if !okLat || !okLng {
		return nil
	}

	la, errLat := strconv.ParseFloat(strings.TrimSpace(lat), 64)
	lo, errLng := strconv.ParseFloat(strings.TrimSpace(lng), 64)
	// Written so that NaN, which ParseFloat reads and no comparison holds for, is out of range too.
	if errLat != nil || errLng != nil || !(la >= -90 && la <= 90) || !(lo >= -180 && lo <= 180) {
		return nil
	}

	return &[2]float64{la, lo}
}

// firstOrganizer is the event's first organizer that has a mail address (ORGANIZER is a
// cal-address, a mailto: URI).
func firstOrganizer(o mapping.Object) *mapping.ICalPerson {
	list, _ := member[[]mapping.Object](o, "organizer")
	for _, org := range list {
		if email := mapping.PlainText(str(org, "email")); strings.Contains(email, "@") {
			return &mapping.ICalPerson{Name: mapping.PlainText(str(org, "organizer")), Email: email}
		}
	}
	return nil
}

// termNames are the names of the event's categories.
func termNames(o mapping.Object) []string {
	list, _ := member[[]mapping.Object](o, "categories")
	names := make([]string, 0, len(list))
	for _, t := range list {
		names = append(names, mapping.PlainText(str(t, "name")))
	}
	return names
}

// member reads a member of a representation with its type.
func member[T any](o mapping.Object, key string) (T, bool) {
	v, _ := o.Get(key)
	t, ok := v.(T)
	return t, ok
}

func str(o mapping.Object, key string) string { s, _ := member[string](o, key); return s }

// calendarName is what a calendar application lists the feed as: the site's title, as WordPress shows
// it (blogname is stored HTML-escaped), or its host when it has none.
func calendarName(site mapping.Site) string {
	if name := strings.TrimSpace(html.UnescapeString(site.Name)); name != "" {
		return name
	}
	return siteHost(site.Home)
}

// siteHost is the host of the site's home URL, the domain part of UIDs.
func siteHost(home string) string {
	u, err := url.Parse(home)
	if err != nil || u.Host == "" {
		return "calshim"
	}
	return u.Host
}

// DefaultICalMaxEvents is the feed's cap when Options.ICalMaxEvents is not set.
const DefaultICalMaxEvents = 5000

func isRaw(body any) bool { _, ok := body.(rawBody); return ok }
