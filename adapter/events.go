package adapter

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"calshim/cmsclient"
	"calshim/mapping"
)

// eventArchive answers GET /events (reference §3.1).
func eventArchive(s *Server, r *request) (*response, error) {
	f, args, pg, err := s.eventQuery(r)
	if err != nil {
		return nil, err
	}
	var matches []*mapping.Post
	for _, p := range r.snap.Events {
		if mapping.MatchEvent(p, f) {
			matches = append(matches, p)
		}
	}
	if f.Include != nil {
		// With include the original orders by post date, then ID.
		slices.SortStableFunc(matches, func(a, b *mapping.Post) int {
			if mapping.PostDateLess(a, b) {
				return -1
			}
			return 1
		})
	}
	from, to := pg.window(len(matches))
	if from == to && pg.num > 1 {
		return nil, newError(http.StatusNotFound, "event-archive-page-not-found", "The requested event archive page does not exist")
	}
	ctx := r.ctx(false)
	events := make([]any, 0, to-from)
	for _, p := range matches[from:to] {
		events = append(events, ctx.Event(p))
	}
	body := mapping.Object{{Key: "events", Value: events}}
	// TEC adds venue, organizer and featured with add_query_arg, which encodes the whole query.
	encode := f.Venues != nil || f.Organizers != nil || (f.Featured != nil && *f.Featured)
	archiveLinks(r.base()+"/events/", args, encode, pg, len(matches), &body)
	return archiveResponse(body, len(matches), pg), nil
}

// archiveResponse appends total and total_pages and sets the X-TEC-* headers.
func archiveResponse(body mapping.Object, total int, pg page) *response {
	pages := pg.totalPages(total)
	body = append(body, mapping.KV{Key: "total", Value: total}, mapping.KV{Key: "total_pages", Value: pages})
	return &response{status: http.StatusOK, body: body, total: &total, totalPages: &pages}
}

// eventQuery validates the archive arguments in the original's declaration order and turns them into
// a filter plus the effective arguments for rest_url.
func (s *Server) eventQuery(r *request) (*mapping.EventFilter, []queryArg, page, error) {
	bad := mapping.Object{}
	pg := s.pageArgs(r, &bad)
	f := &mapping.EventFilter{Anonymous: r.viewer == nil}
	dates := s.archiveDates(r, f, &bad)
	if v, ok := r.params["search"]; ok {
		if str, isStr := v.(string); !isStr || str == "" {
			bad.Set("search", "Invalid parameter.")
		} else {
			f.Search = mapping.SearchWords(str)
		}
	}
	f.Categories = s.termFilter(r, "categories", r.snap.Categories, true, &bad)
	f.Tags = s.termFilter(r, "tags", r.snap.Tags, false, &bad)
	f.Venues = s.linkedFilter(r, "venue", r.snap.Types().Venue, &bad)
	f.Organizers = s.linkedFilter(r, "organizer", r.snap.Types().Organizer, &bad)
	if v, ok := r.params["featured"]; ok {
		b, valid := wpBool(v)
		if !valid {
			bad.Set("featured", "featured is not of type boolean.")
		}
		f.Featured = &b
	}
	status, statuses := s.statusArg(r, &bad, "edit_tribe_events")
	f.Statuses = statuses
	if r.params.has("include") {
		for _, item := range r.params.list("include") {
			n, ok := positiveInt(item)
			if !ok {
				bad.Set("include", "Invalid parameter.")
				break
			}
			f.Include = append(f.Include, n)
		}
	}
	if r.params.has("post_parent") {
		n, ok := positiveInt(r.params["post_parent"])
		if p, exists := r.snap.Post(n); !ok || !exists || p.Type != r.snap.Types().Event {
			bad.Set("post_parent", "Invalid parameter.")
		}
		f.PostParent = &n
	}
	if v, ok := r.params["ticketed"]; ok {
		if b, valid := wpBool(v); !valid {
			bad.Set("ticketed", "ticketed is not of type boolean.")
		} else if b {
			bad.Set("ticketed", "Event Tickets plugin is not activated.")
		}
	}
	if len(bad) > 0 {
		return nil, nil, pg, invalidParams(bad)
	}
	args := []queryArg{{"page", strconv.Itoa(pg.num)}, {"per_page", strconv.Itoa(pg.size)}}
	args = appendIf(args, "start_date", dates.StartDate)
	args = appendIf(args, "end_date", dates.EndDate)
	if s, ok := r.params.str("search"); ok {
		args = append(args, queryArg{"search", s})
	}
	for _, k := range []string{"geoloc", "geoloc_lat", "geoloc_lng"} {
		if v, ok := r.params.str(k); ok {
			args = append(args, queryArg{k, v})
		}
	}
	args = append(args, queryArg{"status", status})
	if f.PostParent != nil {
		args = append(args, queryArg{"post_parent", strconv.Itoa(*f.PostParent)})
	}
	if f.Include != nil {
		args = append(args, queryArg{"include", ints(f.Include)})
	}
	args = appendIf(args, "starts_before", f.StartsBefore)
	args = appendIf(args, "starts_after", f.StartsAfter)
	args = appendIf(args, "ends_before", f.EndsBefore)
	args = appendIf(args, "ends_after", f.EndsAfter)
	if f.Venues != nil {
		args = append(args, queryArg{"venue", ints(f.Venues)})
	}
	if f.Organizers != nil {
		args = append(args, queryArg{"organizer", ints(f.Organizers)})
	}
	if f.Featured != nil && *f.Featured {
		args = append(args, queryArg{"featured", "1"})
	}
	return f, args, pg, nil
}

