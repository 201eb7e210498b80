package adapter

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"calshim/adapter/apidoc"
	"calshim/mapping"
)

// REST index discovery: GET {rest_root}/ (and /?rest_route=/) answers WordPress' index
// (WP_REST_Server::get_index) with the site's fields as the upstream's index gives them and only
// the namespaces and routes calshim serves, so clients that read the index to find tribe/events/v1
// and the site's time zone work against calshim.

// siteIndexTTL is how long the upstream's index is reused: its fields change with site settings
// only.
const siteIndexTTL = 5 * time.Minute

// siteIndexes caches the upstream's index members by language.
type siteIndexes struct {
	mu      sync.Mutex
	byLang  map[string][]rawMember
	fetched map[string]time.Time
}

// wpHelpLinks are the index's _links on a stock WordPress.
const wpHelpLinks = `{"help":[{"href":"https://developer.wordpress.org/rest-api/"}]}`

// rawMember is one top-level member of the upstream's index, as it encoded it.
type rawMember struct {
	key   string
	value json.RawMessage
}

// indexedElsewhere are the upstream's members calshim answers itself or leaves out: its own
// namespaces and routes, and the calshim plugin's marker.
var indexedElsewhere = map[string]bool{"namespaces": true, "routes": true, "_links": true,
	"calshim": true}

// restIndex answers the REST root for GET and HEAD; false leaves the request to the usual answers.
func (s *Server) restIndex(gc *gin.Context, addr address) bool {
	method := gc.Request.Method
	if method != http.MethodGet && method != http.MethodHead {
		return false
	}

	snap := s.catalog(addr.lang).Snapshot()
	if snap == nil { // as every route answers before the first load
		s.write(gc, nil, errNotReady)
		return true
	}

	r := &request{gc: gc, method: http.MethodGet, params: parseForm(gc.Request.URL.RawQuery),
		snap: snap, root: addr.root, lang: addr.lang, now: s.opt.Now()}
	if err := s.identify(r); err != nil {
		s.write(gc, nil, err)
		return true
	}

	traceOf(gc).route = "/"
	index := &route{}
	body, err := selectFields(index, r, s.indexBody(r, addr)) // a GET's URL: within the envelope
	out := s.render(gc, nil, &response{status: http.StatusOK, body: body}, err)
	if r.viewer == nil {
		out.etag = etagOf(out.body)
	}

	s.send(gc, out)
	return true
}

// indexBody is the index in WordPress' order: the site's members as the upstream gives them, with
// calshim's namespaces and routes, then the upstream's further members (site_logo, site_icon, …).
func (s *Server) indexBody(r *request, addr address) mapping.Object {
	site := s.siteIndex(r)
	if len(site) == 0 { // the upstream has not answered yet: what the catalog knows of the site
		site = []rawMember{{"home", json.RawMessage(mapping.EncodeJSON(r.snap.Site.Home))},
			{"timezone_string", json.RawMessage(mapping.EncodeJSON(r.snap.Site.Timezone))}}
	}

	body := mapping.Object{}
	for _, k := range []string{"name", "description", "url", "home", "gmt_offset", "timezone_string"} {
		if v := memberOf(site, k, ""); v != nil {
			body = append(body, mapping.KV{Key: k, Value: mapping.Raw(v)})
		}
	}

	body = append(body, mapping.KV{Key: "namespaces", Value: s.opt.Namespaces},
		mapping.KV{Key: "authentication", Value: mapping.Raw(memberOf(site, "authentication", "[]"))},
		mapping.KV{Key: "routes", Value: s.indexRoutes(r, addr)})
	for _, m := range site {
		if _, done := body.Get(m.key); !done && !indexedElsewhere[m.key] {
			body = append(body, mapping.KV{Key: m.key, Value: mapping.Raw(m.value)})
		}
	}

	// The upstream's other links (active theme, curies) lead to routes calshim does not serve.
	return append(body, mapping.KV{Key: "_links", Value: mapping.Raw(wpHelpLinks)})
}

// memberOf is a member of the upstream's index, or def (nil when def is "").
func memberOf(site []rawMember, key, def string) []byte {
	for _, m := range site {
		if m.key == key {
			return m.value
		}
	}

	if def == "" {
		return nil
	}
	return []byte(def)
}

// indexRoutes is WordPress' own "/" route, then each served namespace's routes as its namespace
// index lists them.
func (s *Server) indexRoutes(r *request, addr address) mapping.Object {
	self := mapping.Object{{Key: "href", Value: addr.restRoot()}}
	routes := mapping.Object{{Key: "/", Value: mapping.Object{
		{Key: "namespace", Value: ""},
		{Key: "methods", Value: []string{http.MethodGet}},
		{Key: "endpoints", Value: []mapping.Object{{
			{Key: "methods", Value: []string{http.MethodGet}},
			{Key: "args", Value: mapping.Object{{Key: "context", Value: mapping.Object{
				{Key: "default", Value: "view"}, {Key: "required", Value: false}}}}},
		}}},
		{Key: "_links", Value: mapping.Object{{Key: "self", Value: []mapping.Object{self}}}},
	}}}

	for _, ns := range s.opt.Namespaces {
		r.ns = ns
		o := s.docOptions(r)
		nsRoutes, _ := apidoc.Index(o).Get("routes")
		routes = append(routes, nsRoutes.(mapping.Object)...)
	}

	return routes
}

// siteIndex returns the upstream's index members, fetched at most every siteIndexTTL; a failed
// fetch keeps the last ones (nil before the first success).
func (s *Server) siteIndex(r *request) []rawMember {
	c := &s.siteIndexes
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byLang == nil {
		c.byLang, c.fetched = map[string][]rawMember{}, map[string]time.Time{}
	}

	if time.Since(c.fetched[r.lang]) < siteIndexTTL {
		return c.byLang[r.lang]
	}

	index, err := r.cms.RESTIndex(r.gc.Request.Context())
	if err != nil {
		return c.byLang[r.lang]
	}

	members, err := topLevelMembers(index)
	if err != nil {
		return c.byLang[r.lang]
	}

	c.byLang[r.lang], c.fetched[r.lang] = members, time.Now()
	return members
}

// topLevelMembers splits a JSON object into its members, in order, values as encoded.
func topLevelMembers(b []byte) ([]rawMember, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}

	var out []rawMember
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		k, _ := key.(string)
		out = append(out, rawMember{key: k, value: v})
	}

	return out, nil
}
