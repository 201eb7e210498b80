package php

import (
	"slices"
	"strings"
)

// MaxInputVars is PHP's limit on request variables (php.ini's max_input_vars, which WordPress runs
// under): at most that many are read from each source (the query string, the body; the rest are
// dropped with a warning and the request goes on). calshim reads no more than PHP does, so no input
// costs more than its size.
const MaxInputVars = 1000

// EachPair calls f with the decoded pairs of a query string, or of a body read by parse_str, as
// PHP's treat_data reads them: empty "&&" segments skipped, every other counted against
// MaxInputVars whether or not it names a variable, and pairs without a name not passed on.
func EachPair(raw string, f func(key, val string)) {
	for count := 0; raw != ""; {
		var part string
		part, raw, _ = strings.Cut(raw, "&")
		if part == "" {
			continue
		}
		if count++; count > MaxInputVars {
			return
		}
		if key, val := decodePair(part); key != "" {
			f(key, val)
		}
	}
}

// EachPostPair is EachPair for a form body PHP reads into $_POST (add_post_vars), which counts
// differently: every segment, empty ones too, and a variable is registered before it is counted,
// so the 1001st is still read.
func EachPostPair(raw string, f func(key, val string)) {
	for count := 0; raw != ""; {
		var part string
		part, raw, _ = strings.Cut(raw, "&")
		if key, val := decodePair(part); key != "" {
			f(key, val)
		}
		if count++; count > MaxInputVars {
			return
		}
	}
}

// decodePair splits and decodes "key=value"; the key is PHP's variable name (VarName).
func decodePair(part string) (string, string) {
	k, v, _ := strings.Cut(part, "=")
	return VarName(URLDecode(k)), URLDecode(v)
}

// nameChars are the characters PHP's variable names cannot hold (built once: every argument of
// every request goes through it).
var nameChars = strings.NewReplacer(" ", "_", ".", "_")

// indexChars are those a "[" that is never closed turns into "_" after it.
var indexChars = strings.NewReplacer(" ", "_", ".", "_", "[", "_")

// VarName is how PHP registers a request variable's name (php_register_variable_ex): the name
// ends at a NUL byte (PHP reads it as a C string), leading spaces are dropped, spaces and dots
// before the first "[" become "_", and a "[" that is never closed becomes "_" too, as do the
// spaces, dots and "[" after it ("per.page" and "per[page" are per_page).
func VarName(key string) string {
	if i := strings.IndexByte(key, 0); i >= 0 {
		key = key[:i]
	}

	key = strings.TrimLeft(key, " ")
	name, rest := key, ""
	if i := strings.IndexByte(key, '['); i >= 0 {
		name, rest = key[:i], key[i:]
	}

	name = nameChars.Replace(name)
	if rest != "" && !strings.Contains(rest, "]") {
		return name + "_" + indexChars.Replace(rest[1:])
	}

	return name + rest
}

// Pair is one variable of a query string: its name and value.
type Pair struct{ Key, Value string }

// ParseStr is wp_parse_str read flat, for links built again from a query: the decoded pairs, a
// repeated name keeping its first place and its last value (as parse_str's array keeps them).
func ParseStr(q string) []Pair {
	var out []Pair
	EachPair(q, func(k, v string) {
		i := slices.IndexFunc(out, func(a Pair) bool { return a.Key == k })
		if i < 0 {
			out = append(out, Pair{k, v})
			return
		}
		out[i].Value = v
	})
	return out
}
