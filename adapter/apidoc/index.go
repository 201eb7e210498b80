package apidoc

import (
	"slices"

	"calshim/mapping"
)

// keyOrder is the order in which the index shows an argument's schema keys. The original declares
// every argument as a hand-written PHP array and WordPress keeps the array's key order, so the
// order varies from one argument to the next; these are the four orders it uses. "required" always
// comes last.
type keyOrder uint8

const (
	defaultTypeDesc keyOrder = iota // default, type, format, items, enum, description (writes)
	defaultDescType                 // default, description, type, format, items, enum (archives)
	typeDefaultDesc                 // type, format, items, enum, default, description (linked fields)
	descTypeDefault                 // description, type, …, default (hide_empty, only_with_upcoming)
)

// indexRoute returns the index entry of r (WP_REST_Server::get_data_for_route).
func (o Options) indexRoute(r Route) mapping.Object {
	endpoints := make([]mapping.Object, 0, len(r.Endpoints))
	for _, e := range r.Endpoints {
		endpoints = append(endpoints, mapping.Object{
			{Key: "methods", Value: e.Methods},
			{Key: "args", Value: o.indexArgs(e.Args)},
		})
	}

	route := mapping.Object{
		{Key: "namespace", Value: o.Namespace},
		{Key: "methods", Value: r.Methods()},
		{Key: "endpoints", Value: endpoints},
	}
	if !r.HasVars() {
		self := mapping.Object{{Key: "href", Value: o.nsURL() + r.Path}}
		links := mapping.Object{{Key: "self", Value: []mapping.Object{self}}}
		route = append(route, mapping.KV{Key: "_links", Value: links})
	}

	return route
}

// indexArgs returns the args object of an endpoint; no arguments encode as [] (PHP's empty array).
func (o Options) indexArgs(args []Arg) any {
	if len(args) == 0 {
		return []any{}
	}

	out := make(mapping.Object, 0, len(args))
	for _, a := range args {
		out = append(out, mapping.KV{Key: a.Name, Value: o.indexArg(a)})
	}

	return out
}

// indexArg returns the schema keys WordPress shows for one argument, in a.Keys order. TEC's own
// keys (in, swagger_type, collectionFormat, callbacks) are not shown.
func (o Options) indexArg(a Arg) mapping.Object {
	def, desc, schema := o.defaultKeys(a), o.descriptionKeys(a), schemaKeys(a)

	var obj mapping.Object
	switch a.Keys {
	case defaultDescType:
		obj = slices.Concat(def, desc, schema)
	case typeDefaultDesc:
		obj = slices.Concat(schema, def, desc)
	case descTypeDefault:
		obj = slices.Concat(desc, schema, def)
	default: // defaultTypeDesc
		obj = slices.Concat(def, schema, desc)
	}

	return append(obj, mapping.KV{Key: "required", Value: a.Required})
}

// defaultKeys is the argument's default, if it has one.
func (o Options) defaultKeys(a Arg) mapping.Object {
	if v, ok := a.DefaultValue(o); ok {
		return mapping.Object{{Key: "default", Value: v}}
	}
	return nil
}

// descriptionKeys is the argument's translated description, if it has one.
func (o Options) descriptionKeys(a Arg) mapping.Object {
	if a.Description != "" {
		return mapping.Object{{Key: "description", Value: o.tr(a.Description)}}
	}
	return nil
}

// schemaKeys are the argument's type, format, items and enum, those it has.
func schemaKeys(a Arg) mapping.Object {
	var obj mapping.Object
	if a.Type != "" {
		obj = append(obj, mapping.KV{Key: "type", Value: a.Type})
	}

	if a.Format != "" {
		obj = append(obj, mapping.KV{Key: "format", Value: a.Format})
	}

	if a.Items != "" {
		obj = append(obj, mapping.KV{Key: "items", Value: mapping.Object{{Key: "type", Value: a.Items}}})
	}

	if a.Enum != nil {
		obj = append(obj, mapping.KV{Key: "enum", Value: a.Enum})
	}
	return obj
}
