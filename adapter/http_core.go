package adapter

import (
	"net/http"
	"regexp"
	"slices"
	"time"

	"github.com/gin-gonic/gin"
	gocache "github.com/patrickmn/go-cache"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"calshim/adapter/apidoc"
	"calshim/adapter/shadow"
	"calshim/catalog"
	"calshim/cmsclient"
	"calshim/internal/memo"
	"calshim/mapping"
)

// The server's vocabulary, which every file of the package speaks: its Options and the Server, the
// request a handler takes and the response it answers, and the route that matches a request to its
// endpoints. The route table is http_routes.go; dispatch, which runs it, http_server.go: both sit
// above every handler, and these declarations below them all.

// Options configures the HTTP side.
type Options struct {
	RESTRoot   string   // path of the REST root, e.g. "/wp-json"
	Namespaces []string // served namespaces: the canonical one ("cal/events/v1") first, then aliases
	// Languages are the language segments served before the REST root ("de" → /de/wp-json/...); the
	// default language has no segment.
	Languages []string
	// Catalogs holds one catalog per language segment when the upstream CMS is multilingual; languages
	// without one (all of them when it is not) use the default catalog.
	Catalogs map[string]*catalog.Catalog
	// Translate returns the translation function of a language for the descriptions of the namespace
	// index and /doc; nil (or a nil result) means English.
	Translate  func(lang string) func(string) string
	MaxPerPage int // per_page cap (the original: 50)
	// ICalMaxEvents caps the events of one iCalendar feed answer (0: DefaultICalMaxEvents).
	ICalMaxEvents int
	// ImageAllowPrivate lets image URLs of writes point at loopback and private addresses (off: such
	// URLs are refused, so a caller cannot make calshim fetch from its own network).
	ImageAllowPrivate bool
	// ImageMaxBytes caps a fetched image; 0 = 10 MiB.
	ImageMaxBytes int64
	// MaxBody bounds a write's body in bytes (0: DefaultMaxBody); MemoryBudget is the bytes the
	// requests being answered may hold at once (0: DefaultMemoryBudget; http_request.go).
	MaxBody, MemoryBudget int
	// WriteMaxUpstream caps the requests one write makes of WordPress and image hosts
	// (write_tx.go); 0: DefaultWriteMaxUpstream.
	WriteMaxUpstream int
	// NotifySecret, when set, serves POST /calshim/notify to push notices carrying it (sync_notify.go).
	NotifySecret string
	// CacheTTL, CacheMaxEntries and CacheMaxBytes bound the cache of rendered anonymous GET answers
	// (http_respcache.go; 0 entries: off).
	CacheTTL        time.Duration
	CacheMaxEntries int
	CacheMaxBytes   int // 0 with CacheMaxEntries > 0: no byte bound (tests)
	// EventCacheBytes bounds the events rendered for anonymous lists and kept for the next list
	// that shows them (listedEvent); 0: none kept.
	EventCacheBytes int
	// Now is the clock (tests inject one); nil = time.Now.
	Now func() time.Time
	// LoadWait: a request reaching calshim while its catalog loads waits this long for it (0: 503 at
	// once); SequenceWait bounds the wait for X-Calshim-Min-Seq (sync_replicas.go).
	LoadWait, SequenceWait time.Duration
	// Draining, when it reports true, makes /readyz answer 503 (the process is stopping).
	Draining func() bool
	// Limits are the per-client limits (limits.go).
	Limits LimitOptions
	// Registry receives calshim's metrics and is served at /metrics, with what others registered on
	// it (the upstream client's, the catalogs'); nil: a registry of the server's own.
	Registry *prometheus.Registry
	// Edge lets caches in front of calshim keep anonymous answers until it purges them (edgecache.go).
	Edge EdgeOptions
	// Shadow compares a sample of anonymous GETs with the original's answers (ops_shadow.go); URL "": off.
	Shadow shadow.Options
	// opsApart leaves /metrics to the operations handler (NewServers).
	opsApart bool
}

// Server holds the dependencies of the handlers.
type Server struct {
	cat    *catalog.Catalog
	log    *zap.Logger
	opt    Options
	routes []route    // the route table's routes below the namespaces (http_routes.go)
	cache  *respCache // rendered anonymous GET responses, keyed by request and catalog version; nil: off
	// viewers caches who a credential belongs to (auth.go); writes and authenticated reads need it.
	viewers *viewers
	// others remembers whether IDs the catalog does not hold belong to another post (read_events.go), so
	// requests for unknown IDs cost WordPress one request per ID and minute, whatever their URLs.
	others  *gocache.Cache
	metrics *metrics // Prometheus collectors, served at /metrics (ops_log.go)
	// siteIndexes caches the upstream's REST index for the REST root's answer (restindex.go).
	siteIndexes siteIndexes
	limits      *limits     // per-client limits and refused credentials (limits.go)
	budget      *memBudget  // the requests' memory budget (http_request.go)
	access      *zap.Logger // the access log (AccessLogger)
	// events keeps events rendered for anonymous lists (listedEvent); nil when off.
	events *memo.Memo[mapping.Raw]
	edge   *edge // nil when edge caching is off
	// fixed are the route table's routes served at their own paths; docs what the namespace index
	// and /doc describe.
	fixed []route
	docs  []apidoc.Route
	// shadow compares sampled answers with the original's, shadowed the routes it may (ops_shadow.go).
	shadow   *shadow.Live
	shadowed map[string]string
}

