package shadow

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"golang.org/x/time/rate"
)

// Options configure the live shadow (config.Shadow).
type Options struct {
	URL           string  // the original's REST root
	SampleRate    float64 // share of eligible requests compared
	MaxConcurrent int
	Rate          float64 // requests per second on the original, all comparisons together
	Timeout       time.Duration
	RecheckAfter  time.Duration
	// Breaker settings: consecutive failed or slow answers that open it, for how long.
	BreakerFailures              int
	BreakerSlow, BreakerCooldown time.Duration
	// Differences and DiffBytes bound the latest differences kept.
	Differences, DiffBytes int
	// Calshim is calshim's side: its own handler, asked again for the same URL (adapter).
	Calshim  Side
	Registry prometheus.Registerer
	Log      *zap.Logger
}

// Live compares a sample of the anonymous GETs calshim answered with the original's answers, in
// the background: Offer never blocks, and what cannot be compared now (no budget, breaker open,
// every worker busy) is skipped and counted.
type Live struct {
	opt     Options
	cmp     *Comparer
	jobs    chan job
	budget  *rate.Limiter
	breaker *breaker
	recent  *recent
	met     *liveMetrics
	origin  string // scheme://host of the original
}

type job struct {
	q    Query
	norm *Normalizer
}

// New starts the live shadow's workers (they live as long as the process).
func New(opt Options) *Live {
	l := &Live{opt: opt, jobs: make(chan job, opt.MaxConcurrent),
		budget:  rate.NewLimiter(rate.Limit(opt.Rate), 1),
		breaker: newBreaker(opt.BreakerFailures, opt.BreakerSlow, opt.BreakerCooldown, time.Now),
		recent:  newRecent(opt.Differences, opt.DiffBytes), met: newLiveMetrics(opt.Registry)}
	if u, err := url.Parse(opt.URL); err == nil {
		l.origin = u.Scheme + "://" + u.Host
	}
	l.met.breakerOpen(l.breaker)

	orig := &Original{Root: opt.URL, Client: NewClient(opt.Timeout, opt.MaxConcurrent),
		Asked: l.met.asked.Inc}
	l.cmp = &Comparer{Calshim: opt.Calshim, Original: &watched{Side: orig, b: l.breaker}, Table: Reads,
		Fresh: opt.RecheckAfter, Budget: l.spend}
	for range opt.MaxConcurrent {
		go l.work()
	}

	return l
}

// Sample draws whether a request is compared; the caller then checks what makes it eligible.
func (l *Live) Sample() bool {
	return l != nil && rand.Float64() < l.opt.SampleRate
}

// Offer queues a comparison of q, whose calshim answer used root (scheme://host + REST root, as
// the client addressed calshim; "" for the ?rest_route= form, whose URLs keep their form) and
// namespace q.NS. It never waits.
func (l *Live) Offer(q Query, root string) {
	switch {
	case !l.breaker.allow():
		l.skip(q, "breaker")
	case !l.budget.Allow():
		l.skip(q, "budget")
	default:
		norm := NewNormalizer(q.Origin, l.origin, q.NS)
		if root != "" {
			norm = NewNormalizer(root, strings.TrimRight(l.opt.URL, "/"), q.NS).Then(q.Origin, l.origin)
		}
		select {
		case l.jobs <- job{q: q, norm: norm}:
		default:
			l.skip(q, "busy")
		}
	}
}

func (l *Live) skip(q Query, reason string) {
	l.met.outcome(q.Route, Skipped)
	l.met.skip(reason)
}

// spend takes one request from the budget for a comparison's further request, waiting for it
// while the comparison's deadline allows.
func (l *Live) spend(ctx context.Context) bool {
	return l.breaker.closed() && l.budget.Wait(ctx) == nil
}

func (l *Live) work() {
	for j := range l.jobs {
		ctx, cancel := context.WithTimeout(context.Background(), 4*l.opt.Timeout+l.opt.RecheckAfter)
		res := l.cmp.Check(ctx, j.q, j.norm)
		cancel()
		l.met.outcome(j.q.Route, res.Outcome)
		if res.Outcome == Skipped {
			l.met.skip("calshim busy")
		}
		if res.Outcome == Different || res.Outcome == Intended {
			l.recent.add(res, l.cmp.Table)
		}
		if res.Outcome == Different && l.opt.Log != nil {
			l.opt.Log.Warn("shadow: calshim's answer differs from the original's", zap.String("route", j.q.Route),
				zap.String("path", res.Diffs[0].Path), zap.Int("differences", len(res.Diffs)))
		}
	}
}

