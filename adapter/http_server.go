// Package adapter serves The Events Calendar REST API v1 over gin, answering reads from the
// catalog.
package adapter

import (
	"net/http"
	"slices"
	"strconv"
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

// AccessLogger names the logger of the access log's lines (one per request), so that calshim can
// buffer them apart from the other lines.
const AccessLogger = "access"

// NewServer returns the HTTP handler of calshim.
func NewServer(cat *catalog.Catalog, log *zap.Logger, opt Options) http.Handler {
	_, h := newServer(cat, log, opt)
	return h
}

// newServer is NewServer with the server behind the handler (for tests).
func newServer(cat *catalog.Catalog, log *zap.Logger, opt Options) (*Server, *gin.Engine) {
	if opt.Now == nil {
		opt.Now = time.Now
	}

	if opt.ICalMaxEvents == 0 {
		opt.ICalMaxEvents = DefaultICalMaxEvents
	}

	if opt.CacheTTL == 0 {
		opt.CacheTTL = time.Minute
	}

	if opt.MaxBody == 0 {
		opt.MaxBody = DefaultMaxBody
	}

	if opt.MemoryBudget == 0 {
		opt.MemoryBudget = DefaultMemoryBudget
	}

	table := routeTable()
	s := &Server{cat: cat, log: log, opt: opt, docs: documented(table),
		cache:   newRespCache(opt.CacheMaxEntries, opt.CacheMaxBytes, opt.CacheTTL, opt.Now),
		viewers: newViewers(),
		others:  gocache.New(time.Minute, 5*time.Minute), limits: newLimits(opt.Limits)}
	if opt.EventCacheBytes > 0 {
		s.events = memo.NewSized(int64(opt.EventCacheBytes),
			func(k string, v mapping.Raw) int64 { return int64(len(k) + len(v) + 64) })
	}
	for _, rt := range table {
		if rt.at == inNamespaces {
			s.routes = append(s.routes, rt)
		} else {
			s.fixed = append(s.fixed, rt)
		}
	}

	s.metrics = newMetrics(s)
	s.metrics.registry.MustRegister(s.limits.limited)
	s.budget = newMemBudget(int64(opt.MemoryBudget), s.limits.limited.WithLabelValues("memory").Inc)
	if s.edge = newEdge(opt.Edge, log); s.edge != nil {
		s.metrics.registry.MustRegister(s.edge.purged)
		s.edge.start(s.catalogs())
	}
	s.access = log.Named(AccessLogger)
	gin.SetMode(gin.ReleaseMode)
	g := gin.New()
	g.Use(s.accessLog, s.envelope, s.recoverPanic, methodOverride)
	s.serveFixed(g, false)
	// Everything else goes through the v1 dispatcher, which matches routes the way WordPress does
	// (anchored, case-insensitive regexes on the path below the REST root).
	g.NoRoute(s.dispatch)
	g.NoMethod(s.dispatch)
	g.HandleMethodNotAllowed = false
	s.newShadow(g)
	return s, g
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

func (s *Server) dispatch(gc *gin.Context) {
	addr, ok := s.resolve(gc.Request)
	if !ok {
		s.write(gc, nil, errNoRoute)
		return
	}

	if addr.index && s.restIndex(gc, addr) {
		return
	}

	method := gc.Request.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}

	rt, vars := s.match(addr.ns, addr.route)
	if rt == nil || (rt.endpoint(method) == nil && method != http.MethodOptions) {
		s.write(gc, nil, s.noRoute(gc, addr.lang))
		return
	}

	traceOf(gc).route = rt.pattern
	snap := s.snapshotFor(gc, s.catalog(addr.lang))
	if snap == nil {
		s.write(gc, nil, errNotReady)
		return
	}

	r := &request{gc: gc, route: rt, method: method, params: parseForm(gc.Request.URL.RawQuery),
		vars: vars, snap: snap, root: addr.root, ns: addr.ns, lang: addr.lang, now: s.opt.Now()}
	if method == http.MethodOptions { // CORS preflights and route discovery
		if err := s.identify(r); err != nil {
			s.write(gc, rt, err)
			return
		}
		s.send(gc, s.render(gc, rt, s.options(r, rt), nil))
		return
	}

	s.serve(gc, rt, r)
}

// serve runs the handler, through the response cache for anonymous GETs. The key holds the catalog
// version, so any catalog change makes old entries unreachable; the clock-dependent default date
// window is covered by the one-minute expiry.
func (s *Server) serve(gc *gin.Context, rt *route, r *request) {
	r.mem = hold{b: s.budget}
	defer r.mem.release()
	if err := s.prepare(r); err != nil {
		s.write(gc, rt, err)
		return
	}

	// Anonymous answers depend on the URL alone (a cookie without a nonce is anonymous too), so they
	// share cache entries; what a logged-in caller sees is never cached.
	// The namespace index shows the default end date to the second (now plus two years): it is
	// rendered afresh each time, as the original does.
	cacheable := r.method == http.MethodGet && r.viewer == nil && rt.pattern != ""
	key := strconv.FormatUint(r.snap.Version, 10) + " " + r.root + " " + gc.Request.URL.RequestURI()
	if cacheable {
		if hit, ok := s.cache.get(key); ok {
			traceOf(gc).cache = "hit"
			s.send(gc, hit)
			return
		}
		traceOf(gc).cache = "miss"
	}

	// Cached answers cost nothing; what is rendered afresh may be expensive (limits.go).
	release, err := s.limits.admitWork(gc, s.workEstimate(rt, r))
	if err != nil {
		s.write(gc, rt, err)
		return
	}

	out, err := s.answer(gc, rt, r, release)
	if cacheable && err == nil {
		out.etag = etagOf(out.body)
		out.fixed = s.responseHeaders(gc.Request, out)
		s.cache.store(key, out)
	}

	s.send(gc, out)
}

// answer runs the handler and renders its result, holding the expensive reads' slot (release)
// until then, even through a panic, but not while the answer is sent.
func (s *Server) answer(gc *gin.Context, rt *route, r *request, release func()) (*rendered, error) {
	defer release()
	res, err := rt.endpoint(r.method).h(s, r)
	keys := ""
	if err == nil {
		keys = s.edge.answerKeys(rt, r, res.body)
		res.body, err = selectFields(rt, r, res.body)
	}

	out := s.render(gc, rt, res, err)
	if n := len(out.body); n >= renderedAlone {
		if err := r.mem.take(gc, int64(n)); err != nil {
			if out.release != nil {
				out.release()
			}
			return s.render(gc, rt, nil, err), err
		}
	}
	out.keys = keys
	return out, err
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

// match finds the route of a path below a namespace.
func (s *Server) match(ns, rest string) (*route, map[string]string) {
	if ns == "" {
		return nil, nil
	}

	for i := range s.routes {
		rt := &s.routes[i]
		if rt.re.NumSubexp() == 0 { // lists: no variables to capture, nothing to allocate
			if rt.re.MatchString(rest) {
				return rt, nil
			}
			continue
		}

		m := rt.re.FindStringSubmatch(rest)
		if m == nil {
			continue
		}
		vars := map[string]string{}
		for j, name := range rt.re.SubexpNames() {
			if name != "" {
				vars[name] = m[j]
			}
		}
		return rt, vars
	}

	return nil, nil
}

// NewServers returns calshim's public handler, which serves the v1 routes, /healthz and /readyz,
// and the operations handler, which serves /healthz, /readyz and /metrics, for a listener of its
// own (ops_listen) that the public cannot reach. Both count into the same metrics.
func NewServers(cat *catalog.Catalog, log *zap.Logger, opt Options) (public, ops http.Handler) {
	opt.opsApart = true
	s, g := newServer(cat, log, opt)
	o := gin.New()
	o.Use(s.accessLog, s.recoverPanic)
	// Every answer is written within the middleware: gin's own 404 comes after the access log
	// has given its writer back.
	o.NoRoute(func(gc *gin.Context) { gc.String(http.StatusNotFound, "404 page not found\n") })
	s.serveFixed(o, true)
	return g, o
}
