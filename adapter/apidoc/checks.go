package apidoc

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
