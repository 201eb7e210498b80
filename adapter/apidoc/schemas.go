package apidoc

import "calshim/mapping"

// component is one entry of /doc components.schemas: an object and its properties.
type component struct {
	Name  string
	Props []property
}

// property is one property of a component.
type property struct {
	Name        string
	Type        string
	Format      string
	Items       string // item type of a list of scalars
	Enum        []string
	Ref         string // component of an "array" property's items, else of the property itself
	Description string // English
}

// schemaTable lists the component schemas in the original's order. Their claims are the original's,
// not the truth of the representations (date details and cost values are strings in the bodies),
// and so are the typos: the trailing space in "currency_position ", the organizer wording of
// Venue.global_id_lineage, "string" images.
var schemaTable = []component{
	{Name: "ImageSize", Props: []property{
		{Name: "width", Type: "integer", Description: "The image width in pixels in the specified size"},
		{Name: "height", Type: "integer",
			Description: "The image height in pixels in the specified size"},
		{Name: "mime-type", Type: "string", Description: "The image mime-type"},
		{Name: "url", Type: "string", Format: "uri",
			Description: "The link to the image in the specified size on the site"},
	}},
	{Name: "CostDetails", Props: []property{
		{Name: "currency_symbol", Type: "string", Description: "The cost currency symbol"},
		{Name: "currency_position ", Type: "string", Enum: []string{"prefix", "postfix"},
			Description: "The position of the currency symbol in the cost string"},
		{Name: "values", Type: "array", Items: "integer",
			Description: "A sorted array of all the numeric values for the cost"},
	}},
	{Name: "Term", Props: []property{
		{Name: "id", Type: "integer", Description: "The WordPress term ID"},
		{Name: "name", Type: "string", Description: "The term name"},
		{Name: "slug", Type: "string", Description: "The term slug"},
		{Name: "taxonomy", Type: "string", Description: "The taxonomy the term belongs to"},
		{Name: "description", Type: "string", Description: "The term description"},
		{Name: "parent", Type: "integer", Description: "The term parent term if any"},
		{Name: "count", Type: "integer", Description: "The number of posts associated with the term"},
		{Name: "url", Type: "string", Description: "The URL to the term archive page"},
		{Name: "urls", Type: "array", Items: "string",
			Description: "A list of links to the term own, archive and parent REST URL"},
	}},
	{Name: "Image", Props: []property{
		{Name: "url", Type: "string", Format: "uri",
			Description: "The URL to the full size version of the image"},
		{Name: "id", Type: "integer", Description: "The image WordPress post ID"},
		{Name: "extension", Type: "string", Description: "The image file extension"},
		{Name: "width", Type: "integer", Description: "The image natural width in pixels"},
		{Name: "height", Type: "integer", Description: "The image natural height in pixels"},
		{Name: "sizes", Type: "array", Ref: "ImageSize",
			Description: "The details about each size available for the image"},
	}},
	{Name: "DateDetails", Props: []property{
		{Name: "year", Type: "integer", Description: "The date year"},
		{Name: "month", Type: "integer", Description: "The date month"},
		{Name: "day", Type: "integer", Description: "The date day"},
		{Name: "hour", Type: "integer", Description: "The date hour"},
		{Name: "minutes", Type: "integer", Description: "The date minutes"},
		{Name: "seconds", Type: "integer", Description: "The date seconds"},
	}},
	{Name: "Event", Props: []property{
		{Name: "id", Type: "integer", Description: "The event WordPress post ID"},
		{Name: "global_id", Type: "string",
			Description: "The event ID used to globally identify in Event Aggregator"},
		{Name: "global_id_lineage", Type: "array", Items: "string",
			Description: "An Array containing the lineage of where this event comes from, this should not " +
				"change after the event is created."},
		{Name: "author", Type: "integer", Description: "The event author WordPress post ID"},
		{Name: "date", Type: "string", Description: "The event creation date in the site time zone"},
		{Name: "date_utc", Type: "string", Description: "The event creation date in UTC time"},
		{Name: "modified", Type: "string",
			Description: "The event last modification date in the site time zone"},
		{Name: "modified_utc", Type: "string",
			Description: "The event last modification date in UTC time"},
		{Name: "status", Type: "string", Description: "The event status"},
		{Name: "url", Type: "string", Description: "The URL to the event page"},
		{Name: "rest_url", Type: "string", Description: "The TEC REST API link to fetch this event"},
		{Name: "title", Type: "string", Description: "The event name"},
		{Name: "description", Type: "string", Description: "The event long description"},
		{Name: "excerpt", Type: "string", Description: "The event short description"},
		{Name: "slug", Type: "string", Description: "The event slug"},
		{Name: "image", Type: "object", Ref: "Image",
			Description: "The event featured image details if set"},
		{Name: "all_day", Type: "boolean", Description: "Whether or not this event is an all day Event"},
		{Name: "start_date", Type: "string",
			Description: "The event start date in the event or site time zone"},
		{Name: "start_date_details", Type: "array", Ref: "DateDetails",
			Description: "An array of each component of the event start date"},
		{Name: "end_date", Type: "string",
			Description: "The event end date in the event or site time zone"},
		{Name: "end_date_details", Type: "array", Ref: "DateDetails",
			Description: "An array of each component of the event end date"},
		{Name: "utc_start_date", Type: "string", Description: "The event start date in UTC time"},
		{Name: "utc_start_date_details", Type: "array", Ref: "DateDetails",
			Description: "An array of each component of the event start date in UTC time"},
		{Name: "utc_end_date", Type: "string", Description: "The event end date in UTC time"},
		{Name: "utc_end_date_details", Type: "array", Ref: "DateDetails",
			Description: "An array of each component of the event end date in UTC time"},
		{Name: "timezone", Type: "string", Description: "The event time zone string"},
		{Name: "timezone_abbr", Type: "string", Description: "The abbreviated event time zone string"},
		{Name: "cost", Type: "string", Description: "The event cost including the currency symbol"},
		{Name: "cost_details", Type: "array", Ref: "CostDetails", Description: "The event cost details"},
		{Name: "website", Type: "string", Description: "The event website URL"},
		{Name: "show_map", Type: "boolean",
			Description: "Whether the map should be shown for the event or not"},
		{Name: "show_map_link", Type: "boolean",
			Description: "Whether the map link should be shown for the event or not"},
		{Name: "hide_from_listings", Type: "boolean",
			Description: "Whether an event should be hidden from the calendar view or not"},
		{Name: "sticky", Type: "boolean",
			Description: "Whether an event is sticky in the calendar view or not"},
		{Name: "featured", Type: "boolean",
			Description: "Whether the event is featured in the calendar or not"},
		{Name: "categories", Type: "array", Ref: "Term", Description: "The event categories"},
		{Name: "tags", Type: "array", Ref: "Term", Description: "The event tags"},
		{Name: "venue", Type: "object", Ref: "Venue", Description: "The event venue"},
		{Name: "organizer", Type: "array", Ref: "Organizer", Description: "The event organizers"},
	}},
	{Name: "Venue", Props: []property{
		{Name: "id", Type: "integer", Description: "The venue WordPress post ID"},
		{Name: "global_id", Type: "string",
			Description: "The venue ID used to globally identify in Event Aggregator"},
		{Name: "global_id_lineage", Type: "array", Items: "string",
			Description: "An Array containing the lineage of where this organizer comes from, this should " +
				"not change after the organizer is created."},
		{Name: "author", Type: "integer", Description: "The venue author WordPress post ID"},
		{Name: "date", Type: "string", Description: "The venue creation date in the site time zone"},
		{Name: "date_utc", Type: "string", Description: "The venue creation date in UTC time"},
		{Name: "modified", Type: "string",
			Description: "The venue last modification date in the site time zone"},
		{Name: "modified_utc", Type: "string",
			Description: "The venue last modification date in UTC time"},
		{Name: "status", Type: "string", Description: "The venue status"},
		{Name: "url", Type: "string", Description: "The URL to the venue page"},
		{Name: "venue", Type: "string", Description: "The venue name"},
		{Name: "description", Type: "string", Description: "The venue long description"},
		{Name: "excerpt", Type: "string", Description: "The venue short description"},
		{Name: "slug", Type: "string", Description: "The venue slug"},
		{Name: "image", Type: "string", Ref: "Image",
			Description: "The event featured image details if set"},
		{Name: "show_map", Type: "boolean",
			Description: "Whether the map should be shown for the venue or not"},
		{Name: "show_map_link", Type: "boolean",
			Description: "Whether the map link should be shown for the venue or not"},
		{Name: "address", Type: "string", Description: "The venue address"},
		{Name: "city", Type: "string", Description: "The venue city"},
		{Name: "country", Type: "string", Description: "The venue country"},
		{Name: "province", Type: "string", Description: "The venue province"},
		{Name: "state", Type: "string", Description: "The venue state"},
		{Name: "zip", Type: "string", Description: "The venue ZIP code"},
		{Name: "phone", Type: "string", Description: "The venue phone number"},
		{Name: "website", Type: "string", Description: "The venue website URL"},
		{Name: "stateprovince", Type: "string", Description: "The venue state or province"},
		{Name: "geo_lat", Type: "number", Format: "double", Description: "The venue geo latitude"},
		{Name: "geo_lng", Type: "number", Format: "double", Description: "The venue geo longitude"},
	}},
	{Name: "Organizer", Props: []property{
		{Name: "id", Type: "integer", Description: "The organizer WordPress post ID"},
		{Name: "global_id", Type: "string",
			Description: "The organizer ID used to globally identify in Event Aggregator"},
		{Name: "global_id_lineage", Type: "array", Items: "string",
			Description: "An Array containing the lineage of where this organizer comes from, this should " +
				"not change after the organizer is created."},
		{Name: "author", Type: "integer", Description: "The organizer author WordPress post ID"},
		{Name: "date", Type: "string", Description: "The organizer creation date in the site time zone"},
		{Name: "date_utc", Type: "string", Description: "The organizer creation date in UTC time"},
		{Name: "modified", Type: "string",
			Description: "The organizer last modification date in the site time zone"},
		{Name: "modified_utc", Type: "string",
			Description: "The organizer last modification date in UTC time"},
		{Name: "status", Type: "string", Description: "The organizer status"},
		{Name: "url", Type: "string", Description: "The URL to the organizer page"},
		{Name: "organizer", Type: "string", Description: "The organizer name"},
		{Name: "description", Type: "string", Description: "The organizer long description"},
		{Name: "excerpt", Type: "string", Description: "The organizer short description"},
		{Name: "slug", Type: "string", Description: "The organizer slug"},
		{Name: "image", Type: "string", Ref: "Image",
			Description: "The event featured image details if set"},
		{Name: "phone", Type: "string", Description: "The organizer phone number"},
		{Name: "website", Type: "string", Description: "The organizer website"},
		{Name: "email", Type: "string", Description: "The organizer email address"},
	}},
}

