package i18n

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/leonelquinteros/gotext"

	"calshim/adapter"
	"calshim/adapter/apidoc"
	"calshim/mapping"
)

// shipped returns Source and the language of every locales/*.po on disk, sorted: what Languages must
// report. A new catalog needs no change here.
func shipped(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("locales/*.po")
	if err != nil {
		t.Fatal(err)
	}
	langs := []string{Source}
	for _, f := range files {
		if lang := strings.TrimSuffix(filepath.Base(f), ".po"); lang != Source {
			langs = append(langs, lang)
		}
	}
	slices.Sort(langs)
	return langs
}

// templateIDs returns the message IDs of locales/calshim.pot, sorted.
func templateIDs(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(potFile)
	if err != nil {
		t.Fatal(err)
	}
	po := gotext.NewPo()
	po.Parse(data)
	var ids []string
	for id := range po.GetDomain().GetTranslations() {
		if id != "" {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	if len(ids) < 100 {
		t.Fatalf("%s holds only %d texts", potFile, len(ids))
	}
	return ids
}

func TestLanguages(t *testing.T) {
	got, want := Languages(), shipped(t)
	if !slices.Equal(got, want) {
		t.Errorf("Languages() = %v, want %v", got, want)
	}
	for _, lang := range []string{"de", "en", "es", "fr", "it", "nl"} {
		if !slices.Contains(got, lang) {
			t.Errorf("Languages() = %v lacks %q", got, lang)
		}
	}
	for _, lang := range got {
		if tr, ok := Translator(lang); !ok || tr == nil {
			t.Errorf("Translator(%q) = _, %v, want a translator", lang, ok)
		}
	}
	got[0] = "mutated"
	if Languages()[0] != want[0] {
		t.Error("Languages() shares its slice with the caller")
	}
}

// TestCatalogsComplete checks every shipped catalog against the template: each text translated, nothing
// else in it, the Language header naming the file, no fuzzy entries (GNU gettext skips them, gotext
// would not).
func TestCatalogsComplete(t *testing.T) {
	ids := templateIDs(t)
	for lang, po := range catalogs() {
		file := "locales/" + lang + ".po"
		var missing []string
		for _, id := range ids {
			if !po.IsTranslated(id) {
				missing = append(missing, fmt.Sprintf("%q", id))
			}
		}
		if len(missing) > 0 {
			t.Errorf("%s lacks %d of the %d texts of %s:\n\t%s", file, len(missing), len(ids), potFile, strings.Join(missing, "\n\t"))
		}
		var extra []string
		for id := range po.GetDomain().GetTranslations() {
			if id != "" && !slices.Contains(ids, id) {
				extra = append(extra, fmt.Sprintf("%q", id))
			}
		}
		if len(extra) > 0 {
			slices.Sort(extra)
			t.Errorf("%s has %d texts %s does not (stale, or broken quoting):\n\t%s", file, len(extra), potFile, strings.Join(extra, "\n\t"))
		}
		if po.Language != lang {
			t.Errorf("%s: Language header = %q, want %q", file, po.Language, lang)
		}
		data, err := locales.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if regexp.MustCompile(`(?m)^#,.*\bfuzzy\b`).Match(data) {
			t.Errorf("%s has fuzzy entries; review them and drop the flag", file)
		}
	}
}

func TestFallbackToEnglish(t *testing.T) {
	de, ok := Translator("de")
	if !ok {
		t.Fatal("no German translator")
	}
	for _, s := range []string{
		"A text no catalog has",
		"100% sure, %s %d %(name)s", // no formatting happens
		"the event post ID ",        // IDs match exactly
		"",                          // the empty ID is the header, not a text
	} {
		if got := de(s); got != s {
			t.Errorf("de(%q) = %q, want it unchanged", s, got)
		}
	}

	// An entry a catalog leaves empty shows in English, as in GNU gettext.
	po := gotext.NewPo()
	po.Parse([]byte("msgid \"\"\nmsgstr \"Language: xx\\n\"\n\nmsgid \"Untranslated\"\nmsgstr \"\"\n\nmsgid \"Translated\"\nmsgstr \"Übersetzt\"\n"))
	tr := translator(po)
	for in, want := range map[string]string{"Untranslated": "Untranslated", "Translated": "Übersetzt", "Absent": "Absent"} {
		if got := tr(in); got != want {
			t.Errorf("tr(%q) = %q, want %q", in, got, want)
		}
	}

	en, _ := Translator(Source)
	if got := en("The event slug"); got != "The event slug" {
		t.Errorf("en = %q, want the identity", got)
	}
}

func TestUnknownLanguage(t *testing.T) {
	for _, lang := range []string{"xx", "", "DE", "de_DE", "de-DE", " de", "calshim", "locales/de", "../de"} {
		if tr, ok := Translator(lang); ok || tr != nil {
			t.Errorf("Translator(%q) = %v, %v, want nil, false", lang, tr != nil, ok)
		}
	}
}

// technical are names the translations keep as they are, wherever the English text has them.
var technical = []string{"CSV", "UTC", "REST", "URL", "ID", "WordPress", "Swagger", "TEC", "Event Aggregator", "Events Calendar Pro", "The Events Calendar"}

var (
	quoted = regexp.MustCompile(`"[^"]*"`)
	// identifier matches parameter names and patterns: start_date/end_date, starts_*/ends_*, post_parent.
	identifier = regexp.MustCompile(`[A-Za-z]+(?:[_*/][A-Za-z_*]*)+`)
)

// TestTokensAndEscaping checks that quoted words, parameter names and product names survive translation,
// that the PO quoting came through (no stray backslashes or control characters) and that the strings with
// quotes read back intact.
func TestTokensAndEscaping(t *testing.T) {
	ids := templateIDs(t)
	withQuotes := 0
	for _, lang := range shipped(t) {
		tr, _ := Translator(lang)
		for _, id := range ids {
			got := tr(id)
			var want []string
			want = append(want, quoted.FindAllString(id, -1)...)
			want = append(want, identifier.FindAllString(id, -1)...)
			for _, name := range technical {
				if strings.Contains(id, name) {
					want = append(want, name)
				}
			}
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("%s: %q lost %q: %q", lang, id, w, got)
				}
			}
			if strings.ContainsAny(got, "\\\n\r\t") || got != strings.TrimSpace(got) {
				t.Errorf("%s: %q = %q has escapes, control characters or outer spaces", lang, id, got)
			}
			if strings.Count(got, `"`) != strings.Count(id, `"`) {
				t.Errorf("%s: %q = %q: quotes differ", lang, id, got)
			}
			if lang == "en" && strings.Contains(id, `"`) {
				withQuotes++
			}
		}
	}
	if withQuotes == 0 {
		t.Fatal("the template has no text with quotes; the escaping check tests nothing")
	}

	const event = `Limit result set to terms assigned to a specific event (an alias of the "post" parameter)`
	de, _ := Translator("de")
	if got, want := de(event), `Ergebnismenge auf Begriffe beschränken, die einer bestimmten Veranstaltung zugeordnet sind (ein Alias des Parameters "post")`; got != want {
		t.Errorf("de(%q) = %q, want %q", event, got, want)
	}
	// The JSON encoding escapes the quotes once more.
	if got := string(mapping.EncodeJSON(de(event))); !strings.Contains(got, `\"post\"`) {
		t.Errorf("JSON of the German text = %s, want \\\"post\\\" in it", got)
	}
}

