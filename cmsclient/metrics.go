package cmsclient

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/go-resty/resty/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// This file counts upstream requests for Prometheus and passes the request ID of the calshim request
// that caused them on to WordPress. Each typed method names its operation (withOp); every label comes
// from a fixed set, never from a path or an answer.

// Operations: one name per typed method (a method that pages, such as Posts, counts each page).
const (
	opIndex       = "index"
	opFeed        = "feed"
	opBulk        = "bulk"
	opPostExists  = "post_exists"
	opPosts       = "posts"
	opCountPosts  = "count_posts"
	opPost        = "post"
	opTerms       = "terms"
	opCountTerms  = "count_terms"
	opMedia       = "media"
	opMediaMime   = "media_mime"
	opSearchMedia = "search_media"
	opSearchPosts = "search_posts"
	opUsersMe     = "users_me"
	opSavePost    = "save_post"
	opTrashPost   = "trash_post"
	opDeletePost  = "delete_post"
	opSaveTerm    = "save_term"
	opDeleteTerm  = "delete_term"
	opUpload      = "upload"
	opMetaTypes   = "meta_types"
	opOther       = "other" // Get and Send called directly
)

type opKey struct{}

type requestIDKey struct{}

// withOp tags ctx with the operation the requests made under it count as.
func withOp(ctx context.Context, op string) context.Context {
	return context.WithValue(ctx, opKey{}, op)
}

func opOf(ctx context.Context) string {
	if op, ok := ctx.Value(opKey{}).(string); ok {
		return op
	}
	return opOther
}

// WithRequestID returns ctx carrying the request ID that every upstream request made under it sends
// as X-Request-ID, so that WordPress' logs can be matched with calshim's access log. id must be a
// header-safe token (the adapter checks what clients send).
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// Metrics are the upstream requests' collectors, registered on the registry given to NewMetrics.
type Metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewMetrics registers calshim_upstream_requests_total and calshim_upstream_request_duration_seconds
// on reg. One Metrics serves every client (one per language).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "calshim", Name: "upstream_requests_total",
			Help: "Requests to WordPress by operation and status (\"error\": no answer).",
		}, []string{"operation", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "calshim", Name: "upstream_request_duration_seconds",
			Help:    "Duration of requests to WordPress by operation, until the whole body is read.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"operation"}),
	}
	reg.MustRegister(m.requests, m.duration)
	return m
}

// SetMetrics makes the client count its requests into m. Call it before the first request.
func (c *Client) SetMetrics(m *Metrics) { c.metrics = m }

// hook installs the request ID and the metrics on a resty client of c. The success and error hooks
// run once per request, after resty's retries.
func (c *Client) hook(r *resty.Client) *resty.Client {
	return r.OnBeforeRequest(func(_ *resty.Client, req *resty.Request) error {
		if id, ok := req.Context().Value(requestIDKey{}).(string); ok {
			req.SetHeader("X-Request-ID", id)
		}
		return nil
	}).OnSuccess(func(_ *resty.Client, res *resty.Response) {
		c.metrics.observe(res.Request, res.StatusCode(), res.Time())
	}).OnError(func(req *resty.Request, err error) {
		code := 0
		var re *resty.ResponseError
		if errors.As(err, &re) && re.Response != nil && re.Response.RawResponse != nil {
			code = re.Response.StatusCode()
		}
		var took time.Duration
		if !req.Time.IsZero() {
			took = time.Since(req.Time)
		}
		c.metrics.observe(req, code, took)
	})
}

func (m *Metrics) observe(req *resty.Request, code int, took time.Duration) {
	if m == nil {
		return
	}
	op := opOf(req.Context())
	m.requests.WithLabelValues(op, upstreamStatus(code)).Inc()
	m.duration.WithLabelValues(op).Observe(took.Seconds())
}

// upstreamStatus is a status's label: the codes calshim reacts to by themselves, any other by its
// class, "error" for no answer (0).
func upstreamStatus(code int) string {
	switch code {
	case 0:
		return "error"
	case 200, 201, 400, 401, 403, 404, 410, 429, 500, 502, 503, 504:
		return strconv.Itoa(code)
	}
	return strconv.Itoa(min(max(code/100, 1), 5)) + "xx"
}
