package mapping

import (
	"calshim/mapping/php"
	"html"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// EventFilter is an event archive query in effective form: dates are "Y-m-d H:i:s" wall times
// compared with the events' stored local start and end (TEC's default "event" time zone mode); ""
// means no bound.
type EventFilter struct {
	StartMin     string   // start_date: start ≥
	EndMax       string   // end_date: end ≤
	StartsBefore string   // start <
	StartsAfter  string   // start >
	EndsBefore   string   // end <
	EndsAfter    string   // end >
	Search       []string // lowercased words; a word prefixed with "-" excludes
	Categories   []int    // any of (children already expanded)
	Tags         []int    // any of
	Venues       []int    // any of
	Organizers   []int    // any of
	Featured     *bool
	Statuses     []string // allowed post statuses
	Include      []int
	PostParent   *int
	// Anonymous callers' searches skip password-protected posts, as WordPress' search does.
	Anonymous bool
}

// MatchEvent reports whether p is listed by the archive query f. Events hidden from listings
// (_EventHideFromUpcoming present) never are, whatever the query (TEC Query::pre_get_posts).
func MatchEvent(p *Post, f *EventFilter) bool {
	d := &p.Derived
	if d.Hidden {
		return false
	}

	if !slices.Contains(f.Statuses, p.Status()) {
		return false
	}

	if f.Include != nil && !slices.Contains(f.Include, p.ID) {
		return false
	}

	if f.PostParent != nil && p.Parent != *f.PostParent {
		return false
	}

	if !matchDates(d.Start, d.End, f) {
		return false
	}

	if f.Featured != nil && d.Featured != *f.Featured {
		return false
	}

	if f.Categories != nil && !anyOf(p.Terms[TaxonomyCategory], f.Categories) {
		return false
	}

	if f.Tags != nil && !anyOf(p.Terms[TaxonomyTag], f.Tags) {
		return false
	}

	if f.Venues != nil && !anyOf(d.Venues, f.Venues) {
		return false
	}

	if f.Organizers != nil && !anyOf(d.Organizers, f.Organizers) {
		return false
	}

	return f.Search == nil || matchSearch(p, f.Search, f.Anonymous)
}

func matchDates(start, end string, f *EventFilter) bool {
	// A bound on a date the event lacks never matches: the original's meta query joins on the key.
	startBound := f.StartMin != "" || f.StartsBefore != "" || f.StartsAfter != ""
	endBound := f.EndMax != "" || f.EndsBefore != "" || f.EndsAfter != ""
	if (startBound && start == "") || (endBound && end == "") {
		return false
	}

	// "Y-m-d H:i:s" strings order like the times they spell.
	return (f.StartMin == "" || start >= f.StartMin) &&
		(f.EndMax == "" || end <= f.EndMax) &&
		(f.StartsBefore == "" || start < f.StartsBefore) &&
		(f.StartsAfter == "" || start > f.StartsAfter) &&
		(f.EndsBefore == "" || end < f.EndsBefore) &&
		(f.EndsAfter == "" || end > f.EndsAfter)
}

func anyOf(have, want []int) bool {
	for _, h := range have {
		if slices.Contains(want, h) {
			return true
		}
	}
	return false
}

// metaInts returns the integer values of a meta key's rows (unparsable rows are skipped).
func metaInts(p *Post, key string) []int {
	var out []int
	for _, r := range p.Meta.Get(key) {
		if n, ok := atoi(r); ok {
			out = append(out, n)
		}
	}
	return out
}

func atoi(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 18 {
		return 0, false
	}

	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}

	return n, true
}

// SearchWords splits a search the way WP_Query::parse_search does: quoted phrases and runs of
// characters other than tab, space, '"', ',' and '+'; quotes and spaces trimmed; single letters,
// single dashes, "0" and stopwords dropped; when nothing (or more than nine terms) is left, the
// whole search is one term. Terms are lowercased (MySQL compares case-insensitively); a leading "-"
// excludes.
func SearchWords(s string) []string {
	var words []string
	for _, m := range searchToken.FindAllString(s, -1) {
		w := strings.Trim(m, "\"' ")
		if strings.HasPrefix(m, `"`) && strings.HasSuffix(m, `"`) && len(m) > 2 {
			w = strings.Trim(m, "\"'")
		}
		if skipSearchTerm(w) {
			continue
		}
		words = append(words, LikeFold(w))
	}

	if len(words) == 0 || len(words) > 9 {
		return []string{LikeFold(s)}
	}

	return words
}

var searchToken = regexp.MustCompile(`"[^"]*("|$)|[^\t ",+]+`)

// skipSearchTerm: parse_search_terms drops empty terms (PHP's falsy "0" too), single letters and
// dashes, and WordPress' search stopwords.
func skipSearchTerm(w string) bool {
	if php.Empty(w) {
		return true
	}
	if len(w) == 1 && (w == "-" || ('a' <= w[0]|0x20 && w[0]|0x20 <= 'z')) {
		return true
	}
	return slices.Contains(searchStopwords, strings.ToLower(w))
}

// searchStopwords is WP_Query::get_search_stopwords (English).
var searchStopwords = strings.Split("about,an,are,as,at,be,by,com,for,from,how,in,is,it,of,on,"+
	"or,that,the,this,to,was,what,when,where,who,will,with,www", ",")