// TestGNUGettext checks the catalogs with GNU msgfmt when it is installed: they are standard PO files.
func TestGNUGettext(t *testing.T) {
	msgfmt, err := exec.LookPath("msgfmt")
	if err != nil {
		t.Skip("msgfmt not installed")
	}
	for _, lang := range shipped(t) {
		if lang == Source {
			continue
		}
		out, err := exec.Command(msgfmt, "--check", "--statistics", "-o", os.DevNull, "locales/"+lang+".po").CombinedOutput()
		if err != nil {
			t.Errorf("msgfmt --check %s.po: %v\n%s", lang, err, out)
		}
	}
}

// TestTranslatedDocuments renders the namespace index and /doc in every shipped language: the structure,
// every key in its order and every other value stay those of English; every description (and /doc's
// title) is the catalog's text. The German index is spot-checked.
func TestTranslatedDocuments(t *testing.T) {
	en := apidoc.Options{
		Routes:    adapter.DocRoutes(),
		Namespace: "cal/events/v1",
		RESTRoot:  "http://localhost:8080/de/wp-json/",
		Defaults:  func() (string, string) { return "2026-11-22 00:00:00", "2028-11-22 00:00:00" },
	}
	for _, lang := range shipped(t) {
		if lang == Source {
			continue
		}
		tr, _ := Translator(lang)
		o := en
		o.Translate = tr
		t.Run(lang, func(t *testing.T) {
			testSameStructure(t, "index", apidoc.Index(o), apidoc.Index(en), tr)
			testSameStructure(t, "doc", apidoc.Doc(o), apidoc.Doc(en), tr)
		})
	}

	ger := en
	ger.Translate, _ = Translator("de")
	args := apidoc.Index(ger)
	for _, k := range []string{"routes", "/cal/events/v1/events", "endpoints"} {
		v, _ := args.Get(k)
		if o, ok := v.(mapping.Object); ok {
			args = o
		} else {
			args = v.([]mapping.Object)[0]
		}
	}
	v, _ := args.Get("args")
	page, _ := v.(mapping.Object).Get("page")
	if got, _ := page.(mapping.Object).Get("description"); got != "Die zurückzugebende Seite des Archivs" {
		t.Errorf("events page description = %q, want German", got)
	}
}

