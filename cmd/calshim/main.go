// Command calshim serves The Events Calendar REST API v1 from a WordPress wp/v2 upstream.
//
//	calshim [-config FILE]
//
// Without a file it runs on defaults plus CALSHIM_* environment variables (see config.example.yaml).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"calshim/adapter"
	"calshim/adapter/i18n"
	"calshim/catalog"
	"calshim/cmsclient"
	"calshim/config"
)

func main() {
	// Signals are read by run: the first one starts the drain, a second one ends it at once.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	err := run(sigs, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "calshim:", err)
		os.Exit(1)
	}
}

// run starts calshim and blocks until a signal arrives on stop and the drain is over. It listens
// at once: until the catalog is loaded, /readyz answers 503 and v1 requests wait for it (up to
// catalog.load_wait); a CMS that cannot serve calshim at all (no plugin, bad credential) stops it
// with the reason. -version and -healthcheck answer and return.
func run(stop <-chan os.Signal, args []string, getenv func(string) string,
	out, logOut io.Writer) error {
	fs := flag.NewFlagSet("calshim", flag.ContinueOnError)
	file := fs.String("config", "", "YAML configuration file (optional)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	healthcheck := fs.Bool("healthcheck", false,
		"GET /healthz of the calshim configured to listen here; exit 0 when it answers 200 (for images "+
			"without a shell)")
	check := fs.Bool("check", false, "check the configuration and the WordPress it names, print what "+
		"was found and each problem with its fix; exit 0 when calshim can serve from it (also: calshim check)")
	if len(args) > 0 && args[0] == "shadow" {
		return runShadow(args[1:], out, logOut)
	}
	if len(args) > 0 && args[0] == "check" {
		args = append([]string{"-check"}, args[1:]...)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}

	if *showVersion {
		_, err := fmt.Fprintln(out, "calshim", buildVersion())
		return err
	}

	cfg, warnings, err := config.Load(*file, getenv)
	if err != nil {
		return err
	}

	if *healthcheck {
		return checkHealth(cfg.Listen)
	}
	if cfg.Upstream.URL == "" {
		return errNoUpstream
	}
	if *check {
		return checkUpstream(context.Background(), cfg, warnings, out)
	}

	log, err := newLogger(cfg.LogLevel, logOut)
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()
	for _, w := range warnings {
		log.Warn("configuration: " + w)
	}

	return serve(stop, cfg, log)
}

// errNoUpstream stops calshim without upstream.url: there is no default WordPress to fall back on (a
// retry for ever against an address nobody chose would hide the mistake).
var errNoUpstream = errors.New("upstream.url is not set: set CALSHIM_UPSTREAM_URL (or upstream.url in the " +
	"-config file) to WordPress' REST root, e.g. https://www.example.org/wp-json")

// serve runs the HTTP server and the catalogs until a signal on stop, then drains and stops.
func serve(stop <-chan os.Signal, cfg config.Config, log *zap.Logger) error {
	reg := prometheus.NewRegistry()
	catalogs := newCatalogs(cfg, log, cmsclient.NewMetrics(reg))
	catMetrics := newCatalogMetrics(catalogs)
	reg.MustRegister(buildInfo(), catMetrics)
	var draining atomic.Bool
	// The catalogs keep polling (and the edge caches being purged) while the server drains, so the
	// answers served meanwhile stay fresh.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, ops := newHTTPServers(ctx, cfg, log, catalogs, draining.Load, reg)
	ln, opsLn, err := listen(cfg)
	if err != nil {
		return err
	}

	log.Info("listening", zap.String("addr", ln.Addr().String()), zap.String("ops", cfg.OpsListen),
		zap.String("upstream", cfg.Upstream.URL), zap.String("version", buildVersion()))
	errc := make(chan error, 3)
	go func() { errc <- srv.Serve(ln) }()
	if ops != nil {
		go func() { errc <- ops.Serve(opsLn) }()
		defer func() { _ = ops.Close() }() // after the public server's shutdown: probes see the drain
	}
	capLoad(cfg)
	go func() {
		if err := loadAll(ctx, catalogs, log, catMetrics.failures); err != nil {
			errc <- err
			return
		}
		limitMemory(ctx, cfg, catalogs, log)
	}()

	select {
	case err = <-errc:
	case sig := <-stop:
		draining.Store(true)
		err = drain(stop, errc, srv, cfg.Shutdown.Drain, log.With(zap.Stringer("signal", sig)))
	}

	cancel()
	return shutdown(srv, catalogs, cfg.Shutdown.Timeout, log, err)
}

