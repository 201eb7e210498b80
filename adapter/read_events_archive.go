package adapter

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"calshim/mapping/php"

	"calshim/mapping"
)

// eventArchive answers GET /events (Archive_Event::get).
func eventArchive(s *Server, r *request) (*response, error) {
	f, links, pg, err := s.eventQuery(r)
	if err != nil {
		return nil, err
	}

	matches, total := r.snap.ListEvents(f, (pg.num-1)*pg.size, pg.size)
	if len(matches) == 0 && pg.num > 1 {
		return nil, archivePageNotFound("event")
	}

	ctx := r.ctx(false)
	events := make([]any, 0, len(matches))
	for _, p := range matches {
		events = append(events, s.listedEvent(r, ctx, p))
	}

	body := mapping.Object{{Key: "events", Value: events}}
	archiveLinks(r.base()+"/events/", links.args, links.extra, pg, total, &body)
	return archiveResponse(body, total, pg), nil
}

// listedEvent is an event as an archive lists it. For an anonymous list without `password` or
// `_fields` that depends on the post, the snapshot (linked posts, terms, site settings) and the
// namespace URL alone, so its JSON is kept (Options.EventCacheBytes) for every list that shows the
// event again: building and encoding an event's object tree was most of an uncached list's CPU and
// of its garbage.
func (s *Server) listedEvent(r *request, ctx *mapping.Context, p *mapping.Post) any {
	if s.events == nil || r.viewer != nil || r.params.has("password") || r.params.has("_fields") {
		return ctx.Event(p)
	}

	key := r.lang + " " + strconv.FormatUint(r.snap.Version, 10) + " " + strconv.Itoa(p.ID) + " " +
		ctx.Base
	return s.events.Get(key, func(string) mapping.Raw {
		return mapping.Raw(mapping.AppendJSON(nil, ctx.Event(p)))
	})
}

// archiveResponse appends total and total_pages and sets the X-TEC-* headers.
func archiveResponse(body mapping.Object, total int, pg page) *response {
	pages := pg.totalPages(total)
	body = append(body, mapping.KV{Key: "total", Value: total},
		mapping.KV{Key: "total_pages", Value: pages})
	return &response{status: http.StatusOK, body: body, total: &total, totalPages: &pages}
}

// eventQuery runs the archive's arguments through the pipeline and turns the sanitized values into
// a filter, plus the effective arguments for rest_url.
func (s *Server) eventQuery(r *request) (*mapping.EventFilter, eventLinks, page, error) {
	a, err := r.readArgs()
	if err != nil {
		return nil, eventLinks{}, page{}, err
	}

	pg := s.pageOf(r, a)
	f := &mapping.EventFilter{Anonymous: r.viewer == nil, Featured: boolArg(a, "featured")}
	f.Include = idFilter(a, "include")
	w := s.archiveWindow(r, a)
	f.ApplyWindow(w)
	if v, ok := a.str("search"); ok {
		f.Search = mapping.SearchWords(v)
	}

	f.Categories = termFilter(a, "categories", r.snap.Categories, true)
	f.Tags = termFilter(a, "tags", r.snap.Tags, false)
	f.Venues, f.Organizers = idFilter(a, "venue"), idFilter(a, "organizer")
	status := statusArg(r, a, "edit_tribe_events")
	f.Statuses = statusesOf(r, status, "edit_tribe_events")
	if n, ok := a["post_parent"].(int); ok {
		f.PostParent = &n
	}

	return f, eventLinks{args: eventURLArgs(a, pg, w, status, f), extra: eventExtraArgs(a)}, pg, nil
}

// eventLinks are the two sets of arguments TEC passes to add_query_arg for rest_url.
type eventLinks struct{ args, extra []queryArg }

