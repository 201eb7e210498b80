package adapter

import (
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	gocache "github.com/patrickmn/go-cache"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"
)

// This file bounds what one client can make calshim ask of WordPress. Reads are answered from the
// catalog; what reaches WordPress is a credential calshim has not seen (one users/me request each),
// a single read of an ID the catalog does not hold (one look-up per ID and catalog version), and
// writes. So: credentials WordPress refused are answered with its refusal for a while without
// asking again, and checks of new credentials, look-ups and writes are rate-limited per client
// address.

// LimitOptions configure the per-client limits (config.Limits). A rate of 0 turns its limit off.
type LimitOptions struct {
	// TrustedProxies are the proxies whose X-Forwarded-For is believed (clientAddr).
	TrustedProxies []netip.Prefix

	AuthChecksPerMinute, AuthChecksBurst int
	// RefusedTTL is how long a refused credential is answered from memory; 0: not remembered.
	RefusedTTL time.Duration

	WritesPerMinute, WritesBurst int

	// LookupsPerMinute and LookupsBurst ration the questions to WordPress about IDs the catalog does
	// not hold (events.go, otherPostExists).
	LookupsPerMinute, LookupsBurst int
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
	refused *gocache.Cache // credential key → *apiError WordPress answered
	limited *prometheus.CounterVec
}

func newLimits(opt LimitOptions) *limits {
	return &limits{
		opt:     opt,
		auth:    newKeyedLimiter(opt.AuthChecksPerMinute, opt.AuthChecksBurst),
		writes:  newKeyedLimiter(opt.WritesPerMinute, opt.WritesBurst),
		lookups: newKeyedLimiter(opt.LookupsPerMinute, opt.LookupsBurst),
		refused: gocache.New(opt.RefusedTTL, time.Minute),
		limited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "calshim", Name: "rate_limited_total",
			Help: "Requests answered 429 calshim_rate_limited, by limit (auth_checks, writes, lookups).",
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
	wait := kl.take(clientKey(clientAddr(gc.Request, l.opt.TrustedProxies)), time.Now())
	if wait <= 0 {
		return nil
	}

	l.limited.WithLabelValues(name).Inc()
	secs := strconv.Itoa(int(math.Ceil(wait.Seconds())))
	gc.Header("Retry-After", secs)
	return newError(http.StatusTooManyRequests, "calshim_rate_limited",
		message+" Try again in "+secs+" seconds.")
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

// take takes one token of key's bucket and returns 0, or how long until one is available (the
// token is then not taken). A limiter with no rate admits everything.
func (k *keyedLimiter) take(key string, now time.Time) time.Duration {
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

	res := lim.ReserveN(now, 1)
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
