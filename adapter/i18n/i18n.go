// Package i18n holds the translations of the API's self-descriptions: the human-readable texts of
// the namespace index (route argument descriptions) and of /doc (title, descriptions of parameters,
// request bodies, responses and schema properties) that adapter/apidoc passes through
// Options.Translate.
//
// The translations are GNU gettext catalogs, the format WordPress itself uses: locales/calshim.pot
// is the template (every English text, generated from apidoc), locales/<lang>.po one catalog per
// language. The catalogs are embedded in the binary and read with
// github.com/leonelquinteros/gotext. The English text is the message ID, so English needs no
// catalog, and a text a catalog lacks (or leaves empty) shows in English.
//
// Adding a language: copy locales/calshim.pot to locales/<lang>.po, set its Language header, fill
// in every msgstr and rebuild. Nothing else changes; the tests check the new catalog against the
// template.
//
// Regenerating the template after apidoc's texts changed:
//
//	go generate ./adapter/i18n    (runs: go test -run '^TestPOT$' -update)
//
// then bring every catalog up to date (msgmerge --update --backup=none locales/<lang>.po
// locales/calshim.pot, or by hand) until the tests pass.
package i18n

//go:generate go test -run ^TestPOT$ -update

import (
	"embed"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/leonelquinteros/gotext"
)

// Source is the language of the message IDs. It has no catalog: its translator is the identity.
const Source = "en"

//go:embed locales/*.po
var locales embed.FS

// catalogs parses every embedded catalog once, keyed by language (the file name without ".po").
var catalogs = sync.OnceValue(func() map[string]*gotext.Po {
	files, err := fs.Glob(locales, "locales/*.po")
	if err != nil {
		panic(err) // the pattern is constant and valid
	}
	out := make(map[string]*gotext.Po, len(files))
	for _, f := range files {
		data, err := locales.ReadFile(f)
		if err != nil {
			panic(err) // embedded files are always readable
		}
		lang := strings.TrimSuffix(path.Base(f), ".po")
		if lang == Source {
			continue // the message IDs are the English texts
		}
		po := gotext.NewPo()
		po.Parse(data)
		out[lang] = po
	}
	return out
})

// Languages returns the languages with a translator, sorted: Source and every shipped catalog.
func Languages() []string {
	langs := []string{Source}
	for lang := range catalogs() {
		langs = append(langs, lang)
	}
	slices.Sort(langs)
	return langs
}

// Translator returns the translate function of lang (a name from Languages, e.g. "de"), for
// apidoc.Options.Translate. It returns the English text for any text the catalog does not
// translate. For Source it returns the identity; for a language without a catalog it returns nil,
// false. The function is safe for concurrent use.
func Translator(lang string) (func(english string) string, bool) {
	if lang == Source {
		return identity, true
	}
	po, ok := catalogs()[lang]
	if !ok {
		return nil, false
	}
	return translator(po), true
}

// translator returns the translate function of a catalog.
func translator(po *gotext.Po) func(english string) string {
	// Get formats only when given arguments, so a "%" in a text stays as it is; for a text the catalog
	// lacks or leaves empty it returns the text itself. It is called through a method value: the
	// message ID is a variable by design, which vet's printf check would flag.
	get := po.Get

	return func(english string) string {
		if english == "" {
			return "" // the empty ID is the catalog header
		}
		return get(english)
	}
}

func identity(s string) string { return s }
