package adapter

import (
	"fmt"
	"slices"
	"strings"

	"calshim/adapter/apidoc"
	"calshim/catalog"
	"calshim/mapping"
	"calshim/mapping/php"
)

// argSpec is one argument of an endpoint as WordPress holds it after register_rest_route: its
// schema type, whether it is required, and its validate_callback and sanitize_callback.
type argSpec struct {
	name     string
	typ      string // schema type; with no sanitize, WordPress parses the value by it
	required bool
	validate validateFunc // nil: no validate_callback
	sanitize sanitizeFunc // nil: rest_parse_request_arg when typ is set, else the value as given
}

// validateFunc is a validate_callback. It answers nil (valid), errFalse (the callback returned
// false: "Invalid parameter.") or a *paramError (it returned a WP_Error, reported in data.details).
type validateFunc func(r *request, v any) error

// sanitizeFunc is a sanitize_callback: the value to keep, or a *paramError.
type sanitizeFunc func(r *request, v any) (any, error)

// checked collects the failures of one phase of the pipeline, in the order WordPress records them.
type checked struct {
	params  mapping.Object // name → message
	details mapping.Object // name → {code, message, data}, only for WP_Errors
}

// add records a failure; a later failure of the same name replaces the message in place, as a PHP
// array assignment does.
func (c *checked) add(name string, err error) {
	pe, ok := err.(*paramError)
	if !ok {
		pe = errFalse
	}

	c.params.Set(name, pe.message)
	if pe != errFalse {
		c.details.Set(name, mapping.Object{{Key: "code", Value: pe.code},
			{Key: "message", Value: pe.message}, {Key: "data", Value: dataOrNull(pe.data)}})
	}
}

func dataOrNull(d mapping.Object) any {
	if d == nil {
		return nil
	}
	return d
}

// err is the phase's rest_invalid_param, or nil. details is [] when empty, as PHP encodes an empty
// array.
func (c *checked) err() error {
	if len(c.params) == 0 {
		return nil
	}

	names := make([]string, len(c.params))
	for i, kv := range c.params {
		names[i] = kv.Key
	}

	var details any = []any{}
	if len(c.details) > 0 {
		details = c.details
	}

	return invalidParams(c.params, details)
}

// parseArgs is WordPress' WP_REST_Request::has_valid_params followed by sanitize_params: missing
// required arguments → rest_missing_callback_param; then every validate_callback of a given
// argument (declaration order), all failures in one rest_invalid_param; only when none failed,
// every sanitize_callback (the type check for typed arguments) in the order the request gives the
// parameters. It returns the parameters with sanitized values. A JSON null is absent for the
// required and validate checks (get_param), but is sanitized, so a typed argument refuses it.
func parseArgs(r *request, specs []argSpec) (Params, error) {
	if err := missingArgs(r, specs); err != nil {
		return nil, err
	}

	phase1 := checked{params: mapping.Object{}, details: mapping.Object{}}
	for _, a := range specs {
		v, ok := r.given(a.name)
		if !ok || a.validate == nil {
			continue
		}
		if err := a.validate(r, v); err != nil {
			phase1.add(a.name, err)
		}
	}

	if err := phase1.err(); err != nil {
		return nil, err
	}

	return sanitizeArgs(r, specs)
}

func missingArgs(r *request, specs []argSpec) error {
	var missing []string
	for _, a := range specs {
		if _, ok := r.given(a.name); a.required && !ok {
			missing = append(missing, a.name)
		}
	}

	if len(missing) == 0 {
		return nil
	}

	return missingParams(missing)
}

// sanitizeArgs is the second phase: sanitize_params visits the parameters as the request holds
// them (body first, then the query string), not in declaration order.
func sanitizeArgs(r *request, specs []argSpec) (Params, error) {
	out := Params{}
	for k, v := range r.params {
		out[k] = v
	}

	phase2 := checked{params: mapping.Object{}, details: mapping.Object{}}
	for _, name := range paramOrder(r, specs) {
		i := slices.IndexFunc(specs, func(a argSpec) bool { return a.name == name })
		v, ok := r.params[name]
		if i < 0 || !ok {
			continue
		}
		clean, err := specs[i].sanitizeValue(r, v)
		if err != nil {
			phase2.add(name, err)
			continue
		}
		out[name] = clean
	}

	if err := phase2.err(); err != nil {
		return nil, err
	}

	return out, nil
}

// sanitizeValue runs the sanitize_callback, or WordPress' default for typed arguments
// (rest_parse_request_arg: the schema check, then the schema's cast).
func (a argSpec) sanitizeValue(r *request, v any) (any, error) {
	if a.sanitize != nil {
		return a.sanitize(r, v)
	}
	if a.typ == "" {
		return v, nil
	}
	return schemaParse(a.name, a.typ, v)
}

// paramOrder lists the parameter names as sanitize_params meets them: those of the body (which the
// parsed request no longer orders: declaration order), then the query string's by first occurrence.
func paramOrder(r *request, specs []argSpec) []string {
	var query []string
	seen := map[string]bool{}
	if r.gc != nil {
		php.EachPair(r.gc.Request.URL.RawQuery, func(key, _ string) {
			if name, _, _ := splitFormKey(key); !seen[name] {
				seen[name] = true
				query = append(query, name)
			}
		})
	}

	var order []string
	for _, a := range specs {
		if _, ok := r.params[a.name]; ok && !seen[a.name] {
			order = append(order, a.name)
		}
	}

	return append(order, query...)
}

