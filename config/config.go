// Package config holds calshim's settings: defaults, an optional YAML file, then CALSHIM_* environment
// variables, in that order of precedence (environment wins). calshim runs with no file at all.
package config

import (
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is the whole configuration. Every key is documented in config.example.yaml.
type Config struct {
	Listen   string `yaml:"listen"`    // address to serve on
	RESTRoot string `yaml:"rest_root"` // path of the REST root, e.g. "/wp-json"
	LogLevel string `yaml:"log_level"` // debug, info, warn, error
	// OpsListen, when set, is a second address that serves /healthz, /readyz and /metrics; /metrics
	// then leaves the public listener (the probes stay on both). Empty = everything on Listen.
	OpsListen string `yaml:"ops_listen"`
	// MemoryLimit is Go's soft memory limit in bytes: 0 sets it from the catalogs' measured size
	// plus the caches' budgets and a headroom (cmd/calshim/memlimit.go), -1 sets none; GOMEMLIMIT,
	// when set, wins.
	MemoryLimit int `yaml:"memory_limit"`
	// NamespaceAliases are served as well as cal/events/v1, with the same routes; empty = none.
	NamespaceAliases []string `yaml:"namespace_aliases"`
	// Languages are the language variants: the first is the default (no URL segment), the others are
	// served under /{lang}{rest_root}/...
	Languages []string `yaml:"languages"`
	Upstream  Upstream `yaml:"upstream"`
	Catalog   Catalog  `yaml:"catalog"`
	Mapping   Mapping  `yaml:"mapping"`
	Writes    Writes   `yaml:"writes"`
	// ResponseCache bounds the cache of rendered anonymous GET answers.
	ResponseCache ResponseCache `yaml:"response_cache"`
	ICal          ICal          `yaml:"ical"`
	Sync          Sync          `yaml:"sync"`
	// Shutdown is how a stopping replica drains (limits.go).
	Shutdown Shutdown `yaml:"shutdown"`
	// Limits bound what one client can make calshim ask of WordPress (limits.go).
	Limits Limits `yaml:"limits"`
	// EdgeCache lets caches in front of calshim (Varnish, a CDN) keep anonymous answers until
	// calshim purges them (adapter/edgecache.go).
	EdgeCache EdgeCache `yaml:"edge_cache"`
}

// EdgeCache tunes the shared caches in front of calshim: how long they may keep an anonymous
// answer, the surrogate keys that name what it shows, and where calshim sends the purges of the
// keys a catalog change touches. SMaxAge 0 (the default) leaves Cache-Control as it was.
type EdgeCache struct {
	SMaxAge              time.Duration `yaml:"s_maxage"`
	StaleWhileRevalidate time.Duration `yaml:"stale_while_revalidate"`
	// KeyHeader is the response header carrying the keys: Surrogate-Key (Fastly-like CDNs), xkey
	// (Varnish's xkey vmod; deploy/varnish/calshim.vcl reads either).
	KeyHeader string `yaml:"key_header"`
	// PurgeURLs are the caches calshim purges; PurgeMethod, PurgeKeyHeader the request's shape;
	// PurgeHeader ("Name: value", may be empty) is sent with each, e.g. a CDN API token.
	PurgeURLs      []string `yaml:"purge_urls"`
	PurgeMethod    string   `yaml:"purge_method"`
	PurgeKeyHeader string   `yaml:"purge_key_header"`
	PurgeHeader    string   `yaml:"purge_header"`
}

// headerName is an HTTP header name (RFC 9110 token).
var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")

// validate checks the edge cache settings: the purge settings and stale-while-revalidate only
// with an s-maxage, header names and methods as HTTP tokens, purge URLs as http(s) URLs.
func (e *EdgeCache) validate() []error {
	var errs []error
	if e.SMaxAge < 0 || e.StaleWhileRevalidate < 0 {
		errs = append(errs, errors.New("edge_cache.s_maxage and stale_while_revalidate must not be negative"))
	}
	if e.SMaxAge == 0 && (e.StaleWhileRevalidate > 0 || len(e.PurgeURLs) > 0) {
		errs = append(errs, errors.New("edge_cache.stale_while_revalidate and purge_urls need an s_maxage"))
	}
	name, value, colon := strings.Cut(e.PurgeHeader, ":")
	if !headerName.MatchString(e.KeyHeader) || !headerName.MatchString(e.PurgeMethod) ||
		!headerName.MatchString(e.PurgeKeyHeader) ||
		(e.PurgeHeader != "" && (!colon || !headerName.MatchString(name) || strings.ContainsAny(value, "\r\n"))) {
		errs = append(errs, errors.New("edge_cache.key_header, purge_method and purge_key_header must be "+
			"HTTP tokens, purge_header empty or \"Name: value\""))
	}
	for _, raw := range e.PurgeURLs {
		if u, err := url.Parse(raw); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("edge_cache.purge_urls: %q is not an http(s) URL", raw))
		}
	}
	return errs
}

