package adapter

import (
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Params are a request's arguments as PHP sees them (parseForm for query strings and form bodies,
// JSON values for JSON bodies): a name maps to a string, a list (`name[]=a&name[]=b`), a map
// (`name[k]=v`) or, from JSON, any JSON value. Later occurrences of a scalar win, as with
// parse_str.
type Params map[string]any

// eachPair calls f with every decoded key=value pair of a query string or form body; pairs that do
// not decode, or have no key, are skipped as PHP skips them.
func eachPair(raw string, f func(key, val string)) {
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		key, err1 := url.QueryUnescape(k)
		val, err2 := url.QueryUnescape(v)
		if key = phpVarName(key); err1 == nil && err2 == nil && key != "" {
			f(key, val)
		}
	}
}

// phpNameChars are the characters PHP's variable names cannot hold (built once: every argument of
// every request goes through it).
var phpNameChars = strings.NewReplacer(" ", "_", ".", "_")

// phpVarName is how PHP registers a request variable's name (php_register_variable_ex): leading
// spaces dropped, spaces and dots before the first "[" become "_", and a "[" that is never closed
// becomes "_" too ("per.page" and "per[page" are per_page).
func phpVarName(key string) string {
	key = strings.TrimLeft(key, " ")
	name, rest := key, ""
	if i := strings.IndexByte(key, '['); i >= 0 {
		name, rest = key[:i], key[i:]
	}

	name = phpNameChars.Replace(name)
	if rest != "" && !strings.Contains(rest, "]") {
		return name + "_" + rest[1:]
	}

	return name + rest
}

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

// positiveInt is TEC's is_positive_int: numeric, integral and greater than zero ("2", "2.0", "+2").
func positiveInt(v any) (int, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, false
	}

	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f != float64(int64(f)) || f < 1 || f > 1<<53 {
		return 0, false
	}

	return int(f), true
}

// wpBool is WordPress' boolean argument: true/false, "true"/"false", "1"/"0" (case-insensitive).
func wpBool(v any) (bool, bool) {
	s, ok := v.(string)
	if !ok {
		return false, false
	}

	switch strings.ToLower(s) {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}

	return false, false
}

// phpTruthy is TEC's tribe_is_truthy: 1, true, yes, on, y, enable, enabled (case-insensitive).
func phpTruthy(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on", "y", "enable", "enabled":
		return true
	}
	return false
}
