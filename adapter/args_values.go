package adapter

import (
	"encoding/json"
	"strconv"
	"strings"

	"calshim/mapping/php"
)

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