// testSameStructure checks that got is want with every description (and /doc's title) translated by tr.
func testSameStructure(t *testing.T, name string, got, want mapping.Object, tr func(string) string) {
	translated := 0
	compare(t, "", got, want, func(path, g, w string) {
		if !strings.HasSuffix(path, ".description") && path != ".info.title" {
			if g != w {
				t.Errorf("%s%s = %q, want %q (not a description)", name, path, g, w)
			}
			return
		}
		if g != tr(w) || g == w {
			t.Errorf("%s%s = %q, want the translation of %q", name, path, g, w)
		}
		translated++
	})
	if translated < 100 {
		t.Errorf("%s: only %d translated descriptions", name, translated)
	}
}

// compare walks got and want in step, failing on any difference of type, key, key order or length, and
// hands every pair of strings to leaf; other values must be equal.
func compare(t *testing.T, path string, got, want any, leaf func(path, g, w string)) {
	t.Helper()
	switch w := want.(type) {
	case mapping.Object:
		g, ok := got.(mapping.Object)
		if !ok || len(g) != len(w) {
			t.Fatalf("%s: got %T of %d members, want %d", path, got, len(g), len(w))
		}
		for i := range w {
			if g[i].Key != w[i].Key {
				t.Fatalf("%s: member %d is %q, want %q", path, i, g[i].Key, w[i].Key)
			}
			compare(t, path+"."+w[i].Key, g[i].Value, w[i].Value, leaf)
		}
	case []mapping.Object:
		g, ok := got.([]mapping.Object)
		if !ok || len(g) != len(w) {
			t.Fatalf("%s: got %T of %d, want %d", path, got, len(g), len(w))
		}
		for i := range w {
			compare(t, fmt.Sprintf("%s[%d]", path, i), g[i], w[i], leaf)
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			t.Fatalf("%s: got %T of %d, want %d", path, got, len(g), len(w))
		}
		for i := range w {
			compare(t, fmt.Sprintf("%s[%d]", path, i), g[i], w[i], leaf)
		}
	case string:
		g, ok := got.(string)
		if !ok {
			t.Fatalf("%s: got %T, want a string", path, got)
		}
		leaf(path, g, w)
	default:
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %#v, want %#v", path, got, want)
		}
	}
}
