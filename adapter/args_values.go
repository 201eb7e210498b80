package adapter

import (
	"calshim/mapping/php"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"

	"calshim/mapping"
)

// checkArgs runs a write's arguments through the pipeline every route shares (parseArgs: WordPress'
// has_valid_params, then sanitize_params), with the arguments the route table declares for the
// request's route and method, in the original's order (which decides the order of the names in an
// error). The write handlers keep the values as given.
func checkArgs(r *request) error {
	_, err := parseArgs(r, routeSpecs(r))
	return err
}

// given returns a parameter that was sent with a non-null value.
func (p Params) given(name string) (any, bool) {
	v, ok := p[name]
	return v, ok && v != nil
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

// scalar returns a string or JSON number as text (what PHP sees when it casts the value).
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	}
	return "", false
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

	s, ok := scalar(v)
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

// The validators of the original (Tribe__Validator__Base and the REST validators).

func nonEmptyString(_ *request, v any) bool { s, ok := v.(string); return ok && s != "" }

func anyString(_ *request, v any) bool { _, ok := v.(string); return ok }

func isTime(r *request, v any) bool {
	s, ok := scalar(v)
	return ok && mapping.ValidDateArg(s, r.now)
}

func isUserID(_ *request, v any) bool { n, ok := asInt(v); return ok && n > 0 }

// postStatuses are the statuses registered on the original's site (get_post_stati): WordPress' own,
// its user-request ones, and The Events Calendar's ignored and aggregator-record statuses.
var postStatuses = map[string]bool{
	"publish": true, "future": true, "draft": true, "pending": true,
	"private": true, "trash": true, "auto-draft": true, "inherit": true,
	"request-pending": true, "request-confirmed": true, "request-failed": true,
	"request-completed": true, "tribe-ignored": true,
	"tribe-ea-success": true, "tribe-ea-failed": true, "tribe-ea-schedule": true,
	"tribe-ea-pending": true, "tribe-ea-draft": true,
}

func isPostStatus(_ *request, v any) bool { s, ok := v.(string); return ok && postStatuses[s] }

func isTimezone(_ *request, v any) bool {
	s, ok := v.(string)
	return ok && mapping.ValidEventTimezone(s)
}

// isURLOrEmpty is TEC's is_url_or_empty: "" or an absolute http(s)/ftp URL with a host.
func isURLOrEmpty(_ *request, v any) bool {
	s, ok := scalar(v)
	if !ok {
		return false
	}
	if s == "" {
		return true
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && u.Host != ""
}

// isPostOf reports whether v is the ID of a post of the given type in the catalog.
func isPostOf(r *request, v any, postType string) bool {
	s, ok := scalar(v)
	if !ok {
		return false
	}
	n, ok := php.PositiveInt(strings.TrimSpace(s))
	p, exists := r.snap.Post(n)
	return ok && exists && p.Type() == postType
}