// schemaParse is rest_parse_request_arg for the scalar types the original declares: the value must
// be of the type (else rest_invalid_type), and is cast to it.
func schemaParse(name, typ string, v any) (any, error) {
	if !hasType(v, typ) {
		return nil, invalidType(name, typ)
	}

	switch typ {
	case "integer":
		n, _ := asInt(v)
		return n, nil
	case "boolean":
		b, _ := asBool(v)
		return b, nil
	}

	return v, nil
}

// routeSpecs returns the arguments the matched route declares for the request's method, nil when
// no route matched (a request a test builds by hand).
func routeSpecs(r *request) []argSpec {
	if r.route == nil {
		return nil
	}
	return r.route.endpoint(r.method).specs
}

// specsOf resolves the table's declared callbacks; the route variables of pattern are left out (the
// original documents password "in path" too, but it arrives in the query). A Check without behaviour panics:
// the table is static and the tests walk all of it.
func specsOf(pattern string, args []apidoc.Arg) []argSpec {
	out := make([]argSpec, 0, len(args))
	for _, a := range args {
		if strings.Contains(pattern, "(?P<"+a.Name+">") {
			continue // a route variable: the route's pattern has matched it already
		}
		s := argSpec{name: a.Name, typ: a.Type, required: a.Required}
		if a.Validate != 0 {
			s.validate = lookup(validators, a.Validate)
		}
		if a.Sanitize != 0 {
			s.sanitize = lookup(sanitizers, a.Sanitize)
		}
		out = append(out, s)
	}

	return out
}

func lookup[F any](m map[apidoc.Check]F, c apidoc.Check) F {
	f, ok := m[c]
	if !ok {
		panic(fmt.Sprintf("adapter: no behaviour for apidoc.Check %d", c))
	}
	return f
}

// readArgs runs the pipeline on the arguments the matched route declares for the request's method
// and returns the sanitized values (r.params keeps the values as given).
func (r *request) readArgs() (Params, error) {
	return parseArgs(r, routeSpecs(r))
}

// checkArgs runs a write's arguments through the pipeline every route shares (parseArgs: WordPress'
// has_valid_params, then sanitize_params), with the arguments the route table declares for the
// request's route and method, in the original's order (which decides the order of the names in an
// error). The write handlers keep the values as given.
func checkArgs(r *request) error {
	_, err := parseArgs(r, routeSpecs(r))
	return err
}

// validators are the validate_callbacks the route table declares (apidoc.Arg.Validate), after the
// original's Tribe__Validator__Base, Tribe__Events__Validator__Base and Archive_Base.
var validators = map[apidoc.Check]validateFunc{
	apidoc.PositiveInt:         verdict(isPositiveInt),
	apidoc.PositiveIntList:     verdict(isPositiveIntList),
	apidoc.Time:                verdict(isTime),
	apidoc.String:              verdict(func(_ *request, v any) bool { return php.IsString(v) }),
	apidoc.EventCategory:       verdict(isTermOf(categoriesOf)),
	apidoc.PostTag:             verdict(isTermOf(tagsOf)),
	apidoc.VenueIDList:         verdict(isLinkedList(func(t catalog.Types) string { return t.Venue })),
	apidoc.OrganizerIDList:     verdict(isLinkedList(organizerType)),
	apidoc.EventID:             verdict(isEventID),
	apidoc.EventStatusList:     verdict(statusList("edit_tribe_events")),
	apidoc.VenueStatusList:     verdict(statusList("edit_tribe_venues")),
	apidoc.OrganizerStatusList: verdict(statusList("edit_tribe_organizers")),
	apidoc.SupportsTicketed:    supportsTicketed,

	// The validators of the writes' fields.
	apidoc.NonEmptyString: verdict(nonEmptyString),
	apidoc.AnyString:      verdict(anyString),
	apidoc.UserID:         verdict(isUserID),
	apidoc.PostStatus:     verdict(isPostStatus),
	apidoc.Timezone:       verdict(isTimezone),
	apidoc.URLOrEmpty:     verdict(isURLOrEmpty),
	apidoc.Image:          verdict(isImage),
	apidoc.ImageOrEmpty:   verdict(isImageOrEmpty),
	apidoc.VenueLink:      verdict(venues.validLink),
	apidoc.OrganizerLink:  verdict(organizers.validLink),
	apidoc.CategoryParent: verdict(isCategoryParent),
}

// sanitizers are the sanitize_callbacks the route table declares (apidoc.Arg.Sanitize).
var sanitizers = map[apidoc.Check]sanitizeFunc{
	// Archive_Base::sanitize_per_page: intval capped at the maximum; empty values become false,
	// which the archives then replace with the default.
	apidoc.PerPage: func(r *request, v any) (any, error) {
		if php.Empty(v) {
			return false, nil
		}
		return php.Int(v), nil
	},
	// Tribe__Utils__Array::list_to_array.
	apidoc.ListToArray: func(_ *request, v any) (any, error) { return php.ListToArray(v), nil },
}

// verdict turns a boolean validator into a validate_callback.
func verdict(f func(r *request, v any) bool) validateFunc {
	return func(r *request, v any) error {
		if f(r, v) {
			return nil
		}
		return errFalse
	}
}