// listen opens the public address and, when ops_listen is set, the operations one (nil otherwise).
func listen(cfg config.Config) (public, ops net.Listener, err error) {
	if public, err = net.Listen("tcp", cfg.Listen); err != nil || cfg.OpsListen == "" {
		return public, nil, err
	}
	if ops, err = net.Listen("tcp", cfg.OpsListen); err != nil {
		_ = public.Close()
		return nil, nil, err
	}
	return public, ops, nil
}

// newHTTPServers returns the server of the v1 routes and the operations endpoints and, when
// ops_listen is set, the server of the operations endpoints alone (nil otherwise), which then
// serves /metrics in the public server's place.
func newHTTPServers(ctx context.Context, cfg config.Config, log *zap.Logger,
	catalogs map[string]*catalog.Catalog, draining func() bool, reg *prometheus.Registry) (public, ops *http.Server) {
	variants := maps.Clone(catalogs)
	delete(variants, cfg.Languages[0]) // the default language is served by the default catalog
	opt := adapter.Options{
		RESTRoot:          cfg.RESTRoot,
		Namespaces:        append([]string{"cal/events/v1"}, cfg.NamespaceAliases...),
		Languages:         cfg.Languages[1:],
		Catalogs:          variants,
		MaxPerPage:        cfg.Catalog.MaxPerPage,
		Translate:         translator(cfg.Languages, log),
		CacheTTL:          cfg.ResponseCache.TTL,
		CacheMaxEntries:   cfg.ResponseCache.MaxEntries,
		CacheMaxBytes:     cfg.ResponseCache.MaxBytes,
		EventCacheBytes:   cfg.ResponseCache.EventBytes,
		NotifySecret:      cfg.Catalog.NotifySecret,
		ICalMaxEvents:     cfg.ICal.MaxEvents,
		ImageAllowPrivate: cfg.Writes.ImageAllowPrivate,
		ImageMaxBytes:     int64(cfg.Writes.ImageMaxBytes),
		WriteMaxUpstream:  cfg.Writes.MaxUpstreamRequests,
		MaxBody:           cfg.Limits.MaxBodyBytes,
		MemoryBudget:      cfg.Limits.MemoryBudget,
		LoadWait:          cfg.Catalog.LoadWait,
		SequenceWait:      cfg.Catalog.SequenceWait,
		Draining:          draining,
		Limits:            limitOptions(cfg.Limits),
		Registry:          reg,
		Edge:              edgeOptions(ctx, cfg.EdgeCache),
		Shadow:            shadowOptions(cfg.Shadow),
	}
	server := func(h http.Handler) *http.Server {
		return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
			WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second,
			MaxHeaderBytes: adapter.MaxHeaderBytes} // nginx's envelope, not Go's 1 MB
	}
	if cfg.OpsListen == "" {
		return server(adapter.NewServer(catalogs[cfg.Languages[0]], log, opt)), nil
	}
	p, o := adapter.NewServers(catalogs[cfg.Languages[0]], log, opt)
	return server(p), server(o)
}

// edgeOptions are the edge cache settings as the adapter takes them; purges stop with ctx.
func edgeOptions(ctx context.Context, e config.EdgeCache) adapter.EdgeOptions {
	return adapter.EdgeOptions{SMaxAge: e.SMaxAge, StaleWhileRevalidate: e.StaleWhileRevalidate,
		KeyHeader: e.KeyHeader, PurgeURLs: e.PurgeURLs, PurgeMethod: e.PurgeMethod,
		PurgeKeyHeader: e.PurgeKeyHeader, PurgeHeader: e.PurgeHeader, Context: ctx}
}

