package config

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// Shutdown is how a replica stops on SIGTERM: /readyz answers 503 at once and requests go on being
// served for Drain (long enough for load balancers to take it out of rotation), then the server
// waits up to Timeout for the requests still running.
type Shutdown struct {
	Drain   time.Duration `yaml:"drain"`
	Timeout time.Duration `yaml:"timeout"`
}

// Limits bound what one client address can make calshim ask of WordPress: checks of credentials
// calshim has not seen (each costs WordPress a users/me request) and writes; and the expensive reads
// calshim answers itself. Rates are per minute with a burst; 0 per minute turns a limit off.
type Limits struct {
	// TrustedProxies are the addresses or CIDR ranges of the proxies in front of calshim: only a
	// request coming from one of them has its client address taken from X-Forwarded-For.
	TrustedProxies []string `yaml:"trusted_proxies"`

	AuthChecksPerMinute int `yaml:"auth_checks_per_minute"`
	AuthChecksBurst     int `yaml:"auth_checks_burst"`
	// RefusedCredentialsTTL is how long credentials WordPress refused are answered with its refusal
	// without asking again.
	RefusedCredentialsTTL time.Duration `yaml:"refused_credentials_ttl"`

	WritesPerMinute int `yaml:"writes_per_minute"`
	WritesBurst     int `yaml:"writes_burst"`

	// Lookups: single reads of IDs the catalog does not hold, each a WordPress request (is it
	// another kind of post? 400 then, else 404).
	LookupsPerMinute int `yaml:"lookups_per_minute"`
	LookupsBurst     int `yaml:"lookups_burst"`

	// Expensive reads: uncached reads expected to scan or render at least ExpensiveUnit posts (the
	// feed, searches, long ID lists; 0: none is expensive) cost that number in units from a
	// per-client allowance, and at most ExpensiveConcurrency of them (0: twice GOMAXPROCS) are
	// answered at once; one more waits up to ExpensiveWait for a slot, then answers 503.
	ExpensiveUnit        int           `yaml:"expensive_unit"`
	ExpensivePerMinute   int           `yaml:"expensive_per_minute"`
	ExpensiveBurst       int           `yaml:"expensive_burst"`
	ExpensiveConcurrency int           `yaml:"expensive_concurrency"`
	ExpensiveWait        time.Duration `yaml:"expensive_wait"`
}

func defaultLimits() Limits {
	return Limits{AuthChecksPerMinute: 60, AuthChecksBurst: 20,
		RefusedCredentialsTTL: 10 * time.Minute,
		WritesPerMinute:       1200, WritesBurst: 200, LookupsPerMinute: 120, LookupsBurst: 60,
		ExpensiveUnit: 1000, ExpensivePerMinute: 120, ExpensiveBurst: 60, ExpensiveWait: time.Second}
}

// Prefixes returns the trusted proxies as address ranges (an address alone is a range of one).
func (l Limits) Prefixes() ([]netip.Prefix, error) {
	out := make([]netip.Prefix, 0, len(l.TrustedProxies))
	for _, s := range l.TrustedProxies {
		if !strings.Contains(s, "/") {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return nil, fmt.Errorf("limits.trusted_proxies: %q is not an address or CIDR range", s)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("limits.trusted_proxies: %q is not an address or CIDR range", s)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// validateReplicas checks the settings of draining, waiting and limits.
func (c *Config) validateReplicas() []error {
	var errs []error
	if c.Shutdown.Drain < 0 || c.Shutdown.Timeout <= 0 {
		errs = append(errs,
			errors.New("shutdown.drain must not be negative and shutdown.timeout must be positive"))
	}

	if c.Catalog.LoadWait < 0 || c.Catalog.SequenceWait < 0 {
		errs = append(errs,
			errors.New("catalog.load_wait and catalog.sequence_wait must not be negative"))
	}

	l := c.Limits
	if l.AuthChecksPerMinute < 0 || l.WritesPerMinute < 0 || l.LookupsPerMinute < 0 ||
		l.ExpensivePerMinute < 0 || l.RefusedCredentialsTTL < 0 {
		errs = append(errs, errors.New("limits: rates and refused_credentials_ttl must not be negative"))
	}

	if l.ExpensiveUnit < 0 || l.ExpensiveConcurrency < 0 || l.ExpensiveWait < 0 {
		errs = append(errs, errors.New("limits: expensive_unit, expensive_concurrency and "+
			"expensive_wait must not be negative"))
	}

	if (l.AuthChecksPerMinute > 0 && l.AuthChecksBurst < 1) ||
		(l.WritesPerMinute > 0 && l.WritesBurst < 1) || (l.LookupsPerMinute > 0 && l.LookupsBurst < 1) ||
		(l.ExpensivePerMinute > 0 && l.ExpensiveBurst < 1) {
		errs = append(errs, errors.New("limits: a burst must be at least 1 when its rate is set"))
	}

	if _, err := l.Prefixes(); err != nil {
		errs = append(errs, err)
	}

	return errs
}
