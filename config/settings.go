package config

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

//go:generate go run ./gen

// settings is every configuration key, in the order of config.example.yaml and
// docs/configuration.md (both generated from it: go generate ./config). A section's keys stay
// together. A key's environment variable is CALSHIM_ and the key upper-cased, dots as underscores.
var settings = []setting{
	{key: "listen", desc: "Address to serve on.",
		value: of("127.0.0.1:8080", func(c *Config) *string { return &c.Listen }, hostPort)},
	{key: "ops_listen", desc: "A second address for the operations endpoints (`/healthz`, `/readyz`, `/metrics`), " +
		"e.g. one only the cluster reaches. Set, `/metrics` is served there only; `/healthz` and `/readyz` " +
		"stay on `listen` as well, for load balancers and probes (they show nothing of upstream). Empty: " +
		"all on `listen`.",
		value: of("", func(c *Config) *string { return &c.OpsListen }, emptyOr(hostPort))},
	{key: "rest_root", desc: "Path of the REST root; v1 lives at `{rest_root}/cal/events/v1`.",
		value: of("/wp-json", func(c *Config) *string { return &c.RESTRoot }, restRoot)},
	{key: "log_level", desc: "Level of the log (JSON lines on stderr).",
		value: of("info", func(c *Config) *string { return &c.LogLevel }, oneOf("debug", "info", "warn", "error"))},
	{key: "memory_limit", desc: "Go's soft memory limit, in bytes. 0: set once the catalogs are loaded " +
		"to 1.1 times their measured size (scaled as they grow) plus the response caches' budgets, " +
		"`limits.memory_budget` and " +
		"48 MiB, so the collector runs before the heap doubles, never above 90% of the container's " +
		"(cgroup's) memory limit; -1: none. `GOMEMLIMIT`, when set, wins.",
		value: of(0, func(c *Config) *int { return &c.MemoryLimit },
			rule[int]{"bytes, 0 (auto) or -1 (none)", func(v int) bool { return v >= -1 }})},
	{key: "namespace_aliases", desc: "Extra namespaces served with the same routes as `cal/events/v1`.",
		value: of([]string{"tribe/events/v1"}, func(c *Config) *[]string { return &c.NamespaceAliases },
			each("namespaces such as tribe/events/v1", nsPattern.MatchString))},
	{key: "languages", desc: "Language variants: the first is the default (no URL segment), the others are " +
		"served under `/{lang}{rest_root}/...` with translated descriptions (adapter/i18n/locales).",
		value: of([]string{"en", "de", "fr", "es", "it", "nl"}, func(c *Config) *[]string { return &c.Languages },
			rule[[]string]{"at least one language code such as de or pt-br", func(v []string) bool {
				return len(v) > 0 && !slices.ContainsFunc(v, func(l string) bool { return !langCode.MatchString(l) })
			}})},

	{key: "upstream.url", desc: "REST root of the WordPress site (with the calshim plugin installed): its " +
		"address followed by `/wp-json`. Required: calshim has no default upstream, and refuses to start " +
		"without one.",
		value: of("", func(c *Config) *string { return &c.Upstream.URL }, emptyOr(httpURL))},
	{key: "upstream.user", desc: "Optional read-only service credential (a WordPress user with the " +
		"`calshim_reader` role and an application password), used only to load the catalog, so that drafts, " +
		"private and trashed posts and event passwords are known. Without it the catalog holds what " +
		"anonymous visitors can see. Given together with `upstream.app_password`.",
		value: of("", func(c *Config) *string { return &c.Upstream.User })},
	{key: "upstream.app_password", desc: "The application password of `upstream.user`.", secret: true,
		value: of("", func(c *Config) *string { return &c.Upstream.AppPassword })},
	{key: "upstream.timeout", desc: "Timeout of one upstream request. A write whose answer does not come within it " +
		"is sent again with its write key, at most 4 times in all (docs/how-it-works.md, \"Upstream down, slow " +
		"or lost answers\").",
		value: of(10*time.Second, func(c *Config) *time.Duration { return &c.Upstream.Timeout }, positive)},
	{key: "upstream.concurrency", desc: "Parallel page fetches while loading the catalog.",
		value: of(4, func(c *Config) *int { return &c.Upstream.Concurrency }, atLeast(1))},
	{key: "upstream.language_param", desc: "Marks the CMS as multilingual (e.g. `lang` for Polylang): each " +
		"language variant gets its own catalog, loaded with this query parameter on every upstream request. " +
		"Empty: one shared catalog.",
		value: of("", func(c *Config) *string { return &c.Upstream.LanguageParam })},

	{key: "catalog.poll_interval", desc: "How often changes made in WordPress are polled: one request to " +
		"the plugin's change feed (`/wp-json/calshim/v1/changes`), or, without it (older plugin, no service " +
		"credential), wp/v2 `modified_after` deltas and totals.",
		value: of(time.Second, func(c *Config) *time.Duration { return &c.Catalog.PollInterval }, positive)},
	{key: "catalog.reconcile_every", desc: "Every N polls: with the feed, a count of the posts (the full ID " +
		"lists when the counts differ), which notices writes made around WordPress' APIs; with wp/v2 " +
		"polling, a reconciliation of IDs even when totals agree.",
		value: of(20, func(c *Config) *int { return &c.Catalog.ReconcileEvery }, atLeast(1))},
	{key: "catalog.verify_every", desc: "How often the catalog compares checksums of what it holds with the " +
		"plugin's (posts with their meta and terms, terms, options) and refetches only what differs: changes " +
		"written around WordPress' hooks (direct SQL) are served within this interval; a restored snapshot is " +
		"checked before it is served. 0: never (such changes are then not seen).",
		value: of(2*time.Minute, func(c *Config) *time.Duration { return &c.Catalog.VerifyEvery },
			notNegative[time.Duration]())},
	{key: "catalog.snapshot", desc: "File the catalog is saved to (at most once a minute while it changes, " +
		"and on stop) and restarted from, so a restart catches up through the change feed instead of loading " +
		"everything. Empty: a file under the user's cache directory named after the upstream " +
		"(`~/.cache/calshim/catalog-<hash>.gob`); `none`: no snapshot. A multilingual site's other languages " +
		"use the same name plus `.<lang>`.",
		value: of("", func(c *Config) *string { return &c.Catalog.Snapshot })},
	{key: "catalog.notify_secret", secret: true, desc: "Shared secret of the plugin's push notices. Set, " +
		"calshim answers `POST /calshim/notify` carrying it as `Authorization: Bearer <secret>` by polling at " +
		"once; the plugin sends them when its wp-config.php constant `CALSHIM_NOTIFY_URLS` names calshim (or " +
		"the option `calshim_notify_urls` does and `CALSHIM_NOTIFY_ALLOWED_ORIGINS` allows its origin) and " +
		"`CALSHIM_NOTIFY_SECRET` / `calshim_notify_secret` hold the same secret. Empty: no such endpoint, " +
		"polling alone.",
		value: of("", func(c *Config) *string { return &c.Catalog.NotifySecret },
			rule[string]{fmt.Sprintf("empty or at least %d characters", minNotifySecret),
				func(v string) bool { return v == "" || len(v) >= minNotifySecret }})},
	{key: "catalog.per_page", desc: "Default `per_page` of every list.",
		value: of(10, func(c *Config) *int { return &c.Catalog.PerPage }, atLeast(1))},
	{key: "catalog.max_per_page", desc: "`per_page` cap (the original caps at 50).",
		value: of(50, func(c *Config) *int { return &c.Catalog.MaxPerPage }, atLeast(1))},
	{key: "catalog.load_wait", desc: "A request reaching calshim while its catalog is still loading waits " +
		"this long for it, then answers 503 `calshim_not_ready`.",
		value: of(10*time.Second, func(c *Config) *time.Duration { return &c.Catalog.LoadWait },
			notNegative[time.Duration]())},
	{key: "catalog.sequence_wait", desc: "A request carrying `X-Calshim-Min-Seq` (the `X-Calshim-Seq` a write " +
		"answered) waits up to this long for the catalog to reach that change log sequence " +
		"(read-your-writes across replicas).",
		value: of(3*time.Second, func(c *Config) *time.Duration { return &c.Catalog.SequenceWait },
			notNegative[time.Duration]())},

	{key: "mapping.event_type", desc: "REST base of events.",
		value: of("tribe_events", func(c *Config) *string { return &c.Mapping.EventType })},
	{key: "mapping.venue_type", desc: "REST base of venues.",
		value: of("tribe_venue", func(c *Config) *string { return &c.Mapping.VenueType })},
	{key: "mapping.organizer_type", desc: "REST base of organizers.",
		value: of("tribe_organizer", func(c *Config) *string { return &c.Mapping.OrganizerType })},
	{key: "mapping.category_tax", desc: "wp/v2 REST base of the event categories.",
		value: of("tribe_events_cat", func(c *Config) *string { return &c.Mapping.CategoryBase })},
	{key: "mapping.tag_tax", desc: "wp/v2 REST base of the tags.",
		value: of("tags", func(c *Config) *string { return &c.Mapping.TagBase })},

	{key: "response_cache.ttl", desc: "Bounds the clock-dependent default date window of a cached answer.",
		value: of(time.Minute, func(c *Config) *time.Duration { return &c.ResponseCache.TTL }, positive)},
	{key: "response_cache.max_entries", desc: "At most this many entries: past it the least recently used " +
		"answer is evicted (distinct URLs cannot grow memory without bound); 0 turns the cache off.",
		value: of(10000, func(c *Config) *int { return &c.ResponseCache.MaxEntries }, notNegative[int]())},
	{key: "response_cache.max_bytes", desc: "At most this many bytes held (bodies and headers; 32 MiB by " +
		"default), evicting the least recently used answers too; an answer over an eighth of it is not stored.",
		value: of(32<<20, func(c *Config) *int { return &c.ResponseCache.MaxBytes }, notNegative[int]())},
	{key: "response_cache.event_bytes", desc: "Events rendered for anonymous lists are kept, up to this many " +
		"bytes (16 MiB by default, about 5,000 events), for the next list that shows them: a list no cache " +
		"has seen then costs little more than its envelope. 0 keeps none.",
		value: of(16<<20, func(c *Config) *int { return &c.ResponseCache.EventBytes }, notNegative[int]())},

	{key: "writes.image_allow_private", desc: "Allow image URLs on loopback/private addresses.",
		value: of(false, func(c *Config) *bool { return &c.Writes.ImageAllowPrivate })},
	{key: "writes.image_max_bytes", desc: "Largest image fetched, in bytes.",
		value: of(10<<20, func(c *Config) *int { return &c.Writes.ImageMaxBytes })},
	{key: "writes.max_upstream_requests", desc: "Most requests one write makes of WordPress and image hosts " +
		"(each new category, tag, venue, organizer or image URL it names costs some); past it: 400 " +
		"`calshim_write_too_large`.",
		value: of(40, func(c *Config) *int { return &c.Writes.MaxUpstreamRequests }, atLeast(1))},

	{key: "ical.max_events", desc: "Most events of one feed answer (the feed has no paging).",
		value: of(5000, func(c *Config) *int { return &c.ICal.MaxEvents }, atLeast(1))},

	{key: "sync.max_bytes", desc: "Bytes of change log rows and earlier post states each catalog remembers " +
		"(4 MiB by default).",
		value: of(4<<20, func(c *Config) *int { return &c.Sync.MaxBytes }, atLeast(1))},

	{key: "shutdown.drain", desc: "How long requests go on being served after the signal.",
		value: of(5*time.Second, func(c *Config) *time.Duration { return &c.Shutdown.Drain },
			notNegative[time.Duration]())},
	{key: "shutdown.timeout", desc: "How long the requests still running then get.",
		value: of(10*time.Second, func(c *Config) *time.Duration { return &c.Shutdown.Timeout }, positive)},

	{key: "limits.trusted_proxies", desc: "Proxies (addresses or CIDR ranges) whose `X-Forwarded-For` is " +
		"believed: a request from one of them is counted for the nearest address before it in the header " +
		"that is not itself trusted. Empty: the connection's address is the client.",
		value: of([]string(nil), func(c *Config) *[]string { return &c.Limits.TrustedProxies },
			each("addresses or CIDR ranges", func(s string) bool { _, err := prefix(s); return err == nil }))},
	{key: "limits.max_body_bytes", desc: "Largest body of a write, in bytes: a larger `Content-Length` is " +
		"answered 413 before anything is read, a chunked body is cut there (nginx's `client_max_body_size`). " +
		"The request line and each header stop at 8 KiB (414, 431), all headers at 32 KiB (431), as nginx's " +
		"defaults.",
		value: of(1<<20, func(c *Config) *int { return &c.Limits.MaxBodyBytes }, atLeast(1024))},
	{key: "limits.memory_budget", desc: "Bytes the requests being answered may hold at once, whoever sends " +
		"them: a body and its decoding (JSON up to 112 bytes per value), a `_fields` selection and a large " +
		"answer's rendering take their share before the work; past it a request waits 250 ms, then answers " +
		"503 `calshim_busy` with `Retry-After`. Must hold the decoding of the largest body (64 times " +
		"`max_body_bytes` at worst).",
		value: of(64<<20, func(c *Config) *int { return &c.Limits.MemoryBudget }, atLeast(1<<20))},
	{key: "limits.auth_checks_per_minute", desc: "Checks of credentials calshim has not seen yet (each one a " +
		"WordPress `users/me` request).",
		value: of(60, func(c *Config) *int { return &c.Limits.AuthChecksPerMinute }, notNegative[int]())},
	{key: "limits.auth_checks_burst", desc: "Burst of `auth_checks_per_minute`.",
		value: of(20, func(c *Config) *int { return &c.Limits.AuthChecksBurst })},
	{key: "limits.refused_credentials_ttl", desc: "Credentials WordPress refused get its refusal again, " +
		"without asking it, for this long.",
		value: of(10*time.Minute, func(c *Config) *time.Duration { return &c.Limits.RefusedCredentialsTTL },
			notNegative[time.Duration]())},
	{key: "limits.writes_per_minute", desc: "Write requests (POST, PUT, PATCH, DELETE).",
		value: of(1200, func(c *Config) *int { return &c.Limits.WritesPerMinute }, notNegative[int]())},
	{key: "limits.writes_burst", desc: "Burst of `writes_per_minute`.",
		value: of(200, func(c *Config) *int { return &c.Limits.WritesBurst })},
	{key: "limits.lookups_per_minute", desc: "Single reads of IDs the catalog does not hold (WordPress is " +
		"asked whether the ID is another kind of post: 400, else 404; each answer kept while the catalog is " +
		"unchanged, a minute at most).",
		value: of(120, func(c *Config) *int { return &c.Limits.LookupsPerMinute }, notNegative[int]())},
	{key: "limits.lookups_burst", desc: "Burst of `lookups_per_minute`.",
		value: of(60, func(c *Config) *int { return &c.Limits.LookupsBurst })},
	{key: "limits.expensive_unit", desc: "Expensive reads: an uncached read expected to scan or render at " +
		"least this many posts (the .ics feed scans every event; an event search too; venue, organizer and " +
		"term lists their kind; ID lists and the page size add theirs) costs that number in units, rounded " +
		"down, from the client's allowance; 0: no read is expensive. Cached answers cost nothing.",
		value: of(1000, func(c *Config) *int { return &c.Limits.ExpensiveUnit }, notNegative[int]())},
	{key: "limits.expensive_per_minute", desc: "Units of expensive reads per minute.",
		value: of(120, func(c *Config) *int { return &c.Limits.ExpensivePerMinute }, notNegative[int]())},
	{key: "limits.expensive_burst", desc: "Burst of `expensive_per_minute`.",
		value: of(60, func(c *Config) *int { return &c.Limits.ExpensiveBurst })},
	{key: "limits.expensive_concurrency", desc: "At most this many expensive reads are answered at once " +
		"(0: twice `GOMAXPROCS`); one more waits up to `expensive_wait` for a slot, then answers 503 " +
		"`calshim_busy` with `Retry-After`.",
		value: of(0, func(c *Config) *int { return &c.Limits.ExpensiveConcurrency }, notNegative[int]())},
	{key: "limits.expensive_wait", desc: "How long an expensive read waits for a slot.",
		value: of(time.Second, func(c *Config) *time.Duration { return &c.Limits.ExpensiveWait },
			notNegative[time.Duration]())},

	{key: "edge_cache.s_maxage", desc: "How long a shared cache may keep an anonymous answer (Cache-Control " +
		"`s-maxage`): also how long a list whose window starts \"now\" may lag behind the clock, and the bound " +
		"on staleness when a purge is lost. 0: off.",
		value: of(time.Duration(0), func(c *Config) *time.Duration { return &c.EdgeCache.SMaxAge },
			notNegative[time.Duration]())},
	{key: "edge_cache.stale_while_revalidate", desc: "Cache-Control `stale-while-revalidate`: how long a " +
		"cache may answer an expired (never a purged) answer while it fetches a fresh one. 0: none. Needs " +
		"`s_maxage`.",
		value: of(time.Duration(0), func(c *Config) *time.Duration { return &c.EdgeCache.StaleWhileRevalidate },
			notNegative[time.Duration]())},
	{key: "edge_cache.key_header", desc: "The response header naming what an answer shows (`e123 v45 o67 t8 " +
		"list-events ...`): `Surrogate-Key` for Fastly-like CDNs, `xkey` for Varnish's xkey " +
		"(deploy/varnish/calshim.vcl reads either).",
		value: of("Surrogate-Key", func(c *Config) *string { return &c.EdgeCache.KeyHeader }, httpToken)},
	{key: "edge_cache.purge_urls", desc: "The caches calshim purges when the catalog changes: one request " +
		"per batch of keys to each. Needs `s_maxage`.",
		value: of([]string(nil), func(c *Config) *[]string { return &c.EdgeCache.PurgeURLs },
			each("http(s) URLs", func(s string) bool { return httpURL.ok(s) }))},
	{key: "edge_cache.purge_method", desc: "The purge request's method (Varnish xkey's convention; " +
		"Fastly: POST).",
		value: of("PURGE", func(c *Config) *string { return &c.EdgeCache.PurgeMethod }, httpToken)},
	{key: "edge_cache.purge_key_header", desc: "The purge request's header carrying its space-separated " +
		"keys (Fastly: `Surrogate-Key`).",
		value: of("xkey-purge", func(c *Config) *string { return &c.EdgeCache.PurgeKeyHeader }, httpToken)},
	{key: "edge_cache.purge_header", secret: true, desc: "A header sent with every purge, `Name: value` " +
		"(e.g. `Fastly-Key: <token>`). Empty: none.",
		value: of("", func(c *Config) *string { return &c.EdgeCache.PurgeHeader },
			rule[string]{"empty or `Name: value`", func(v string) bool {
				name, value, colon := strings.Cut(v, ":")
				return v == "" || colon && httpToken.ok(name) && !strings.ContainsAny(value, "\r\n")
			}})},

	{key: "shadow.url", desc: "The original's REST root on the same site (The Events Calendar still " +
		"active), e.g. `http://site/wp-json`: a sample of the anonymous GETs calshim answers is sent there " +
		"too (`tribe/events/v1`), after the client has its answer, and the two answers are compared. " +
		"Empty: off.",
		value: of("", func(c *Config) *string { return &c.Shadow.URL }, emptyOr(httpURL))},
	{key: "shadow.sample_rate", desc: "Share of the eligible requests compared (anonymous GETs of the v1 " +
		"routes in the default language), from 0 to 1.",
		value: of(0.01, func(c *Config) *float64 { return &c.Shadow.SampleRate },
			rule[float64]{"between 0 and 1", func(v float64) bool { return v >= 0 && v <= 1 }})},
	{key: "shadow.max_concurrent", desc: "Comparisons running at once; a sampled request beyond them (and " +
		"a short queue) is skipped, never waited for.",
		value: of(4, func(c *Config) *int { return &c.Shadow.MaxConcurrent }, atLeast(1))},
	{key: "shadow.rate", desc: "Requests per second the original may get from the shadow, every " +
		"comparison's requests together (a second ask to cancel noise, a re-check); a sampled request " +
		"over the budget is skipped.",
		value: of(2.0, func(c *Config) *float64 { return &c.Shadow.Rate },
			rule[float64]{"positive", func(v float64) bool { return v > 0 }})},
	{key: "shadow.timeout", desc: "Timeout of one request to the original.",
		value: of(5*time.Second, func(c *Config) *time.Duration { return &c.Shadow.Timeout }, positive)},
	{key: "shadow.recheck_after", desc: "The freshness bound: a difference the original's second answer " +
		"does not explain is checked once more after this long (a change calshim had not polled yet is " +
		"gone then: noise). Give it a poll interval and a margin. 0: no re-check.",
		value: of(3*time.Second, func(c *Config) *time.Duration { return &c.Shadow.RecheckAfter },
			notNegative[time.Duration]())},
	{key: "shadow.breaker_failures", desc: "Consecutive failed (no answer, 5xx) or slow answers of the " +
		"original that open the circuit breaker: nothing is sent for `breaker_cooldown`, then one request " +
		"tries.",
		value: of(5, func(c *Config) *int { return &c.Shadow.BreakerFailures }, atLeast(1))},
	{key: "shadow.breaker_slow", desc: "An answer of the original slower than this counts as a failure for " +
		"the breaker.",
		value: of(2*time.Second, func(c *Config) *time.Duration { return &c.Shadow.BreakerSlow }, positive)},
	{key: "shadow.breaker_cooldown", desc: "How long an open breaker sends nothing.",
		value: of(30*time.Second, func(c *Config) *time.Duration { return &c.Shadow.BreakerCooldown }, positive)},
	{key: "shadow.differences", desc: "Latest differences (and deliberate ones) kept for `/shadow/differences` " +
		"on `ops_listen`.",
		value: of(50, func(c *Config) *int { return &c.Shadow.Differences }, atLeast(1))},
	{key: "shadow.differences_bytes", desc: "Bytes those differences may hold together (each answer is " +
		"clipped to 4 KiB); the oldest go first.",
		value: of(1<<20, func(c *Config) *int { return &c.Shadow.DifferencesBytes }, atLeast(4096))},
}

