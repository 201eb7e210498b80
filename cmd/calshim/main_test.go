package main

import (
	"context"
	"testing"

	"go.uber.org/zap"

	"calshim/config"
	"calshim/internal/testkit/wpfake"
)

// With upstream.language_param set, every language gets its own catalog, and each one's upstream
// requests carry its language; without it, one catalog serves every variant.
func TestNewCatalogsPerLanguage(t *testing.T) {
	wp := wpfake.New(t)
	cfg := config.Default()
	cfg.Upstream.URL = wp.Root
	cfg.Languages = []string{"en", "de"}
	if got := len(newCatalogs(cfg, zap.NewNop(), nil)); got != 1 {
		t.Fatalf("without language_param: %d catalogs, want 1", got)
	}
	cfg.Upstream.LanguageParam = "lang"
	catalogs := newCatalogs(cfg, zap.NewNop(), nil)
	if len(catalogs) != 2 {
		t.Fatalf("with language_param: %d catalogs, want 2", len(catalogs))
	}
	for _, lang := range cfg.Languages {
		wp.ResetRequests()
		if err := catalogs[lang].Load(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, r := range wp.Requests() {
			if got := r.Query.Get("lang"); got != lang {
				t.Errorf("%s catalog: %s sent lang=%q", lang, r, got)
			}
		}
	}
}
