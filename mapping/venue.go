package mapping

import (
	"strconv"

	"calshim/mapping/php"
)

// Venue is the v1 representation of a venue (Post_Repository::get_venue_data) as the
// venue routes return it: the post fields, image and address meta with every empty value removed
// (author "0", zip "0", no image…), json_ld in the single context, then show_map, show_map_link
// (TEC truthiness, true when unset) and the global IDs. A password-protected venue is blanked
// (Main::filter_out_password_protected_data, which also sets the name key "venue" to []) unless
// Unlocked says the viewer may see it.
func (c *Context) Venue(p *Post) Object {
	return c.venue(p, c.passwordOK(p))
}

// venue renders a venue; passwordOK is false for venues nested in an event, whose password the
// original never accepts from the request.
func (c *Context) venue(p *Post, passwordOK bool) Object {
	o := Object{
		{"id", p.ID},
		{"author", strconv.Itoa(p.Author)},
		{"status", p.Status()},
		{"date", p.Date()},
		{"date_utc", p.DateGMT()},
		{"modified", p.Modified()},
		{"modified_utc", p.ModifiedGMT()},
		{"url", c.permalink(p)},
		{"venue", php.Trim(p.Title())},
		{"description", php.Trim(p.Content())},
		{"excerpt", php.Trim(p.Excerpt())},
		{"slug", p.Slug()},
		{"image", c.image(p)},
		{"address", metaOr(p, "_VenueAddress", "")},
		{"city", metaOr(p, "_VenueCity", "")},
		{"country", metaOr(p, "_VenueCountry", "")},
		{"province", metaOr(p, "_VenueProvince", "")},
		{"state", metaOr(p, "_VenueState", "")},
		{"zip", metaOr(p, "_VenueZip", "")},
		{"phone", metaOr(p, "_VenuePhone", "")},
		{"website", metaOr(p, "_VenueURL", "")},
		{"stateprovince", metaOr(p, "_VenueStateProvince", "")},
	}
	// geo_lat/geo_lng come from Events Calendar Pro's geocoding only; without Pro they are never set.
	if c.jsonLD(p, passwordOK) {
		o = append(o, KV{"json_ld", c.venueLD(p)})
	}

	o = filterEmpty(o)
	o = append(o,
		KV{"show_map", truthyOrTrue(p, "_VenueShowMap")},
		KV{"show_map_link", truthyOrTrue(p, "_VenueShowMapLink")},
	)
	o = c.globalIDFields(o, p)
	if p.Protected && !passwordOK {
		return Blank(o)
	}

	return o
}

// truthyOrTrue is TEC's truthiness of a meta value, true when the key is absent.
func truthyOrTrue(p *Post, key string) bool {
	v, ok := p.MetaFirst(key)
	return !ok || php.TribeTruthy(v)
}
