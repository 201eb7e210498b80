package config

import (
	"fmt"
	"net/netip"
	"time"
)

// Shutdown is how a replica stops on SIGTERM: /readyz answers 503 at once and requests go on being
// served for Drain (long enough for load balancers to take it out of rotation), then the server
// waits up to Timeout for the requests still running.
type Shutdown struct {
	Drain   time.Duration
	Timeout time.Duration
}

// Limits bound what one client address can make calshim ask of WordPress: checks of credentials
// calshim has not seen (each costs WordPress a users/me request) and writes; and the expensive reads
// calshim answers itself. Rates are per minute with a burst; 0 per minute turns a limit off.
type Limits struct {
	// TrustedProxies are the addresses or CIDR ranges of the proxies in front of calshim: only a
	// request coming from one of them has its client address taken from X-Forwarded-For.
	TrustedProxies []string

	// MaxBodyBytes bounds a write's body; MemoryBudget is the bytes the requests being answered
	// may hold at once (adapter/http_request.go).
	MaxBodyBytes int
	MemoryBudget int

	AuthChecksPerMinute int
	AuthChecksBurst     int
	// RefusedCredentialsTTL is how long credentials WordPress refused are answered with its refusal
	// without asking again.
	RefusedCredentialsTTL time.Duration

	WritesPerMinute int
	WritesBurst     int

	// Lookups: single reads of IDs the catalog does not hold, each a WordPress request (is it
	// another kind of post? 400 then, else 404).
	LookupsPerMinute int
	LookupsBurst     int

	// Expensive reads: uncached reads expected to scan or render at least ExpensiveUnit posts (the
	// feed, searches, long ID lists; 0: none is expensive) cost that number in units from a
	// per-client allowance, and at most ExpensiveConcurrency of them (0: twice GOMAXPROCS) are
	// answered at once; one more waits up to ExpensiveWait for a slot, then answers 503.
	ExpensiveUnit        int
	ExpensivePerMinute   int
	ExpensiveBurst       int
	ExpensiveConcurrency int
	ExpensiveWait        time.Duration
}

// Prefixes returns the trusted proxies as address ranges (an address alone is a range of one).
func (l Limits) Prefixes() ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(l.TrustedProxies))
	for _, s := range l.TrustedProxies {
		p, err := prefix(s)
		if err != nil {
			return nil, fmt.Errorf("limits.trusted_proxies: %q is not an address or CIDR range", s)
		}
		out = append(out, p)
	}
	return out, nil
}
