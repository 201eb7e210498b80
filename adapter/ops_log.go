package adapter

import (
	"encoding/binary"
	"encoding/hex"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"calshim/catalog"
	"calshim/cmsclient"
)

// accessLog writes one line per request: route template (never the raw path with its IDs), status,
// duration, cache result, the client's address (clientAddr: behind trusted proxies, the one they
// name), the body's bytes and the request ID. Query strings may carry passwords, so they are not
// logged; the method, which `_method` or X-HTTP-Method-Override may set to any text, is clipped.
// The request ID is echoed in the answer and sent to WordPress with every upstream request made for
// this one (cmsclient.WithRequestID), so that the logs of a proxy, calshim and WordPress meet.
func (s *Server) accessLog(gc *gin.Context) {
	start := time.Now()
	// The canonical key, as net/http stores it: Get and Set would canonicalize it on every request.
	id := requestID(firstValue(gc.Request.Header["X-Request-Id"]))
	gc.Writer.Header()["X-Request-Id"] = []string{id}
	gc.Request = gc.Request.WithContext(cmsclient.WithRequestID(gc.Request.Context(), id))
	t := tracePool.Get().(*trace)
	t.ResponseWriter = gc.Writer
	gc.Writer = t
	gc.Next()
	s.metrics.observe(gc, t, time.Since(start))
	t.fields = append(t.fields[:0],
		zap.String("method", clip(gc.Request.Method)),
		zap.String("route", t.route),
		zap.Int("status", gc.Writer.Status()),
		zap.Duration("duration", time.Since(start)),
		zap.String("cache", t.cache),
		zap.Stringer("client", clientAddr(gc.Request, s.opt.Limits.TrustedProxies)),
		zap.Int("bytes", max(gc.Writer.Size(), 0)),
		zap.String("request_id", id))
	s.access.Info("request", t.fields...)
	s.shadowAfter(gc, t.route)
	*t = trace{fields: t.fields[:0]}
	tracePool.Put(t)
}

func firstValue(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// maxRequestID bounds the length of a request ID taken from a client.
const maxRequestID = 64

// requestID is the client's X-Request-ID when it is a short token of letters, digits, '-', '_' and
// '.' (what proxies and tracers send: UUIDs, hex), else a new random one: the ID goes into logs and
// upstream headers, so it must not carry what a client chooses beyond that.
func requestID(given string) string {
	ok := given != "" && len(given) <= maxRequestID
	for i := 0; ok && i < len(given); i++ {
		c := given[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
	}
	if ok {
		return given
	}
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	return hex.EncodeToString(b[:])
}

// trace is what the handlers tell the access log and the metrics about a request: the route
// pattern it matched and whether the response cache answered it. It rides on the response writer
// (gin resets the writer for the next request) because gin's Set allocates a map per request.
type trace struct {
	gin.ResponseWriter
	route string
	cache string // "hit", "miss" or "" (not cacheable)
	// fields are the access log line's, kept with the pooled trace: a fresh slice per line escapes
	// to the heap through zap's variadic call.
	fields []zap.Field
}

var tracePool = sync.Pool{New: func() any { return new(trace) }}

// maxLogged bounds each text a log line takes from a request, so that a line costs what calshim
// chooses, not what the client sent (a header may hold a megabyte).
const maxLogged = 256

// clip cuts s to maxLogged bytes (at a character boundary) and says how many bytes it left out.
func clip(s string) string {
	if len(s) <= maxLogged {
		return s
	}
	cut := maxLogged
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…[" + strconv.Itoa(len(s)-cut) + " bytes clipped]"
}

// traceOf returns the request's trace; a detached one when no access log wraps the writer.
func traceOf(gc *gin.Context) *trace {
	if t, ok := gc.Writer.(*trace); ok {
		return t
	}
	return &trace{}
}

// metrics are calshim's Prometheus collectors. Every label takes its value from a fixed set (route
// template, never the raw path; methodLabel; statusLabel; cache result), so no request can add
// series: a series, once created, lasts as long as the process.
type metrics struct {
	registry *prometheus.Registry
	http     http.Handler // the registry's exposition
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	// cacheHits and cacheMisses count the response cache's answers (hit ratio: hits / (hits + misses)).
	cacheHits, cacheMisses prometheus.Counter
	// series caches each label set's counter and histogram: finding them in the vectors hashes
	// every label on every request.
	series sync.Map // seriesKey → *series
}

type seriesKey struct{ route, method, status, cache string }

type series struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

func newMetrics(s *Server) *metrics {
	reg := s.opt.Registry
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	m := &metrics{
		registry: reg, http: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
		cacheHits: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "calshim",
			Name: "response_cache_hits_total", Help: "Anonymous GETs the response cache answered."}),
		cacheMisses: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "calshim",
			Name: "response_cache_misses_total", Help: "Anonymous GETs the response cache did not hold."}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "calshim", Name: "http_requests_total",
			Help: "HTTP requests by route template, method, status and response cache result.",
		}, []string{"route", "method", "status", "cache"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "calshim", Name: "http_request_duration_seconds",
			Help:    "HTTP request duration by route template.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"route"}),
	}

	gauge := func(name, help string, f func(snap *catalog.Snapshot) float64) prometheus.GaugeFunc {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "calshim", Name: name, Help: help},
			func() float64 {
				if snap := s.cat.Snapshot(); snap != nil {
					return f(snap)
				}
				return 0
			})
	}

	cacheGauge := func(name, help string, f func(entries int, bytes int64) float64) prometheus.GaugeFunc {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "calshim", Name: name, Help: help},
			func() float64 { return f(s.cache.usage()) })
	}

	m.registry.MustRegister(m.requests, m.duration, m.cacheHits, m.cacheMisses,
		cacheGauge("response_cache_entries", "Answers the response cache holds.",
			func(n int, _ int64) float64 { return float64(n) }),
		cacheGauge("response_cache_bytes", "What the response cache's entries hold, roughly.",
			func(_ int, b int64) float64 { return float64(b) }),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		gauge("catalog_events", "Events in the catalog (every status it holds).",
			func(snap *catalog.Snapshot) float64 { return float64(len(snap.Events)) }),
		gauge("catalog_version", "Catalog version (increases on every change).",
			func(snap *catalog.Snapshot) float64 { return float64(snap.Version) }),
		gauge("catalog_last_poll_success_timestamp_seconds",
			"When the catalog last synchronised with upstream.",
			func(*catalog.Snapshot) float64 { return float64(s.cat.Health().LastPollOK.UnixNano()) / 1e9 }),
		gauge("catalog_last_poll_failed",
			"Whether the catalog's last poll of upstream failed (1; the error is in the log) or not (0).",
			func(*catalog.Snapshot) float64 { return boolGauge(s.cat.Health().LastPollErr != "") }),
		gauge("catalog_catching_up",
			"Whether the default catalog serves its restored snapshot file while bringing it up to date (1) or not (0).",
			func(*catalog.Snapshot) float64 { return boolGauge(s.cat.Health().Sync.CatchingUp) }),
		gauge("feed_sequence", "Sequence of the plugin's change log the catalog reflects (0 when polling wp/v2).",
			func(*catalog.Snapshot) float64 { return float64(s.cat.Health().Sync.Seq) }),
		gauge("feed_lag_seconds", "How long the newest change the last applying poll read had waited in WordPress.",
			func(*catalog.Snapshot) float64 { return s.cat.Health().Sync.Lag.Seconds() }),
	)
	// Const labels, one collector per kind: the counts live in the catalog.
	for _, kind := range catalog.RepairKinds() {
		m.registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Namespace: "calshim", Name: "catalog_repaired_total", ConstLabels: prometheus.Labels{"kind": kind},
			Help: "Objects the checksum checks found changed around the change log and refetched, by kind.",
		}, func() float64 { return float64(s.cat.Repaired(kind)) }))
	}

	return m
}

