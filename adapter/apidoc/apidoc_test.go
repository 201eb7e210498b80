package apidoc_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"calshim/adapter"
	"calshim/adapter/apidoc"
	"calshim/internal/testkit/jsontest"
	"calshim/mapping"
)

// The recorded responses of the original (internal/testkit/testdata/examples/001-index.json and
// 003-doc.json).
const (
	recordedNS   = "tribe/events/v1"
	recordedRoot = "http://127.0.0.1:8881/wp-json/"
	// recordedServer is servers[0].url as the original sends it: without the port (its bug).
	recordedServer = "http://127.0.0.1/wp-json/tribe/events/v1/"
)

// routes are the routes the documents describe: the route table's.
var routes = adapter.DocRoutes()

// recordedDefaults are the start_date/end_date defaults the recorded index shows.
func recordedDefaults() (string, string) { return "2026-11-21 18:59:00", "2028-11-22 18:54:25" }

func TestBodiesMatchRecording(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ns, root   string
		wantServer string
	}{
		{"recorded namespace and root", recordedNS, recordedRoot, "http://127.0.0.1:8881/wp-json/tribe/events/v1/"},
		{"other namespace and language root", "cal/events/v1", "http://localhost:9999/de/wp-json/", "http://localhost:9999/de/wp-json/cal/events/v1/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := apidoc.Options{Routes: routes, Namespace: tc.ns, RESTRoot: tc.root, Defaults: recordedDefaults, PerPage: 10}
			subst := strings.NewReplacer(strings.TrimSuffix(recordedRoot, "/"), strings.TrimSuffix(tc.root, "/"), recordedNS, tc.ns)

			wantIndex := rewrite(recordedBody(t, "001-index.json"), subst)
			gotIndex := decode(t, mapping.EncodeJSON(apidoc.Index(o)))
			assertSame(t, "index", gotIndex, wantIndex)

			// The one accepted difference: the original drops the port from servers[0].url.
			wantDoc := recordedBody(t, "003-doc.json")
			server := wantDoc.(object).At("servers").([]any)[0].(object)
			if got := server.At("url"); got != recordedServer {
				t.Fatalf("recorded servers[0].url = %v, want %q", got, recordedServer)
			}
			server.Set("url", tc.wantServer)
			wantDoc = rewrite(wantDoc, subst)
			gotDoc := decode(t, mapping.EncodeJSON(apidoc.Doc(o)))
			assertSame(t, "doc", gotDoc, wantDoc)

			if tc.ns != recordedNS {
				for name, body := range map[string]any{"index": gotIndex, "doc": gotDoc} {
					for _, old := range []string{"tribe", "127.0.0.1", "8881"} {
						walkStrings(body, func(path, s string) {
							if strings.Contains(s, old) {
								t.Errorf("%s%s: %q still holds %q", name, path, s, old)
							}
						})
					}
				}
			}
		})
	}
}

// TestRawEncoding checks WordPress' escaping on the raw prefixes the recording kept.
func TestRawEncoding(t *testing.T) {
	o := apidoc.Options{Routes: routes, Namespace: recordedNS, RESTRoot: recordedRoot, Defaults: recordedDefaults}
	for _, tc := range []struct {
		file string
		body mapping.Object
	}{
		{"001-index.json", apidoc.Index(o)},
		{"003-doc.json", apidoc.Doc(o)},
	} {
		var rec struct {
			Prefix string `json:"body_raw_prefix"`
		}
		if err := json.Unmarshal(readFile(t, tc.file), &rec); err != nil || rec.Prefix == "" {
			t.Fatalf("%s: no body_raw_prefix (%v)", tc.file, err)
		}
		if got := string(mapping.EncodeJSON(tc.body)); !strings.HasPrefix(got, rec.Prefix) {
			t.Errorf("%s: body starts %q, want %q", tc.file, got[:len(rec.Prefix)], rec.Prefix)
		}
	}
}

