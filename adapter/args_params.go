package adapter

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"calshim/mapping"
	"calshim/mapping/php"
)

// Params are a request's arguments as PHP sees them (parseForm for query strings and form bodies,
// JSON values for JSON bodies): a name maps to a string, a list (`name[]=a&name[]=b`), a map
// (`name[k]=v`) or, from JSON, any JSON value. Later occurrences of a scalar win, as with
// parse_str.
type Params map[string]any

// maxInputNesting is PHP's limit on a variable's brackets (php.ini's max_input_nesting_level,
// which WordPress runs under): a variable nested deeper is dropped whole.
const maxInputNesting = 64

// has reports whether name was given at all (an empty string counts: WordPress validates it).
func (p Params) has(name string) bool {
	_, ok := p[name]
	return ok
}

// str returns a scalar argument; ok is false when absent or a list.
func (p Params) str(name string) (string, bool) {
	s, ok := p[name].(string)
	return s, ok
}

// list returns an argument as a list of strings: a list (or a `name[k]=v` map, by key) as is, a
// string split on commas (TEC's CSV lists), trimmed. Items that are not text (nested lists, JSON
// objects) become "", which no validator accepts.
func (p Params) list(name string) []string {
	var items []any
	switch v := p[name].(type) {
	case string:
		for _, s := range strings.Split(v, ",") {
			items = append(items, s)
		}
	case []any:
		items = v
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		for _, k := range keys {
			items = append(items, v[k])
		}
	default:
		return nil
	}

	out := make([]string, len(items))
	for i, it := range items {
		switch x := it.(type) {
		case string:
			out[i] = strings.TrimSpace(x)
		case json.Number:
			out[i] = x.String()
		}
	}

	return out
}

// wpBool is WordPress' boolean argument: true/false, "true"/"false", "1"/"0" (case-insensitive).
func wpBool(v any) (bool, bool) {
	s, ok := v.(string)
	if !ok {
		return false, false
	}

	switch php.Strtolower(s) {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}

	return false, false
}

// The readers below take an argument as the handlers read it after validation; ok says whether it
// was given.

// given returns a parameter that was sent with a non-null value.
func (p Params) given(name string) (any, bool) {
	v, ok := p[name]
	return v, ok && v != nil
}

// raw reads a scalar argument as sent (another value as "").
func (p Params) raw(name string) (string, bool) {
	v, ok := p.given(name)
	s, _ := php.Scalar(v)
	return s, ok
}

// integer reads an integer argument that passed validation.
func (p Params) integer(name string) (int, bool) {
	v, ok := p.given(name)
	n, _ := asInt(v)
	return n, ok
}

// listArg is a list argument read by entries.
func (p Params) listArg(name string, entries func(any) []string) mapping.Arg[[]string] {
	v, ok := p.given(name)
	if !ok {
		return mapping.Arg[[]string]{}
	}
	return mapping.Arg[[]string]{V: entries(v), OK: true}
}

// truthy reads a boolean argument that passed validation.
func (p Params) truthy(name string) (bool, bool) {
	v, ok := p.given(name)
	if !ok {
		return false, false
	}
	b, _ := asBool(v)
	return b, true
}

// text reads a string-ish argument, trimmed.
func (p Params) text(name string) (string, bool) {
	v, ok := p.given(name)
	if !ok {
		return "", false
	}
	s, _ := php.Scalar(v)
	return strings.TrimSpace(s), true
}

func (r *request) given(name string) (any, bool) { return r.params.given(name) }

// hasType is WordPress' rest_validate_value_from_schema for the three scalar types the original
// uses.
func hasType(v any, typ string) bool {
	switch typ {
	case "string":
		_, ok := v.(string)
		return ok
	case "integer":
		_, ok := asInt(v)
		return ok
	case "boolean":
		_, ok := asBool(v)
		return ok
	}

	return true
}

// asInt reads a WordPress integer: a JSON integer, or a numeric string without a fraction.
func asInt(v any) (int, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = x.String()
	case string:
		s = strings.TrimSpace(x)
	default:
		return 0, false
	}

	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int64(f)) || f > 1<<53 || f < -(1<<53) {
		return 0, false
	}

	return int(f), true
}

// asBool reads a WordPress boolean: true/false, "true"/"false"/"1"/"0" in any case, 1/0.
func asBool(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case json.Number:
		return wpBool(x.String())
	}
	return wpBool(v)
}

// items reads a list argument: a JSON array or form list as is, a scalar split on commas (TEC's CSV
// lists), an empty string as the empty list.
func items(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	}

	s, ok := php.Scalar(v)
	if !ok {
		return []any{v}
	}

	if strings.TrimSpace(s) == "" {
		return []any{}
	}

	var out []any
	for _, part := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(part))
	}

	return out
}
