package adapter

import (
	"net/http"
	"regexp"
	"slices"

	"github.com/gin-gonic/gin"

	"calshim/adapter/apidoc"
	"calshim/mapping"
)

// routeTable is every route: the v1 routes in the original's registration order, the namespace
// route first, then calshim's own. Routes are matched in this order.
func routeTable() []route { return compile(append(v1Table(), ownTable()...)) }

// v1Table is the original's routes.
func v1Table() []route {
	ev, ve, or := apidoc.Events, apidoc.Venues, apidoc.Organizers
	ca, ta := apidoc.Categories, apidoc.Tags
	event := single(singleEvent, updateEvent, deleteEvent, false)
	venue := single(venues.single, venues.update, venues.remove, false)
	organizer := single(organizers.single, organizers.update, organizers.remove, false)
	category := single(categories.single, categories.update, categories.remove, true)
	tag := single(tags.single, tags.update, tags.remove, true)
	return []route{
		{pattern: "", endpoints: []endpoint{
			{methods: readable, h: namespaceIndex, args: apidoc.NamespaceArgs},
		}},
		{pattern: "/doc", docPath: "/doc", endpoints: []endpoint{
			{methods: readable, h: documentation, doc: documents(apidoc.DocResponses)},
		}},

		{pattern: "/events", docPath: "/events", may: mayEvents, scans: scansEventSearch,
			shows:     shown{"events", false},
			endpoints: collection(withSync(eventArchive, syncEvents), createEvent, ev)},
		{pattern: `/events/(?P<id>\d+)`, docPath: "/events/{id}", may: mayEvents,
			shows:     shown{"events", true},
			endpoints: postSingle(event, ev.ID, ev.IDEdit, ev.Fields, ev.Responses)},
		{pattern: `/events/by-slug/(?P<slug>[^/]+)`, docPath: "/events/by-slug/{slug}", may: mayEvents,
			shows:     shown{"events", true},
			endpoints: postSingle(event, ev.Slug, ev.SlugEdit, ev.Fields, ev.Responses)},

		{pattern: "/venues", docPath: "/venues", may: venues.may, scans: scansLinked,
			shows:     shown{"venues", false},
			endpoints: collection(withSync(venues.archive, syncVenues), venues.create, ve)},
		{pattern: `/venues/(?P<id>\d+)`, docPath: "/venues/{id}", may: venues.may,
			shows:     shown{"venues", true},
			endpoints: postSingle(venue, ve.ID, ve.IDEdit, ve.Fields, ve.Responses)},
		{pattern: `/venues/by-slug/(?P<slug>[^/]+)`, docPath: "/venues/by-slug/{slug}", may: venues.may,
			shows:     shown{"venues", true},
			endpoints: postSingle(venue, ve.Slug, ve.SlugEdit, ve.Fields, ve.Responses)},

		{pattern: "/organizers", docPath: "/organizers", may: organizers.may, scans: scansLinked,
			shows:     shown{"organizers", false},
			endpoints: collection(withSync(organizers.archive, syncOrganizers), organizers.create, or)},
		{pattern: `/organizers/(?P<id>\d+)`, docPath: "/organizers/{id}", may: organizers.may,
			shows:     shown{"organizers", true},
			endpoints: postSingle(organizer, or.ID, or.IDEdit, or.IDEdit, or.Responses)},
		{pattern: `/organizers/by-slug/(?P<slug>[^/]+)`, docPath: "/organizers/by-slug/{slug}",
			shows:     shown{"organizers", true},
			may:       organizers.may,
			endpoints: postSingle(organizer, or.Slug, or.SlugEdit, or.SlugEdit, or.Responses)},

		{pattern: "/categories", docPath: "/categories", may: categories.may, scans: scansTerms,
			shows:     shown{"categories", false},
			endpoints: collection(categories.archive, categories.create, ca)},
		{pattern: `/categories/(?P<id>\d+)`, docPath: "/categories/{id}", may: categories.may,
			shows:     shown{"categories", true},
			endpoints: termSingle(category, ca.ID, ca.IDEdit, ca.IDEdit, ca.Responses)},

		{pattern: "/tags", docPath: "/tags", may: tags.may, scans: scansTerms,
			shows:     shown{"tags", false},
			endpoints: collection(tags.archive, tags.create, ta)},
		{pattern: `/tags/(?P<id>\d+)`, docPath: "/tags/{id}", may: tags.may,
			shows:     shown{"tags", true},
			endpoints: termSingle(tag, ta.ID, ta.IDEdit, ta.Fields, ta.Responses)},
	}
}

// ownTable is calshim's own routes, all hidden.
func ownTable() []route {
	return []route{
		// The iCalendar feed (ical.go): the list takes the events list's arguments, the single
		// event the single read's.
		{pattern: `/events\.ics`, hidden: true, scans: scansAllEvents, endpoints: []endpoint{
			{methods: readable, h: icalList, args: apidoc.Events.Archive},
		}},
		{pattern: `/events/(?P<id>\d+)\.ics`, hidden: true, endpoints: []endpoint{
			{methods: readable, h: icalSingle, args: apidoc.Events.ID},
		}},

		// The probes, the metrics (ops_log.go) and the plugin's push notices (sync_notify.go).
		{pattern: "/healthz", hidden: true, at: onProbes, endpoints: []endpoint{
			{methods: readable, serve: healthz},
		}},
		{pattern: "/readyz", hidden: true, at: onProbes, endpoints: []endpoint{
			{methods: readable, serve: (*Server).readyz},
		}},
		{pattern: "/metrics", hidden: true, at: onOps, endpoints: []endpoint{
			{methods: readable, serve: (*Server).serveMetrics},
		}},
		{pattern: "/shadow/differences", hidden: true, at: onOpsOnly, endpoints: []endpoint{
			{methods: readable, serve: (*Server).shadowDifferences},
		}},
		{pattern: notifyPath, hidden: true, at: onNotify, endpoints: []endpoint{
			{methods: creatable, serve: (*Server).notify},
		}},
	}
}