// ICal tunes the iCalendar feed (events.ics).
type ICal struct {
	// MaxEvents caps the events of one feed answer (the feed has no paging; the JSON list caps at 50).
	MaxEvents int `yaml:"max_events"`
}

// Sync tunes the clients' delta sync (sync_token).
type Sync struct {
	// MaxBytes bounds, in bytes, what each catalog remembers for sync tokens: the change log's rows
	// of posts and the earlier states of changed posts (only what the sync filters test, not their
	// text). An older token is answered from the plugin's log; one with more changes since than the
	// bound holds answers 410 and the client lists afresh.
	MaxBytes int `yaml:"max_bytes"`
}

// ResponseCache bounds the cache of rendered anonymous GET answers. Entries are keyed by the catalog
// version, so a change never serves stale data; TTL only bounds the clock-dependent default window.
type ResponseCache struct {
	TTL time.Duration `yaml:"ttl"`

	// MaxEntries bounds the number of entries: past it the least recently used is evicted (distinct
	// URLs could otherwise grow the cache without bound); 0 turns the cache off.
	MaxEntries int `yaml:"max_entries"`

	// MaxBytes bounds the bytes the entries hold (bodies and headers), evicting the least recently
	// used too; an answer over an eighth of it is not stored. Entries differ in size by a hundred
	// times (a 50-event page against one venue), so the number of entries alone does not bound memory.
	MaxBytes int `yaml:"max_bytes"`

	// EventBytes bounds the events rendered for anonymous lists and kept for the lists that show
	// them again (a list no cache has seen then only encodes its envelope); 0 keeps none.
	EventBytes int `yaml:"event_bytes"`
}

// Writes tunes what writes may make calshim do on the caller's behalf.
type Writes struct {
	// ImageAllowPrivate lets image URLs point at loopback and private addresses (off by default, so
	// callers cannot make calshim fetch from its own network).
	ImageAllowPrivate bool `yaml:"image_allow_private"`
	// ImageMaxBytes caps a fetched image.
	ImageMaxBytes int `yaml:"image_max_bytes"`
	// MaxUpstreamRequests caps the requests one write makes of WordPress and image hosts: each new
	// term, venue, organizer or image URL a write names costs some (docs/how-it-works.md, "Requests per write").
	MaxUpstreamRequests int `yaml:"max_upstream_requests"`
}

// Upstream describes the WordPress REST API calshim reads from and writes to.
type Upstream struct {
	URL string `yaml:"url"` // REST root of the CMS, e.g. http://127.0.0.1:8881/wp-json
	// User and AppPassword are an optional read-only service credential used only to load the catalog
	// (so drafts and passwords are known). Empty = the catalog holds what anonymous visitors can see.
	User        string        `yaml:"user"`
	AppPassword string        `yaml:"app_password"`
	Timeout     time.Duration `yaml:"timeout"`     // per upstream request
	Concurrency int           `yaml:"concurrency"` // parallel page fetches while loading
	// LanguageParam, when set, marks the CMS as multilingual: every upstream request of a language
	// variant carries this query parameter (e.g. "lang" for Polylang) and each language gets its own
	// catalog. Empty = every variant serves the same data.
	LanguageParam string `yaml:"language_param"`
}

