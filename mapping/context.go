package mapping

import (
	"strconv"
	"time"

	"calshim/mapping/php"
)

// Default WordPress names of the two event taxonomies: Tribe__Events__Main::TAXONOMY and core's
// tags.
const (
	TaxonomyCategory = "tribe_events_cat"
	TaxonomyTag      = "post_tag"
)

// Lookup resolves the objects a representation links to: the venues and organizers of an event, its
// terms and featured images. Each method reports false when the object is unknown (a dangling ID).
type Lookup interface {
	// Post returns the post (of any type and status) with the given ID.
	Post(id int) (*Post, bool)
	// Term returns the term with the given ID.
	Term(id int) (*Term, bool)
	// Media returns the attachment with the given ID.
	Media(id int) (*Media, bool)
}

// CustomField is one of TEC's "additional fields" (option custom-fields): the meta key it is stored
// under (e.g. "_ecp_custom_2") and its label.
type CustomField struct {
	Name  string // meta key
	Label string // label shown as custom_fields.<name>.label
}

// Context is what rendering needs besides the object itself. The zero value of every optional field
// gives the original's behaviour towards an anonymous visitor on a site with default TEC options.
type Context struct {
	// Site holds the site settings: home URL (global IDs), time zone (JSON-LD dates of events without
	// their own), default currency symbol and code.
	Site Site
	// Base is the namespace URL without a trailing slash, e.g.
	// "http://127.0.0.1:8080/wp-json/cal/events/v1"; rest_url and the terms' urls derive from it.
	Base string
	// Single selects the single-read context (GET of one event, venue or organizer, by ID or slug):
	// the representations then carry json_ld, at top level and on the nested venue and organizers.
	Single bool
	// Lookup resolves linked posts, terms and media. It must not be nil when events are rendered.
	Lookup Lookup
	// Unlocked reports whether the viewer may see a password-protected post: the request carries its
	// password, or context=edit by a user who may edit it. nil means never. Only the top-level object
	// is asked: venues and organizers nested in an event are blanked whenever they are protected, as
	// in the original (which checks the password cookie there, and REST requests carry none).
	Unlocked func(*Post) bool
	// Readable reports whether the JSON-LD generator lets the viewer see a post
	// (Tribe__JSON_LD__Abstract): an anonymous visitor only published posts, a logged-in user any
	// post, private ones only with read_private_posts. nil means an anonymous visitor.
	// Password-protected posts never get JSON-LD.
	Readable func(*Post) bool
	// MayRead is WordPress' read_post for the viewer; it decides whether a private post's permalink is
	// pretty (wp_force_plain_post_permalink). nil means an anonymous visitor.
	MayRead func(*Post) bool
	// Now is the clock (the JSON-LD dates of an event without dates read it); nil means time.Now.
	Now func() time.Time
	// CustomFields are TEC's additional field definitions, in option order; nil means none.
	CustomFields []CustomField
	// ReverseCurrencyPosition is TEC's reverseCurrencyPosition option: costs of events without a
	// currency position of their own show the symbol after the number.
	ReverseCurrencyPosition bool
	// TaxonomyLinks describes the wp/v2 routes of each taxonomy for TermLinks; nil means
	// DefaultTaxonomyLinks().
	TaxonomyLinks map[string]TaxonomyLinks
}

// passwordOK reports whether the viewer may see p's protected content (Unlocked).
func (c *Context) passwordOK(p *Post) bool { return c.Unlocked != nil && c.Unlocked(p) }

// permalink is get_permalink as the viewer gets it: a private post that the viewer may not read has
// the plain link (?post_type=…&p=ID), as wp_force_plain_post_permalink decides.
func (c *Context) permalink(p *Post) string {
	if p.Status() != "private" || (c.MayRead != nil && c.MayRead(p)) || c.Site.Home == "" {
		return p.Link()
	}
	return c.Site.Home + "/?post_type=" + p.Type() + "&p=" + strconv.Itoa(p.ID)
}

// restURL is tribe_events_rest_url: Base joined with a path.
func (c *Context) restURL(path string) string { return c.Base + "/" + path }

// globalIDFields appends global_id and global_id_lineage.
func (c *Context) globalIDFields(o Object, p *Post) Object {
	id := GlobalID(c.Site.Home, p.ID)
	return append(o, KV{"global_id", id}, KV{"global_id_lineage", lineage(id, p)})
}

// lineage is global_id_lineage: the global ID, then every row of
// _tribe_aggregator_global_id_lineage.
func lineage(globalID string, p *Post) []string {
	return append([]string{globalID}, p.Meta.Get("_tribe_aggregator_global_id_lineage")...)
}

// metaIDs returns the post IDs in a meta key's rows, in row order, read as get_post reads them
// (PHP's (int) cast); rows that give no positive ID ("", "0", text) are skipped.
func metaIDs(p *Post, key string) []int {
	var ids []int
	for _, v := range p.Meta.Get(key) {
		if id := php.Int(v); id > 0 {
			ids = append(ids, id)
		}
	}
	return ids
}

// metaOr returns the first row of key, or def when the key is absent.
func metaOr(p *Post, key, def string) string {
	if v, ok := p.MetaFirst(key); ok {
		return v
	}
	return def
}

// metaNull returns the first row of key, or nil (JSON null) when the key is absent, as PHP reads an
// undefined array index.
func metaNull(p *Post, key string) any {
	if v, ok := p.MetaFirst(key); ok {
		return v
	}
	return nil
}
