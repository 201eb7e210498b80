// Package config holds calshim's settings: defaults, an optional YAML file, then CALSHIM_* environment
// variables, in that order of precedence (environment wins). calshim runs with no file at all. Each
// setting is declared once, in the table of settings.go, which config.example.yaml and
// docs/configuration.md are generated from.
package config

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Config is the whole configuration, the value the rest of calshim reads; settings.go names and
// describes its fields.
type Config struct {
	Listen   string // address to serve on
	RESTRoot string // path of the REST root, e.g. "/wp-json"
	LogLevel string // debug, info, warn, error
	// OpsListen, when set, is a second address that serves /healthz, /readyz and /metrics; /metrics
	// then leaves the public listener (the probes stay on both). Empty = everything on Listen.
	OpsListen string
	// MemoryLimit is Go's soft memory limit in bytes: 0 sets it from the catalogs' measured size
	// plus the caches' budgets and a headroom (cmd/calshim/memlimit.go), -1 sets none; GOMEMLIMIT,
	// when set, wins.
	MemoryLimit int
	// NamespaceAliases are served as well as cal/events/v1, with the same routes; empty = none.
	NamespaceAliases []string
	// Languages are the language variants: the first is the default (no URL segment), the others are
	// served under /{lang}{rest_root}/...
	Languages []string
	Upstream  Upstream
	Catalog   Catalog
	Mapping   Mapping
	Writes    Writes
	// ResponseCache bounds the cache of rendered anonymous GET answers.
	ResponseCache ResponseCache
	ICal          ICal
	Sync          Sync
	// Shutdown is how a stopping replica drains (limits.go).
	Shutdown Shutdown
	// Limits bound what one client can make calshim ask of WordPress (limits.go).
	Limits Limits
	// EdgeCache lets caches in front of calshim (Varnish, a CDN) keep anonymous answers until
	// calshim purges them (adapter/edgecache.go).
	EdgeCache EdgeCache
	// Shadow compares a sample of anonymous GETs with the original's answers (adapter/shadow).
	Shadow Shadow
}

// Shadow sends a sample of the anonymous GETs calshim answers to the original (The Events
// Calendar on the same site) after answering, and compares the two answers. URL "" (the default)
// turns it off.
type Shadow struct {
	URL           string  // the original's REST root, e.g. http://site/wp-json
	SampleRate    float64 // share of eligible requests compared, 0 to 1
	MaxConcurrent int     // comparisons at once; a sampled request past them is skipped
	Rate          float64 // requests per second the original may get, all comparisons together
	Timeout       time.Duration
	RecheckAfter  time.Duration // the freshness bound: a difference is checked again after it
	// BreakerFailures consecutive failed or slow (over BreakerSlow) answers of the original open the
	// breaker: nothing is sent for BreakerCooldown, then one request tries.
	BreakerFailures int
	BreakerSlow     time.Duration
	BreakerCooldown time.Duration
	// Differences and DifferencesBytes bound the latest differences kept for the operations endpoint.
	Differences      int
	DifferencesBytes int
}

// EdgeCache tunes the shared caches in front of calshim: how long they may keep an anonymous
// answer, the surrogate keys that name what it shows, and where calshim sends the purges of the
// keys a catalog change touches. SMaxAge 0 (the default) leaves Cache-Control as it was.
type EdgeCache struct {
	SMaxAge              time.Duration
	StaleWhileRevalidate time.Duration
	// KeyHeader is the response header carrying the keys: Surrogate-Key (Fastly-like CDNs), xkey
	// (Varnish's xkey vmod; deploy/varnish/calshim.vcl reads either).
	KeyHeader string
	// PurgeURLs are the caches calshim purges; PurgeMethod, PurgeKeyHeader the request's shape;
	// PurgeHeader ("Name: value", may be empty) is sent with each, e.g. a CDN API token.
	PurgeURLs      []string
	PurgeMethod    string
	PurgeKeyHeader string
	PurgeHeader    string
}

// ICal tunes the iCalendar feed (events.ics).
type ICal struct {
	// MaxEvents caps the events of one feed answer (the feed has no paging; the JSON list caps at 50).
	MaxEvents int
}

// Sync tunes the clients' delta sync (sync_token).
type Sync struct {
	// MaxBytes bounds, in bytes, what each catalog remembers for sync tokens: the change log's rows
	// of posts and the earlier states of changed posts (only what the sync filters test, not their
	// text). An older token is answered from the plugin's log; one with more changes since than the
	// bound holds answers 410 and the client lists afresh.
	MaxBytes int
}