func TestDefaults(t *testing.T) {
	for _, tc := range []struct {
		name      string
		o         apidoc.Options
		perPage   any
		hasDates  bool
		startDate any
	}{
		{"per_page unset means 10", apidoc.Options{Routes: routes, Defaults: recordedDefaults}, "10", true, "2026-11-21 18:59:00"},
		{"per_page from options", apidoc.Options{Routes: routes, PerPage: 25, Defaults: recordedDefaults}, "25", true, "2026-11-21 18:59:00"},
		{"no date defaults", apidoc.Options{Routes: routes}, "10", false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Namespace, tc.o.RESTRoot = "cal/events/v1", "http://x/wp-json/"
			args := decode(t, mapping.EncodeJSON(apidoc.Index(tc.o))).(object).At("routes").(object).
				At("/cal/events/v1/events").(object).At("endpoints").([]any)[0].(object).At("args").(object)
			if got := args.At("per_page").(object).At("default"); got != tc.perPage {
				t.Errorf("per_page default = %v, want %v", got, tc.perPage)
			}
			start := args.At("start_date").(object)
			if _, ok := start.Get("default"); ok != tc.hasDates {
				t.Errorf("start_date has default = %v, want %v", ok, tc.hasDates)
			}
			if got := start.At("default"); tc.hasDates && got != tc.startDate {
				t.Errorf("start_date default = %v, want %v", got, tc.startDate)
			}
			if got := start[0].Key; tc.hasDates && got != "default" {
				t.Errorf("start_date keys start with %q, want default", got)
			}
		})
	}
}

// TestTranslate checks that every description and the title go through Translate and nothing else
// does.
func TestTranslate(t *testing.T) {
	en := apidoc.Options{Routes: routes, Namespace: "cal/events/v1", RESTRoot: "http://x/de/wp-json/", Defaults: recordedDefaults}
	de := en
	de.Translate = func(s string) string { return "DE:" + s }
	for name, render := range map[string]func(apidoc.Options) mapping.Object{"index": apidoc.Index, "doc": apidoc.Doc} {
		got, want := decode(t, mapping.EncodeJSON(render(de))), decode(t, mapping.EncodeJSON(render(en)))
		translated := 0
		var walk func(path string, g, w any)
		walk = func(path string, g, w any) {
			switch w := w.(type) {
			case object:
				for i, m := range w {
					walk(path+"."+m.Key, g.(object)[i].Value, m.Value)
				}
			case []any:
				for i := range w {
					walk(fmt.Sprintf("%s[%d]", path, i), g.([]any)[i], w[i])
				}
			case string:
				translatable := strings.HasSuffix(path, ".description") || path == ".info.title"
				switch {
				case translatable && g != "DE:"+w:
					t.Errorf("%s%s = %q, want it translated", name, path, g)
				case !translatable && g != w:
					t.Errorf("%s%s = %q, want %q untranslated", name, path, g, w)
				case translatable:
					translated++
				}
			}
		}
		walk("", got, want)
		if translated < 100 {
			t.Errorf("%s: only %d translated texts", name, translated)
		}
	}
}

// object is a decoded JSON object that keeps its key order.
type object = jsontest.Object

// decode decodes JSON into objects, []any, strings, json.Numbers, bools and nils.
func decode(t *testing.T, data []byte) any {
	t.Helper()

	return jsontest.MustDecode(t, data)
}

// readFile reads a recorded example of the original ("001-index.json").
func readFile(t *testing.T, name string) []byte {
	t.Helper()

	data, err := os.ReadFile(filepath.Join(jsontest.ExamplesDir(), name))
	if err != nil {
		t.Fatal(err)
	}

	return data
}

// recordedBody returns the body of a recorded response.
func recordedBody(t *testing.T, name string) any {
	t.Helper()

	body, ok := decode(t, readFile(t, name)).(object).Get("body")
	if !ok {
		t.Fatalf("%s: no body", name)
	}

	return body
}

// rewrite returns v with r applied to every key and string.
func rewrite(v any, r *strings.Replacer) any {
	switch v := v.(type) {
	case object:
		out := make(object, len(v))
		for i, m := range v {
			out[i] = jsontest.Member{Key: r.Replace(m.Key), Value: rewrite(m.Value, r)}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i := range v {
			out[i] = rewrite(v[i], r)
		}
		return out
	case string:
		return r.Replace(v)
	}

	return v
}

// walkStrings calls f with every key and string of v.
func walkStrings(v any, f func(path, s string)) {
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case object:
			for _, m := range v {
				f(path, m.Key)
				walk(path+"."+m.Key, m.Value)
			}
		case []any:
			for i := range v {
				walk(fmt.Sprintf("%s[%d]", path, i), v[i])
			}
		case string:
			f(path, v)
		}
	}
	walk("", v)
}

// assertSame reports every difference between got and want, keys compared in order.
func assertSame(t *testing.T, name string, got, want any) {
	t.Helper()

	for _, d := range jsontest.Truncate(jsontest.Diff(got, want), 20) {
		t.Errorf("%s%s", name, d)
	}
}
