// Package mapping translates between WordPress objects (posts, post meta, terms, media) and the
// representations of The Events Calendar REST API v1. It is pure: no I/O, no logging, no imports of
// the project's other packages but its own mapping/php and internal/memo (which memoizes pure
// functions). Every function takes what it needs as arguments (site settings, clock).
package mapping

import "strings"

// Post is one WordPress post (event, venue or organizer) as the catalog holds it: the wp/v2 fields
// plus what the calshim WordPress plugin adds under the `calshim` REST field.
type Post struct {
	ID            int
	Author        int
	Text          Text // the string fields: Type(), Status(), Title() and the others (TextFields)
	Protected     bool // the post has a password (true even when Password() is unknown)
	MenuOrder     int
	Parent        int
	FeaturedMedia int // attachment ID, 0 when none
	// Meta holds every row of each exposed meta key, in row order (a key may have several rows:
	// _EventCost, _EventOrganizerID, _tribe_aggregator_global_id_lineage).
	Meta Meta
	// Terms holds the term IDs of the post per role: keys TaxonomyCategory and TaxonomyTag, whatever
	// the upstream taxonomies are called.
	Terms map[string][]int
	// Derived holds what list filters read on every request, computed once by Derive when the post
	// enters the catalog.
	Derived Derived
	// Version is the plugin's version of the stored post (its `calshim.version`), which conditional
	// writes name to WordPress; "" from a plugin without it.
	Version string
}

// Derived are the fields of a post that archive filters and ordering use, taken from its meta once.
type Derived struct {
	Start, End string // _EventStartDate, _EventEndDate ("Y-m-d H:i:s" wall times)
	Hidden     bool   // _EventHideFromUpcoming present: never listed
	Featured   bool   // _tribe_featured present (the archive's featured filter)
	Venues     []int  // _EventVenueID rows
	Organizers []int  // _EventOrganizerID rows
}

// MetaFirst returns the first row of a meta key and whether the key exists.
func (p *Post) MetaFirst(key string) (string, bool) {
	return p.Meta.First(key)
}

// Term is one WordPress term as wp/v2 describes it.
type Term struct {
	ID             int
	Name           string // as stored (wp/v2 returns it HTML-escaped the way WordPress stores it)
	Slug           string
	Taxonomy       string
	Description    string
	Parent         int
	Count          int // published objects
	TermGroup      int
	TermTaxonomyID int
	Link           string // term archive page
	Version        string // the plugin's version of the stored term, as Post.Version
}

// Media is one attachment, for featured images.
type Media struct {
	ID       int
	URL      string // full-size URL
	File     string // attached file, relative to uploads, e.g. "2026/11/stage.png"
	Width    int
	Height   int
	Filesize int
	Sizes    []MediaSize // in the order of the attachment metadata
}

// MediaSize is one generated size of an attachment.
type MediaSize struct {
	Name     string
	Width    int
	Height   int
	MimeType string
	Filesize int
	URL      string
}

// Site holds the site-wide settings the representations depend on.
type Site struct {
	Name     string // the site's title (blogname, HTML-escaped as WordPress stores it)
	Home     string // home URL, e.g. "http://127.0.0.1:8881"
	Timezone string // IANA name or "UTC+5.5"-style pseudo zone
	// DefaultCurrencySymbol and DefaultCurrencyCode are TEC's options; "$" and "USD" when unset.
	DefaultCurrencySymbol string
	DefaultCurrencyCode   string
}

// Colocate moves the text and meta of posts, stored side by side (as a catalog decodes them a page
// at a time), into one string, and points Derived's Start and End at their meta rows there. The
// collector's mark time follows the number of objects it visits more than their bytes: a Post and
// two strings each made a catalog three objects per post; posts in blocks (catalog.compactBlocks)
// make it a few per block (issue 11; README, Performance, gives the measured times).
func Colocate(posts []Post) {
	n := 0
	for i := range posts {
		n += len(posts[i].Text.s) + len(posts[i].Meta.buf)
	}

	var b strings.Builder
	b.Grow(n)
	for i := range posts {
		b.WriteString(posts[i].Text.s)
		b.WriteString(posts[i].Meta.buf)
	}

	all := b.String()
	for i := range posts {
		p := &posts[i]
		p.Text.s, all = all[:len(p.Text.s)], all[len(p.Text.s):]
		p.Meta.buf, all = all[:len(p.Meta.buf)], all[len(p.Meta.buf):]
		if start, _ := p.MetaFirst("_EventStartDate"); start == p.Derived.Start {
			p.Derived.Start = start
		}

		if end, _ := p.MetaFirst("_EventEndDate"); end == p.Derived.End {
			p.Derived.End = end
		}
	}
}