// schemas returns components.schemas.
func (o Options) schemas() mapping.Object {
	out := make(mapping.Object, 0, len(schemaTable))
	for _, s := range schemaTable {
		props := make(mapping.Object, 0, len(s.Props))
		for _, p := range s.Props {
			props = append(props, mapping.KV{Key: p.Name, Value: o.propertySchema(p)})
		}
		out = append(out, mapping.KV{Key: s.Name, Value: mapping.Object{
			{Key: "type", Value: "object"},
			{Key: "properties", Value: props},
		}})
	}

	return out
}

// propertySchema returns one property: type, format, scalar items, description, enum, then the
// reference (items of an array, else $ref) — the order of the original's hand-written arrays.
func (o Options) propertySchema(p property) mapping.Object {
	obj := mapping.Object{{Key: "type", Value: p.Type}}
	add := func(k string, v any) { obj = append(obj, mapping.KV{Key: k, Value: v}) }
	if p.Format != "" {
		add("format", p.Format)
	}

	if p.Items != "" {
		add("items", mapping.Object{{Key: "type", Value: p.Items}})
	}

	add("description", o.tr(p.Description))
	if p.Enum != nil {
		add("enum", p.Enum)
	}

	switch {
	case p.Ref != "" && p.Type == "array":
		add("items", mapping.Object{{Key: "$ref", Value: schemaRef(p.Ref)}})
	case p.Ref != "":
		add("$ref", schemaRef(p.Ref))
	}

	return obj
}
