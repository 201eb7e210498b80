package apidoc

// Argument declarations, per resource, as the original registers them (the READ_args and
// EDIT_args of its endpoint classes; the recorded namespace index wins where they differ). Each
// read argument declares its validate_callback and sanitize_callback (Validate, Sanitize) as a
// Check, which the adapter's argument pipeline runs. The descriptions are English message IDs, typos
// included.
// Fields lists hold the arguments of a write without the identifier and with none required:
// required(...) marks the ones creation needs, edit routes prepend their identifier.

// Check is one of the callbacks an argument declares (Arg.Validate, Arg.Sanitize): the original's
// validate_callback or sanitize_callback of that name. The adapter holds the behaviour of each
// (validators and sanitizers, adapter/args_validators.go); a Check it lacks panics when the route
// table is built.
type Check int

// The validate_callbacks, after the original's Tribe__Validator__Base, Tribe__Events__Validator__Base
// and Archive_Base; then the sanitize_callbacks.
const (
	_ Check = iota
	PositiveInt
	PositiveIntList
	Time
	String
	EventCategory
	PostTag
	VenueIDList
	OrganizerIDList
	EventID
	EventStatusList
	VenueStatusList
	OrganizerStatusList
	SupportsTicketed
	NonEmptyString
	AnyString
	UserID
	PostStatus
	Timezone
	URLOrEmpty
	Image
	ImageOrEmpty
	VenueLink
	OrganizerLink
	CategoryParent

	PerPage
	ListToArray
)

// NamespaceArgs are the arguments WordPress declares on the namespace route itself.
var NamespaceArgs = []Arg{
	{Name: "namespace", Default: namespaceDefault},
	{Name: "context", Default: "view"},
}

// eventArchiveArgs are the arguments of GET /events.
var eventArchiveArgs = []Arg{
	{Name: "page", Default: 1, Type: "integer", Keys: defaultDescType, Validate: PositiveInt,
		Description: "The archive page to return"},
	{Name: "per_page", Default: perPageDefault, Type: "integer", Keys: defaultDescType,
		Validate: PositiveInt, Sanitize: PerPage,
		Description: "The number of events to return on each page"},
	{Name: "start_date", Default: startDateDefault, Keys: defaultDescType, Validate: Time,
		Description: "Events that start on the specified date"},
	{Name: "end_date", Default: endDateDefault, Keys: defaultDescType, Validate: Time,
		Description: "Events that end on the specified date"},
	{Name: "starts_before", Validate: Time,
		Description: "Events that start before the specified date"},
	{Name: "starts_after", Validate: Time,
		Description: "Events that start after the specified date"},
	{Name: "ends_before", Description: "Events that end before the specified date", Validate: Time},
	{Name: "ends_after", Description: "Events that end after the specified date", Validate: Time},
	{Name: "strict_dates", Default: "false", Keys: defaultDescType, Validate: String,
		Description: "Dates set using the start_date/end_date, starts_*/ends_* are set to start at the " +
			"specified times. The default behavior is to include the entire days."},
	{Name: "search", Type: "string", Keys: defaultDescType, Validate: String,
		Description: "Events should contain the specified string in the title or description"},
	{Name: "categories", Items: "integer", CSV: true, Keys: defaultDescType,
		Validate:    EventCategory,
		Description: "Events should be assigned one of the specified categories slugs or IDs"},
	{Name: "tags", Items: "integer", CSV: true, Keys: defaultDescType, Validate: PostTag,
		Description: "Events should be assigned one of the specified tags slugs or IDs"},
	{Name: "venue", Items: "integer", CSV: true, Keys: defaultDescType, Validate: VenueIDList,
		Description: "Events should be assigned one of the specified venue IDs"},
	{Name: "organizer", Items: "integer", CSV: true, Keys: defaultDescType,
		Validate:    OrganizerIDList,
		Description: "Events should be assigned one of the specified organizer IDs"},
	{Name: "featured", Type: "boolean",
		Description: "Events should be filtered by their featured status"},
	{Name: "status", Format: "string", Validate: EventStatusList,
		Description: "The event post status"},
	{Name: "geoloc", Type: "boolean",
		Description: "Requires Events Calendar Pro. Events should be filtered by whether their venue " +
			"has geolocation data"},
	{Name: "geoloc_lat", Format: "double", DocType: "number",
		Description: "Requires Events Calendar Pro. Events should be filtered by their venue latitude " +
			"location, must also provide geoloc_lng"},
	{Name: "geoloc_lng", Format: "double", DocType: "number",
		Description: "Requires Events Calendar Pro. Events should be filtered by their venue longitude " +
			"location, must also provide geoloc_lat"},
	{Name: "include", Items: "integer", CSV: true, Keys: defaultDescType,
		Validate: PositiveIntList, Sanitize: ListToArray,
		Description: "Include events with one of the post IDs specified in the array of CSV list, date " +
			"filters will be ignored."},
	{Name: "post_parent", Type: "integer", Validate: EventID,
		Description: "Events should be filtered by their post_parent being the specified one."},
	{Name: "ticketed", Type: "boolean", Validate: SupportsTicketed,
		Description: "Filter events with or without tickets."},
}

