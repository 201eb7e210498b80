package php

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The reference model of sanitize_title_with_dashes' regular expressions, as WordPress writes
// them (Go's engine reads them as PCRE does for these patterns): the loops of slug.go must answer
// the same for any input.
var (
	refTag       = regexp.MustCompile(`<[^>]*>`)
	refOctet     = regexp.MustCompile(`%([a-fA-F0-9][a-fA-F0-9])`)
	refOctetMark = regexp.MustCompile(`---([a-fA-F0-9][a-fA-F0-9])---`)
	refEntity    = regexp.MustCompile(`&.+?;`)
	refForbidden = regexp.MustCompile(`[^%a-z0-9 _-]`)
	refSpaces    = regexp.MustCompile(`\s+`)
	refDashes    = regexp.MustCompile(`-+`)
)

func refSanitize(s string, save bool) string {
	s = refTag.ReplaceAllString(s, "")
	s = refOctet.ReplaceAllString(s, "---$1---")
	s = strings.ReplaceAll(s, "%", "")
	s = refOctetMark.ReplaceAllString(s, "%$1")
	if isValidUTF8(s) {
		s = utf8URIEncode(strings.ToLower(s))
	}
	s = Strtolower(s)
	if save {
		s = slugDropped.Replace(slugDashes.Replace(s))
	}
	s = refEntity.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, ".", "-")
	s = refForbidden.ReplaceAllString(s, "")
	s = refSpaces.ReplaceAllString(s, "-")
	s = refDashes.ReplaceAllString(s, "-")
	return strings.Trim(s, "-")
}

// slugPieces are what the steps look for, and what lies between.
var slugPieces = []string{"<", ">", "<b>", "%", "%2", "%2F", "%c3%a9", "---", "---41---", "-", "&", ";",
	"&amp;", "&#8211;", "\n", " ", "\t", ".", "_", "a", "Z", "9", "é", "ſ", "K", "İ", "\xff", "\xc3",
	"&nbsp;", "%e2%80%93", "/", "!"}

// TestSanitizeAsTheRegularExpressions: model-based, on generated inputs of the pieces the steps
// look for, in both contexts.
func TestSanitizeAsTheRegularExpressions(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	for range 20000 {
		var b strings.Builder
		for n := rng.IntN(24); n > 0; n-- {
			b.WriteString(slugPieces[rng.IntN(len(slugPieces))])
		}
		in := b.String()
		for _, save := range []bool{false, true} {
			if got, want := sanitizeTitleWithDashes(in, save), refSanitize(in, save); got != want {
				t.Fatalf("%q (save %v): %q, the expressions give %q", in, save, got, want)
			}
		}
	}
}

// TestSlugWorkPerByte: sanitizing costs a small constant per byte, whatever the bytes: for a
// quarter megabyte of each class of input, the time relative to one strings.Map over the same bytes (a
// ratio measured in one run, not a clock limit; 10 to 85 here, on 2 loaded cores). The regular
// expressions and a Printf per byte took 280 to 2,000 times that.
func TestSlugWorkPerByte(t *testing.T) {
	for _, unit := range []string{"é", "&", "<", "%e2", "a b", "%", "&a", "-", "\u00a0", "%c2%a0", "&\n",
		"---41---", "<a", "&;"} {
		in := strings.Repeat(unit, (256<<10)/len(unit)) + ";"
		base := fastest(func() { _ = strings.Map(func(r rune) rune { return r + 1 }, in) })
		query := fastest(func() { QuerySlug(in) })
		save := fastest(func() { SanitizeTitle(in) })
		if r := max(query, save) / base; r > 150 {
			t.Errorf("%q: %.0f times a strings.Map of the same bytes (query %v, save %v)", unit, r,
				time.Duration(query), time.Duration(save))
		}
	}
}

// fastest is f's shortest time of five, in nanoseconds.
func fastest(f func()) float64 {
	best := time.Duration(1 << 62)
	for range 5 {
		start := time.Now()
		f()
		best = min(best, time.Since(start))
	}
	return float64(max(best, time.Microsecond))
}

func isValidUTF8(s string) bool { return strings.ToValidUTF8(s, "\ufffd") == s }
