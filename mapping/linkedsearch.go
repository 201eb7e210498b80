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

// The custom fields find_like searches besides title, content and excerpt, by kind.
var (
	VenueSearchMeta = []string{"_VenueAddress", "_VenueCity", "_VenueProvince", "_VenueState",
		"_VenueStateProvince", "_VenueZip", "_VenuePhone"}
	OrganizerSearchMeta = []string{"_OrganizerPhone", "_OrganizerEmail", "_OrganizerWebsite"}
)

// DeriveLinked sets a venue's or organizer's search text (LinkedSearchText), which the catalog
// computes once per post it stores, so that a search folds nothing.
func DeriveLinked(p *Post, metaKeys []string) {
	text := LinkedSearchText(p, metaKeys)
	p.EditText(func(f *TextFields) { f.Search = text })
}

// linkedFieldEnd ends each field of a linked search text: a fragment never holds it (fragments
// are ASCII letters, digits and "-"), so a match never spans two fields.
const linkedFieldEnd = "\x00"

// LinkedSearchText is what a venue or organizer search looks in: each searched field folded as the
// database compares (LikeFold), each ended by linkedFieldEnd.
func LinkedSearchText(p *Post, metaKeys []string) string {
	var b strings.Builder
	add := func(field string) {
		b.WriteString(strings.ReplaceAll(LikeFold(field), linkedFieldEnd, " "))
		b.WriteString(linkedFieldEnd)
	}
	add(html.UnescapeString(p.Title()))
	add(p.Content())
	add(p.Excerpt())
	for _, k := range metaKeys {
		for _, v := range p.Meta.Get(k) {
			add(v)
		}
	}
	return b.String()
}

// Match reports whether p is found: in its search text (DeriveLinked), or, for a post the catalog
// did not derive, in the text of metaKeys computed now. Test what the caller may see first: the
// search is the expensive part.
func (q LinkedSearch) Match(p *Post, metaKeys []string) bool {
	if len(q.frags) == 0 || p.Status() == "trash" {
		return false
	}

	text := p.Search()
	if !strings.HasSuffix(text, linkedFieldEnd) {
		text = LinkedSearchText(p, metaKeys)
	}

	for text != "" {
		field, rest, _ := strings.Cut(text, linkedFieldEnd)
		if q.matchField(field) {
			return true
		}
		text = rest
	}

	return false
}

// matchField reports whether one folded field contains every fragment.
func (q LinkedSearch) matchField(folded string) bool {
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