// limitOptions are the per-client limits as the adapter takes them.
func limitOptions(l config.Limits) adapter.LimitOptions {
	trusted, _ := l.Prefixes() // checked by Validate
	return adapter.LimitOptions{TrustedProxies: trusted,
		AuthChecksPerMinute: l.AuthChecksPerMinute, AuthChecksBurst: l.AuthChecksBurst,
		RefusedTTL:      l.RefusedCredentialsTTL,
		WritesPerMinute: l.WritesPerMinute, WritesBurst: l.WritesBurst,
		LookupsPerMinute: l.LookupsPerMinute, LookupsBurst: l.LookupsBurst,
		WorkUnit: l.ExpensiveUnit, WorkPerMinute: l.ExpensivePerMinute, WorkBurst: l.ExpensiveBurst,
		WorkConcurrency: l.ExpensiveConcurrency, WorkWait: l.ExpensiveWait}
}

// drain keeps serving for the drain period after the first signal, with /readyz answering 503 so
// that load balancers take this replica out of rotation; connections are closed after each answer
// meanwhile, so clients and proxies reconnect to another replica. A second signal or a server
// error ends it early.
func drain(stop <-chan os.Signal, errc <-chan error, srv *http.Server, period time.Duration,
	log *zap.Logger) error {
	log.Info("draining: /readyz answers 503, requests are still served", zap.Duration("for", period))
	srv.SetKeepAlivesEnabled(false)
	t := time.NewTimer(period)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case sig := <-stop:
		log.Info("second signal: drain cut short", zap.Stringer("second", sig))
		return nil
	case err := <-errc:
		return err
	}
}

// shutdown waits up to timeout for the requests still running, then saves the catalogs.
func shutdown(srv *http.Server, catalogs map[string]*catalog.Catalog, timeout time.Duration,
	log *zap.Logger, err error) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	log.Info("shutting down")
	if serr := srv.Shutdown(ctx); serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}

	for lang, c := range catalogs {
		if serr := c.Save(); serr != nil {
			log.Warn("snapshot not written", zap.String("language", lang), zap.Error(serr))
		}
	}

	if errors.Is(err, http.ErrServerClosed) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// newCatalogs returns the catalogs by language: one per language when the CMS is multilingual (the
// language passed upstream on every request, the default one included), else one for the default
// language, shared by every variant. Their upstream requests count into metrics (nil: not counted).
func newCatalogs(cfg config.Config, log *zap.Logger, metrics *cmsclient.Metrics) map[string]*catalog.Catalog {
	newCatalog := func(lang string) *catalog.Catalog {
		client := newClient(cfg, lang)
		client.SetMetrics(metrics)
		opt := catalogOptions(cfg, lang)
		opt.Notify = func(event string, err error) {
			log.Warn(event, zap.String("language", lang), zap.Error(err))
		}
		return catalog.New(client, opt)
	}
	if cfg.Upstream.LanguageParam == "" {
		return map[string]*catalog.Catalog{cfg.Languages[0]: newCatalog("")}
	}
	catalogs := map[string]*catalog.Catalog{}
	for _, lang := range cfg.Languages {
		catalogs[lang] = newCatalog(lang)
	}
	return catalogs
}

// newClient is the upstream client of a language's catalog ("": no language passed).
func newClient(cfg config.Config, lang string) *cmsclient.Client {
	client := cmsclient.New(cfg.Upstream.URL, cfg.Upstream.User, cfg.Upstream.AppPassword, cfg.Upstream.Timeout)
	client.Concurrency = cfg.Upstream.Concurrency
	client.SetUserAgent(userAgent())
	if lang != "" {
		client.SetDefaultQuery(cfg.Upstream.LanguageParam, lang)
	}
	return client
}

// userAgent names this calshim to WordPress: "calshim/VERSION (HOST)", HOST being the machine's (a
// pod's) name, so the plugin's admin screen tells the replicas apart.
func userAgent() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		return "calshim/" + buildVersion()
	}
	return "calshim/" + buildVersion() + " (" + host + ")"
}

