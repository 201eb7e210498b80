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
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "calshim:", err)
		os.Exit(1)
	}
}

// run starts calshim and blocks until ctx ends. ready, when not nil, receives the listening address
// once the catalog is loaded and the server accepts connections (tests listen on 127.0.0.1:0).
func run(ctx context.Context, args []string, getenv func(string) string, logOut io.Writer, ready chan<- string) error {
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

	newCatalog := func(lang string) *catalog.Catalog {
		client := cmsclient.New(cfg.Upstream.URL, cfg.Upstream.User, cfg.Upstream.AppPassword, cfg.Upstream.Timeout)
		client.Concurrency = cfg.Upstream.Concurrency
		if lang != "" {
			client.SetDefaultQuery(cfg.Upstream.LanguageParam, lang)
		}
		return catalog.New(client, catalog.Options{
			Types: catalog.Types{Event: cfg.Mapping.EventType, Venue: cfg.Mapping.VenueType, Organizer: cfg.Mapping.OrganizerType,
				CategoryTax: "tribe_events_cat", TagTax: "post_tag", CategoryBase: cfg.Mapping.CategoryTax, TagBase: cfg.Mapping.TagTax},
			PollInterval: cfg.Catalog.PollInterval, ReconcileEvery: cfg.Catalog.ReconcileEvery, PerPage: cfg.Catalog.PerPage,
			Authenticated: cfg.Upstream.User != "",
		})
	}
	// One catalog per language when the CMS is multilingual (the language passed upstream, the default
	// one included); otherwise every variant shares the default language's catalog.
	multilingual := cfg.Upstream.LanguageParam != ""
	catalogs := map[string]*catalog.Catalog{}
	for i, lang := range cfg.Languages {
		switch {
		case multilingual:
			catalogs[lang] = newCatalog(lang)
		case i == 0:
			catalogs[lang] = newCatalog("")
		}
	}
	cat := catalogs[cfg.Languages[0]]
	for lang, c := range catalogs {
		start := time.Now()
		if err := loadWithRetry(ctx, c, log); err != nil {
			return err
		}
		snap := c.Snapshot()
		log.Info("catalog loaded", zap.String("language", lang), zap.Duration("took", time.Since(start)),
			zap.Int("events", len(snap.Events)), zap.Int("venues", len(snap.Venues)), zap.Int("organizers", len(snap.Organizers)),
			zap.Int("categories", len(snap.Categories)), zap.Int("tags", len(snap.Tags)),
			zap.Bool("authenticated", snap.Authenticated), zap.String("timezone", snap.Site.Timezone))
		go c.Run(ctx, func(err error) {
			log.Warn("catalog poll failed; serving the last state", zap.String("language", lang), zap.Error(err))
		})
	}
	delete(catalogs, cfg.Languages[0])

	srv := &http.Server{
		Handler: adapter.NewServer(cat, log, adapter.Options{RESTRoot: cfg.RESTRoot,
			Namespaces: append([]string{"cal/events/v1"}, cfg.NamespaceAliases...), Languages: cfg.Languages[1:],
			Catalogs: catalogs, MaxPerPage: cfg.Catalog.MaxPerPage, Translate: translator(cfg.Languages, log),
			CacheTTL: cfg.ResponseCache.TTL, CacheMaxEntries: cfg.ResponseCache.MaxEntries,
			ImageAllowPrivate: cfg.Writes.ImageAllowPrivate, ImageMaxBytes: int64(cfg.Writes.ImageMaxBytes)}),
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second,
		IdleTimeout: 120 * time.Second,
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return err
	}
	log.Info("listening", zap.String("addr", ln.Addr().String()), zap.String("upstream", cfg.Upstream.URL))
	if ready != nil {
		ready <- ln.Addr().String()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	log.Info("shutting down")
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// loadWithRetry loads the catalog, retrying while the upstream is not reachable yet (a sidecar may
// start before its CMS), with a log line per failure. Configuration errors stop at once.
func loadWithRetry(ctx context.Context, cat *catalog.Catalog, log *zap.Logger) error {
	for wait := 500 * time.Millisecond; ; wait = min(wait*2, 10*time.Second) {
		err := cat.Load(ctx)
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
