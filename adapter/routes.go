package adapter

import (
	"fmt"
	"net/http"

	"calshim/adapter/apidoc"
)

// op is one method of a route and its handler.
type op struct {
	method string
	h      handler
}

// v1Routes is the whole v1 surface: the route patterns come from the route table that also
// generates the namespace index and /doc (apidoc.Routes, in the original's registration order), the
// handlers from this one block, methods in the original's order (it shows in the Allow header).
// {id} matches digits only, {slug} anything but "/".
func v1Routes() []route {
	const get, post, put, patch, del = http.MethodGet, http.MethodPost, http.MethodPut,
		http.MethodPatch, http.MethodDelete
	// Single resources carry ETags and honour If-Match on writes (precondition.go).
	single := func(read, update, remove handler) []op { // /{id} and /by-slug/{slug} of posts
		update, remove = conditional(read, update, false), conditional(read, remove, false)
		return []op{{get, tagged(read, false)}, {del, remove}, {post, update}, {put, update}, {patch, update}}
	}
	term := func(read, update, remove handler) []op { // /{id} of terms
		update, remove = conditional(read, update, true), conditional(read, remove, true)
		return []op{{get, tagged(read, true)}, {post, update}, {put, update}, {patch, update}, {del, remove}}
	}
	organizerOps := func() []op {
		return single(organizers.single, organizers.update, organizers.remove)
	}
	categoryOps := func() []op { return term(categories.single, categories.update, categories.remove) }
	handlers := map[string][]op{
		``:                                {{get, namespaceIndex}},
		`/doc`:                            {{get, documentation}},
		`/events`:                         {{get, withSync(eventArchive, syncEvents)}, {post, createEvent}},
		`/events/(?P<id>\d+)`:             single(singleEvent, updateEvent, deleteEvent),
		`/events/by-slug/(?P<slug>[^/]+)`: single(singleEvent, updateEvent, deleteEvent),
		`/venues`:                         {{get, withSync(venues.archive, syncVenues)}, {post, venues.create}},
		`/venues/(?P<id>\d+)`:             single(venues.single, venues.update, venues.remove),
		`/venues/by-slug/(?P<slug>[^/]+)`: single(venues.single, venues.update, venues.remove),
		`/organizers`: {{get, withSync(organizers.archive, syncOrganizers)},
			{post, organizers.create}},
		`/organizers/(?P<id>\d+)`:             organizerOps(),
		`/organizers/by-slug/(?P<slug>[^/]+)`: organizerOps(),
		`/categories`:                         {{get, categories.archive}, {post, categories.create}},
		`/categories/(?P<id>\d+)`:             categoryOps(),
		`/tags`:                               {{get, tags.archive}, {post, tags.create}},
		`/tags/(?P<id>\d+)`:                   term(tags.single, tags.update, tags.remove),
	}
	var routes []route
	for _, r := range apidoc.Routes() {
		ops, ok := handlers[r.Path]
		if !ok {
			panic(fmt.Sprintf("adapter: no handlers for route %q", r.Path))
		}
		rt := newRoute(r.Path, map[string]handler{})
		for _, o := range ops {
			rt.methods[o.method] = o.h
			rt.order = append(rt.order, o.method)
		}
		rt.allowed = writePermission(r.Path)
		routes = append(routes, rt)
	}

	return append(routes, icalRoutes()...)
}
