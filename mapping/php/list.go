package php

import (
	"encoding/json"
	"iter"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Scalar is a request value's text: a string as it is, a JSON number as written; ok is false for
// any other value (lists, objects, booleans, null).
func Scalar(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	}
	return "", false
}

// ArrayValues lists a PHP array's values by key order (form keys "a[k]=v" keep their sending order
// in PHP; a decoded map does not, so keys sort).
func ArrayValues(m map[string]any) []any {
	l := slices.Sorted(maps.Keys(m))
	out := make([]any, len(l))
	for i, k := range l {
		out[i] = m[k]
	}
	return out
}

// IsString is Tribe__Validator__Base::is_string: a string that PHP's empty() does not consider
// empty ("" and "0" are refused).
func IsString(v any) bool {
	s, ok := v.(string)
	return ok && !Empty(s)
}

// listItems returns the items of a list value: a list as given, a map's values, a scalar split by
// split.
func listItems(v any, split func(string) []string) []any {
	switch x := v.(type) {
	case []any:
		return x
	case map[string]any:
		return ArrayValues(x)
	}

	s, _ := Scalar(v)
	var items []any
	for _, part := range split(s) {
		items = append(items, part)
	}
	return items
}

var listSep = regexp.MustCompile(`\s*,\s*`)

// ListToArray is Tribe__Utils__Array::list_to_array: nothing for an empty value; a string is URL
// decoded and split on commas (spaces around them dropped); empty items are skipped and numeric
// strings become numbers (json.Number here, so that they read as integers).
func ListToArray(v any) []any {
	if Empty(v) {
		return nil
	}

	items := listItems(v, func(s string) []string {
		if dec, err := url.QueryUnescape(s); err == nil {
			s = dec
		}
		return listSep.Split(s, -1)
	})

	var out []any
	for _, it := range items {
		s, isStr := it.(string)
		switch {
		case isStr && s == "":
			continue
		case isStr && IsNumeric(s):
			out = append(out, json.Number(strings.TrimSpace(s)))
		default:
			out = append(out, it)
		}
	}

	return out
}

// ToList is Tribe__Utils__Array::to_list: a list joined with commas, a scalar as text.
func ToList(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, it := range x {
			parts[i] = ToList(it)
		}
		return strings.Join(parts, ",")
	case map[string]any:
		return ToList(ArrayValues(x))
	case bool:
		if x {
			return "1"
		}
		return ""
	case int:
		return strconv.Itoa(x)
	}

	s, _ := Scalar(v)
	return s
}

var idListSep = regexp.MustCompile(`[\s,]+`)

// ParseIDList is wp_parse_id_list: a string split on commas and blanks (empty items dropped), an
// array's scalar items, each absint (a slug is 0), duplicates dropped, in their first order.
func ParseIDList(v any) []int {
	items := listItems(v, func(s string) []string {
		return slices.DeleteFunc(idListSep.Split(s, -1), func(s string) bool { return s == "" })
	})
	var ids []int
	seen := map[int]bool{}
	for _, it := range items {
		switch it.(type) {
		case string, json.Number, bool: // is_scalar: nested arrays and null are left out
		default:
			continue
		}
		n := Int(it)
		if n = max(n, -n); !seen[n] {
			seen[n] = true
			ids = append(ids, n)
		}
	}
	return ids
}

// ParseList is wp_parse_list on a string: split on commas and white space, empty items dropped. It
// yields the items one by one, so that a long list is never held twice.
func ParseList(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for s != "" {
			i := strings.IndexFunc(s, isListSeparator)
			if i < 0 {
				yield(s)
				return
			}
			if i > 0 && !yield(s[:i]) {
				return
			}
			s = s[i+1:]
		}
	}
}

// isListSeparator is wp_parse_list's [\s,] as PCRE reads \s.
func isListSeparator(r rune) bool {
	return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r'
}
