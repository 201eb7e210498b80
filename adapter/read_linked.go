package adapter

import (
	"net/http"
	"slices"
	"sort"
	"strconv"

	"calshim/mapping/php"

	"calshim/catalog"
	"calshim/mapping"
)

// linkedKind describes venues or organizers: the two archives and singles differ only in names.
type linkedKind struct {
	name       string // "venue" / "organizer": the JSON name key and error-code prefix
	collection string // "venues" / "organizers"
	metaKey    string // event meta linking to it: _EventVenueID / _EventOrganizerID
	searchMeta []string
	postType   func(catalog.Types) string
	all        func(*catalog.Snapshot) []*mapping.Post // the catalog's list, newest first
	render     func(c *mapping.Context, p *mapping.Post) mapping.Object
}

var venues = linkedKind{
	name: "venue", collection: "venues", metaKey: "_EventVenueID",
	searchMeta: mapping.VenueSearchMeta,
	postType:   func(t catalog.Types) string { return t.Venue },
	all:        func(s *catalog.Snapshot) []*mapping.Post { return s.Venues },
	render:     (*mapping.Context).Venue,
}

var organizers = linkedKind{
	name: "organizer", collection: "organizers", metaKey: "_EventOrganizerID",
	searchMeta: mapping.OrganizerSearchMeta,
	postType:   func(t catalog.Types) string { return t.Organizer },
	all:        func(s *catalog.Snapshot) []*mapping.Post { return s.Organizers },
	render:     (*mapping.Context).Organizer,
}

func (k linkedKind) typ(r *request) string { return k.postType(r.snap.Types()) }

// archive answers GET /venues and GET /organizers (Archive_Venue::get, Archive_Organizer::get).
func (k linkedKind) archive(s *Server, r *request) (*response, error) {
	a, err := r.readArgs()
	if err != nil {
		return nil, err
	}

	var event *mapping.Post
	if n, ok := a["event"].(int); ok {
		event, _ = r.snap.Post(n)
	}

	status := statusArg(r, a, k.cap("edit"))
	matches := k.matching(r, a, event, statusesOf(r, status, k.cap("edit")))

	pg := s.pageOf(r, a)
	from, to := pg.window(len(matches))
	if from == to && pg.num > 1 {
		return nil, archivePageNotFound(k.name)
	}

	ctx := r.ctx(false)
	items := make([]any, 0, to-from)
	for _, p := range matches[from:to] {
		items = append(items, k.render(ctx, p))
	}

	body := mapping.Object{{Key: k.collection, Value: items}}
	archiveLinks(r.base()+"/"+k.collection+"/", linkedURLArgs(a, pg, event, status), nil, pg,
		len(matches), &body)
	return archiveResponse(body, len(matches), pg), nil
}

// matching are the venues or organizers an archive lists, by post date: in one of statuses,
// matching search and allowed by linkedIDs.
func (k linkedKind) matching(r *request, a Params, event *mapping.Post,
	statuses []string) []*mapping.Post {
	var search *mapping.LinkedSearch
	if v, ok := a.str("search"); ok {
		q := mapping.NewLinkedSearch(v)
		search = &q
	}

	linked := k.linkedIDs(r, a, event, statuses)
	var matches []*mapping.Post
	for _, p := range k.all(r.snap) {
		// What the caller may see first: the search reads the post's text.
		if slices.Contains(statuses, p.Status()) && (linked == nil || linked[p.ID]) &&
			(search == nil || search.Match(p, k.searchMeta)) {
			matches = append(matches, p)
		}
	}

	slices.SortFunc(matches, mapping.ByPostDate(distinct(statuses) > 1))
	return matches
}

// linkedURLArgs are the effective arguments of a venue or organizer archive in the order of TEC's
// supported_query_vars.
func linkedURLArgs(a Params, pg page, event *mapping.Post, status string) []queryArg {
	args := []queryArg{{"page", strconv.Itoa(pg.num)}, {"per_page", strconv.Itoa(pg.size)}}
	if v, ok := a.str("search"); ok {
		args = append(args, queryArg{"search", v}) // the original drops it, breaking paging (docs/compatibility.md)
	}

	if event != nil {
		args = append(args, queryArg{"event", strconv.Itoa(event.ID)})
	}

	if v, ok := a["has_events"]; ok {
		args = append(args, queryArg{"has_events", php.ToList(v)})
	}

	return append(args, statusURLArg(status))
}

