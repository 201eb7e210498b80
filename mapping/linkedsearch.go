package mapping

import (
	"calshim/mapping/php"
	"html"
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// LinkedSearch is a venue or organizer `search` as the original runs it. A search PHP does not
// consider empty goes to Tribe__Events__Linked_Posts__Base::find_like, whose "like" strategy
// (Tribe__Duplicate__Strategy__Like) keeps runs of ASCII letters, digits and "-" as fragments and
// finds the posts with a field (title, content, excerpt or one of the type's custom fields) that
// contains every fragment. A search without fragments ("@", "_", "é") makes that SQL invalid, so it
// finds nothing. (The search "0", empty to PHP, never gets here: the archives refuse it.)
type LinkedSearch struct {
	frags []string
}

var likeSeparators = regexp.MustCompile(`[^a-zA-Z0-9-]+`)

// NewLinkedSearch parses a non-empty search string.
func NewLinkedSearch(s string) LinkedSearch {
	var frags []string
	for _, f := range strings.Split(likeSeparators.ReplaceAllString(s, "_"), "_") {
		if !php.Empty(f) { // array_filter drops what empty() is true for
			frags = append(frags, strings.ToLower(f))
		}
	}
	return LinkedSearch{frags: frags}
}

// Match reports whether p is found. metaKeys are the custom fields the type searches.
func (q LinkedSearch) Match(p *Post, metaKeys []string) bool {
	if len(q.frags) == 0 || p.Status() == "trash" {
		return false
	}

	fields := []string{html.UnescapeString(p.Title()), p.Content(), p.Excerpt()}
	for _, k := range metaKeys {
		fields = append(fields, p.Meta.Get(k)...)
	}

	for _, f := range fields {
		if q.matchField(f) {
			return true
		}
	}

	return false
}

// matchField reports whether one field contains every fragment.
func (q LinkedSearch) matchField(field string) bool {
	folded := LikeFold(field)
	for _, f := range q.frags {
		if !strings.Contains(folded, f) {
			return false
		}
	}
	return true
}

// LikeFold lower-cases s and maps each character that the database's collation (WordPress'
// utf8mb4_unicode_520_ci) compares equal to an ASCII letter or digit onto it: "Café" → "cafe",
// "Łódź" → "lodz", "①" → "1". Characters that expand to several letters ("æ", "ß", "ﬁ") compare
// equal to none in LIKE, character by character, and stay as they are.
func LikeFold(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(foldRune(r))
	}
	return b.String()
}

// likeFoldSpecial are letters with a stroke or bar that have no decomposition but share the weight
// of their base letter in that collation.
var likeFoldSpecial = map[rune]rune{'ł': 'l', 'Ł': 'l', 'ø': 'o', 'Ø': 'o', 'đ': 'd', 'Đ': 'd',
	'ħ': 'h', 'Ħ': 'h', 'ı': 'i'}

func foldRune(r rune) rune {
	if r < unicode.MaxASCII {
		return unicode.ToLower(r)
	}

	if f, ok := likeFoldSpecial[r]; ok {
		return f
	}

	base := rune(-1)
	for _, d := range norm.NFKD.String(string(r)) {
		switch {
		case unicode.Is(unicode.Mn, d):
		case base == -1:
			base = d
		default:
			return r // several letters: no single one to compare with
		}
	}

	if base >= 0 && base < unicode.MaxASCII && isASCIIAlnum(base) {
		return unicode.ToLower(base)
	}

	return r
}

func isASCIIAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}