// eventIDArgs identify an event by ID. The original documents password as a path parameter.
var eventIDArgs = []Arg{
	{Name: "id", Type: "integer", Description: "the event post ID", In: "path", Required: true},
	{Name: "password", Type: "string", Description: "The event password", In: "path", Validate: String},
}

// eventSlugArgs identify an event by slug (read and delete; the by-slug edit takes the plain slug
// field).
var eventSlugArgs = []Arg{
	{Name: "slug", Type: "string", Description: "the event post name", In: "path", Required: true},
}

// eventFields are the fields of an event write (POST /events and the edits).
var eventFields = []Arg{
	{Name: "author", Validate: UserID, Type: "integer", Description: "The event author ID"},
	{Name: "date", Validate: Time, Type: "string", Description: "The event publication date"},
	{Name: "date_utc", Validate: Time, Type: "string",
		Description: "The event publication date (UTC time zone)"},
	{Name: "title", Validate: NonEmptyString, Type: "string", Description: "The event title"},
	{Name: "description", Validate: NonEmptyString, Type: "string",
		Description: "The event description"},
	{Name: "slug", Validate: NonEmptyString, Type: "string", Description: "The event slug"},
	{Name: "excerpt", Validate: NonEmptyString, Type: "string", Description: "The event excerpt"},
	{Name: "status", Validate: PostStatus, Type: "string", Description: "The event post status"},
	{Name: "timezone", Validate: Timezone, Type: "string", Description: "The event time zone"},
	{Name: "all_day", Default: false, Type: "boolean",
		Description: "Whether the event lasts the whole day or not"},
	{Name: "start_date", Validate: Time, Type: "string",
		Description: "The event start date and time"},
	{Name: "end_date", Validate: Time, Type: "string", Description: "The event end date and time"},
	{Name: "image", Validate: Image, Type: "string",
		Description: "The event featured image ID or URL"},
	{Name: "cost", Description: "The event cost"},
	{Name: "website", Validate: URLOrEmpty, Default: null, Description: "The event website URL"},
	{Name: "show_map", Type: "boolean", Description: "Whether the event should show a map or not"},
	{Name: "show_map_link", Type: "boolean",
		Description: "Whether the event should show a map link or not"},
	{Name: "hide_from_listings", Type: "boolean",
		Description: "Whether events should be hidden in the calendar view or not"},
	{Name: "sticky", Type: "boolean",
		Description: "Whether the event should be sticky in the calendar view or not"},
	{Name: "featured", Type: "boolean",
		Description: "Whether the event should be featured on the site or not"},
	{Name: "categories", Default: null, Items: "integer",
		Description: "The event category ID or name"},
	{Name: "tags", Default: null, Items: "integer", Description: "The event tag ID or name"},
	{Name: "venue", Validate: VenueLink, Default: null, Items: "integer",
		Description: "The event venue IDs or data"},
	{Name: "organizer", Validate: OrganizerLink, Default: null, Items: "integer",
		Description: "The event organizer IDs or data"},
}