// eventURLArgs are the effective arguments in the order of TEC's supported_query_vars.
func eventURLArgs(a Params, pg page, w mapping.Window, status string,
	f *mapping.EventFilter) []queryArg {
	args := []queryArg{{"page", strconv.Itoa(pg.num)}, {"per_page", strconv.Itoa(pg.size)}}
	args = appendIf(args, "start_date", w.StartDate)
	args = appendIf(args, "end_date", w.EndDate)
	if v, ok := a.str("search"); ok {
		args = append(args, queryArg{"search", v})
	}

	if b := boolArg(a, "geoloc"); b != nil && *b {
		// TEC sets tribe_geoloc to 1 and both coordinates, "" when not given.
		args = append(args, queryArg{"geoloc", "1"},
			queryArg{"geoloc_lat", php.ToList(a["geoloc_lat"])}, queryArg{"geoloc_lng", php.ToList(a["geoloc_lng"])})
	}

	args = append(args, statusURLArg(status))
	if f.PostParent != nil {
		args = append(args, queryArg{"post_parent", strconv.Itoa(*f.PostParent)})
	}

	if f.Include != nil {
		args = append(args, queryArg{"include", ints(f.Include)})
	}

	args = appendIf(args, "starts_before", w.StartsBefore)
	args = appendIf(args, "starts_after", w.StartsAfter)
	args = appendIf(args, "ends_before", w.EndsBefore)
	return appendIf(args, "ends_after", w.EndsAfter)
}

// eventExtraArgs are TEC's extra rest_url arguments: venue and organizer as given (lists joined
// with commas) and featured, each when given; nil when none is, so that no second add_query_arg
// runs. add_query_arg drops a false featured, but still re-encodes the URL.
func eventExtraArgs(a Params) []queryArg {
	extra, given := []queryArg{}, false
	for _, k := range []string{"venue", "organizer"} {
		if v, ok := a[k]; ok {
			extra, given = append(extra, queryArg{k, php.ToList(v)}), true
		}
	}

	if b := boolArg(a, "featured"); b != nil {
		given = true
		if *b {
			extra = append(extra, queryArg{"featured", "1"})
		}
	}

	if !given {
		return nil
	}

	return extra
}

func appendIf(args []queryArg, key, value string) []queryArg {
	if value == "" {
		return args
	}
	return append(args, queryArg{key, value})
}

// statusArg is the archive's post_status as rest_url shows it: the given list (already validated by
// filter_post_status_list; "" when it is empty, which only editors get through), or the default,
// "any" for who may edit the post type, else "publish".
func statusArg(r *request, a Params, editCap string) string {
	if v, ok := a["status"]; ok {
		return php.ToList(php.ListToArray(v))
	}
	if r.viewer.can(editCap) {
		return "any"
	}
	return "publish"
}

// statusesOf are the post statuses a post_status selects: WordPress' "any" is every status not
// excluded from searches (trash, auto-draft); an empty list is WP_Query's default, published posts
// and the private ones the caller may read.
func statusesOf(r *request, status, editCap string) []string {
	switch {
	case status == "any":
		return anyStatus
	case status == "" && r.viewer.can("read_private_"+strings.TrimPrefix(editCap, "edit_")):
		return []string{"publish", "private"}
	case status == "":
		return []string{"publish"}
	}

	return strings.Split(status, ",")
}

// statusURLArg is post_status in rest_url: an empty list is an empty array to build_query, which
// leaves an empty member ("…&" at the end of rest_url).
func statusURLArg(status string) queryArg {
	if status == "" {
		return queryArg{}
	}
	return queryArg{"status", status}
}

var anyStatus = []string{"publish", "future", "draft", "pending", "private"}

// termFilter resolves categories or tags as TEC's parse_terms_query does: each item by sanitized
// slug, then by ID; an item neither finds filters on no term. Categories include their descendants.
func termFilter(a Params, name string, terms []*mapping.Term, withChildren bool) []int {
	v, ok := a[name]
	if !ok {
		return nil
	}

	ids := []int{}
	for _, item := range php.ListToArray(v) {
		s, _ := php.Scalar(item)
		if id, found := mapping.ResolveTerm(terms, s); found {
			ids = append(ids, id)
		}
	}

	if withChildren {
		ids = descendants(terms, ids)
	}

	return ids
}

// descendants returns ids plus every term below them; an empty list stays an empty list (a filter on
// no term), not nil (no filter).
func descendants(terms []*mapping.Term, ids []int) []int {
	out := slices.Clone(ids)
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

// idFilter reads a validated list of post IDs (venue, organizer, include); nil when not given.
func idFilter(a Params, name string) []int {
	v, ok := a[name]
	if !ok {
		return nil
	}

	ids := []int{}
	for _, item := range php.ListToArray(v) {
		ids = append(ids, php.Int(item))
	}

	return ids
}

// boolArg is a sanitized boolean argument; nil when not given.
func boolArg(a Params, name string) *bool {
	b, ok := a[name].(bool)
	if !ok {
		return nil
	}
	return &b
}
