package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadDefaultsWithoutFile(t *testing.T) {
	c, _, err := Load("", envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != "127.0.0.1:8080" || c.RESTRoot != "/wp-json" || c.Catalog.PerPage != 10 || c.Catalog.MaxPerPage != 50 {
		t.Errorf("defaults = %+v", c)
	}
}

func TestEnvironmentWinsOverFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.yaml")
	yaml := "listen: 127.0.0.1:9000\nupstream:\n  url: http://cms.example/wp-json\n  timeout: 3s\ncatalog:\n  poll_interval: 7s\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _, err := Load(file, envOf(map[string]string{"CALSHIM_LISTEN": "127.0.0.1:9001", "CALSHIM_UPSTREAM_USER": "reader",
		"CALSHIM_UPSTREAM_APP_PASSWORD": "secret", "CALSHIM_CATALOG_PER_PAGE": "20"}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Listen, "127.0.0.1:9001"; got != want {
		t.Errorf("Listen = %q, want %q", got, want)
	}
	if got, want := c.Upstream.URL, "http://cms.example/wp-json"; got != want {
		t.Errorf("Upstream.URL = %q, want %q", got, want)
	}
	if c.Upstream.Timeout != 3*time.Second || c.Catalog.PollInterval != 7*time.Second || c.Catalog.PerPage != 20 {
		t.Errorf("durations/ints not applied: %+v", c)
	}
}

func TestInvalidConfigurations(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"bad url", map[string]string{"CALSHIM_UPSTREAM_URL": "ftp://x"}, "upstream.url"},
		{"user without password", map[string]string{"CALSHIM_UPSTREAM_USER": "u"}, "together"},
		{"bad duration", map[string]string{"CALSHIM_CATALOG_POLL_INTERVAL": "soon"}, "CALSHIM_CATALOG_POLL_INTERVAL"},
		{"bad int", map[string]string{"CALSHIM_CATALOG_PER_PAGE": "ten"}, "CALSHIM_CATALOG_PER_PAGE"},
		{"rest root", map[string]string{"CALSHIM_REST_ROOT": "wp-json/"}, "rest_root"},
		{"log level", map[string]string{"CALSHIM_LOG_LEVEL": "loud"}, "log_level"},
		{"short notify secret", map[string]string{"CALSHIM_CATALOG_NOTIFY_SECRET": "short"}, "notify_secret"},
		{"ops address", map[string]string{"CALSHIM_OPS_LISTEN": "9090"}, "ops_listen"},
		{"ops on listen", map[string]string{"CALSHIM_OPS_LISTEN": "127.0.0.1:8080"}, "ops_listen"},
		{"negative expensive unit", map[string]string{"CALSHIM_LIMITS_EXPENSIVE_UNIT": "-1"}, "expensive_unit"},
		{"negative expensive wait", map[string]string{"CALSHIM_LIMITS_EXPENSIVE_WAIT": "-1s"}, "expensive_wait"},
		{"expensive rate without burst", map[string]string{"CALSHIM_LIMITS_EXPENSIVE_BURST": "0"}, "burst"},
		{"purges without s-maxage", map[string]string{"CALSHIM_EDGE_CACHE_PURGE_URLS": "http://127.0.0.1:6081/"},
			"need an s_maxage"},
		{"negative s-maxage", map[string]string{"CALSHIM_EDGE_CACHE_S_MAXAGE": "-1s"}, "s_maxage"},
		{"purge URL", map[string]string{"CALSHIM_EDGE_CACHE_S_MAXAGE": "1m",
			"CALSHIM_EDGE_CACHE_PURGE_URLS": "varnish:6081"}, "purge_urls"},
		{"key header", map[string]string{"CALSHIM_EDGE_CACHE_KEY_HEADER": "Surrogate Key"}, "key_header"},
		{"purge header", map[string]string{"CALSHIM_EDGE_CACHE_PURGE_HEADER": "token"}, "purge_header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Load("", envOf(tc.env))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load() error = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestMissingFileIsAnError(t *testing.T) {
	if _, _, err := Load(filepath.Join(t.TempDir(), "nope.yaml"), envOf(nil)); err == nil {
		t.Error("Load(missing file) = nil error")
	}
}

func TestListsFromEnvironment(t *testing.T) {
	c, _, err := Load("", envOf(map[string]string{"CALSHIM_NAMESPACE_ALIASES": "none", "CALSHIM_LANGUAGES": "en, fr"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.NamespaceAliases) != 0 || len(c.Languages) != 2 || c.Languages[1] != "fr" {
		t.Errorf("aliases %v, languages %v", c.NamespaceAliases, c.Languages)
	}
	if _, _, err := Load("", envOf(map[string]string{"CALSHIM_LANGUAGES": "en,../x"})); err == nil {
		t.Error("bad language code accepted")
	}
	if _, _, err := Load("", envOf(map[string]string{"CALSHIM_NAMESPACE_ALIASES": "tribe"})); err == nil {
		t.Error("bad namespace accepted")
	}
}

// config.example.yaml holds every key with its default: loading it gives the defaults.
func TestExampleFileIsTheDefaults(t *testing.T) {
	c, warnings, err := Load("../config.example.yaml", envOf(nil))
	if err != nil || len(warnings) > 0 {
		t.Fatal(err, warnings)
	}
	if got, want := fmt.Sprintf("%+v", c), fmt.Sprintf("%+v", Default()); got != want {
		t.Errorf("example file = %s\ndefaults     = %s", got, want)
	}
}
