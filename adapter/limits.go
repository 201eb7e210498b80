package adapter

import (
	"context"
	"math"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	gocache "github.com/patrickmn/go-cache"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"

	"calshim/catalog"
	"calshim/mapping"
)

// This file bounds what one client can make calshim ask of WordPress. Reads are answered from the
// catalog; what reaches WordPress is a credential calshim has not seen (one users/me request each),
// a single read of an ID the catalog does not hold (one look-up per ID and catalog version), and
// writes. So: credentials WordPress refused are answered with its refusal for a while without
// asking again, and checks of new credentials, look-ups and writes are rate-limited per client
// address. Reads WordPress never sees cost CPU all the same: those expected to scan or render many
// posts (feeds, searches, long ID lists) take their cost from a per-client allowance too, and only a
// bounded number of them run at once.

// LimitOptions configure the per-client limits (config.Limits). A rate of 0 turns its limit off.
type LimitOptions struct {
	// TrustedProxies are the proxies whose X-Forwarded-For is believed (clientAddr).
	TrustedProxies []netip.Prefix

	AuthChecksPerMinute, AuthChecksBurst int
	// RefusedTTL is how long a refused credential is answered from memory; 0: not remembered.
	RefusedTTL time.Duration

	WritesPerMinute, WritesBurst int

	// LookupsPerMinute and LookupsBurst ration the questions to WordPress about IDs the catalog does
	// not hold (read_events.go, otherPostExists).
	LookupsPerMinute, LookupsBurst int

	// WorkUnit is how many posts a read must be expected to scan or render (workEstimate) to be
	// expensive; its cost is that number in units, rounded down. 0: no read is expensive.
	WorkUnit int
	// WorkPerMinute and WorkBurst ration each client's expensive reads, in units.
	WorkPerMinute, WorkBurst int
	// WorkConcurrency bounds the expensive reads answered at once (0: twice GOMAXPROCS); one more
	// waits up to WorkWait for a slot, then answers 503 calshim_busy.
	WorkConcurrency int
	WorkWait        time.Duration
}

// maxRemembered bounds the refused credentials kept: past it new refusals are not stored (the rate
// limit still bounds what they cost WordPress), so random credentials cannot grow memory forever.
const maxRemembered = 100_000

// limits holds the per-client state.
type limits struct {
	opt     LimitOptions
	auth    *keyedLimiter
	writes  *keyedLimiter
	lookups *keyedLimiter
	work    *keyedLimiter
	slots   chan struct{}  // one per expensive read being answered
	refused *gocache.Cache // credential key → *apiError WordPress answered
	limited *prometheus.CounterVec
}

func newLimits(opt LimitOptions) *limits {
	if opt.WorkConcurrency <= 0 {
		opt.WorkConcurrency = 2 * runtime.GOMAXPROCS(0)
	}

	return &limits{
		opt:     opt,
		auth:    newKeyedLimiter(opt.AuthChecksPerMinute, opt.AuthChecksBurst),
		writes:  newKeyedLimiter(opt.WritesPerMinute, opt.WritesBurst),
		lookups: newKeyedLimiter(opt.LookupsPerMinute, opt.LookupsBurst),
		work:    newKeyedLimiter(opt.WorkPerMinute, opt.WorkBurst),
		slots:   make(chan struct{}, opt.WorkConcurrency),
		refused: gocache.New(opt.RefusedTTL, time.Minute),
		limited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "calshim", Name: "rate_limited_total",
			Help: "Requests refused by a limit: 429 calshim_rate_limited (auth_checks, writes, " +
				"lookups, expensive) or 503 calshim_busy (busy: expensive reads; memory: the requests' " +
				"memory budget).",
		}, []string{"limit"}),
	}
}

// refusal returns WordPress' earlier answer to a credential it refused, if still remembered.
func (l *limits) refusal(key string) (*apiError, bool) {
	if l.opt.RefusedTTL <= 0 {
		return nil, false
	}
	e, ok := l.refused.Get(key)
	if !ok {
		return nil, false
	}
	return e.(*apiError), true
}