// ResponseCache bounds the cache of rendered anonymous GET answers. Entries are keyed by the catalog
// version, so a change never serves stale data; TTL only bounds the clock-dependent default window.
type ResponseCache struct {
	TTL time.Duration

	// MaxEntries bounds the number of entries: past it the least recently used is evicted (distinct
	// URLs could otherwise grow the cache without bound); 0 turns the cache off.
	MaxEntries int

	// MaxBytes bounds the bytes the entries hold (bodies and headers), evicting the least recently
	// used too; an answer over an eighth of it is not stored. Entries differ in size by a hundred
	// times (a 50-event page against one venue), so the number of entries alone does not bound memory.
	MaxBytes int

	// EventBytes bounds the events rendered for anonymous lists and kept for the lists that show
	// them again (a list no cache has seen then only encodes its envelope); 0 keeps none.
	EventBytes int
}

// Writes tunes what writes may make calshim do on the caller's behalf.
type Writes struct {
	// ImageAllowPrivate lets image URLs point at loopback and private addresses (off by default, so
	// callers cannot make calshim fetch from its own network).
	ImageAllowPrivate bool
	// ImageMaxBytes caps a fetched image.
	ImageMaxBytes int
	// MaxUpstreamRequests caps the requests one write makes of WordPress and image hosts: each new
	// term, venue, organizer or image URL a write names costs some (docs/how-it-works.md, "Requests per write").
	MaxUpstreamRequests int
}

// Upstream describes the WordPress REST API calshim reads from and writes to.
type Upstream struct {
	URL string // REST root of the CMS, e.g. https://www.example.org/wp-json (required)
	// User and AppPassword are an optional read-only service credential used only to load the catalog
	// (so drafts and passwords are known). Empty = the catalog holds what anonymous visitors can see.
	User        string
	AppPassword string
	Timeout     time.Duration // per upstream request
	Concurrency int           // parallel page fetches while loading
	// LanguageParam, when set, marks the CMS as multilingual: every upstream request of a language
	// variant carries this query parameter (e.g. "lang" for Polylang) and each language gets its own
	// catalog. Empty = every variant serves the same data.
	LanguageParam string
}

// Catalog tunes the in-memory catalog.
type Catalog struct {
	PollInterval time.Duration // how often upstream changes are polled
	// ReconcileEvery: every N polls the feed counts the posts (and lists their IDs when the counts
	// differ); wp/v2 polling reconciles IDs even when totals agree.
	ReconcileEvery int
	// VerifyEvery is how often the catalog compares checksums of what it holds with WordPress' and
	// refetches what differs (changes written around WordPress' hooks); it also checks a restored
	// snapshot before serving it. 0: never.
	VerifyEvery time.Duration
	// PerPage is the default per_page of every list (the original reads WordPress' posts_per_page).
	PerPage int
	// MaxPerPage caps per_page (the original caps at 50).
	MaxPerPage int
	// Snapshot is the file the catalog is saved to and restarted from: "" = the default file under
	// the user's cache directory (SnapshotPath), "none" = no snapshot.
	Snapshot string
	// LoadWait is how long a request reaching a replica whose catalog is still loading waits for it
	// before it answers 503 calshim_not_ready.
	LoadWait time.Duration
	// SequenceWait bounds how long a request carrying X-Calshim-Min-Seq waits for the catalog to
	// reach that change log sequence (read-your-writes across replicas).
	SequenceWait time.Duration
	// NotifySecret, when set, opens POST /calshim/notify to the plugin's push notices that carry it
	// as a bearer token: each makes the catalogs poll at once. Empty = no such endpoint.
	NotifySecret string
}

// SnapshotPath returns the snapshot file of the catalog of one language ("" for the only catalog of
// a site that is not multilingual), or "" when there is none. The default file is named after the
// upstream, so calshims of different sites on one machine keep different files.
func (c *Config) SnapshotPath(lang string) string {
	path := c.Catalog.Snapshot
	if path == "none" {
		return ""
	}
	if path == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		h := fnv.New64a()
		_, _ = h.Write([]byte(c.Upstream.URL))
		path = filepath.Join(dir, "calshim", "catalog-"+strconv.FormatUint(h.Sum64(), 36)+".gob")
	}
	if lang != "" {
		path += "." + lang
	}
	return path
}

// Mapping names the upstream objects, for CMSes laid out differently from The Events Calendar.
type Mapping struct {
	EventType     string // REST base of events
	VenueType     string // REST base of venues
	OrganizerType string // REST base of organizers
	CategoryBase  string // REST base of event categories (the key keeps its first name)
	TagBase       string // REST base of tags (wp/v2 "tags" for post_tag)
}

// minNotifySecret is the shortest notify secret accepted: anyone who has it can make calshim poll.
const minNotifySecret = 16

// Default returns the configuration used when nothing is set: every setting's default.
func Default() Config {
	var c Config
	for _, s := range settings {
		s.value.reset(&c)
	}
	return c
}