// untexturize undoes wptexturize's quotes, which the stored text does not have.
var untexturize = strings.NewReplacer("\u2019", "'", "\u2018", "'", "\u201c", `"`, "\u201d", `"`)

var tags = regexp.MustCompile(`<[^>]*>`)

// Derive computes p.Derived from its meta and text; the catalog calls it once per post it stores.
func Derive(p *Post) {
	start, _ := p.MetaFirst("_EventStartDate")
	end, _ := p.MetaFirst("_EventEndDate")
	hidden := p.Meta.Has("_EventHideFromUpcoming")
	featured := p.Meta.Has("_tribe_featured")
	search := SearchText(p)
	p.EditText(func(f *TextFields) { f.Search = search })
	p.Derived = Derived{Start: start, End: end, Hidden: hidden,
		Featured: featured, Venues: metaInts(p, "_EventVenueID"),
		Organizers: metaInts(p, "_EventOrganizerID")}
}

// SearchText is what an event search looks in: title, excerpt and content, tags stripped, entities
// decoded (WordPress searches the stored text, not its rendering), folded as the database's collation
// compares (LikeFold: "é" finds "e"). The catalog computes it once per post.
func SearchText(p *Post) string {
	text := tags.ReplaceAllString(p.Title()+"\n"+p.Excerpt()+"\n"+p.Content(), " ")
	return LikeFold(untexturize.Replace(html.UnescapeString(text)))
}

func matchSearch(p *Post, words []string, anonymous bool) bool {
	if anonymous && p.Protected {
		return false
	}

	text := p.Search()
	if text == "" {
		text = SearchText(p)
	}

	for _, w := range words {
		if neg, ok := strings.CutPrefix(w, "-"); ok {
			if strings.Contains(text, neg) { // NOT LIKE; "-" alone excludes everything
				return false
			}
			continue
		}
		if !strings.Contains(text, w) {
			return false
		}
	}

	return true
}

// EventLess orders the event archive: by start wall time, then post date, then ID (TEC orders by
// start; ties follow creation order). Both posts must have been through Derive.
func EventLess(a, b *Post) bool {
	if sa, sb := a.Derived.Start, b.Derived.Start; sa != sb {
		return sa < sb
	}
	if a.Date() != b.Date() {
		return a.Date() < b.Date()
	}
	return a.ID < b.ID
}

// PostDateLess orders by post date, then ID (the event archive's order when `include` is given).
func PostDateLess(a, b *Post) bool {
	if a.Date() != b.Date() {
		return a.Date() < b.Date()
	}
	return a.ID < b.ID
}

// TermExists is WordPress' term_exists within one taxonomy: an integer item (isInt) by ID, text by
// its sanitized slug, then by name (case-insensitively, as MySQL compares).
func TermExists(terms []*Term, item string, isInt bool) bool {
	if isInt {
		// term_exists looks an integer up with get_terms' include, which takes absint of it: -5
		// finds term 5.
		id, err := strconv.Atoi(strings.TrimSpace(item))
		return err == nil && id != 0 && termByID(terms, max(id, -id)) != nil
	}

	item = strings.TrimSpace(item)
	if item == "" {
		return false
	}

	if termBySlug(terms, item) != nil {
		return true
	}

	for _, t := range terms {
		if strings.EqualFold(t.Name, item) {
			return true
		}
	}

	return false
}

// ResolveTerm is how the event archive turns a categories/tags item into a term
// (parse_terms_query): get_term_by('slug') with the item sanitized, then get_term_by('id') with its
// integer value. ok is false when neither finds one (the original then filters on no term).
func ResolveTerm(terms []*Term, item string) (int, bool) {
	if t := termBySlug(terms, item); t != nil {
		return t.ID, true
	}

	id, ok := atoi(item)
	if t := termByID(terms, id); ok && t != nil {
		return t.ID, true
	}

	return 0, false
}

func termBySlug(terms []*Term, item string) *Term {
	slug := php.SanitizeTitle(item)
	if slug == "" {
		return nil
	}

	for _, t := range terms {
		if t.Slug == slug {
			return t
		}
	}

	return nil
}

func termByID(terms []*Term, id int) *Term {
	for _, t := range terms {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// ApplyWindow sets the date bounds of f from the effective window. The original's event repository
// keys start_date and starts_after to one meta query clause ("starts-after"), and end_date and
// ends_before to another ("ends-before"); the relative bound comes later in its query arguments and
// replaces the other. With Include set, no date bound applies: the interface says include ignores
// the date filters (the original keeps its default window, a deliberate difference).
func (f *EventFilter) ApplyWindow(w Window) {
	if f.Include != nil {
		return
	}

	f.StartMin, f.EndMax = w.StartDate, w.EndDate
	f.StartsBefore, f.StartsAfter = w.StartsBefore, w.StartsAfter
	f.EndsBefore, f.EndsAfter = w.EndsBefore, w.EndsAfter
	if f.StartsAfter != "" {
		f.StartMin = ""
	}

	if f.EndsBefore != "" {
		f.EndMax = ""
	}
}
