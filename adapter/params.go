package adapter

import (
	"net/url"
	"strconv"
	"strings"
)

// Params are a request's arguments as PHP sees them: a name maps to a string, or to a list for
// `name[]=a&name[]=b` (and `name[key]=v`). Later occurrences of a scalar win, as with parse_str.
type Params map[string]any

// parseQuery parses a raw query string with PHP's parse_str rules (the subset WordPress clients use).
func parseQuery(raw string) Params {
	p := Params{}
	eachPair(raw, func(key, val string) {
		if i := strings.IndexByte(key, '['); i > 0 && strings.HasSuffix(key, "]") {
			name := key[:i]
			list, _ := p[name].([]string)
			p[name] = append(list, val)
			return
		}
		p[key] = val
	})
	return p
}

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
		if err1 == nil && err2 == nil && key != "" {
			f(key, val)
		}
	}
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

// list returns an argument as a list: a list as is, a string split on commas (TEC's CSV lists),
// trimmed.
func (p Params) list(name string) []string {
	switch v := p[name].(type) {
	case []string:
		out := make([]string, 0, len(v))
		for _, s := range v {
			out = append(out, strings.TrimSpace(s))
		}
		return out
	case string:
		parts := strings.Split(v, ",")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		return parts
	}
	return nil
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