// Catalog tunes the in-memory catalog.
type Catalog struct {
	PollInterval time.Duration `yaml:"poll_interval"` // how often upstream changes are polled
	// ReconcileEvery: every N polls the feed counts the posts (and lists their IDs when the counts
	// differ); wp/v2 polling reconciles IDs even when totals agree.
	ReconcileEvery int `yaml:"reconcile_every"`
	// VerifyEvery is how often the catalog compares checksums of what it holds with WordPress' and
	// refetches what differs (changes written around WordPress' hooks); it also checks a restored
	// snapshot before serving it. 0: never.
	VerifyEvery time.Duration `yaml:"verify_every"`
	// PerPage is the default per_page of every list (the original reads WordPress' posts_per_page).
	PerPage int `yaml:"per_page"`
	// MaxPerPage caps per_page (the original caps at 50).
	MaxPerPage int `yaml:"max_per_page"`
	// Snapshot is the file the catalog is saved to and restarted from: "" = the default file under
	// the user's cache directory (SnapshotPath), "none" = no snapshot.
	Snapshot string `yaml:"snapshot"`
	// LoadWait is how long a request reaching a replica whose catalog is still loading waits for it
	// before it answers 503 calshim_not_ready.
	LoadWait time.Duration `yaml:"load_wait"`
	// SequenceWait bounds how long a request carrying X-Calshim-Min-Seq waits for the catalog to
	// reach that change log sequence (read-your-writes across replicas).
	SequenceWait time.Duration `yaml:"sequence_wait"`
	// NotifySecret, when set, opens POST /calshim/notify to the plugin's push notices that carry it
	// as a bearer token: each makes the catalogs poll at once. Empty = no such endpoint.
	NotifySecret string `yaml:"notify_secret"`
}

// validateNotify checks the push notice secret: none, or one not easily guessed.
func (c *Catalog) validateNotify() error {
	if c.NotifySecret != "" && len(c.NotifySecret) < minNotifySecret {
		return fmt.Errorf("catalog.notify_secret must be at least %d characters (or empty: no push notices)",
			minNotifySecret)
	}
	return nil
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
	EventType     string `yaml:"event_type"`     // REST base of events
	VenueType     string `yaml:"venue_type"`     // REST base of venues
	OrganizerType string `yaml:"organizer_type"` // REST base of organizers
	CategoryBase  string `yaml:"category_tax"`   // REST base of event categories (the key keeps its first name)
	TagBase       string `yaml:"tag_tax"`        // REST base of tags (wp/v2 "tags" for post_tag)
}

// minNotifySecret is the shortest notify secret accepted: anyone who has it can make calshim poll.
const minNotifySecret = 16

var (
	langCode  = regexp.MustCompile(`^[a-z]{2,3}(-[a-z0-9]{2,8})?$`)
	nsPattern = regexp.MustCompile(`^[a-z0-9_-]+(/[a-z0-9_.-]+)+$`)
)

// Default returns the configuration used when nothing is set.
func Default() Config {
	return Config{
		Listen:           "127.0.0.1:8080",
		RESTRoot:         "/wp-json",
		LogLevel:         "info",
		NamespaceAliases: []string{"tribe/events/v1"},
		Languages:        []string{"en", "de", "fr", "es", "it", "nl"},
		Upstream:         Upstream{URL: "http://127.0.0.1:8881/wp-json", Timeout: 10 * time.Second, Concurrency: 4},
		Catalog: Catalog{PollInterval: time.Second, ReconcileEvery: 20, VerifyEvery: 2 * time.Minute, PerPage: 10,
			MaxPerPage: 50, LoadWait: 10 * time.Second, SequenceWait: 3 * time.Second},
		Mapping: Mapping{EventType: "tribe_events", VenueType: "tribe_venue", OrganizerType: "tribe_organizer",
			CategoryBase: "tribe_events_cat", TagBase: "tags"},
		Writes:        Writes{ImageMaxBytes: 10 << 20, MaxUpstreamRequests: 40},
		ResponseCache: ResponseCache{TTL: time.Minute, MaxEntries: 10000, MaxBytes: 32 << 20, EventBytes: 16 << 20},
		ICal:          ICal{MaxEvents: 5000},
		Sync:          Sync{MaxBytes: 4 << 20},
		Shutdown:      Shutdown{Drain: 5 * time.Second, Timeout: 10 * time.Second},
		Limits:        defaultLimits(),
		EdgeCache: EdgeCache{KeyHeader: "Surrogate-Key", PurgeMethod: "PURGE",
			PurgeKeyHeader: "xkey-purge"},
	}
}

