package mapping

import (
	"sort"
	"strconv"
	"strings"
)

// TaxonomyLinks describes a taxonomy's wp/v2 routes, for the core-style _links of single-term
// responses.
type TaxonomyLinks struct {
	// RESTBase is the taxonomy's wp/v2 route base, e.g. "tribe_events_cat" or "tags".
	RESTBase string
	// PostTypes are the wp/v2 route bases of the REST-enabled post types the taxonomy is attached to,
	// in registration order, e.g. "posts", "tribe_events". Empty means no wp:post_type links.
	PostTypes []string
}

// DefaultTaxonomyLinks returns the routes of the recorded site (WordPress 6.1, TEC 6.17.2):
// categories on tribe_events and tec_calendar_embed, tags also on posts.
func DefaultTaxonomyLinks() map[string]TaxonomyLinks {
	return map[string]TaxonomyLinks{
		TaxonomyCategory: {RESTBase: "tribe_events_cat",
			PostTypes: []string{"tribe_events", "tec_calendar_embed"}},
		TaxonomyTag: {RESTBase: "tags",
			PostTypes: []string{"posts", "tribe_events", "tec_calendar_embed"}},
	}
}

// termCollection is the v1 collection a term belongs to: "tags" for post tags, "categories"
// otherwise (Post_Repository::prepare_terms_data falls back to categories too).
func termCollection(t *Term) string {
	if t.Taxonomy == TaxonomyTag {
		return "tags"
	}
	return "categories"
}

// termURLs is the "urls" object of a term: self, collection and, for a child term, up.
func (c *Context) termURLs(t *Term) Object {
	coll := termCollection(t)
	o := Object{
		{"self", c.restURL(coll + "/" + strconv.Itoa(t.ID))},
		{"collection", c.restURL(coll)},
	}
	if t.Parent != 0 {
		o = append(o, KV{"up", c.restURL(coll + "/" + strconv.Itoa(t.Parent))})
	}

	return o
}

// EventTerm is a term as embedded in an event's categories or tags (Post_Repository::get_terms,
// then prepare_term_data): the WP_Term fields with term_id renamed to id and moved to the end, then
// urls.
func (c *Context) EventTerm(t *Term) Object {
	return Object{
		{"name", t.Name},
		{"slug", t.Slug},
		{"term_group", t.TermGroup},
		{"term_taxonomy_id", t.TermTaxonomyID},
		{"taxonomy", t.Taxonomy},
		{"description", t.Description},
		{"parent", t.Parent},
		{"count", t.Count},
		{"filter", "raw"},
		{"id", t.ID},
		{"urls", c.termURLs(t)},
	}
}

// ArchiveTerm is a term as /categories and /tags list it (Post_Repository::prepare_term_data on
// WP_REST_Terms_Controller's answer): the core wp/v2 term with link renamed to url and urls
// appended, without _links. parent only for hierarchical taxonomies (all but post tags); meta is
// always [] (no term meta is registered for REST).
func (c *Context) ArchiveTerm(t *Term) Object {
	o := Object{
		{"id", t.ID},
		{"count", t.Count},
		{"description", t.Description},
		{"name", t.Name},
		{"slug", t.Slug},
		{"taxonomy", t.Taxonomy},
	}
	if t.Taxonomy != TaxonomyTag {
		o = append(o, KV{"parent", t.Parent})
	}

	return append(o, KV{"meta", []any{}}, KV{"url", t.Link}, KV{"urls", c.termURLs(t)})
}

// TermLinks is the core-style _links object that single-term GET, create and update responses carry
// (WP_REST_Terms_Controller::prepare_links, compacted by WP_REST_Server): self, collection, about,
// up for a child term, wp:post_type and curies, all pointing at wp/v2 under wpRESTRoot (e.g.
// "http://127.0.0.1:8080/wp-json").
func (c *Context) TermLinks(t *Term, wpRESTRoot string) Object {
	tl, ok := c.taxonomyLinks()[t.Taxonomy]
	if !ok {
		tl = TaxonomyLinks{RESTBase: t.Taxonomy}
	}

	v2 := strings.TrimRight(wpRESTRoot, "/") + "/wp/v2/"
	href := func(u string) Object { return Object{{"href", u}} }
	links := Object{
		{"self", []Object{href(v2 + tl.RESTBase + "/" + strconv.Itoa(t.ID))}},
		{"collection", []Object{href(v2 + tl.RESTBase)}},
		{"about", []Object{href(v2 + "taxonomies/" + t.Taxonomy)}},
	}
	if t.Parent != 0 {
		// WP_REST_Server::get_response_links writes a link's attributes first, then its href.
		up := append(Object{{"embeddable", true}}, href(v2+tl.RESTBase+"/"+strconv.Itoa(t.Parent))...)
		links = append(links, KV{"up", []Object{up}})
	}

	if len(tl.PostTypes) > 0 {
		types := make([]Object, len(tl.PostTypes))
		for i, pt := range tl.PostTypes {
			types[i] = href(v2 + pt + "?" + tl.RESTBase + "=" + strconv.Itoa(t.ID))
		}
		curie := Object{{"name", "wp"}, {"href", "https://api.w.org/{rel}"}, {"templated", true}}
		links = append(links, KV{"wp:post_type", types}, KV{"curies", []Object{curie}})
	}

	return links
}

func (c *Context) taxonomyLinks() map[string]TaxonomyLinks {
	if c.TaxonomyLinks != nil {
		return c.TaxonomyLinks
	}
	return DefaultTaxonomyLinks()
}

// postTerms returns the terms of p in a taxonomy as embedded in an event, ordered by name like
// wp_get_post_terms (case-insensitive, as MySQL's collation; ties by ID). Unknown term IDs are
// skipped.
func (c *Context) postTerms(p *Post, taxonomy string) []Object {
	var terms []*Term
	for _, id := range p.Terms[taxonomy] {
		if t, ok := c.Lookup.Term(id); ok {
			terms = append(terms, t)
		}
	}

	sort.SliceStable(terms, func(i, j int) bool {
		a, b := strings.ToLower(terms[i].Name), strings.ToLower(terms[j].Name)
		if a != b {
			return a < b
		}
		return terms[i].ID < terms[j].ID
	})
	out := make([]Object, len(terms))
	for i, t := range terms {
		out[i] = c.EventTerm(t)
	}

	return out
}
