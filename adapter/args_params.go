package adapter

import (
	"calshim/mapping/php"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// Params are a request's arguments as PHP sees them (parseForm for query strings and form bodies,
// JSON values for JSON bodies): a name maps to a string, a list (`name[]=a&name[]=b`), a map
// (`name[k]=v`) or, from JSON, any JSON value. Later occurrences of a scalar win, as with
// parse_str.
type Params map[string]any

// PHP's limits on request variables (php.ini's defaults, which WordPress runs under): at most
// maxInputVars variables are read from each source (the query string, the body; the rest are dropped
// with a warning and the request goes on), and a variable nested in more than maxInputNesting
// brackets is dropped whole. calshim reads no more than PHP does, so no input costs more than its
// size.
const (
	maxInputVars    = 1000
	maxInputNesting = 64
)

// eachPair calls f with the decoded pairs of a query string, or of a body read by parse_str, as
// PHP's treat_data reads them: empty "&&" segments skipped, every other counted against
// maxInputVars whether or not it names a variable, and pairs without a name not passed on.
func eachPair(raw string, f func(key, val string)) {
	for count := 0; raw != ""; {
		var part string
		part, raw, _ = strings.Cut(raw, "&")
		if part == "" {
			continue
		}
		if count++; count > maxInputVars {
			return
		}
		if key, val := decodePair(part); key != "" {
			f(key, val)
		}
	}
}

// eachPostPair is eachPair for a form body PHP reads into $_POST (add_post_vars), which counts
// differently: every segment, empty ones too, and a variable is registered before it is counted,
// so the 1001st is still read.
func eachPostPair(raw string, f func(key, val string)) {
	for count := 0; raw != ""; {
		var part string
		part, raw, _ = strings.Cut(raw, "&")
		if key, val := decodePair(part); key != "" {
			f(key, val)
		}
		if count++; count > maxInputVars {
			return
		}
	}
}

// decodePair splits and decodes "key=value"; the key is PHP's variable name (phpVarName).
func decodePair(part string) (string, string) {
	k, v, _ := strings.Cut(part, "=")
	return phpVarName(php.URLDecode(k)), php.URLDecode(v)
}

// phpNameChars are the characters PHP's variable names cannot hold (built once: every argument of
// every request goes through it).
var phpNameChars = strings.NewReplacer(" ", "_", ".", "_")

// phpIndexChars are those a "[" that is never closed turns into "_" after it.
var phpIndexChars = strings.NewReplacer(" ", "_", ".", "_", "[", "_")

// phpVarName is how PHP registers a request variable's name (php_register_variable_ex): the name
// ends at a NUL byte (PHP reads it as a C string), leading spaces are dropped, spaces and dots
// before the first "[" become "_", and a "[" that is never closed becomes "_" too, as do the
// spaces, dots and "[" after it ("per.page" and "per[page" are per_page).
func phpVarName(key string) string {
	if i := strings.IndexByte(key, 0); i >= 0 {
		key = key[:i]
	}

	key = strings.TrimLeft(key, " ")
	name, rest := key, ""
	if i := strings.IndexByte(key, '['); i >= 0 {
		name, rest = key[:i], key[i:]
	}

	name = phpNameChars.Replace(name)
	if rest != "" && !strings.Contains(rest, "]") {
		return name + "_" + phpIndexChars.Replace(rest[1:])
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