// remember keeps WordPress' refusal of a credential.
func (l *limits) remember(key string, refusal *apiError) {
	if l.opt.RefusedTTL > 0 && l.refused.ItemCount() < maxRemembered {
		l.refused.Set(key, refusal, l.opt.RefusedTTL)
	}
}

// admitAuthCheck takes one upstream credential check from the client's allowance.
func (l *limits) admitAuthCheck(gc *gin.Context) error {
	return l.admit(gc, l.auth, "auth_checks",
		"Too many requests with credentials not seen before from your address.")
}

// admitWrite takes one write from the client's allowance.
func (l *limits) admitWrite(gc *gin.Context) error {
	return l.admit(gc, l.writes, "writes", "Too many write requests from your address.")
}

// admitLookup takes one question about an unknown ID from the client's allowance.
func (l *limits) admitLookup(gc *gin.Context) error {
	return l.admit(gc, l.lookups, "lookups", "Too many requests for unknown IDs from your address.")
}

func (l *limits) admit(gc *gin.Context, kl *keyedLimiter, name, message string) error {
	return l.admitN(gc, kl, 1, name, message)
}

// admitN takes n tokens of the client's bucket in kl.
func (l *limits) admitN(gc *gin.Context, kl *keyedLimiter, n int, name, message string) error {
	wait := kl.take(clientKey(clientAddr(gc.Request, l.opt.TrustedProxies)), time.Now(), n)
	if wait <= 0 {
		return nil
	}

	return l.refuse(gc, name, wait, func(secs string) error { return rateLimited(message, secs) })
}

// refuse counts a refusal and answers it (answer's, given the seconds) with Retry-After.
func (l *limits) refuse(gc *gin.Context, name string, wait time.Duration, answer func(secs string) error) error {
	l.limited.WithLabelValues(name).Inc()
	secs := strconv.Itoa(max(1, int(math.Ceil(wait.Seconds()))))
	gc.Header("Retry-After", secs)
	return answer(secs)
}

// admitWork admits a read expected to scan or render posts posts. A cheap one passes. An expensive
// one takes its cost from the client's allowance, then a slot among the expensive reads being
// answered, waiting up to WorkWait for one; release gives the slot back.
func (l *limits) admitWork(gc *gin.Context, posts int) (release func(), err error) {
	if l.opt.WorkUnit <= 0 || posts < l.opt.WorkUnit {
		return noRelease, nil
	}

	if err := l.admitN(gc, l.work, posts/l.opt.WorkUnit, "expensive",
		"Too many expensive requests (feeds, searches, long lists) from your address."); err != nil {
		return nil, err
	}

	if !l.takeSlot(gc.Request.Context()) {
		return nil, l.refuse(gc, "busy", l.opt.WorkWait, func(secs string) error {
			return busy("Too many expensive requests are being answered.", secs)
		})
	}

	return func() { <-l.slots }, nil
}

func noRelease() {}

