// Package apidoc holds the v1 routes' argument declarations and documented responses, and generates
// from the route table (adapter/http_routes.go, which puts them on its routes) the API's two
// self-descriptions: the namespace index WordPress serves at GET {ns} and the OpenAPI document TEC
// serves at GET {ns}/doc (Swagger_Documentation).
//
// Both documents reproduce the original's bodies key by key, in key order, including its typos
// ("The organizer post status" on venues, "The event category slug" for parent). Only the
// namespace, the URLs, the computed date defaults and the language of the descriptions vary,
// through Options. One deliberate difference: /doc keeps the port in servers[0].url, which the
// original drops.
package apidoc

import (
	"slices"
	"strconv"
	"strings"

	"calshim/mapping"
)

// Options are what the two documents depend on.
type Options struct {
	// Routes are the routes to describe, in registration order, the namespace route first.
	Routes []Route
	// Namespace is the served namespace without slashes around it, e.g. "cal/events/v1" or an alias
	// such as "tribe/events/v1". It names every route key, the namespace fields and the default of the
	// index's own "namespace" argument.
	Namespace string
	// RESTRoot is the absolute REST root URL the request came in on, with its trailing slash, e.g.
	// "http://127.0.0.1:8080/wp-json/" or, in a language variant, "http://example.com/de/wp-json/". A
	// missing trailing slash is added.
	RESTRoot string
	// Defaults returns the computed defaults of the event archive's start_date and end_date
	// ("Y-m-d H:i:s"), as the archive would apply them at this moment. It is called once per Index.
	// nil shows both arguments without a default.
	Defaults func() (start, end string)
	// PerPage is the default per_page of every list; 0 means 10. The index shows it as a string
	// ("10"), as the original does: it shows the raw option value.
	PerPage int
	// Translate returns the text to show for an English description or title (the English string is
	// the message ID). nil shows English.
	Translate func(english string) string
}

// defaultPerPage is the per_page default of every list when Options.PerPage is 0 (the interface
// spec).
const defaultPerPage = 10

// tr returns the translation of an English text.
func (o Options) tr(english string) string {
	if o.Translate == nil {
		return english
	}
	return o.Translate(english)
}

// nsURL returns the absolute URL of the namespace, without a trailing slash.
func (o Options) nsURL() string {
	return strings.TrimSuffix(o.RESTRoot, "/") + "/" + o.Namespace
}

// Route is one registered route: a path pattern inside the namespace and the endpoints (method
// groups) registered on it, in registration order.
type Route struct {
	// Path is the route regex relative to the namespace, as the original registers it ("" for the
	// namespace itself, "/events/(?P<id>\\d+)"). It is also a valid Go regexp; callers anchor it at
	// both ends.
	Path string
	// DocPath is the route's path in /doc ("/events/{id}"); "" when /doc does not describe the route.
	DocPath   string
	Endpoints []Endpoint
}

// Methods returns the union of the endpoints' methods in registration order, as the index lists
// them and as an Allow header would.
func (r Route) Methods() []string {
	var out []string
	for _, e := range r.Endpoints {
		for _, m := range e.Methods {
			if !slices.Contains(out, m) {
				out = append(out, m)
			}
		}
	}

	return out
}

// HasVars reports whether the path has a variable. The index links only routes without one.
func (r Route) HasVars() bool { return strings.Contains(r.Path, "(?P<") }

// Endpoint is one handler of a route: the methods it answers and the arguments it declares.
type Endpoint struct {
	Methods []string
	Args    []Arg
	// Doc is the endpoint's operation in /doc, under the verb of its first method; nil when /doc does
	// not describe it (the original documents creation only under the {id} routes).
	Doc *Operation
}

// Operation is the /doc description of an endpoint.
type Operation struct {
	// Params are the documented parameters; nil means the endpoint's own arguments.
	Params []Arg
	// Body lists the properties of the form-encoded request body; nil means no requestBody.
	Body      []Arg
	Responses []Response
}

// Response is one documented response status.
type Response struct {
	Status      string // "200"
	Description string // English
	// Schema names the component the body holds ("Event"); "" for no content.
	Schema string
	// List, when set, makes the body an array of Schema with this title ("events").
	List string
}