func appendIf(args []queryArg, key, value string) []queryArg {
	if value == "" {
		return args
	}
	return append(args, queryArg{key, value})
}

// statusArg validates `status` and returns it as rest_url shows it and as the statuses it selects.
// Callers without the edit capability of the post type may only ask for "publish" (the default);
// those with it default to "any" (every status but trash) and may ask for any registered ones.
func (s *Server) statusArg(r *request, bad *mapping.Object, editCap string) (string, []string) {
	editor := r.viewer.can(editCap)
	if !r.params.has("status") {
		if editor {
			return "any", anyStatus
		}
		return "publish", []string{"publish"}
	}
	l := r.params.list("status")
	var out []string
	for _, st := range l {
		switch {
		case st == "any" && editor:
			out = append(out, anyStatus...)
		case st == "publish" || (editor && postStatuses[st]):
			out = append(out, st)
		default:
			bad.Set("status", "Invalid parameter.")
			return "publish", []string{"publish"}
		}
	}
	if len(out) == 0 {
		bad.Set("status", "Invalid parameter.")
	}
	return strings.Join(l, ","), out
}

// anyStatus is WordPress' "any": every status not excluded from searches (trash, auto-draft).
var anyStatus = []string{"publish", "future", "draft", "pending", "private"}

// termFilter resolves `categories` / `tags`: each item must exist as a term ID, slug or name (else the
// argument is invalid); items resolve by slug first, then by ID (a name passes validation but matches
// nothing, as in the original). Categories include their descendants.
func (s *Server) termFilter(r *request, name string, terms []*mapping.Term, withChildren bool, bad *mapping.Object) []int {
	if !r.params.has(name) {
		return nil
	}
	ids := []int{}
	for _, item := range r.params.list(name) {
		found, resolved := false, 0
		for _, t := range terms {
			if t.Slug == item {
				found, resolved = true, t.ID
				break
			}
		}
		if !found {
			for _, t := range terms {
				if strconv.Itoa(t.ID) == item {
					found, resolved = true, t.ID
				} else if t.Name == item {
					found = true
				}
			}
		}
		if !found {
			bad.Set(name, "Invalid parameter.")
			return nil
		}
		if resolved != 0 {
			ids = append(ids, resolved)
		}
	}
	if withChildren {
		ids = descendants(terms, ids)
	}
	return ids
}

// descendants returns ids plus every term below them.
func descendants(terms []*mapping.Term, ids []int) []int {
	out := append([]int(nil), ids...)
	for grew := true; grew; {
		grew = false
		for _, t := range terms {
			if t.Parent != 0 && slices.Contains(out, t.Parent) && !slices.Contains(out, t.ID) {
				out = append(out, t.ID)
				grew = true
			}
		}
	}
	return out
}

// linkedFilter resolves `venue` / `organizer`: every item must be the ID of a post of that type.
func (s *Server) linkedFilter(r *request, name, postType string, bad *mapping.Object) []int {
	if !r.params.has(name) {
		return nil
	}
	var ids []int
	for _, item := range r.params.list(name) {
		n, ok := positiveInt(item)
		p, exists := r.snap.Post(n)
		if !ok || !exists || p.Type != postType {
			bad.Set(name, "Invalid parameter.")
			return nil
		}
		ids = append(ids, n)
	}
	return ids
}