// Differences serves the latest differences as JSON (the operations listener's /shadow/differences).
func (l *Live) Differences(w http.ResponseWriter, _ *http.Request) {
	l.recent.serve(w, l.met.counts())
}

// watched is the original's side as the breaker sees it: each answer's time and success.
type watched struct {
	Side
	b *breaker
}

func (w *watched) Ask(ctx context.Context, q Query) *Answer {
	start := time.Now()
	a := w.Side.Ask(ctx, q)
	w.b.record(time.Since(start), !failed(a))
	return a
}

// internalKey marks calshim's own request of a comparison, which is never compared itself.
type internalKey struct{}

// Internal marks ctx as a comparison's own request.
func Internal(ctx context.Context) context.Context {
	return context.WithValue(ctx, internalKey{}, true)
}

// IsInternal reports whether ctx is a comparison's own request.
func IsInternal(ctx context.Context) bool { return ctx.Value(internalKey{}) != nil }

// Handler is calshim's side of a live comparison's re-check: the same URL asked of calshim's own
// handler, anonymously, from its own client address (so it takes nothing from the client's
// allowances). The first comparison reads the answer the client got (Query.Sent); anonymous answers
// depend on the URL alone, so asking again later is the client's answer at that time.
type Handler struct {
	H http.Handler
}

// ShadowAddr is the client address of calshim's requests to itself: in 100::/64, the discard
// prefix (RFC 6666), so no real client shares its limits.
const ShadowAddr = "[100::1]:0"

// Ask serves q's target through the handler.
func (h Handler) Ask(ctx context.Context, q Query) *Answer {
	req, err := http.NewRequestWithContext(Internal(ctx), http.MethodGet, q.Origin+q.Target, nil)
	if err != nil {
		return &Answer{Err: err.Error()}
	}
	req.RemoteAddr = ShadowAddr
	req.Header["X-Request-Id"] = []string{"shadow-" + q.ID}
	if strings.HasPrefix(q.Origin, "https:") {
		req.Header["X-Forwarded-Proto"] = []string{"https"}
	}

	rec := &recorder{header: http.Header{}}
	h.H.ServeHTTP(rec, req)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}

	return read(rec.status, rec.header, strings.NewReader(rec.body.String()))
}

// recorder keeps an in-process answer.
type recorder struct {
	header http.Header
	status int
	body   strings.Builder
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

// breaker stops the shadow's requests while the original is failing or slow.
type breaker struct {
	mu        sync.Mutex
	limit     int
	slow      time.Duration
	cooldown  time.Duration
	now       func() time.Time
	failures  int
	openUntil time.Time // zero: closed
	probeAt   time.Time // when the one trying request went out (half-open); zero: none
}

func newBreaker(limit int, slow, cooldown time.Duration, now func() time.Time) *breaker {
	return &breaker{limit: max(limit, 1), slow: slow, cooldown: cooldown, now: now}
}

// allow reports whether a comparison may start: closed, or open past its cooldown with no other
// request trying (that one tries; a try that never reports lets another go after a cooldown).
func (b *breaker) allow() bool {
	b.mu.Lock()
	defer b.mu.Unlock()

	now := b.now()
	switch {
	case b.openUntil.IsZero():
		return true
	case now.Before(b.openUntil):
		return false
	case !b.probeAt.IsZero() && now.Sub(b.probeAt) < b.cooldown:
		return false
	}
	b.probeAt = now
	return true
}

// closed reports whether the breaker lets a comparison's further requests go.
func (b *breaker) closed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.openUntil.IsZero()
}

// record takes one answer of the original: a good one closes the breaker, enough bad ones in a
// row (or a bad try) open it.
func (b *breaker) record(took time.Duration, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()

	if ok && took <= b.slow {
		b.failures, b.openUntil, b.probeAt = 0, time.Time{}, time.Time{}
		return
	}
	b.failures++
	if b.failures >= b.limit || !b.openUntil.IsZero() {
		b.openUntil, b.probeAt = b.now().Add(b.cooldown), time.Time{}
	}
}

func (b *breaker) isOpen() bool { return !b.closed() }