// sections describes the YAML mappings that group keys, in the example file and the reference.
var sections = map[string]string{
	"upstream": "The WordPress calshim reads from and writes to.",
	"catalog":  "The in-memory catalog: how it follows WordPress, and the lists it serves.",
	"mapping":  "Upstream names, for sites laid out differently from The Events Calendar.",
	"response_cache": "Cache of rendered anonymous GET answers. Entries are keyed by the catalog version, so " +
		"a change in WordPress is never answered from it.",
	"writes": "What writes may make calshim do on the caller's behalf (image URLs are downloaded and uploaded).",
	"ical":   "The iCalendar feed (`{rest_root}/cal/events/v1/events.ics`): all matching events, up to a bound.",
	"sync": "Clients' delta sync (`sync_token` on the events, venues and organizers lists): an older token " +
		"than a catalog remembers is answered from the plugin's log, one with more changes since answers 410.",
	"shutdown": "Stopping (SIGTERM, SIGINT): `/readyz` answers 503 at once, requests go on being served for " +
		"`drain` (so load balancers take the replica out of rotation first), then running requests get " +
		"`timeout`. A second signal ends the drain at once.",
	"limits": "What one client address can make calshim ask of WordPress, and the expensive reads it answers " +
		"itself. Rates are per minute with a burst (at least 1 when its rate is set); a rate of 0 turns its " +
		"limit off. Over a limit: 429 `calshim_rate_limited` with `Retry-After`.",
	"shadow": "Comparison with the original on live traffic, for a migration (docs/migration.md): never a " +
		"write or an authenticated request, never a delay for the client, at most `rate` requests a second " +
		"on the original. Counters in `/metrics`, the latest differences at `/shadow/differences` on " +
		"`ops_listen`.",
	"edge_cache": "Caches in front of calshim (Varnish, a CDN) may keep anonymous answers until calshim purges " +
		"what a change in WordPress touched. `s_maxage` 0 (the default) leaves Cache-Control as it was " +
		"(`public, max-age=0, must-revalidate`) and sends no keys or purges.",
}

