package mapping

import (
	"strconv"

	"calshim/mapping/php"
)

// Event is the v1 representation of an event (Post_Repository::get_event_data). Every key is
// always present, in the original's order; meta read from the first row of each key (a missing
// date reads null, as PHP's undefined index). Linked venues, organizers and terms come from Lookup;
// dangling IDs are skipped, so a venue that does not resolve reads [] like no venue at all.
//
// In the single context the event and its nested venue and organizers carry json_ld, except for a
// password-protected event (the original's generator never sees the password of a REST request).
//
// A password-protected event is blanked (Main::filter_out_password_protected_events: description
// "", venue [], show_map null, …) unless Unlocked says the viewer may see it. The original applies
// this to archive lists; on single reads it answers 403 instead and write responses are never
// blanked, so callers rendering those pass an Unlocked that returns true (or do not call Event at
// all for a 403).
func (c *Context) Event(p *Post) Object {
	cost := c.cost(p)
	gid := GlobalID(c.Site.Home, p.ID)
	o := Object{
		{"id", p.ID},
		{"global_id", gid},
		{"global_id_lineage", lineage(gid, p)},
		{"author", strconv.Itoa(p.Author)},
		{"status", p.Status()},
		{"date", p.Date()},
		{"date_utc", p.DateGMT()},
		{"modified", p.Modified()},
		{"modified_utc", p.ModifiedGMT()},
		{"url", c.permalink(p)},
		{"rest_url", c.restURL("events/" + strconv.Itoa(p.ID))},
		{"title", php.Trim(p.Title())},
		{"description", php.Trim(p.Content())},
		{"excerpt", php.Trim(p.Excerpt())},
		{"slug", p.Slug()},
		{"image", c.image(p)},
		{"all_day", php.TribeTruthy(metaOr(p, "_EventAllDay", ""))},
	}
	for _, d := range []struct{ key, meta string }{
		{"start_date", "_EventStartDate"},
		{"end_date", "_EventEndDate"},
		{"utc_start_date", "_EventStartDateUTC"},
		{"utc_end_date", "_EventEndDateUTC"},
	} {
		v := metaNull(p, d.meta)
		s, _ := v.(string)
		o = append(o, KV{d.key, v}, KV{d.key + "_details", DateDetails(s)})
	}

	o = append(o,
		KV{"timezone", metaOr(p, "_EventTimezone", "")},
		KV{"timezone_abbr", metaOr(p, "_EventTimezoneAbbr", "")},
		KV{"cost", cost.Cost},
		KV{"cost_details", Object{
			{"currency_symbol", metaOr(p, "_EventCurrencySymbol", "")},
			{"currency_code", metaOr(p, "_EventCurrencyCode", "")},
			{"currency_position", metaOr(p, "_EventCurrencyPosition", "")},
			{"values", cost.Values},
		}},
		KV{"website", c.website(p)},
		KV{"show_map", php.Bool(metaOr(p, "_EventShowMap", "1"))},
		KV{"show_map_link", php.Bool(metaOr(p, "_EventShowMapLink", "1"))},
		KV{"hide_from_listings", metaOr(p, "_EventHideFromUpcoming", "") == "yes"},
		KV{"sticky", p.MenuOrder == -1},
		KV{"featured", featured(p)},
		KV{"categories", c.postTerms(p, TaxonomyCategory)},
		KV{"tags", c.postTerms(p, TaxonomyTag)},
		KV{"venue", c.eventVenue(p)},
		KV{"organizer", c.eventOrganizers(p)},
		KV{"custom_fields", c.customFields(p)},
	)
	if c.jsonLD(p, false) {
		o = append(o, KV{"json_ld", c.eventLD(p, cost)})
	}

	if p.Protected && !c.passwordOK(p) {
		return Blank(o)
	}

	return o
}

// cost evaluates the event's cost meta with the site's currency options.
func (c *Context) cost(p *Post) EventCost {
	return Cost(p.Meta.Get("_EventCost"), CostFormat{
		Symbol:        metaOr(p, "_EventCurrencySymbol", ""),
		Position:      metaOr(p, "_EventCurrencyPosition", ""),
		DefaultSymbol: c.Site.DefaultCurrencySymbol,
		Reverse:       c.ReverseCurrencyPosition,
	})
}

// website is _EventURL HTML-escaped when the key exists (even if ""), else the event's permalink.
func (c *Context) website(p *Post) string {
	if v, ok := p.MetaFirst("_EventURL"); ok {
		return php.EscHTML(v)
	}
	return c.permalink(p)
}

// featured is PHP's `_tribe_featured == 1`: a numeric string equal to 1 ("1", "1.0", " 1").
func featured(p *Post) bool {
	v, ok := p.MetaFirst("_tribe_featured")
	return ok && php.IsNumeric(v) && php.Float(v) == 1
}

// eventVenue is the event's venue member: the venue object when exactly one linked venue resolves,
// a list of them when several do (Pro), and [] when none does.
func (c *Context) eventVenue(p *Post) any {
	var venues []Object
	for _, id := range metaIDs(p, "_EventVenueID") {
		if v, ok := c.Lookup.Post(id); ok {
			venues = append(venues, c.venue(v, false))
		}
	}

	switch len(venues) {
	case 0:
		return []any{}
	case 1:
		return venues[0]
	}

	return venues
}

// eventOrganizers is the event's organizer list, in meta row order, unresolved IDs skipped.
func (c *Context) eventOrganizers(p *Post) []Object {
	out := []Object{}
	for _, id := range metaIDs(p, "_EventOrganizerID") {
		if o, ok := c.Lookup.Post(id); ok {
			out = append(out, c.organizer(o, false))
		}
	}
	return out
}

// customFields is the custom_fields member: {name: {label, value}} for each additional field whose
// meta is not PHP-empty, or [] when there is none.
func (c *Context) customFields(p *Post) any {
	var o Object
	for _, f := range c.CustomFields {
		if v := metaOr(p, f.Name, ""); !php.Empty(v) {
			o = append(o, KV{f.Name, Object{{"label", f.Label}, {"value", v}}})
		}
	}

	if len(o) == 0 {
		return []any{}
	}

	return o
}
