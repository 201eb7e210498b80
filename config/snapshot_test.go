package config

import (
	"strings"
	"testing"
	"time"
)

// The snapshot file: under the user's cache directory by default (named after the upstream), moved by
// CALSHIM_CATALOG_SNAPSHOT, "none" for no file; other languages add their code. The poll interval is 1 s.
func TestSnapshotPathAndPollDefault(t *testing.T) {
	env := map[string]string{"HOME": "/home/x", "XDG_CACHE_HOME": ""}
	c, _, err := Load("", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.Catalog.PollInterval != time.Second {
		t.Errorf("poll interval = %v, want 1s", c.Catalog.PollInterval)
	}
	def := c.SnapshotPath("")
	if !strings.Contains(def, "calshim") || !strings.HasSuffix(def, ".gob") {
		t.Errorf("default snapshot = %q", def)
	}
	other := c
	other.Upstream.URL = "http://other.example/wp-json"
	if other.SnapshotPath("") == def {
		t.Error("two upstreams share the default snapshot file")
	}
	env["CALSHIM_CATALOG_SNAPSHOT"] = "/var/lib/calshim/catalog.gob"
	if c, _, _ = Load("", func(k string) string { return env[k] }); c.SnapshotPath("de") != "/var/lib/calshim/catalog.gob.de" {
		t.Errorf("CALSHIM_CATALOG_SNAPSHOT with language = %q", c.SnapshotPath("de"))
	}
	env["CALSHIM_CATALOG_SNAPSHOT"] = "none"
	if c, _, _ = Load("", func(k string) string { return env[k] }); c.SnapshotPath("") != "" {
		t.Errorf("none = %q", c.SnapshotPath(""))
	}
}