// Load reads the defaults, then file (if not empty), then the environment given by getenv.
func Load(file string, getenv func(string) string) (Config, error) {
	c := Default()
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return c, fmt.Errorf("config: %w", err)
		}
		if err := yaml.Unmarshal(b, &c); err != nil {
			return c, fmt.Errorf("config: %s: %w", file, err)
		}
	}
	if err := applyEnv(&c, getenv); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// env lists every CALSHIM_* variable and the field it sets; one table so the documentation and the code agree.
func envTable(c *Config) map[string]any {
	t := map[string]any{
		"CALSHIM_LISTEN":                         &c.Listen,
		"CALSHIM_OPS_LISTEN":                     &c.OpsListen,
		"CALSHIM_REST_ROOT":                      &c.RESTRoot,
		"CALSHIM_LOG_LEVEL":                      &c.LogLevel,
		"CALSHIM_MEMORY_LIMIT":                   &c.MemoryLimit,
		"CALSHIM_NAMESPACE_ALIASES":              &c.NamespaceAliases,
		"CALSHIM_LANGUAGES":                      &c.Languages,
		"CALSHIM_UPSTREAM_LANGUAGE_PARAM":        &c.Upstream.LanguageParam,
		"CALSHIM_UPSTREAM_URL":                   &c.Upstream.URL,
		"CALSHIM_UPSTREAM_USER":                  &c.Upstream.User,
		"CALSHIM_UPSTREAM_APP_PASSWORD":          &c.Upstream.AppPassword,
		"CALSHIM_UPSTREAM_TIMEOUT":               &c.Upstream.Timeout,
		"CALSHIM_UPSTREAM_CONCURRENCY":           &c.Upstream.Concurrency,
		"CALSHIM_CATALOG_POLL_INTERVAL":          &c.Catalog.PollInterval,
		"CALSHIM_CATALOG_RECONCILE_EVERY":        &c.Catalog.ReconcileEvery,
		"CALSHIM_CATALOG_VERIFY_EVERY":           &c.Catalog.VerifyEvery,
		"CALSHIM_CATALOG_PER_PAGE":               &c.Catalog.PerPage,
		"CALSHIM_CATALOG_MAX_PER_PAGE":           &c.Catalog.MaxPerPage,
		"CALSHIM_SNAPSHOT":                       &c.Catalog.Snapshot,
		"CALSHIM_MAPPING_EVENT_TYPE":             &c.Mapping.EventType,
		"CALSHIM_MAPPING_VENUE_TYPE":             &c.Mapping.VenueType,
		"CALSHIM_MAPPING_ORGANIZER_TYPE":         &c.Mapping.OrganizerType,
		"CALSHIM_MAPPING_CATEGORY_TAXONOMY":      &c.Mapping.CategoryBase,
		"CALSHIM_MAPPING_TAG_TAXONOMY":           &c.Mapping.TagBase,
		"CALSHIM_WRITES_IMAGE_ALLOW_PRIVATE":     &c.Writes.ImageAllowPrivate,
		"CALSHIM_WRITES_IMAGE_MAX_BYTES":         &c.Writes.ImageMaxBytes,
		"CALSHIM_WRITES_MAX_UPSTREAM_REQUESTS":   &c.Writes.MaxUpstreamRequests,
		"CALSHIM_RESPONSE_CACHE_TTL":             &c.ResponseCache.TTL,
		"CALSHIM_RESPONSE_CACHE_MAX_ENTRIES":     &c.ResponseCache.MaxEntries,
		"CALSHIM_ICAL_MAX_EVENTS":                &c.ICal.MaxEvents,
		"CALSHIM_SYNC_MAX_BYTES":                 &c.Sync.MaxBytes,
		"CALSHIM_CATALOG_LOAD_WAIT":              &c.Catalog.LoadWait,
		"CALSHIM_CATALOG_SEQUENCE_WAIT":          &c.Catalog.SequenceWait,
		"CALSHIM_SHUTDOWN_DRAIN":                 &c.Shutdown.Drain,
		"CALSHIM_SHUTDOWN_TIMEOUT":               &c.Shutdown.Timeout,
		"CALSHIM_LIMITS_TRUSTED_PROXIES":         &c.Limits.TrustedProxies,
		"CALSHIM_LIMITS_AUTH_CHECKS_PER_MINUTE":  &c.Limits.AuthChecksPerMinute,
		"CALSHIM_LIMITS_AUTH_CHECKS_BURST":       &c.Limits.AuthChecksBurst,
		"CALSHIM_LIMITS_REFUSED_CREDENTIALS_TTL": &c.Limits.RefusedCredentialsTTL,
		"CALSHIM_LIMITS_WRITES_PER_MINUTE":       &c.Limits.WritesPerMinute,
		"CALSHIM_LIMITS_WRITES_BURST":            &c.Limits.WritesBurst,
		"CALSHIM_LIMITS_LOOKUPS_PER_MINUTE":      &c.Limits.LookupsPerMinute,
		"CALSHIM_LIMITS_LOOKUPS_BURST":           &c.Limits.LookupsBurst,
		"CALSHIM_LIMITS_EXPENSIVE_UNIT":          &c.Limits.ExpensiveUnit,
		"CALSHIM_LIMITS_EXPENSIVE_PER_MINUTE":    &c.Limits.ExpensivePerMinute,
		"CALSHIM_LIMITS_EXPENSIVE_BURST":         &c.Limits.ExpensiveBurst,
		"CALSHIM_LIMITS_EXPENSIVE_CONCURRENCY":   &c.Limits.ExpensiveConcurrency,
		"CALSHIM_LIMITS_EXPENSIVE_WAIT":          &c.Limits.ExpensiveWait,
		"CALSHIM_RESPONSE_CACHE_MAX_BYTES":       &c.ResponseCache.MaxBytes,
		"CALSHIM_RESPONSE_CACHE_EVENT_BYTES":     &c.ResponseCache.EventBytes,
		"CALSHIM_CATALOG_NOTIFY_SECRET":          &c.Catalog.NotifySecret,
	}
	maps.Copy(t, map[string]any{
		"CALSHIM_EDGE_CACHE_S_MAXAGE":               &c.EdgeCache.SMaxAge,
		"CALSHIM_EDGE_CACHE_STALE_WHILE_REVALIDATE": &c.EdgeCache.StaleWhileRevalidate,
		"CALSHIM_EDGE_CACHE_KEY_HEADER":             &c.EdgeCache.KeyHeader,
		"CALSHIM_EDGE_CACHE_PURGE_URLS":             &c.EdgeCache.PurgeURLs,
		"CALSHIM_EDGE_CACHE_PURGE_METHOD":           &c.EdgeCache.PurgeMethod,
		"CALSHIM_EDGE_CACHE_PURGE_KEY_HEADER":       &c.EdgeCache.PurgeKeyHeader,
		"CALSHIM_EDGE_CACHE_PURGE_HEADER":           &c.EdgeCache.PurgeHeader,
	})
	return t
}

