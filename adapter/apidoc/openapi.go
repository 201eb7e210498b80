package apidoc

import (
	"strings"

	"calshim/mapping"
)

// docVerbs is the order of the operations under a /doc path (the original lists get, post, delete,
// whatever the order of registration).
var docVerbs = []string{"get", "post", "put", "patch", "delete"}

// paths returns the /doc paths object.
func (o Options) paths() mapping.Object {
	var out mapping.Object
	for _, r := range o.Routes {
		if r.DocPath == "" {
			continue
		}
		var ops mapping.Object
		for _, verb := range docVerbs {
			for _, e := range r.Endpoints {
				if e.Doc != nil && strings.ToLower(e.Methods[0]) == verb {
					ops = append(ops, mapping.KV{Key: verb, Value: o.operation(e)})
				}
			}
		}
		out = append(out, mapping.KV{Key: r.DocPath, Value: ops})
	}

	return out
}

// operation returns the /doc operation of e.
func (o Options) operation(e Endpoint) mapping.Object {
	var op mapping.Object
	params := e.Doc.Params
	if params == nil {
		params = e.Args
	}

	if len(params) > 0 {
		list := make([]mapping.Object, 0, len(params))
		for _, a := range params {
			list = append(list, o.parameter(a))
		}
		op = append(op, mapping.KV{Key: "parameters", Value: list})
	}

	if e.Doc.Body != nil {
		props := make(mapping.Object, 0, len(e.Doc.Body))
		for _, a := range e.Doc.Body {
			props = append(props, mapping.KV{Key: a.Name, Value: o.bodyProperty(a)})
		}
		schema := mapping.Object{{Key: "type", Value: "object"}, {Key: "properties", Value: props}}
		form := mapping.Object{{Key: "application/x-www-form-urlencoded",
			Value: mapping.Object{{Key: "schema", Value: schema}}}}
		body := mapping.Object{{Key: "content", Value: form}}
		op = append(op, mapping.KV{Key: "requestBody", Value: body})
	}

	responses := make(mapping.Object, 0, len(e.Doc.Responses))
	for _, r := range e.Doc.Responses {
		responses = append(responses, mapping.KV{Key: r.Status, Value: o.response(r)})
	}

	return append(op, mapping.KV{Key: "responses", Value: responses})
}

// parameter returns one /doc parameter (TEC's swaggerize_args: its defaults merged with the
// non-false keys, which is why "explode": false never shows next to "style": "form").
func (o Options) parameter(a Arg) mapping.Object {
	in := a.In
	if in == "" {
		in = "query"
	}

	p := mapping.Object{
		{Key: "in", Value: in},
		{Key: "schema", Value: o.typeSchema(a)},
		{Key: "description", Value: o.docDescription(a)},
		{Key: "required", Value: a.Required},
		{Key: "name", Value: a.Name},
	}
	if a.CSV {
		p = append(p, mapping.KV{Key: "style", Value: "form"})
	}

	return p
}

// typeSchema returns {"type"[, "items"]} of a.
func (o Options) typeSchema(a Arg) mapping.Object {
	s := mapping.Object{{Key: "type", Value: a.docType()}}
	if a.Items != "" {
		s = append(s, mapping.KV{Key: "items", Value: mapping.Object{{Key: "type", Value: a.Items}}})
	}
	return s
}

// bodyProperty returns one property of a request body.
func (o Options) bodyProperty(a Arg) mapping.Object {
	return append(mapping.Object{{Key: "description", Value: o.docDescription(a)}}, o.typeSchema(a)...)
}

func (o Options) docDescription(a Arg) string {
	if a.Description == "" {
		return o.tr("No description provided")
	}
	return o.tr(a.Description)
}

// response returns one /doc response.
func (o Options) response(r Response) mapping.Object {
	out := mapping.Object{{Key: "description", Value: o.tr(r.Description)}}
	if r.Schema == "" {
		return out
	}

	schema := mapping.Object{{Key: "$ref", Value: schemaRef(r.Schema)}}
	if r.List != "" {
		schema = mapping.Object{{Key: "title", Value: r.List}, {Key: "type", Value: "array"},
			{Key: "items", Value: schema}}
	}

	json := mapping.Object{
		{Key: "application/json", Value: mapping.Object{{Key: "schema", Value: schema}}},
	}
	return append(out, mapping.KV{Key: "content", Value: json})
}

func schemaRef(name string) string { return "#/components/schemas/" + name }
