package adapter

import (
	"fmt"
	"net/http"

	"calshim/adapter/apidoc"
)

// v1Routes is the whole v1 surface: the route patterns come from the route table that also generates
// the namespace index and /doc (apidoc.Routes, in the original's registration order), the handlers
// from this one block. {id} matches digits only, {slug} anything but "/".
func v1Routes() []route {
	get := func(h handler) map[string]handler { return map[string]handler{http.MethodGet: h} }
	handlers := map[string]map[string]handler{
		``:                                    get(namespaceIndex),
		`/doc`:                                get(documentation),
		`/events`:                             get(eventArchive),
		`/events/(?P<id>\d+)`:                 get(singleEvent),
		`/events/by-slug/(?P<slug>[^/]+)`:     get(singleEvent),
		`/venues`:                             get(venues.archive),
		`/venues/(?P<id>\d+)`:                 get(venues.single),
		`/venues/by-slug/(?P<slug>[^/]+)`:     get(venues.single),
		`/organizers`:                         get(organizers.archive),
		`/organizers/(?P<id>\d+)`:             get(organizers.single),
		`/organizers/by-slug/(?P<slug>[^/]+)`: get(organizers.single),
		`/categories`:                         get(categories.archive),
		`/categories/(?P<id>\d+)`:             get(categories.single),
		`/tags`:                               get(tags.archive),
		`/tags/(?P<id>\d+)`:                   get(tags.single),
	}
	var routes []route
	for _, r := range apidoc.Routes() {
		h, ok := handlers[r.Path]
		if !ok {
			panic(fmt.Sprintf("adapter: no handlers for route %q", r.Path))
		}
		routes = append(routes, newRoute(r.Path, h))
	}
	return routes
}