func applyEnv(c *Config, getenv func(string) string) error {
	for name, field := range envTable(c) {
		v := getenv(name)
		if v == "" {
			continue
		}
		var err error
		switch f := field.(type) {
		case *string:
			*f = v
		case *int:
			*f, err = strconv.Atoi(v)
		case *bool:
			*f, err = strconv.ParseBool(v)
		case *time.Duration:
			*f, err = time.ParseDuration(v)
		case *[]string:
			*f = splitList(v)
		}
		if err != nil {
			return fmt.Errorf("config: %s=%q: %w", name, v, err)
		}
	}
	return nil
}

// splitList reads a comma-separated list; "none" is the empty list (an empty variable means "unset").
func splitList(v string) []string {
	if strings.TrimSpace(v) == "none" {
		return []string{}
	}
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// validateBeyond checks the settings of what calshim adds to the original (feed, sync).
func (c *Config) validateBeyond() []error {
	if c.ICal.MaxEvents < 1 || c.Sync.MaxBytes < 1 || c.Writes.MaxUpstreamRequests < 1 {
		return []error{errors.New("ical.max_events, sync.max_bytes and writes.max_upstream_requests " +
			"must be at least 1")}
	}
	return nil
}

// validateOps checks the operations address: none, or a host:port other than listen.
func (c *Config) validateOps() error {
	if c.OpsListen == "" {
		return nil
	}
	if _, _, err := net.SplitHostPort(c.OpsListen); err != nil || c.OpsListen == c.Listen {
		return fmt.Errorf("ops_listen must be a host:port other than listen (or empty), got %q", c.OpsListen)
	}
	return nil
}

// validateMemory checks the memory limit and the response caches' bounds.
func (c *Config) validateMemory() []error {
	var errs []error
	if c.MemoryLimit < -1 {
		errs = append(errs, errors.New("memory_limit must be bytes, 0 (auto) or -1 (none)"))
	}
	if c.ResponseCache.TTL <= 0 || c.ResponseCache.MaxEntries < 0 || c.ResponseCache.MaxBytes < 0 ||
		c.ResponseCache.EventBytes < 0 {
		errs = append(errs, errors.New("response_cache.ttl must be positive, response_cache.max_entries, "+
			"max_bytes and event_bytes not negative"))
	}
	return errs
}

// Validate checks values and cross-field rules, with messages an operator can act on.
func (c *Config) Validate() error {
	var errs []error
	u, err := url.Parse(c.Upstream.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("upstream.url must be an http(s) URL of the CMS REST root, got %q", c.Upstream.URL))
	}
	if (c.Upstream.User == "") != (c.Upstream.AppPassword == "") {
		errs = append(errs, errors.New("upstream.user and upstream.app_password must be given together"))
	}
	if !strings.HasPrefix(c.RESTRoot, "/") || strings.HasSuffix(c.RESTRoot, "/") {
		errs = append(errs, fmt.Errorf("rest_root must start with / and not end with /, got %q", c.RESTRoot))
	}
	errs = append(errs, c.validateMemory()...)
	if c.Upstream.Timeout <= 0 || c.Catalog.PollInterval <= 0 {
		errs = append(errs, errors.New("upstream.timeout and catalog.poll_interval must be positive"))
	}
	if c.Upstream.Concurrency < 1 || c.Catalog.PerPage < 1 || c.Catalog.MaxPerPage < 1 || c.Catalog.ReconcileEvery < 1 {
		errs = append(errs, errors.New("upstream.concurrency, catalog.per_page, catalog.max_per_page "+
			"and catalog.reconcile_every must be at least 1"))
	}
	errs = append(errs, c.validateBeyond()...)
	errs = append(errs, c.validateOps()) // nil when valid: errors.Join drops it
	if c.Catalog.VerifyEvery < 0 {
		errs = append(errs, errors.New("catalog.verify_every must not be negative (0: never)"))
	}
	errs = append(errs, c.Catalog.validateNotify()) // nil when valid: errors.Join drops it
	if len(c.Languages) == 0 {
		errs = append(errs, errors.New("languages must name at least the default language"))
	}
	for _, l := range c.Languages {
		if !langCode.MatchString(l) {
			errs = append(errs, fmt.Errorf("languages: %q is not a language code such as de or pt-br", l))
		}
	}
	for _, ns := range c.NamespaceAliases {
		if !nsPattern.MatchString(ns) {
			errs = append(errs, fmt.Errorf("namespace_aliases: %q is not a namespace such as tribe/events/v1", ns))
		}
	}
	errs = append(errs, c.validateReplicas()...)
	errs = append(errs, c.EdgeCache.validate()...)
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("log_level must be debug, info, warn or error, got %q", c.LogLevel))
	}
	return errors.Join(errs...)
}