// catalogOptions are the options of a language's catalog ("": no language passed), but Notify.
func catalogOptions(cfg config.Config, lang string) catalog.Options {
	return catalog.Options{
		Types: catalog.Types{
			Event: cfg.Mapping.EventType, Venue: cfg.Mapping.VenueType, Organizer: cfg.Mapping.OrganizerType,
			CategoryTax: "tribe_events_cat", TagTax: "post_tag",
			CategoryBase: cfg.Mapping.CategoryBase, TagBase: cfg.Mapping.TagBase,
		},
		PollInterval: cfg.Catalog.PollInterval, ReconcileEvery: cfg.Catalog.ReconcileEvery, PerPage: cfg.Catalog.PerPage,
		Authenticated: cfg.Upstream.User != "", Reader: cfg.Upstream.User, Multilingual: lang != "",
		MaxChangeBytes: cfg.Sync.MaxBytes, VerifyEvery: cfg.Catalog.VerifyEvery,
		SnapshotPath: cfg.SnapshotPath(lang), Upstream: cfg.Upstream.URL + "#" + lang,
	}
}

// loadAll loads every catalog, then keeps each fresh in the background until ctx ends; each failed
// poll counts in failures under its language.
func loadAll(ctx context.Context, catalogs map[string]*catalog.Catalog, log *zap.Logger,
	failures *prometheus.CounterVec) error {
	for lang, c := range catalogs {
		start := time.Now()
		if err := loadWithRetry(ctx, c, log); err != nil {
			return err
		}
		snap := c.Snapshot()
		sync := c.Health().Sync
		log.Info("catalog loaded", zap.String("language", lang), zap.Duration("took", time.Since(start)),
			zap.String("sync", sync.Mode), zap.Int64("sequence", sync.Seq), zap.Bool("from_snapshot", sync.Restored),
			zap.Bool("catching_up", sync.CatchingUp),
			zap.Int("events", len(snap.Events)), zap.Int("venues", len(snap.Venues)),
			zap.Int("organizers", len(snap.Organizers)),
			zap.Int("categories", len(snap.Categories)), zap.Int("tags", len(snap.Tags)),
			zap.Bool("authenticated", snap.Authenticated), zap.String("timezone", snap.Site.Timezone))
		if st := c.LastLoad(); st.Build > 0 {
			log.Info("catalog load split", zap.String("language", lang), zap.Float64("fetch_s", st.Fetch.Seconds()),
				zap.Float64("decode_s", st.Decode.Seconds()), zap.Float64("build_s", st.Build.Seconds()))
		}
		failed := failures.WithLabelValues(lang)
		go c.Run(ctx, func(err error) {
			failed.Inc()
			log.Warn("catalog poll failed; serving the last state", zap.String("language", lang), zap.Error(err))
		})
	}
	return nil
}

// loadWithRetry starts the catalog (from its snapshot file, or by a full load), retrying while the
// upstream is not reachable yet (a sidecar may start before its CMS), with a log line per failure.
// Configuration errors stop at once.
func loadWithRetry(ctx context.Context, cat *catalog.Catalog, log *zap.Logger) error {
	for wait := 500 * time.Millisecond; ; wait = min(wait*2, 10*time.Second) {
		err := cat.Start(ctx)
		if err == nil || !errors.Is(err, cmsclient.ErrUnavailable) {
			return err
		}
		log.Warn("upstream not reachable yet; retrying", zap.Error(err), zap.Duration("in", wait))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// translator returns the description translations of each language variant ("" = the default
// language); a language without a message catalog is served in English, with a warning at start.
func translator(languages []string, log *zap.Logger) func(lang string) func(string) string {
	for _, l := range languages {
		if _, ok := i18n.Translator(l); !ok {
			log.Warn("no message catalog for this language: its descriptions are served in English", zap.String("language", l),
				zap.Strings("catalogs", i18n.Languages()))
		}
	}
	return func(lang string) func(string) string {
		if lang == "" {
			lang = languages[0]
		}
		tr, _ := i18n.Translator(lang)
		return tr
	}
}

// newLogger writes JSON lines to out at the given level.
func newLogger(level string, out io.Writer) (*zap.Logger, error) {
	lvl, err := zap.ParseAtomicLevel(level)
	if err != nil {
		return nil, err
	}
	enc := zap.NewProductionEncoderConfig()
	enc.TimeKey = "ts"
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	enc.NameKey = "" // the access log's name routes its lines (accesslog.go); lines do not show it
	return zap.New(withBufferedAccessLog(zapcore.NewJSONEncoder(enc), zapcore.AddSync(out), lvl)), nil
}
