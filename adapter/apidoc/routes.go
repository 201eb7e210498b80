package apidoc

// Methods of the endpoint kinds (WP_REST_Server::READABLE, CREATABLE, EDITABLE, DELETABLE).
var (
	read   = []string{"GET"}
	create = []string{"POST"}
	edit   = []string{"POST", "PUT", "PATCH"}
	remove = []string{"DELETE"}
)

// table is every v1 route in the original's registration order, the namespace route first. /doc
// documents each {id} and by-slug route's POST with the fields of a write as its request body;
// which list, and whether it holds the identifier, varies by resource as in the original.
// Collection POSTs are not documented.
var table = []Route{
	{Path: "", Endpoints: []Endpoint{
		{Methods: read, Args: namespaceArgs},
	}},
	{Path: "/doc", DocPath: "/doc", Endpoints: []Endpoint{
		{Methods: read, Doc: &Operation{Responses: docResponses}},
	}},

	{Path: "/events", DocPath: "/events", Endpoints: []Endpoint{
		{Methods: read, Args: eventArchiveArgs, Doc: &Operation{Responses: eventResponses.archive}},
		{Methods: create, Args: required(eventFields, "title", "start_date", "end_date")},
	}},
	{Path: `/events/(?P<id>\d+)`, DocPath: "/events/{id}", Endpoints: []Endpoint{
		{Methods: read, Args: eventIDArgs, Doc: &Operation{Responses: eventResponses.get}},
		{Methods: remove, Args: eventIDArgs, Doc: &Operation{Responses: eventResponses.delete}},
		{Methods: edit, Args: concat(eventIDArgs, eventFields),
			Doc: &Operation{Params: eventIDArgs, Body: eventFields, Responses: eventResponses.post}},
	}},
	{Path: `/events/by-slug/(?P<slug>[^/]+)`, DocPath: "/events/by-slug/{slug}", Endpoints: []Endpoint{
		{Methods: read, Args: eventSlugArgs, Doc: &Operation{Responses: eventResponses.get}},
		{Methods: remove, Args: eventSlugArgs, Doc: &Operation{Responses: eventResponses.delete}},
		// The slug to set comes first and is optional; the route's own slug is the path variable.
		{Methods: edit, Args: concat([]Arg{field(eventFields, "slug")}, without(eventFields, "slug")),
			Doc: &Operation{Params: eventSlugArgs, Body: eventFields, Responses: eventResponses.post}},
	}},

	{Path: "/venues", DocPath: "/venues", Endpoints: []Endpoint{
		{Methods: read, Args: venueArchiveArgs, Doc: &Operation{Responses: venueResponses.archive}},
		{Methods: create, Args: required(venueFields, "venue")},
	}},
	{Path: `/venues/(?P<id>\d+)`, DocPath: "/venues/{id}", Endpoints: []Endpoint{
		{Methods: read, Args: venueIDArgs, Doc: &Operation{Responses: venueResponses.get}},
		{Methods: remove, Args: venueIDArgs, Doc: &Operation{Responses: venueResponses.delete}},
		{Methods: edit, Args: concat(venueIDArgs, venueFields),
			Doc: &Operation{Params: venueIDArgs, Body: venueFields, Responses: venueResponses.post}},
	}},
	{Path: `/venues/by-slug/(?P<slug>[^/]+)`, DocPath: "/venues/by-slug/{slug}", Endpoints: []Endpoint{
		{Methods: read, Args: venueSlugArgs, Doc: &Operation{Responses: venueResponses.get}},
		{Methods: remove, Args: venueSlugArgs, Doc: &Operation{Responses: venueResponses.delete}},
		{Methods: edit, Args: concat(venueSlugArgs, venueFields),
			Doc: &Operation{Params: venueSlugArgs, Body: venueFields, Responses: venueResponses.post}},
	}},

	{Path: "/organizers", DocPath: "/organizers", Endpoints: []Endpoint{
		{Methods: read, Args: organizerArchiveArgs,
			Doc: &Operation{Responses: organizerResponses.archive}},
		{Methods: create, Args: required(organizerFields, "organizer")},
	}},
	{Path: `/organizers/(?P<id>\d+)`, DocPath: "/organizers/{id}", Endpoints: []Endpoint{
		{Methods: read, Args: organizerIDArgs, Doc: &Operation{Responses: organizerResponses.get}},
		{Methods: remove, Args: organizerIDArgs, Doc: &Operation{Responses: organizerResponses.delete}},
		{Methods: edit, Args: concat(organizerIDArgs, organizerFields),
			Doc: &Operation{Params: organizerIDArgs, Body: concat(organizerIDArgs, organizerFields),
				Responses: organizerResponses.post}},
	}},
	{Path: `/organizers/by-slug/(?P<slug>[^/]+)`, DocPath: "/organizers/by-slug/{slug}",
		Endpoints: []Endpoint{
			{Methods: read, Args: organizerSlugArgs, Doc: &Operation{Responses: organizerResponses.get}},
			{Methods: remove, Args: organizerSlugArgs,
				Doc: &Operation{Responses: organizerResponses.delete}},
			{Methods: edit, Args: concat(organizerSlugArgs, organizerFields),
				Doc: &Operation{Params: organizerSlugArgs, Body: concat(organizerSlugArgs, organizerFields),
					Responses: organizerResponses.post}},
		}},

	{Path: "/categories", DocPath: "/categories", Endpoints: []Endpoint{
		{Methods: read, Args: categoryArchiveArgs, Doc: &Operation{Responses: categoryResponses.archive}},
		{Methods: create, Args: required(categoryFields, "name")},
	}},
	{Path: `/categories/(?P<id>\d+)`, DocPath: "/categories/{id}", Endpoints: []Endpoint{
		{Methods: read, Args: categoryIDArgs, Doc: &Operation{Responses: categoryResponses.get}},
		{Methods: edit, Args: concat(categoryIDArgs, categoryFields),
			Doc: &Operation{Params: categoryIDArgs, Body: concat(categoryIDArgs, categoryFields),
				Responses: categoryResponses.post}},
		{Methods: remove, Args: categoryIDArgs, Doc: &Operation{Responses: categoryResponses.delete}},
	}},

	{Path: "/tags", DocPath: "/tags", Endpoints: []Endpoint{
		{Methods: read, Args: tagArchiveArgs, Doc: &Operation{Responses: tagResponses.archive}},
		{Methods: create, Args: required(tagFields, "name")},
	}},
	{Path: `/tags/(?P<id>\d+)`, DocPath: "/tags/{id}", Endpoints: []Endpoint{
		{Methods: read, Args: tagIDArgs, Doc: &Operation{Responses: tagResponses.get}},
		{Methods: edit, Args: concat(tagIDArgs, tagFields),
			Doc: &Operation{Params: tagIDArgs, Body: tagFields, Responses: tagResponses.post}},
		{Methods: remove, Args: tagIDArgs, Doc: &Operation{Responses: tagResponses.delete}},
	}},
}
