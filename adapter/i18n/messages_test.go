package i18n

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"calshim/adapter"
	"calshim/adapter/apidoc"
	"calshim/mapping"
)

// update rewrites locales/calshim.pot from apidoc (go generate ./adapter/i18n).
var update = flag.Bool("update", false, "rewrite locales/calshim.pot from the texts apidoc translates")

const potFile = "locales/calshim.pot"

// message is one text apidoc passes to Translate and where the documents show it.
type message struct {
	ID    string
	Where []string // paths in the index and /doc, in document order
}

// messages returns every distinct text apidoc translates, in the order of first use: it renders the
// namespace index and /doc with a Translate that records each text and returns a marker, then finds the
// markers in the bodies.
func messages(t testing.TB) []message {
	var out []message
	seen := map[string]int{}
	marker := func(i int) string { return "\x00" + strconv.Itoa(i) + "\x00" }
	o := apidoc.Options{
		Routes:    adapter.DocRoutes(),
		Namespace: "cal/events/v1",
		RESTRoot:  "http://localhost/wp-json/",
		Defaults:  func() (string, string) { return "2026-01-01 00:00:00", "2028-01-01 00:00:00" },
		Translate: func(english string) string {
			i, ok := seen[english]
			if !ok {
				i = len(out)
				seen[english] = i
				out = append(out, message{ID: english})
			}
			return marker(i)
		},
	}
	for _, doc := range []struct {
		name string
		body mapping.Object
	}{{"index", apidoc.Index(o)}, {"doc", apidoc.Doc(o)}} {
		walk(doc.body, "", func(path, s string) {
			path = doc.name + ": " + strings.TrimPrefix(path, ".")
			if !strings.HasPrefix(s, "\x00") {
				return
			}
			i, err := strconv.Atoi(strings.Trim(s, "\x00"))
			if err != nil || i >= len(out) || s != marker(i) {
				t.Fatalf("%s: unexpected marker %q", path, s)
			}
			out[i].Where = append(out[i].Where, path)
		})
	}
	for _, m := range out {
		if len(m.Where) == 0 {
			t.Fatalf("%q was translated but shows nowhere in the documents", m.ID)
		}
	}
	if len(out) == 0 {
		t.Fatal("apidoc translated no text")
	}
	return out
}

// walk calls f with the path of every string in a document built from mapping values.
func walk(v any, path string, f func(path, s string)) {
	switch v := v.(type) {
	case string:
		f(path, v)
	case mapping.Object:
		for _, kv := range v {
			walk(kv.Value, path+"."+kv.Key, f)
		}
	case []mapping.Object:
		for i, e := range v {
			walk(e, fmt.Sprintf("%s[%d]", path, i), f)
		}
	case []any:
		for i, e := range v {
			walk(e, fmt.Sprintf("%s[%d]", path, i), f)
		}
	case []string:
		for i, e := range v {
			walk(e, fmt.Sprintf("%s[%d]", path, i), f)
		}
	}
}

// pot returns the template for msgs.
func pot(msgs []message) []byte {
	var b strings.Builder
	b.WriteString(`# Template of calshim's API self-descriptions: the texts of the namespace index and of /doc.
# Generated from adapter/apidoc; do not edit. Regenerate with: go generate ./adapter/i18n
# A new language: copy this file to <lang>.po, set Language, translate every msgstr.
msgid ""
msgstr ""
"Project-Id-Version: calshim\n"
"PO-Revision-Date: YEAR-MO-DA HO:MI+ZONE\n"
"Last-Translator: FULL NAME <EMAIL@ADDRESS>\n"
"Language-Team: LANGUAGE\n"
"Language: \n"
"MIME-Version: 1.0\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Content-Transfer-Encoding: 8bit\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"
`)
	const maxWhere = 3
	for _, m := range msgs {
		b.WriteString("\n")
		for i, w := range m.Where {
			if i == maxWhere {
				fmt.Fprintf(&b, "#. ... and %d more\n", len(m.Where)-maxWhere)
				break
			}
			fmt.Fprintf(&b, "#. %s\n", w)
		}
		fmt.Fprintf(&b, "msgid %s\nmsgstr \"\"\n", poQuote(m.ID))
	}
	return []byte(b.String())
}

// poQuote returns s as a PO string literal (the C escapes gettext and gotext read).
func poQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`, "\r", `\r`).Replace(s) + `"`
}

// TestPOT checks that locales/calshim.pot lists exactly the texts apidoc translates; -update rewrites it.
func TestPOT(t *testing.T) {
	want := pot(messages(t))
	if *update {
		if err := os.WriteFile(potFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(potFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("%s is out of date with adapter/apidoc; run: go generate ./adapter/i18n", potFile)
	}
}