// linkedArchiveArgs returns the arguments of GET /venues or /organizers, which differ only in
// wording. The status description says "organizer" on both, as in the original.
func linkedArchiveArgs(status Check, perPage, search, event, hasEvents, upcoming string) []Arg {
	return []Arg{
		{Name: "page", Default: 1, Type: "integer", Keys: defaultDescType, Validate: PositiveInt,
			Description: "The archive page to return"},
		{Name: "per_page", Default: perPageDefault, Type: "integer", Keys: defaultDescType,
			Validate: PositiveInt, Sanitize: PerPage,
			Description: perPage},
		{Name: "search", Description: search, Type: "string", Keys: defaultDescType, Validate: String},
		{Name: "event", Description: event, Type: "integer", Keys: defaultDescType, Validate: EventID},
		{Name: "has_events", Description: hasEvents, DocType: "boolean"},
		{Name: "only_with_upcoming", Default: false, DocType: "boolean", Keys: descTypeDefault,
			Description: upcoming},
		{Name: "status", Format: "string", Validate: status,
			Description: "The organizer post status"},
	}
}

var venueArchiveArgs = linkedArchiveArgs(VenueStatusList,
	"The number of venues to return on each page",
	"Venues should contain the specified string in the title, description or custom fields",
	"Venues should be related to this event",
	"Venues should have events associated to them",
	"Venues should have upcoming events associated to them")

var organizerArchiveArgs = linkedArchiveArgs(OrganizerStatusList,
	"The number of organizers to return on each page",
	"Organizers should contain the specified string in the title, description or custom fields",
	"Organizers should be related to this event",
	"Organizers should have events associated to them",
	"Organizers should have upcoming events associated to them")

var (
	venueIDArgs = []Arg{{Name: "id", Type: "integer", Description: "the venue post ID", In: "path",
		Required: true}}
	venueSlugArgs = []Arg{{Name: "slug", Type: "string", Description: "the venue post name",
		In: "path", Required: true}}
)