// collection is the endpoints of a resource's collection: its list, then creation, which /doc does
// not describe.
func collection(list, create handler, res apidoc.Resource) []endpoint {
	return []endpoint{
		{methods: readable, h: list, args: res.Archive, doc: documents(res.Responses.Archive)},
		{methods: creatable, h: create, args: res.Create},
	}
}

// postSingle is the endpoints of an {id} or by-slug route of posts, in the original's order: read,
// delete, edit. ident are the route's identifying arguments, edit the edit's, body the request
// body /doc shows for the edit (which list, and whether it holds the identifier, varies by
// resource as in the original).
func postSingle(h singleHandlers, ident, edit, body []apidoc.Arg, res apidoc.Responses) []endpoint {
	return []endpoint{h.read(ident, res), h.remove(ident, res), h.edit(ident, edit, body, res)}
}

// termSingle is the endpoints of a term's {id} route, in the original's order: read, edit, delete.
func termSingle(h singleHandlers, ident, edit, body []apidoc.Arg, res apidoc.Responses) []endpoint {
	return []endpoint{h.read(ident, res), h.edit(ident, edit, body, res), h.remove(ident, res)}
}

// documents is the /doc description of an endpoint that documents its own arguments.
func documents(responses []apidoc.Response) *apidoc.Operation {
	return &apidoc.Operation{Responses: responses}
}

// singleHandlers are the handlers of an {id} or by-slug route. Single resources carry ETags and
// honour If-Match on writes (http_precondition.go).
type singleHandlers struct{ get, update, del handler }

func single(read, update, remove handler, term bool) singleHandlers {
	return singleHandlers{get: tagged(read, term), update: conditional(read, update, term),
		del: conditional(read, remove, term)}
}

func (h singleHandlers) read(ident []apidoc.Arg, res apidoc.Responses) endpoint {
	return endpoint{methods: readable, h: h.get, args: ident, doc: documents(res.Get)}
}

func (h singleHandlers) remove(ident []apidoc.Arg, res apidoc.Responses) endpoint {
	return endpoint{methods: deletable, h: h.del, args: ident, doc: documents(res.Delete)}
}

func (h singleHandlers) edit(ident, args, body []apidoc.Arg, res apidoc.Responses) endpoint {
	return endpoint{methods: editable, h: h.update, args: args,
		doc: &apidoc.Operation{Params: ident, Body: body, Responses: res.Post}}
}

// compile prepares the table's routes for matching and their arguments for parseArgs. An unknown
// validator or sanitizer name panics: the table is static and every server builds it.
func compile(routes []route) []route {
	for i := range routes {
		rt := &routes[i]
		rt.re = regexp.MustCompile(`(?i)^` + rt.pattern + `$`)
		for j := range rt.endpoints {
			e := &rt.endpoints[j]
			e.specs = specsOf(rt.pattern, e.args)
			for _, m := range e.methods {
				if !slices.Contains(rt.order, m) {
					rt.order = append(rt.order, m)
				}
			}
		}
	}
	return routes
}

// DocRoutes returns the routes the namespace index and /doc describe, in registration order.
func DocRoutes() []apidoc.Route { return documented(routeTable()) }

// documented returns the documentation part of the routes that are not hidden.
func documented(routes []route) []apidoc.Route {
	var out []apidoc.Route
	for _, rt := range routes {
		if rt.hidden {
			continue
		}
		d := apidoc.Route{Path: rt.pattern, DocPath: rt.docPath}
		for _, e := range rt.endpoints {
			d.Endpoints = append(d.Endpoints, apidoc.Endpoint{Methods: e.methods, Args: e.args, Doc: e.doc})
		}
		out = append(out, d)
	}
	return out
}

// serveFixed adds the routes served at their own paths to g, the operations handler (ops) or the
// public one.
func (s *Server) serveFixed(g *gin.Engine, ops bool) {
	for _, rt := range s.fixed {
		if !rt.at.on(s.opt, ops) {
			continue
		}
		for _, e := range rt.endpoints {
			for _, m := range e.methods {
				g.Handle(m, rt.pattern, func(gc *gin.Context) {
					traceOf(gc).route = rt.pattern
					e.serve(s, gc)
				})
			}
		}
	}
}

// mayEvents is the general permission of the event routes' writes.
func mayEvents(v *viewer, action string) bool { return v.can(action + "_tribe_events") }

// may is the general permission of a venue or organizer route's writes.
func (k linkedKind) may(v *viewer, action string) bool { return v.can(k.cap(action)) }

// may is the general permission of a term route's writes, whatever the action.
func (k termKind) may(v *viewer, _ string) bool { return k.mayManage(v) }

// options answers OPTIONS on a route as WordPress does: 200 with the route's description, the
// object the namespace index lists for it.
func (s *Server) options(r *request, rt *route) *response {
	var desc any = mapping.Object{}
	if routes, ok := apidoc.Index(s.docOptions(r)).Get("routes"); ok {
		if d, found := routes.(mapping.Object).Get("/" + r.ns + rt.pattern); found {
			desc = d
		}
	}
	return &response{status: http.StatusOK, body: desc}
}
