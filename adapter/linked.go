package adapter

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

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

var venues = linkedKind{name: "venue", collection: "venues", metaKey: "_EventVenueID",
	searchMeta: []string{"_VenueAddress", "_VenueCity", "_VenueProvince", "_VenueState", "_VenueStateProvince", "_VenueZip", "_VenuePhone"},
	postType:   func(t catalog.Types) string { return t.Venue },
	all:        func(s *catalog.Snapshot) []*mapping.Post { return s.Venues },
	render:     (*mapping.Context).Venue}

var organizers = linkedKind{name: "organizer", collection: "organizers", metaKey: "_EventOrganizerID",
	searchMeta: []string{"_OrganizerPhone", "_OrganizerEmail", "_OrganizerWebsite"},
	postType:   func(t catalog.Types) string { return t.Organizer },
	all:        func(s *catalog.Snapshot) []*mapping.Post { return s.Organizers },
	render:     (*mapping.Context).Organizer}

func (k linkedKind) typ(r *request) string { return k.postType(r.snap.Types()) }

// archive answers GET /venues and GET /organizers (Archive_Venue::get, Archive_Organizer::get).
func (k linkedKind) archive(s *Server, r *request) (*response, error) {
	a, err := r.readArgs("/" + k.collection)
	if err != nil {
		return nil, err
	}

	pg := s.pageOf(r, a)
	var words []string
	if v, ok := a.str("search"); ok {
		words = mapping.LinkedSearchWords(v)
		if words == nil {
			words = []string{} // searching, for no word: MatchLinkedSearch finds nothing
		}
	}
	var event *mapping.Post
	if n, ok := a["event"].(int); ok {
		event, _ = r.snap.Post(n)
	}
	status := statusArg(r, a, k.cap("edit"))
	statuses := statusesOf(r, status, k.cap("edit"))

	linked := k.linkedIDs(r, a, event)
	var matches []*mapping.Post
	for _, p := range k.all(r.snap) {
		if slices.Contains(statuses, p.Status) && (linked == nil || linked[p.ID]) &&
			(words == nil || mapping.MatchLinkedSearch(p, words, k.searchMeta)) {
			matches = append(matches, p)
		}
	}
	if len(statuses) > 1 {
		slices.SortStableFunc(matches, multiStatusOrder)
	}
	from, to := pg.window(len(matches))
	if from == to && pg.num > 1 {
		return nil, newError(http.StatusNotFound, k.name+"-archive-page-not-found",
			"The requested "+k.name+" archive page does not exist")
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

// multiStatusOrder is the order MySQL gives the original's post_date DESC query over several
// statuses: it reads the (post_type, post_status, post_date, ID) index and sorts by date, so posts of
// the same date come by status, then by ascending ID (over one status they come by descending ID).
func multiStatusOrder(a, b *mapping.Post) int {
	switch {
	case a.Date != b.Date:
		return -strings.Compare(a.Date, b.Date)
	case a.Status != b.Status:
		return strings.Compare(a.Status, b.Status)
	}
	return a.ID - b.ID
}

// linkedURLArgs are the effective arguments of a venue or organizer archive in the order of TEC's
// supported_query_vars.
func linkedURLArgs(a Params, pg page, event *mapping.Post, status string) []queryArg {
	args := []queryArg{{"page", strconv.Itoa(pg.num)}, {"per_page", strconv.Itoa(pg.size)}}
	if v, ok := a.str("search"); ok {
		args = append(args, queryArg{"search", v}) // the original drops it, breaking paging (README)
	}
	if event != nil {
		args = append(args, queryArg{"event", strconv.Itoa(event.ID)})
	}
	if v, ok := a["has_events"]; ok {
		args = append(args, queryArg{"has_events", toList(v)})
	}
	return append(args, statusURLArg(status))
}

// linkedIDs applies event, has_events and only_with_upcoming: nil = no restriction, else the set of
// allowed IDs.
func (k linkedKind) linkedIDs(r *request, a Params, event *mapping.Post) map[int]bool {
	var allowed map[int]bool
	restrict := func(ids map[int]bool) {
		if allowed == nil {
			allowed = ids
			return
		}
		for id := range allowed {
			if !ids[id] {
				delete(allowed, id)
			}
		}
	}
	if event != nil {
		restrict(k.idsOf([]*mapping.Post{event}))
	}
	if v, ok := a["has_events"]; ok {
		var counted []*mapping.Post
		for _, e := range r.snap.Events {
			if e.Status != "draft" && e.Status != "pending" {
				counted = append(counted, e)
			}
		}
		with := k.idsOf(counted)
		if !tribeTruthy(v) {
			without := map[int]bool{}
			for _, p := range k.all(r.snap) {
				if !with[p.ID] {
					without[p.ID] = true
				}
			}
			with = without
		}
		restrict(with)
	}
	if v, ok := a["only_with_upcoming"]; ok && tribeTruthy(v) {
		// "Upcoming": the local start is not before the current UTC wall-clock time (TEC compares the
		// two as if they were in the same zone), not hidden from listings, published.
		now := r.now.UTC().Format("2006-01-02 15:04:05")
		var upcoming []*mapping.Post
		for _, e := range r.snap.Events {
			if e.Status == "publish" && !e.Derived.Hidden && e.Derived.Start >= now {
				upcoming = append(upcoming, e)
			}
		}
		restrict(k.idsOf(upcoming))
	}
	return allowed
}

// idsOf collects the IDs the given events link to.
func (k linkedKind) idsOf(events []*mapping.Post) map[int]bool {
	ids := map[int]bool{}
	for _, e := range events {
		for _, v := range e.Meta[k.metaKey] {
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
	if slug, ok := r.vars["slug"]; ok {
		p, found = r.snap.BySlug(k.typ(r), slug)
		if !found {
			return nil, invalidParam("slug")
		}
	} else {
		id, _ := strconv.Atoi(r.vars["id"])
		p, found = r.snap.Post(id)
		if !found || p.Type != k.typ(r) {
			return nil, invalidParam("id")
		}
	}
	if !r.viewer.mayRead(p) {
		return nil, newError(http.StatusForbidden, k.name+"-not-accessible", "The requested "+k.name+" is not accessible")
	}
	return &response{status: http.StatusOK, body: k.render(r.ctx(true), p)}, nil
}