// Arg is one declared argument. The index shows its schema keys, the /doc parameters and request
// bodies show type and description.
type Arg struct {
	Name        string
	Description string // English; "" shows none in the index and "No description provided" in /doc
	Type        string // declared type: "integer", "string", "boolean"; "" = untyped (any value)
	Format      string // declared format: "string", "double"
	Items       string // item type of a list argument: "integer"
	Enum        []string
	// DocType is the type /doc shows when it differs from the rule Type, else "array" for a list, else
	// "string" (the original's swagger_type: "boolean" for has_events, "number" for geoloc_lat).
	DocType string
	// CSV marks a list that may be given as a comma-separated string and that /doc documents with
	// style "form". (WordPress accepts CSV for every array argument; the original documents only
	// these.)
	CSV bool
	// In is the parameter location /doc shows: "path", or "" for "query".
	In string
	// Default is the default value: nil for none, a JSON value (1, "10", false), or one of the
	// placeholders below, resolved per request. Use DefaultValue to read it.
	Default  any
	Required bool
	// Validate is the argument's validate_callback and Sanitize its sanitize_callback; the adapter
	// holds the behaviour of each. 0 means none: a typed argument is then checked and cast by its
	// type, as WordPress' rest_parse_request_arg does.
	Validate Check
	Sanitize Check
	// Keys is the order of the schema keys in the index.
	Keys keyOrder
}

// placeholder is a default the table cannot hold as a plain value.
type placeholder int

const (
	null             placeholder = iota + 1 // JSON null: the index shows "default": null
	namespaceDefault                        // Options.Namespace
	perPageDefault                          // Options.PerPage, as a string
	startDateDefault                        // first value of Options.Defaults
	endDateDefault                          // second value of Options.Defaults
)

// DefaultValue returns the default of a under o and whether it has one. A default of JSON null is
// reported as (nil, true).
func (a Arg) DefaultValue(o Options) (any, bool) {
	p, ok := a.Default.(placeholder)
	if !ok {
		return a.Default, a.Default != nil
	}

	switch p {
	case null:
		return nil, true
	case namespaceDefault:
		return o.Namespace, true
	case perPageDefault:
		n := o.PerPage
		if n == 0 {
			n = defaultPerPage
		}
		return strconv.Itoa(n), true
	}

	if o.Defaults == nil {
		return nil, false
	}

	start, end := o.Defaults()
	if p == startDateDefault {
		return start, true
	}

	return end, true
}

// docType returns the type /doc shows for a.
func (a Arg) docType() string {
	switch {
	case a.DocType != "":
		return a.DocType
	case a.Type != "":
		return a.Type
	case a.Items != "":
		return "array"
	}

	return "string"
}

// Index returns the namespace index (GET {ns}).
func Index(o Options) mapping.Object {
	if o.Defaults != nil {
		start, end := o.Defaults()
		o.Defaults = func() (string, string) { return start, end } // one clock reading for the whole body
	}

	routes := make(mapping.Object, 0, len(o.Routes))
	for _, r := range o.Routes {
		routes = append(routes, mapping.KV{Key: "/" + o.Namespace + r.Path, Value: o.indexRoute(r)})
	}

	return mapping.Object{
		{Key: "namespace", Value: o.Namespace},
		{Key: "routes", Value: routes},
		{Key: "_links", Value: mapping.Object{
			{Key: "up", Value: []mapping.Object{{{Key: "href", Value: o.RESTRoot}}}},
		}},
	}
}

// Doc returns the OpenAPI document (GET {ns}/doc).
func Doc(o Options) mapping.Object {
	return mapping.Object{
		{Key: "openapi", Value: "3.0.0"},
		{Key: "info", Value: mapping.Object{
			{Key: "version", Value: "1.0.0"},
			{Key: "title", Value: o.tr("The Events Calendar REST API")},
			{Key: "description",
				Value: o.tr("The Events Calendar REST API allows accessing upcoming events information " +
					"easily and conveniently.")},
		}},
		{Key: "components", Value: mapping.Object{{Key: "schemas", Value: o.schemas()}}},
		// The original builds this URL from the home host without its port (a bug); calshim keeps the
		// port.
		{Key: "servers", Value: []mapping.Object{{{Key: "url", Value: o.nsURL() + "/"}}}},
		{Key: "paths", Value: o.paths()},
	}
}