func boolGauge(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// observe records one finished request.
func (m *metrics) observe(gc *gin.Context, t *trace, took time.Duration) {
	k := seriesKey{route: t.route, method: methodLabel(gc.Request.Method),
		status: statusLabel(gc.Writer.Status()), cache: t.cache}
	if k.route == "" {
		k.route = "unmatched"
	}

	v, ok := m.series.Load(k)
	if !ok {
		v, _ = m.series.LoadOrStore(k, &series{
			requests: m.requests.WithLabelValues(k.route, k.method, k.status, k.cache),
			duration: m.duration.WithLabelValues(k.route)})
	}

	v.(*series).requests.Inc()
	v.(*series).duration.Observe(took.Seconds())
	switch t.cache {
	case "hit":
		m.cacheHits.Inc()
	case "miss":
		m.cacheMisses.Inc()
	}
}

// methodLabel is the method's label: one of the methods WordPress' REST server knows, else "other"
// (net/http accepts any token as a method, and `_method` or X-HTTP-Method-Override set any text).
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodHead, http.MethodOptions:
		return method
	}
	return "other"
}

// statusLabels are the statuses counted as themselves: those calshim answers, and those WordPress
// answers that calshim relays.
var statusLabels = func() map[int]string {
	labels := map[int]string{}
	for _, code := range []int{200, 201, 202, 204, 301, 302, 304, 400, 401, 403, 404, 405, 409, 410,
		412, 413, 414, 415, 429, 431, 500, 501, 502, 503, 504} {
		labels[code] = strconv.Itoa(code)
	}
	return labels
}()

// statusLabel is the status's label: itself when calshim answers it, else its class ("4xx"; a
// relayed upstream answer may carry any code).
func statusLabel(code int) string {
	if l, ok := statusLabels[code]; ok {
		return l
	}
	return strconv.Itoa(code/100) + "xx"
}

// serveMetrics answers /metrics.
func (s *Server) serveMetrics(gc *gin.Context) { s.metrics.http.ServeHTTP(gc.Writer, gc.Request) }