// takeSlot takes a slot for an expensive read, waiting up to WorkWait; false when none came free
// in time or the client went away.
func (l *limits) takeSlot(ctx context.Context) bool {
	select {
	case l.slots <- struct{}{}:
		return true
	default:
	}

	t := time.NewTimer(l.opt.WorkWait)
	defer t.Stop()
	select {
	case l.slots <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// workEstimate is how many posts (or terms) a GET is expected to scan or render, from the
// snapshot's counts and the raw arguments alone, before any of that work: the feed scans every
// event; an event search or post_parent filter scans the events (no index narrows them); venue,
// organizer and term lists scan their whole kind (counted as venues and organizers, or categories
// and tags, together: an upper bound), venues and organizers with has_events every event too; and
// every list looks up its ID lists' entries and renders up to per_page (at most MaxPerPage).
func (s *Server) workEstimate(rt *route, r *request) int {
	if r.method != http.MethodGet {
		return 0
	}

	if rt.scans == nil {
		return 0
	}
	return rt.scans(r.snap, r.params) + listedWork(r.params, s.opt.MaxPerPage)
}

// The scans of the lists (route.scans).

func scansAllEvents(snap *catalog.Snapshot, _ Params) int { return len(snap.Events) }

func scansEventSearch(snap *catalog.Snapshot, p Params) int {
	n := 0
	if p.has("search") {
		n = textScanned(snap.Events)
	}
	if p.has("search") || p.has("post_parent") {
		n += len(snap.Events)
	}
	return n
}

func scansLinked(snap *catalog.Snapshot, p Params) int {
	n := len(snap.Venues) + len(snap.Organizers)
	if p.has("search") {
		n += textScanned(snap.Venues) + textScanned(snap.Organizers)
	}
	if p.has("has_events") {
		n += len(snap.Events)
	}
	return n
}

// textBytesPerPost is how many bytes of search text a search reads for the cost of one post: a
// search's cost follows the bytes it scans, so posts with long texts (a contributor's large drafts)
// make it expensive, not only many posts.
const textBytesPerPost = 1 << 10

// textScanned is the search text of posts in units of posts (textBytesPerPost): its lengths are
// known without reading it.
func textScanned(posts []*mapping.Post) int {
	n := 0
	for _, p := range posts {
		n += len(p.Search())
	}
	return n / textBytesPerPost
}

func scansTerms(snap *catalog.Snapshot, _ Params) int {
	return len(snap.Categories) + len(snap.Tags)
}

// listedWork is what a list's arguments ask for whatever the catalog holds: the entries of its ID
// lists, each looked up, and the page size.
func listedWork(p Params, maxPerPage int) int {
	n := 0
	for _, name := range []string{"include", "exclude", "categories", "tags", "venue", "organizer"} {
		n += len(p.list(name))
	}

	if v, ok := p.str("per_page"); ok {
		size, _ := strconv.Atoi(v)
		n += min(max(0, size), maxPerPage)
	}

	return n
}

// clientAddr is the address a request is counted for: the connection's, unless it comes from a
// trusted proxy; then X-Forwarded-For is read from the right (the entry the nearest proxy added)
// and the first address that is not a trusted proxy is the client. Entries further left were
// written by the client itself and are never believed.
func clientAddr(r *http.Request, trusted []netip.Prefix) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}

	addr, err := netip.ParseAddr(host)
	if err != nil || !isTrusted(addr, trusted) {
		return addr.Unmap()
	}

	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return addr.Unmap() // a header that does not parse is not believed past this point
		}
		if addr = hop.Unmap(); !isTrusted(addr, trusted) {
			return addr
		}
	}

	return addr
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

// clientKey names a client address for the limits: IPv6 clients by their /64, as one host usually
// holds a whole /64 and could otherwise change address on every request.
func clientKey(a netip.Addr) string {
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// keyedLimiter is a token bucket per client key. Buckets idle long enough to be full again are
// dropped now and then, so memory follows the clients of the last minutes.
type keyedLimiter struct {
	every rate.Limit
	burst int
	mu    sync.Mutex
	byKey map[string]*rate.Limiter
	swept time.Time
}

func newKeyedLimiter(perMinute, burst int) *keyedLimiter {
	return &keyedLimiter{every: rate.Limit(float64(perMinute) / 60), burst: burst,
		byKey: map[string]*rate.Limiter{}}
}

// take takes n tokens of key's bucket and returns 0, or how long until they are available (none
// is then taken). n is capped at the burst: a request costing more takes the whole bucket. A
// limiter with no rate admits everything.
func (k *keyedLimiter) take(key string, now time.Time, n int) time.Duration {
	if k.every <= 0 {
		return 0
	}

	k.mu.Lock()
	defer k.mu.Unlock()
	k.sweep(now)
	lim, ok := k.byKey[key]
	if !ok {
		lim = rate.NewLimiter(k.every, k.burst)
		k.byKey[key] = lim
	}

	res := lim.ReserveN(now, min(n, k.burst))
	if wait := res.DelayFrom(now); wait > 0 {
		res.CancelAt(now)
		return wait
	}
	return 0
}

// sweep drops, at most once a minute, the buckets that have filled up again: a new bucket is the
// same as a full one.
func (k *keyedLimiter) sweep(now time.Time) {
	if now.Sub(k.swept) < time.Minute {
		return
	}

	k.swept = now
	for key, lim := range k.byKey {
		if lim.TokensAt(now) >= float64(k.burst) {
			delete(k.byKey, key)
		}
	}
}
