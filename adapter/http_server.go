// Package adapter serves The Events Calendar REST API v1 over gin, answering reads from the
// catalog.
package adapter

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	gocache "github.com/patrickmn/go-cache"
	"go.uber.org/zap"

	"calshim/catalog"
	"calshim/internal/memo"
	"calshim/mapping"
)

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