// singleEvent answers GET /events/{id} and /events/by-slug/{slug} (reference §3.3, §3.4).
func singleEvent(s *Server, r *request) (*response, error) {
	p, err := s.findEvent(r)
	if err != nil {
		return nil, err
	}
	switch {
	case p.Status == "trash":
		return nil, newError(http.StatusForbidden, "event-no-longer-available", "This event is no longer available")
	case !r.viewer.mayRead(p):
		return nil, newError(http.StatusForbidden, "event-not-accessible", "The requested event is not accessible")
	case p.Protected && !r.ctx(true).Unlocked(p):
		return nil, newError(http.StatusForbidden, "event-password-protected", "The requested event is not accessible without a password")
	}
	return &response{status: http.StatusOK, body: r.ctx(true).Event(p)}, nil
}

// findEvent locates the event of an {id} or {slug} route with the original's errors
// (Single_Event::validate_event_exists): an ID of no post at all is 404, an ID of any other post
// (venue, organizer, attachment, page) is 400.
func (s *Server) findEvent(r *request) (*mapping.Post, error) {
	typ := r.snap.Types().Event
	if _, ok := r.vars["slug"]; ok {
		p, found := postBySlug(r, typ, r.snap.Events)
		if !found {
			return nil, invalidParam("slug")
		}
		return p, nil
	}

	id, _ := strconv.Atoi(r.vars["id"])
	p, found := r.snap.Post(id)
	if !found && !postExistsUpstream(r, id) {
		return nil, notFoundf("rest-event-not-found", "Event with ID %d does not exist.", id)
	}
	if !found || p.Type != typ {
		return nil, newError(http.StatusBadRequest, "rest-invalid-event-id",
			"The specified ID is not a valid event.")
	}
	return p, nil
}

// postBySlug finds the post of a by-slug route as WordPress' get_page_by_path does (TEC's
// is_event_slug, is_venue_slug and is_organizer_slug, then the handlers, look posts up with it):
// the slug is sanitized first (so "Opening-Night-Gala" finds "opening-night-gala"), a post with a
// parent is never found by its slug alone, and a slug that sanitizes to "" finds the oldest post
// without one (a never-published draft). "0" is empty to PHP, so no slug at all.
func postBySlug(r *request, typ string, all []*mapping.Post) (*mapping.Post, bool) {
	slug, single := mapping.QuerySlug(r.vars["slug"])
	if r.vars["slug"] == "0" || !single {
		return nil, false
	}

	if slug != "" {
		p, found := r.snap.BySlug(typ, slug)
		return p, found && p.Parent == 0
	}

	var oldest *mapping.Post
	for _, p := range all {
		if p.Slug == "" && p.Parent == 0 && (oldest == nil || p.ID < oldest.ID) {
			oldest = p
		}
	}
	return oldest, oldest != nil
}

// existenceProbe is one upstream read that tells whether a post exists; answerOnly: only a
// successful answer does.
type existenceProbe struct {
	path       string
	answerOnly bool
}

// postExistsUpstream reports whether WordPress holds a post with this ID that the catalog does not
// keep (an attachment, a post, a page, a revision). get_post finds posts of every type; wp/v2 has no
// route for "any post by ID", so the common types are asked at once. For the first three any answer
// but "not found" (401 or 403 for one the service credential may not read) means the post exists.
// Revisions are asked for below any event (wp/v2 does not check the parent matches), where only an
// answer counts: a refusal there is about the parent. Anonymous answers are cached, so a client
// asking again costs nothing upstream.
func postExistsUpstream(r *request, id int) bool {
	if id <= 0 || r.cms == nil {
		return false
	}

	n := strconv.Itoa(id)
	probes := []existenceProbe{{"/wp/v2/media/" + n, false}, {"/wp/v2/posts/" + n, false},
		{"/wp/v2/pages/" + n, false}}
	if len(r.snap.Events) > 0 {
		parent := "/wp/v2/" + r.snap.Types().Event + "/" + strconv.Itoa(r.snap.Events[0].ID)
		probes = append(probes, existenceProbe{parent + "/revisions/" + n, true})
	}

	ctx, cancel := context.WithCancel(r.gc.Request.Context())
	defer cancel()
	found := make(chan bool, len(probes))
	for _, probe := range probes {
		go func() {
			_, err := r.cms.Get(ctx, probe.path, url.Values{"_fields": {"id"}})
			var upstream *cmsclient.Error
			refused := errors.As(err, &upstream) && upstream.Status != http.StatusNotFound
			found <- err == nil || refused && !probe.answerOnly
		}()
	}

	for range probes {
		if <-found {
			return true
		}
	}
	return false
}