// renamed are the variables named before the names followed one pattern: each still sets its key,
// with a warning naming the new variable.
var renamed = map[string]string{
	"CALSHIM_SNAPSHOT":                  "catalog.snapshot",
	"CALSHIM_MAPPING_CATEGORY_TAXONOMY": "mapping.category_tax",
	"CALSHIM_MAPPING_TAG_TAXONOMY":      "mapping.tag_tax",
}

// retired are the keys calshim no longer reads, and why: set (as a key or its variable), they are
// ignored with a warning.
var retired = map[string]string{
	"sync.max_changes": "replaced by sync.max_bytes (a bound in bytes, not in changes)",
}

// envName is the environment variable of a key: CALSHIM_ and the key upper-cased, dots as underscores.
func envName(key string) string {
	return "CALSHIM_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// fileSuffix names a secret's file: CALSHIM_X_FILE, or the YAML key x_file.
const fileSuffix = "_file"

var (
	langCode   = regexp.MustCompile(`^[a-z]{2,3}(-[a-z0-9]{2,8})?$`)
	nsPattern  = regexp.MustCompile(`^[a-z0-9_-]+(/[a-z0-9_.-]+)+$`)
	headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$") // an HTTP token (RFC 9110)
)

// The rules settings share.
var (
	positive = rule[time.Duration]{"positive", func(v time.Duration) bool { return v > 0 }}
	hostPort = rule[string]{"a host:port", func(v string) bool { _, _, err := net.SplitHostPort(v); return err == nil }}
	restRoot = rule[string]{"a path starting with / and not ending with /", func(v string) bool {
		return strings.HasPrefix(v, "/") && !strings.HasSuffix(v, "/")
	}}
	httpURL = rule[string]{"an http(s) URL", func(v string) bool {
		u, err := url.Parse(v)
		return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
	}}
	httpToken = rule[string]{"an HTTP token", headerName.MatchString}
)

func atLeast(n int) rule[int] {
	return rule[int]{fmt.Sprintf("at least %d", n), func(v int) bool { return v >= n }}
}

func notNegative[T int | time.Duration]() rule[T] {
	return rule[T]{"not negative", func(v T) bool { return v >= 0 }}
}

func oneOf(values ...string) rule[string] {
	return rule[string]{"one of " + strings.Join(values, ", "), func(v string) bool { return slices.Contains(values, v) }}
}

func emptyOr(r rule[string]) rule[string] {
	return rule[string]{"empty or " + r.text, func(v string) bool { return v == "" || r.ok(v) }}
}

// each is the rule of a list whose every item is what text says.
func each(text string, ok func(string) bool) rule[[]string] {
	return rule[[]string]{text, func(v []string) bool {
		return !slices.ContainsFunc(v, func(s string) bool { return !ok(s) })
	}}
}

// prefix reads a trusted proxy: an address (a range of one) or a CIDR range.
func prefix(s string) (netip.Prefix, error) {
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return netip.Prefix{}, err
		}
		return netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	return p.Masked(), err
}
