package config

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// config.example.yaml and docs/configuration.md are generated from the table: a change to one of
// them alone, or to the table without regenerating, fails here.
func TestGeneratedFilesMatchTheTable(t *testing.T) {
	for name, want := range map[string][]byte{ExampleFile: ExampleYAML(), ReferenceFile: Reference()} {
		got, err := os.ReadFile(filepath.Join("..", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the table in config/settings.go: run `go generate ./config` "+
				"(edit the table, not the file)", name)
		}
	}
}

// Every field of Config is set by exactly one setting, and keys follow one pattern: lower-case
// words, at most one section, which is described and whose keys stay together.
func TestTableCoversConfigOnce(t *testing.T) {
	var c Config
	fields := map[uintptr]string{}
	var walk func(v reflect.Value, name string)
	walk = func(v reflect.Value, name string) {
		if v.Kind() == reflect.Struct {
			for i := range v.NumField() {
				walk(v.Field(i), name+"."+v.Type().Field(i).Name)
			}
			return
		}
		fields[v.Addr().Pointer()] = name
	}
	walk(reflect.ValueOf(&c).Elem(), "Config")

	keyPattern := regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?$`)
	done := map[string]bool{}
	section := ""
	for _, s := range settings {
		ptr := reflect.ValueOf(s.value.field(&c)).Pointer()
		if _, ok := fields[ptr]; !ok {
			t.Errorf("%s sets no field of Config, or one another key sets too", s.key)
		}
		delete(fields, ptr)
		if !keyPattern.MatchString(s.key) || strings.HasSuffix(s.key, fileSuffix) || s.desc == "" {
			t.Errorf("%s: keys are lower-case words, one section at most, not ending in _file, with a description", s.key)
		}
		parent, _, _ := strings.Cut(s.key, ".")
		if !strings.Contains(s.key, ".") {
			parent = ""
		}
		if parent != section && done[parent] || parent != "" && sections[parent] == "" {
			t.Errorf("%s: its section's keys must stay together, and the section be described", s.key)
		}
		done[section], section = true, parent
	}
	for _, name := range fields {
		t.Errorf("%s is set by no setting", name)
	}
}

// The table's defaults are valid, and Default() holds them.
func TestDefaultsAreTheTables(t *testing.T) {
	d := Default()
	if err := d.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, s := range settings {
		var only Config
		s.value.reset(&only)
		if got, want := s.value.yaml(&d), s.value.yaml(&only); got != want {
			t.Errorf("Default().%s = %s, table says %s", s.key, got, want)
		}
	}
	// a Default() is the caller's: changing its lists leaves the next one alone
	d.Languages[0] = "xx"
	if Default().Languages[0] != "en" {
		t.Error("Default() shares its lists with the table")
	}
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// An unknown key (a misspelling would leave its setting at the default) is an error naming its
// path and line; so is a key given twice, a section that is not a mapping, a value of the wrong kind.
func TestFileErrors(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"listen: 127.0.0.1:1\nupstream:\n  url: http://x/wp-json\n  passwrd: x\n", "line 4: unknown key upstream.passwrd"},
		{"lisen: 127.0.0.1:1\n", "line 1: unknown key lisen"},
		{"catalog:\n  per_page: ten\n", `line 2: catalog.per_page: "ten" is not an integer`},
		{"catalog:\n  poll_interval: 5\n", "catalog.poll_interval"},
		{"upstream: http://x\n", "upstream must be a mapping"},
		{"languages: en\n", "languages: must be a list"},
		{"languages: [[en]]\n", "single value"},
		{"listen: [a]\n", "listen: must be a string"},
		{"listen: a:1\nlisten: b:2\n", "line 2: listen is set twice (first on line 1)"},
		{"- listen\n", "the file must be a mapping"},
		{"listen_file: /etc/hostname\n", "unknown key listen_file"},
		{"catalog:\n  per_page: 0\n", "catalog.per_page must be at least 1, got 0"},
	} {
		_, _, err := Load(writeFile(t, tc.yaml), envOf(nil))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to say %q", tc.yaml, err, tc.want)
		}
	}
	if c, _, err := Load(writeFile(t, "# nothing\n"), envOf(nil)); err != nil || c.Listen != Default().Listen {
		t.Errorf("a file of comments: %v", err)
	}
}

// Every secret can be read from a file, by a variable or a key, without its trailing newline;
// setting both the value and its file is an error; other keys have no file.
func TestSecretsFromFiles(t *testing.T) {
	secret := writeFile(t, "a-secret-of-some-length\n")
	env := map[string]string{"CALSHIM_UPSTREAM_USER": "reader", "CALSHIM_UPSTREAM_APP_PASSWORD_FILE": secret,
		"CALSHIM_CATALOG_NOTIFY_SECRET_FILE": secret, "CALSHIM_EDGE_CACHE_PURGE_HEADER_FILE": writeFile(t, "Fastly-Key: k\r\n"),
		"CALSHIM_LISTEN_FILE": secret}
	c, _, err := Load("", envOf(env))
	if err != nil {
		t.Fatal(err)
	}
	if c.Upstream.AppPassword != "a-secret-of-some-length" || c.Catalog.NotifySecret != c.Upstream.AppPassword ||
		c.EdgeCache.PurgeHeader != "Fastly-Key: k" || c.Listen != Default().Listen {
		t.Errorf("from files: %q %q %q %q", c.Upstream.AppPassword, c.Catalog.NotifySecret, c.EdgeCache.PurgeHeader, c.Listen)
	}

	c, _, err = Load(writeFile(t, "upstream:\n  user: reader\n  app_password_file: "+secret+"\n"), envOf(nil))
	if err != nil || c.Upstream.AppPassword != "a-secret-of-some-length" {
		t.Errorf("app_password_file: %q, %v", c.Upstream.AppPassword, err)
	}

	for _, tc := range []struct {
		yaml string
		env  map[string]string
		want string
	}{
		{"", map[string]string{"CALSHIM_CATALOG_NOTIFY_SECRET": "another-secret-here", "CALSHIM_CATALOG_NOTIFY_SECRET_FILE": secret},
			"CALSHIM_CATALOG_NOTIFY_SECRET and CALSHIM_CATALOG_NOTIFY_SECRET_FILE are both set"},
		{"catalog:\n  notify_secret: another-secret-here\n  notify_secret_file: " + secret + "\n", nil,
			"catalog.notify_secret and catalog.notify_secret_file are both set"},
		{"", map[string]string{"CALSHIM_CATALOG_NOTIFY_SECRET_FILE": writeFile(t, "\n")}, "is empty"},
		{"", map[string]string{"CALSHIM_CATALOG_NOTIFY_SECRET_FILE": secret + ".missing"}, "CALSHIM_CATALOG_NOTIFY_SECRET_FILE"},
		{"edge_cache:\n  purge_header_file: [a]\n", nil, "edge_cache.purge_header_file: must be the path of a file"},
	} {
		path := ""
		if tc.yaml != "" {
			path = writeFile(t, tc.yaml)
		}
		if _, _, err := Load(path, envOf(tc.env)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q %v: error %v, want it to say %q", tc.yaml, tc.env, err, tc.want)
		}
	}
}

// A secret breaking its rule is named, never written out.
func TestSecretNotInErrors(t *testing.T) {
	_, _, err := Load("", envOf(map[string]string{"CALSHIM_CATALOG_NOTIFY_SECRET": "short-one"}))
	if err == nil || !strings.Contains(err.Error(), "catalog.notify_secret") || strings.Contains(err.Error(), "short-one") {
		t.Errorf("error %v", err)
	}
}

// Variables named before the pattern still work, with a warning naming the new one; both names
// at once is an error. Retired keys are ignored with a warning that says what replaced them.
func TestOldNamesWarn(t *testing.T) {
	c, warnings, err := Load("", envOf(map[string]string{"CALSHIM_SNAPSHOT": "none",
		"CALSHIM_MAPPING_TAG_TAXONOMY": "post_tag", "CALSHIM_SYNC_MAX_CHANGES": "10000"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Catalog.Snapshot != "none" || c.Mapping.TagBase != "post_tag" {
		t.Errorf("old names not read: %q %q", c.Catalog.Snapshot, c.Mapping.TagBase)
	}
	want := []string{"CALSHIM_MAPPING_TAG_TAXONOMY is renamed CALSHIM_MAPPING_TAG_TAX",
		"CALSHIM_SNAPSHOT is renamed CALSHIM_CATALOG_SNAPSHOT",
		"CALSHIM_SYNC_MAX_CHANGES is ignored: replaced by sync.max_bytes"}
	if len(warnings) != len(want) {
		t.Fatalf("warnings %q, want %d", warnings, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(warnings[i], w) {
			t.Errorf("warning %q, want %q", warnings[i], w)
		}
	}

	_, warnings, err = Load(writeFile(t, "sync:\n  max_changes: 10000\n  max_bytes: 100\n"), envOf(nil))
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "sync.max_changes (line 2) is ignored: replaced by sync.max_bytes") {
		t.Errorf("sync.max_changes: %q, %v", warnings, err)
	}

	_, _, err = Load("", envOf(map[string]string{"CALSHIM_SNAPSHOT": "none", "CALSHIM_CATALOG_SNAPSHOT": "/x"}))
	if err == nil || !strings.Contains(err.Error(), "CALSHIM_CATALOG_SNAPSHOT and CALSHIM_SNAPSHOT are both set") {
		t.Errorf("both names: %v", err)
	}
	_, warnings, err = Load("", envOf(map[string]string{"CALSHIM_CATALOG_SNAPSHOT": "none"}))
	if err != nil || len(warnings) != 0 {
		t.Errorf("new name: %q %v", warnings, err)
	}
}

// A configuration file of any content is read or refused, never a panic.
func FuzzDecodeYAML(f *testing.F) {
	f.Add([]byte("listen: 127.0.0.1:1\nlanguages: [en]\ncatalog:\n  per_page: 5\n  notify_secret_file: /nonexistent\n"))
	f.Add([]byte("upstream:\n  url: http://x/wp-json\n  bogus: [1, {a: b}]\nsync: {max_changes: 3}\n"))
	f.Add([]byte("a: &x {listen: b}\nupstream: *x\nlanguages: [en, *x]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c := Default()
		if _, err := decodeYAML(&c, b); err == nil {
			_ = c.Validate()
		}
	})
}