// venueFields are the fields of a venue write. The image description says "organizer", as in the
// original.
var venueFields = []Arg{
	{Name: "author", Validate: UserID, Type: "integer", Description: "The venue author ID"},
	{Name: "date", Validate: Time, Type: "string", Description: "The venue publication date"},
	{Name: "date_utc", Validate: Time, Type: "string",
		Description: "The venue publication date (UTC time zone)"},
	{Name: "venue", Validate: NonEmptyString, Type: "string", Description: "The venue name"},
	{Name: "description", Validate: AnyString, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The venue description"},
	{Name: "status", Validate: PostStatus, Type: "string", Description: "The venue post status"},
	{Name: "show_map", Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "Whether events linked to the venue should show a map or not"},
	{Name: "show_map_link", Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "Whether events linked to the venue should show a map link or not"},
	{Name: "address", Validate: AnyString, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The venue address"},
	{Name: "city", Validate: AnyString, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The venue city"},
	{Name: "country", Validate: AnyString, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The venue country"},
	{Name: "province", Validate: AnyString, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The venue province"},
	{Name: "state", Validate: AnyString, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The venue state"},
	{Name: "zip", Validate: AnyString, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The venue ZIP code"},
	{Name: "phone", Validate: AnyString, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The venue phone number"},
	{Name: "stateprovince", Validate: AnyString, Type: "string", Default: null,
		Keys:        typeDefaultDesc,
		Description: "The venue state and province"},
	{Name: "website", Validate: URLOrEmpty, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The venue website URL"},
	{Name: "image", Validate: ImageOrEmpty, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The organizer featured image ID or URL"},
}

var (
	organizerIDArgs = []Arg{{Name: "id", Type: "integer", Description: "the organizer post ID",
		In: "path", Required: true}}
	organizerSlugArgs = []Arg{{Name: "slug", Type: "string", Description: "the organizer post name",
		In: "path", Required: true}}
)

// organizerFields are the fields of an organizer write; all declare a null default.
var organizerFields = []Arg{
	{Name: "author", Validate: UserID, Type: "integer", Default: null, Keys: typeDefaultDesc,
		Description: "The organizer author ID"},
	{Name: "date", Validate: Time, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The organizer publication date"},
	{Name: "date_utc", Validate: Time, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The organizer publication date (UTC time zone)"},
	{Name: "organizer", Validate: NonEmptyString, Type: "string", Default: null,
		Keys:        typeDefaultDesc,
		Description: "The organizer name"},
	{Name: "description", Validate: AnyString, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The organizer description"},
	{Name: "status", Validate: PostStatus, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The organizer post status"},
	{Name: "phone", Validate: AnyString, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The organizer phone number"},
	{Name: "website", Validate: URLOrEmpty, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The organizer website"},
	{Name: "email", Validate: AnyString, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The organizer e-mail address"},
	{Name: "image", Validate: ImageOrEmpty, Type: "string", Default: null, Keys: typeDefaultDesc,
		Description: "The organizer featured image ID or URL"},
}

// termArchiveArgs returns the arguments of GET /categories or /tags; tags have no parent.
func termArchiveArgs(perPage string, taxonomy Check, withParent bool) []Arg {
	args := []Arg{
		{Name: "page", Default: 1, Type: "integer", Keys: defaultDescType, Validate: PositiveInt,
			Description: "The archive page to return"},
		{Name: "per_page", Default: perPageDefault, Type: "integer", Keys: defaultDescType,
			Validate: PositiveInt, Sanitize: PerPage,
			Description: perPage},
		{Name: "search", Type: "string", Keys: defaultDescType, Validate: String,
			Description: "Limit results to those matching a string"},
		{Name: "exclude", Items: "integer", Keys: defaultDescType, Validate: taxonomy,
			Description: "Ensure result set exclude specific IDs"},
		{Name: "include", Items: "integer", Keys: defaultDescType, Validate: taxonomy,
			Description: "Limit result set to specific IDs"},
		{Name: "order", Type: "string", Keys: defaultDescType, Validate: String,
			Description: "Order sort attribute ascending or descending"},
		{Name: "orderby", Type: "string", Keys: defaultDescType, Validate: String,
			Description: "Sort collection by term attribute"},
		{Name: "hide_empty", Type: "boolean", Default: "1", Keys: descTypeDefault,
			Description: "Whether to hide terms not assigned to any posts"},
		{Name: "parent", Type: "integer", Keys: defaultDescType, Validate: EventCategory,
			Description: "Limit result set to terms assigned to a specific parent"},
		{Name: "post", Type: "integer", Keys: defaultDescType, Validate: EventID,
			Description: "Limit result set to terms assigned to a specific post"},
		{Name: "event", Type: "integer", Keys: defaultDescType, Validate: EventID,
			Description: `Limit result set to terms assigned to a specific event ` +
				`(an alias of the "post" parameter)`},
		{Name: "slug", Type: "string", Keys: defaultDescType, Validate: String,
			Description: "Limit result set to terms with a specific slug"},
	}
	if !withParent {
		args = without(args, "parent")
	}

	return args
}

var (
	categoryArchiveArgs = termArchiveArgs("The number of event categories to return on each page",
		EventCategory, true)
	tagArchiveArgs = termArchiveArgs("The number of event tags to return on each page",
		PostTag, false)
	categoryIDArgs = []Arg{{Name: "id", Type: "integer",
		Description: "the event category term ID", In: "path", Required: true}}
	tagIDArgs = []Arg{{Name: "id", Type: "integer", Description: "the event tag term ID",
		In: "path", Required: true}}
)

// categoryFields are the fields of a category write. parent's description is the original's
// copy-paste.
var categoryFields = []Arg{
	{Name: "name", Validate: NonEmptyString, Type: "string",
		Description: "The event category name"},
	{Name: "description", Validate: NonEmptyString, Type: "string",
		Description: "The event category description"},
	{Name: "slug", Validate: NonEmptyString, Type: "string",
		Description: "The event category slug"},
	{Name: "parent", Validate: CategoryParent, Type: "integer",
		Description: "The event category slug"},
}

var tagFields = []Arg{
	{Name: "name", Validate: NonEmptyString, Type: "string", Description: "The event tag name"},
	{Name: "description", Validate: NonEmptyString, Type: "string",
		Description: "The event tag description"},
	{Name: "slug", Validate: NonEmptyString, Type: "string", Description: "The event tag slug"},
}

// Resource is what the route table (adapter/http_routes.go) declares on one resource's routes: the
// arguments of each endpoint and the documented responses.
type Resource struct {
	Archive  []Arg // GET on the collection
	Create   []Arg // POST on the collection: Fields with the ones creation needs required
	ID       []Arg // the identifier of /{id}
	Slug     []Arg // the identifier of /by-slug/{slug}; nil for terms, which have no such route
	Fields   []Arg // a write's fields, without the identifier and with none required
	IDEdit   []Arg // POST, PUT and PATCH on /{id}
	SlugEdit []Arg // POST, PUT and PATCH on /by-slug/{slug}
	// Responses are the documented responses of the routes' operations.
	Responses Responses
}

// The resources of the v1 routes.
var (
	Events = func() Resource {
		r := resource(eventArchiveArgs, eventIDArgs, eventSlugArgs, eventFields, eventResponses,
			"title", "start_date", "end_date")
		// The slug to set comes first and is optional; the route's own slug is the path variable.
		r.SlugEdit = concat([]Arg{field(eventFields, "slug")}, without(eventFields, "slug"))
		return r
	}()
	Venues = resource(venueArchiveArgs, venueIDArgs, venueSlugArgs, venueFields, venueResponses,
		"venue")
	Organizers = resource(organizerArchiveArgs, organizerIDArgs, organizerSlugArgs, organizerFields,
		organizerResponses, "organizer")
	Categories = resource(categoryArchiveArgs, categoryIDArgs, nil, categoryFields, categoryResponses,
		"name")
	Tags = resource(tagArchiveArgs, tagIDArgs, nil, tagFields, tagResponses, "name")
)

// resource returns the declarations of a resource whose edits take the identifier, then the fields;
// creation requires the needed fields.
func resource(archive, id, slug, fields []Arg, res Responses, needed ...string) Resource {
	r := Resource{Archive: archive, Create: required(fields, needed...), ID: id, Slug: slug,
		Fields: fields, IDEdit: concat(id, fields), Responses: res}
	if slug != nil {
		r.SlugEdit = concat(slug, fields)
	}
	return r
}

// concat returns the argument lists one after the other, in a new slice.
func concat(lists ...[]Arg) []Arg {
	var out []Arg
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// required returns a copy of args with the named arguments required. It panics on an unknown name:
// the table is static, so that is a programming error the tests catch.
func required(args []Arg, names ...string) []Arg {
	out := concat(args)
	for _, n := range names {
		out[index(out, n)].Required = true
	}
	return out
}

// without returns a copy of args without the named argument.
func without(args []Arg, name string) []Arg {
	i := index(args, name)
	return concat(args[:i], args[i+1:])
}

// field returns the named argument of args.
func field(args []Arg, name string) Arg { return args[index(args, name)] }

func index(args []Arg, name string) int {
	for i, a := range args {
		if a.Name == name {
			return i
		}
	}
	panic("apidoc: no argument " + name)
}
