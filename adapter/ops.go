package adapter

import (
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"calshim/adapter/apidoc"
	"calshim/catalog"
	"calshim/mapping"
)

// metrics are calshim's Prometheus collectors, labelled by route template (never the raw path, so
// the number of series stays bounded).
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
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

	m.registry.MustRegister(m.requests, m.duration,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		gauge("catalog_events", "Events in the catalog (every status it holds).",
			func(snap *catalog.Snapshot) float64 { return float64(len(snap.Events)) }),
		gauge("catalog_version", "Catalog version (increases on every change).",
			func(snap *catalog.Snapshot) float64 { return float64(snap.Version) }),
		gauge("catalog_last_poll_success_timestamp_seconds",
			"When the catalog last synchronised with upstream.",
			func(*catalog.Snapshot) float64 { return float64(s.cat.Health().LastPollOK.UnixNano()) / 1e9 }),
		gauge("feed_sequence", "Sequence of the plugin's change log the catalog reflects (0 when polling wp/v2).",
			func(*catalog.Snapshot) float64 { return float64(s.cat.Health().Sync.Seq) }),
		gauge("feed_lag_seconds", "How long the newest change the last applying poll read had waited in WordPress.",
			func(*catalog.Snapshot) float64 { return s.cat.Health().Sync.Lag.Seconds() }),
	)

	return m
}

// observe records one finished request.
func (m *metrics) observe(gc *gin.Context, took time.Duration) {
	route := gc.GetString("route")
	if route == "" {
		route = "unmatched"
	}
	m.requests.WithLabelValues(route, gc.Request.Method, strconv.Itoa(gc.Writer.Status()),
		gc.GetString("cache")).Inc()
	m.duration.WithLabelValues(route).Observe(took.Seconds())
}

func (m *metrics) handler() gin.HandlerFunc {
	return gin.WrapH(promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{}))
}

// etagOf is the validator of a rendered body: bodies are deterministic (ordered objects), so equal
// bodies give equal tags across requests and replicas.
func etagOf(body []byte) string {
	h := fnv.New64a()
	_, _ = h.Write(body)
	return `"` + strconv.FormatUint(h.Sum64(), 36) + `"`
}

// cacheHeaders sets Cache-Control and answers a matching If-None-Match with 304. Anonymous GETs
// carry an ETag and may be revalidated by shared caches; anything else is never stored, as
// WordPress sends no-cache headers to logged-in users.
func cacheHeaders(gc *gin.Context, out *rendered) (notModified bool) {
	h := gc.Writer.Header()
	if out.etag == "" {
		h.Set("Cache-Control", "no-cache, must-revalidate, max-age=0, no-store, private")
		return false
	}

	h.Set("ETag", out.etag)
	h.Set("Cache-Control", "public, max-age=0, must-revalidate")
	for _, tag := range strings.Split(gc.GetHeader("If-None-Match"), ",") {
		if t := strings.TrimSpace(tag); t == out.etag || t == "*" {
			return true
		}
	}

	return false
}

// corsHeaders answers browsers as WordPress' rest_send_cors_headers does: the calling origin is
// echoed with credentials allowed.
func corsHeaders(gc *gin.Context) {
	origin := gc.GetHeader("Origin")
	if origin == "" {
		return
	}

	h := gc.Writer.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Allow-Methods", "OPTIONS, GET, POST, PUT, PATCH, DELETE")
	h.Set("Access-Control-Allow-Credentials", "true")
	h.Add("Vary", "Origin")
}

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