// linkedIDs applies event, has_events and only_with_upcoming: nil = no restriction, else the set of
// allowed IDs. statuses are those the list shows, which tribe_get_venues and tribe_get_organizers
// also ask of the upcoming events (find_with_upcoming_events): an editor's list, "any" status by
// default, counts private, draft and pending events too.
func (k linkedKind) linkedIDs(r *request, a Params, event *mapping.Post,
	statuses []string) map[int]bool {
	var allowed map[int]bool
	if event != nil {
		allowed = restrictIDs(allowed, k.idsOf([]*mapping.Post{event}))
	}

	if v, ok := a["has_events"]; ok {
		allowed = restrictIDs(allowed, k.hasEventsIDs(r, php.TribeTruthy(v)))
	}

	if v, ok := a["only_with_upcoming"]; ok && php.TribeTruthy(v) {
		allowed = restrictIDs(allowed, k.idsOf(upcomingEvents(r, statuses)))
	}

	return allowed
}

// restrictIDs narrows allowed (nil = no restriction yet) to the IDs also in ids.
func restrictIDs(allowed, ids map[int]bool) map[int]bool {
	if allowed == nil {
		return ids
	}

	for id := range allowed {
		if !ids[id] {
			delete(allowed, id)
		}
	}

	return allowed
}

// hasEventsIDs are the IDs has_events allows: those linked from an event that is neither a draft
// nor pending when want is true, every other one of the kind when it is false.
func (k linkedKind) hasEventsIDs(r *request, want bool) map[int]bool {
	var counted []*mapping.Post
	for _, e := range r.snap.Events {
		if e.Status() != "draft" && e.Status() != "pending" {
			counted = append(counted, e)
		}
	}

	with := k.idsOf(counted)
	if want {
		return with
	}

	without := map[int]bool{}
	for _, p := range k.all(r.snap) {
		if !with[p.ID] {
			without[p.ID] = true
		}
	}

	return without
}

// upcomingEvents are the events find_with_upcoming_events asks tribe_get_events for: in one of the
// statuses, not hidden from listings, starting from now on (its local start compared with the
// current UTC wall-clock time, as TEC compares the two as if they were in the same zone), and only
// the first page of them by start date (tribe_get_events' default posts_per_page): venues and
// organizers of later events are not "with upcoming events".
func upcomingEvents(r *request, statuses []string) []*mapping.Post {
	now := r.now.UTC().Format("2006-01-02 15:04:05")
	limit := r.snap.PerPage
	if limit <= 0 {
		limit = 10
	}

	// Events are in start order: those that started before now are skipped by a binary search.
	events := r.snap.Events
	from := sort.Search(len(events), func(i int) bool { return events[i].Derived.Start >= now })
	var upcoming []*mapping.Post
	for _, e := range events[from:] {
		if len(upcoming) == limit {
			break
		}
		if slices.Contains(statuses, e.Status()) && !e.Derived.Hidden && e.Derived.Start >= now {
			upcoming = append(upcoming, e)
		}
	}

	return upcoming
}

// idsOf collects the IDs the given events link to.
func (k linkedKind) idsOf(events []*mapping.Post) map[int]bool {
	ids := map[int]bool{}
	for _, e := range events {
		for _, v := range e.Meta.Get(k.metaKey) {
			if n, err := strconv.Atoi(v); err == nil {
				ids[n] = true
			}
		}
	}

	return ids
}

// single answers GET /venues/{id}, /venues/by-slug/{slug} and the organizer equivalents.
func (k linkedKind) single(s *Server, r *request) (*response, error) {
	var p *mapping.Post
	var found bool
	if _, ok := r.vars["slug"]; ok {
		p, found = postBySlug(r, k.typ(r), k.all(r.snap))
		if !found {
			return nil, invalidParam("slug")
		}
	} else {
		id, _ := strconv.Atoi(r.vars["id"])
		p, found = r.snap.Post(id)
		if !found || p.Type() != k.typ(r) {
			return nil, invalidParam("id")
		}
	}

	if !r.viewer.mayRead(p) {
		return nil, notAccessible(k.name)
	}

	return &response{status: http.StatusOK, body: k.render(r.ctx(true), p)}, nil
}

// distinct counts the different values of l.
func distinct(l []string) int {
	seen := map[string]bool{}
	for _, v := range l {
		seen[v] = true
	}
	return len(seen)
}

// cap is the general capability of an action on this kind, e.g. edit_tribe_venues.
func (k linkedKind) cap(action string) string { return action + "_tribe_" + k.collection }
