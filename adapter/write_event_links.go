package adapter

import (
	"strings"

	"calshim/mapping"
	"calshim/mapping/php"
)

// How an event names its venue and organizers (the original: Linked_Post_Base::insert, called by
// Single_Event::prepare_postarr): IDs, {id} objects, creation payloads.

// eventWrite reads a validated event write's arguments into mapping's typed form.
func eventWrite(in Params) mapping.EventWrite {
	return mapping.EventWrite{
		Title: argOf(in.raw("title")), Description: argOf(in.raw("description")),
		Excerpt: argOf(in.raw("excerpt")), Slug: argOf(in.raw("slug")),
		Author: argOf(in.integer("author")), Status: argOf(in.raw("status")),
		Date: argOf(in.raw("date")), DateUTC: argOf(in.raw("date_utc")),
		Start: argOf(in.text("start_date")), End: argOf(in.text("end_date")),
		Timezone: argOf(in.text("timezone")), Website: argOf(in.text("website")),
		Image: argOf(in.text("image")), AllDay: argOf(in.truthy("all_day")),
		ShowMap: argOf(in.truthy("show_map")), ShowMapLink: argOf(in.truthy("show_map_link")),
		HideFromListings: argOf(in.truthy("hide_from_listings")), Featured: argOf(in.truthy("featured")),
		Sticky:     argOf(in.truthy("sticky")),
		Cost:       in.listArg("cost", costRows),
		Categories: in.listArg("categories", termArgs), Tags: in.listArg("tags", termArgs),
		Venue: venueLinks(in), Organizers: organizerLinks(in),
	}
}

// argOf is an argument read by a Params reader in mapping's form.
func argOf[T any](v T, given bool) mapping.Arg[T] { return mapping.Arg[T]{V: v, OK: given} }

// costRows are the cost's rows (an array gives one row each), without the empty ones.
func costRows(v any) []string {
	rows := []string{}
	for _, item := range costItems(v) {
		if s, ok := php.Scalar(item); ok && s != "" {
			rows = append(rows, s)
		}
	}
	return rows
}

// costItems is the cost as rows: an array's or an object's members (PHP casts either to an array),
// or the value itself (a cost string is not CSV).
func costItems(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case map[string]any:
		return php.ArrayValues(x)
	}
	return []any{v}
}

// linkItem reads one entry of a venue or organizer argument. An empty id is no id, as for the
// original (Linked_Post_Base::insert).
func linkItem(k linkedKind, item any) mapping.LinkItem {
	m, isObj := item.(map[string]any)
	if !isObj {
		s, _ := php.Scalar(item)
		return mapping.LinkItem{ID: strings.TrimSpace(s), HasID: true}
	}
	if id, ok := Params(m).given("id"); ok && !php.Empty(id) {
		s, _ := php.Scalar(id)
		return mapping.LinkItem{Object: true, ID: strings.TrimSpace(s), HasID: true}
	}
	name, _ := Params(m).text(k.name)
	return mapping.LinkItem{Object: true, Name: name, Payload: linkedWrite(k, Params(m))}
}

// venueLinks reads an event's venue: an ID, an {id} object or a creation payload. Lists (even of
// one ID or object) and CSV strings are malformed, as in the original (Linked_Post_Base::insert
// takes a list for creation data without a name); empty leaves the venue as it is.
func venueLinks(in Params) mapping.Links {
	v, ok := in.given("venue")
	if !ok || php.Empty(v) {
		return mapping.Links{}
	}
	_, isList := v.([]any)
	if s, _ := php.Scalar(v); isList || strings.Contains(s, ",") {
		return mapping.Links{Given: true, Malformed: true}
	}
	return mapping.Links{Given: true, Items: []mapping.LinkItem{linkItem(venues, v)}}
}

// organizerLinks reads an event's organizers in the order given: IDs, {id} objects, creation
// payloads; empty entries are skipped (Linked_Post_Base::insert: nothing to link). "" or [] removes
// them all; a CSV string is malformed, and an unwrapped object is a list of its members.
func organizerLinks(in Params) mapping.Links {
	v, ok := in.given("organizer")
	if !ok {
		return mapping.Links{}
	}
	list, ok := organizerList(v)
	if !ok {
		return mapping.Links{Given: true, Malformed: true}
	}
	l := mapping.Links{Given: true}
	for _, item := range list {
		if !php.Empty(item) {
			l.Items = append(l.Items, linkItem(organizers, item))
		}
	}
	return l
}

// organizerList is an event's organizer argument as a list of entries; ok is false for a CSV
// string, which the original fails on.
func organizerList(v any) ([]any, bool) {
	switch x := v.(type) {
	case map[string]any:
		// An unwrapped object is a list of entries to the original (Single_Organizer::insert casts
		// it to an array): its members are taken one by one, empty ones skipped.
		return php.ArrayValues(x), true
	case []any:
		return x, true
	}

	if s, _ := php.Scalar(v); strings.Contains(s, ",") {
		return nil, false
	}
	if php.Empty(v) {
		return nil, true
	}
	return []any{v}, true
}