// Load reads the defaults, then file (if not empty), then the environment given by getenv. It
// answers the warnings to log at start: old names still read, keys no longer read.
func Load(file string, getenv func(string) string) (Config, []string, error) {
	c := Default()
	var warnings []string
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return c, nil, fmt.Errorf("config: %w", err)
		}
		if warnings, err = decodeYAML(&c, b); err != nil {
			return c, warnings, fmt.Errorf("config: %s: %w", file, err)
		}
	}
	envWarnings, err := applyEnv(&c, getenv)
	warnings = append(warnings, envWarnings...)
	if err != nil {
		return c, warnings, err
	}
	return c, warnings, c.Validate()
}

// applyEnv sets each key whose variable is set (an empty variable is unset): by its name, the name
// it had before (renamed), or, for a secret, the file CALSHIM_X_FILE names.
func applyEnv(c *Config, getenv func(string) string) ([]string, error) {
	var warnings []string
	for key, note := range retired {
		if name := envName(key); getenv(name) != "" {
			warnings = append(warnings, fmt.Sprintf("%s is ignored: %s", name, note))
		}
	}
	for _, s := range settings {
		name, err := s.variable(getenv)
		if err != nil {
			return warnings, err
		}
		if name == "" {
			continue
		}
		if renamed[name] == s.key {
			warnings = append(warnings, fmt.Sprintf("%s is renamed %s: set that instead (the old name still works)",
				name, envName(s.key)))
		}
		v := getenv(name)
		if name == envName(s.key+fileSuffix) {
			v, err = readSecret(v)
		}
		if err == nil {
			err = s.value.parse(c, v)
		}
		if err != nil {
			return warnings, fmt.Errorf("config: %s: %w", name, err)
		}
	}
	slices.Sort(warnings)
	return warnings, nil
}

// variable is the one set variable of s ("" when none is): its own, its file's (a secret's) or its
// old name. Two of them set is an error: which one was meant is not known.
func (s setting) variable(getenv func(string) string) (string, error) {
	names := []string{envName(s.key)}
	if s.secret {
		names = append(names, envName(s.key+fileSuffix))
	}
	for old, key := range renamed {
		if key == s.key {
			names = append(names, old)
		}
	}
	names = slices.DeleteFunc(names, func(name string) bool { return getenv(name) == "" })
	if len(names) > 1 {
		return "", fmt.Errorf("config: %s are both set: set only one", strings.Join(names, " and "))
	}
	return strings.Join(names, ""), nil
}

// worstBodyDecoding is what a JSON body and its decoding hold per byte at worst (one-digit numbers:
// adapter/args_body.go's jsonValueCost per two bytes, its bodyByteCost, and a chunked body read
// into a growing buffer).
const worstBodyDecoding = 64

// Validate checks every key against its rule, then the rules between keys, with messages an
// operator can act on.
func (c *Config) Validate() error {
	var errs []error
	for _, s := range settings {
		if text := s.value.check(c); text != "" {
			got := ", got " + s.value.yaml(c)
			if s.secret {
				got = "" // a secret is never written to a log
			}
			errs = append(errs, fmt.Errorf("%s must be %s%s", s.key, text, got))
		}
	}
	if (c.Upstream.User == "") != (c.Upstream.AppPassword == "") {
		errs = append(errs, errors.New("upstream.user and upstream.app_password must be given together"))
	}
	if c.OpsListen != "" && c.OpsListen == c.Listen {
		errs = append(errs, fmt.Errorf("ops_listen must be another address than listen, got %q", c.OpsListen))
	}
	if e := c.EdgeCache; e.SMaxAge == 0 && (e.StaleWhileRevalidate > 0 || len(e.PurgeURLs) > 0) {
		errs = append(errs, errors.New("edge_cache.stale_while_revalidate and purge_urls need an s_maxage"))
	}
	l := c.Limits
	if l.MemoryBudget < worstBodyDecoding*l.MaxBodyBytes {
		errs = append(errs, fmt.Errorf("limits.memory_budget must hold the decoding of the largest body, "+
			"%d times limits.max_body_bytes (%d), got %d", worstBodyDecoding, worstBodyDecoding*l.MaxBodyBytes,
			l.MemoryBudget))
	}
	for _, r := range []struct {
		rate, burst int
		name        string
	}{{l.AuthChecksPerMinute, l.AuthChecksBurst, "auth_checks"}, {l.WritesPerMinute, l.WritesBurst, "writes"},
		{l.LookupsPerMinute, l.LookupsBurst, "lookups"}, {l.ExpensivePerMinute, l.ExpensiveBurst, "expensive"}} {
		if r.rate > 0 && r.burst < 1 {
			errs = append(errs, fmt.Errorf("limits.%s_burst must be at least 1 when %s_per_minute is set",
				r.name, r.name))
		}
	}
	return errors.Join(errs...)
}
