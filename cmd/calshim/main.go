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
	"syscall"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"calshim/adapter"
	"calshim/adapter/i18n"
	"calshim/catalog"
	"calshim/cmsclient"
	"calshim/config"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "calshim:", err)
		os.Exit(1)
	}
}

// run starts calshim and blocks until ctx ends. It listens at once: until the catalog is loaded,
// /readyz and every v1 route answer 503 (a sidecar may start before its CMS); a CMS that cannot serve
// calshim at all (no plugin, bad credential) stops it with the reason.
func run(ctx context.Context, args []string, getenv func(string) string, logOut io.Writer) error {
	fs := flag.NewFlagSet("calshim", flag.ContinueOnError)
	file := fs.String("config", "", "YAML configuration file (optional)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := config.Load(*file, getenv)
	if err != nil {
		return err
	}
	log, err := newLogger(cfg.LogLevel, logOut)
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()

	catalogs := newCatalogs(cfg, log)
	variants := maps.Clone(catalogs)
	delete(variants, cfg.Languages[0]) // the default language is served by the default catalog
	srv := &http.Server{
		Handler: adapter.NewServer(catalogs[cfg.Languages[0]], log, adapter.Options{RESTRoot: cfg.RESTRoot,
			Namespaces: append([]string{"cal/events/v1"}, cfg.NamespaceAliases...), Languages: cfg.Languages[1:],
			Catalogs: variants, MaxPerPage: cfg.Catalog.MaxPerPage, Translate: translator(cfg.Languages, log),
			CacheTTL: cfg.ResponseCache.TTL, CacheMaxEntries: cfg.ResponseCache.MaxEntries,
			ImageAllowPrivate: cfg.Writes.ImageAllowPrivate, ImageMaxBytes: int64(cfg.Writes.ImageMaxBytes),
			NotifySecret: cfg.Catalog.NotifySecret}),
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second,
		IdleTimeout: 120 * time.Second,
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return err
	}
	log.Info("listening", zap.String("addr", ln.Addr().String()), zap.String("upstream", cfg.Upstream.URL))
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	go func() {
		if err := loadAll(ctx, catalogs, log); err != nil {
			errc <- err
		}
	}()
	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	log.Info("shutting down")
	if serr := srv.Shutdown(shutdown); serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
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
// language, shared by every variant.
func newCatalogs(cfg config.Config, log *zap.Logger) map[string]*catalog.Catalog {
	newCatalog := func(lang string) *catalog.Catalog {
		client := cmsclient.New(cfg.Upstream.URL, cfg.Upstream.User, cfg.Upstream.AppPassword, cfg.Upstream.Timeout)
		client.Concurrency = cfg.Upstream.Concurrency
		if lang != "" {
			client.SetDefaultQuery(cfg.Upstream.LanguageParam, lang)
		}
		return catalog.New(client, catalog.Options{
			Types: catalog.Types{
				Event: cfg.Mapping.EventType, Venue: cfg.Mapping.VenueType, Organizer: cfg.Mapping.OrganizerType,
				CategoryTax: "tribe_events_cat", TagTax: "post_tag",
				CategoryBase: cfg.Mapping.CategoryBase, TagBase: cfg.Mapping.TagBase,
			},
			PollInterval: cfg.Catalog.PollInterval, ReconcileEvery: cfg.Catalog.ReconcileEvery, PerPage: cfg.Catalog.PerPage,
			Authenticated: cfg.Upstream.User != "", Multilingual: lang != "",
			SnapshotPath: cfg.SnapshotPath(lang), Upstream: cfg.Upstream.URL + "#" + lang,
			Notify: func(event string, err error) {
				log.Warn(event, zap.String("language", lang), zap.Error(err))
			},
		})
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

// loadAll loads every catalog, then keeps each fresh in the background until ctx ends.
func loadAll(ctx context.Context, catalogs map[string]*catalog.Catalog, log *zap.Logger) error {
	for lang, c := range catalogs {
		start := time.Now()
		if err := loadWithRetry(ctx, c, log); err != nil {
			return err
		}
		snap := c.Snapshot()
		sync := c.Health().Sync
		log.Info("catalog loaded", zap.String("language", lang), zap.Duration("took", time.Since(start)),
			zap.String("sync", sync.Mode), zap.Int64("sequence", sync.Seq), zap.Bool("from_snapshot", sync.Restored),
			zap.Int("events", len(snap.Events)), zap.Int("venues", len(snap.Venues)),
			zap.Int("organizers", len(snap.Organizers)),
			zap.Int("categories", len(snap.Categories)), zap.Int("tags", len(snap.Tags)),
			zap.Bool("authenticated", snap.Authenticated), zap.String("timezone", snap.Site.Timezone))
		go c.Run(ctx, func(err error) {
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
	return zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(enc), zapcore.AddSync(out), lvl)), nil
}