// catalogs are the default catalog and the language variants' (the same one may serve several).
func (s *Server) catalogs() []*catalog.Catalog {
	out := []*catalog.Catalog{s.cat}
	for _, c := range s.opt.Catalogs {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// catalog returns the catalog serving a language variant.
func (s *Server) catalog(lang string) *catalog.Catalog {
	if c, ok := s.opt.Catalogs[lang]; ok {
		return c
	}
	return s.cat
}

// request is one v1 call as handlers see it.
type request struct {
	gc     *gin.Context
	route  *route // the matched route
	method string
	params Params
	vars   map[string]string // path variables (id, slug)
	snap   *catalog.Snapshot
	root   string // URL the namespace is appended to, as the client addressed it (see address)
	ns     string // namespace the client used
	lang   string // language variant, "" for the default
	now    time.Time
	viewer *viewer // the caller; nil when anonymous (auth.go)
	// cms is the upstream client of the request's catalog: reads with its service credential, writes
	// with the caller's (write_tx.go).
	cms *cmsclient.Client
	// mem is what the request holds of the memory budget until it is answered (http_request.go).
	mem hold
}

// base is the namespace URL every rest_url of the response is built on.
func (r *request) base() string { return r.root + "/" + r.ns }

// ctx returns the rendering context for this request.
func (r *request) ctx(single bool) *mapping.Context {
	return &mapping.Context{Site: r.snap.Site, Base: r.base(), Single: single, Lookup: r.snap,
		Unlocked: func(p *mapping.Post) bool {
			pw, ok := r.params.str("password")
			return ok && p.Password() != "" && pw == p.Password() || r.editContext(p)
		},
		Readable: r.viewer.jsonLDReadable, MayRead: r.viewer.mayRead, Now: func() time.Time { return r.now }}
}

// response is what a handler answers on success.
type response struct {
	status int
	body   any
	// total and totalPages become X-TEC-Total / X-TEC-TotalPages when set (archives).
	total, totalPages *int
	headers           []header // further headers (e.g. Location of a created term)
}

type handler func(s *Server, r *request) (*response, error)

// route is one route of the table (routeTable): where it is served, its endpoints, and what the
// server needs to know of it beyond them.
type route struct {
	// pattern is the route's WordPress-style regex below the namespace, as the original registers it
	// ("" for the namespace itself; {id} matches digits only, {slug} anything but "/"), or the path
	// of a route served outside the namespaces.
	pattern string
	docPath string // the route's path in /doc ("/events/{id}"); "" when /doc does not describe it
	// hidden routes are calshim's own: the namespace index and /doc leave them out, so that both stay
	// the original's.
	hidden    bool
	at        servedAt
	endpoints []endpoint // in the original's registration order (the index and Allow show it)
	// may reports whether a caller passes the general permission of a write action ("edit" or
	// "delete") on the route's resource, as WordPress judges the Allow header before it knows the
	// object; nil for read-only routes.
	may func(v *viewer, action string) bool
	// scans is how many posts or terms a GET of a list scans besides what its arguments ask for
	// (workEstimate); nil for the routes that are no list.
	scans func(snap *catalog.Snapshot, p Params) int
	// shows is what the route's answers show, for the edge caches' keys (edgecache.go); the zero
	// value for the routes that answer no collection's objects.
	shows shown

	re    *regexp.Regexp // the pattern anchored at both ends, case-insensitive, as WordPress matches
	order []string       // the endpoints' methods in registration order, for the Allow header
}

// shown is the collection ("events") a route answers from, and whether it answers one object of it
// (a single route) or a page of them (a list).
type shown struct {
	collection string
	single     bool
}

// endpoint is one handler of a route: the methods it answers, its declared arguments and its /doc
// description.
type endpoint struct {
	methods []string
	h       handler                          // the handler of a route below the namespaces
	serve   func(s *Server, gc *gin.Context) // the handler of a route served at its own path
	args    []apidoc.Arg
	doc     *apidoc.Operation // nil when /doc does not describe the endpoint
	specs   []argSpec         // args with their named validators and sanitizers (parseArgs)
}

// servedAt says where a route is served.
type servedAt uint8

const (
	inNamespaces servedAt = iota // below every served namespace, through dispatch
	onProbes                     // at its path on the public handler and the operations handler
	onOps                        // on the operations handler, or the public one when there is none
	onNotify                     // on the public handler when Options.NotifySecret is set
	onOpsOnly                    // on the operations handler only, never the public one
)

// on reports whether a route served outside the namespaces is served on the operations handler
// (ops) or the public one.
func (a servedAt) on(opt Options, ops bool) bool {
	switch a {
	case onProbes:
		return true
	case onOps:
		return ops || !opt.opsApart
	case onNotify:
		return !ops && opt.NotifySecret != ""
	case onOpsOnly:
		return ops
	}
	return false
}

// Methods of the endpoint kinds (WP_REST_Server::READABLE, CREATABLE, EDITABLE, DELETABLE).
var (
	readable  = []string{http.MethodGet}
	creatable = []string{http.MethodPost}
	editable  = []string{http.MethodPost, http.MethodPut, http.MethodPatch}
	deletable = []string{http.MethodDelete}
)

// endpoint returns the route's endpoint answering method; nil when none does.
func (rt *route) endpoint(method string) *endpoint {
	for i := range rt.endpoints {
		if slices.Contains(rt.endpoints[i].methods, method) {
			return &rt.endpoints[i]
		}
	}
	return nil
}
