package adapter

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"calshim/mapping"
)

// fieldTree is the `_fields` selection as WordPress' rest_filter_response_fields keys it: a member
// maps to true (keep it whole) or to the selection of its own members.
type fieldTree map[string]any

// parseFields builds the selection of a `_fields` parameter; nil when the parameter is absent or
// names nothing. Like WordPress it splits a string on commas and white space (a list is taken item
// by item), and it stops at the first dotted field under a member already kept whole ("a,a.b,c"
// keeps only a: WordPress' loop breaks out there).
func parseFields(p Params) fieldTree {
	raw, ok := p["_fields"]
	if !ok {
		return nil
	}

	tree := fieldTree{}
	for _, field := range fieldList(raw) {
		if !addField(tree, strings.TrimSpace(field)) {
			break
		}
	}

	if len(tree) == 0 {
		return nil
	}

	return tree
}

var fieldSeparators = regexp.MustCompile(`[\s,]+`)

// fieldList is wp_parse_list: a string split on commas and white space, a list's scalar items as
// they are.
func fieldList(raw any) []string {
	if s, ok := raw.(string); ok {
		var out []string
		for _, f := range fieldSeparators.Split(s, -1) {
			if f != "" {
				out = append(out, f)
			}
		}
		return out
	}

	return (Params{"l": raw}).list("l")
}

// addField adds one dotted field; false when WordPress would stop reading the list.
func addField(tree fieldTree, field string) bool {
	parts := strings.Split(field, ".")
	ref := tree
	for _, next := range parts[:len(parts)-1] {
		switch sub := ref[next].(type) {
		case bool:
			return false
		case fieldTree:
			ref = sub
		default:
			child := fieldTree{}
			ref[next] = child
			ref = child
		}
	}

	ref[parts[len(parts)-1]] = true
	return true
}

// filterFields is rest_filter_response_fields: a list keeps the selected members of each item, an
// object its selected members, recursively. A list below the top level is selected by index
// ("events.0"), as PHP arrays are. json_ld is a PHP object in the original, which the filter does
// not enter: it is kept whole. Nothing selected reads as an empty list, PHP's empty array.
func filterFields(body any, tree fieldTree) any {
	if isList(body) {
		items := reflect.ValueOf(body)
		out := make([]any, 0, items.Len())
		for i := 0; i < items.Len(); i++ {
			out = append(out, intersect(items.Index(i).Interface(), tree))
		}
		return out
	}

	return intersect(body, tree)
}

// intersect is _rest_array_intersect_key_recursive.
func intersect(value any, tree fieldTree) any {
	if obj, ok := value.(mapping.Object); ok {
		return intersectObject(obj, tree)
	}
	if isList(value) {
		return intersectList(reflect.ValueOf(value), tree)
	}
	return value
}

func intersectObject(obj mapping.Object, tree fieldTree) any {
	out := mapping.Object{}
	for _, kv := range obj {
		sel, ok := tree[kv.Key]
		if !ok {
			continue
		}
		if sub, isTree := sel.(fieldTree); isTree && kv.Key != "json_ld" {
			kv.Value = intersect(kv.Value, sub)
		}
		out = append(out, kv)
	}

	if len(out) == 0 {
		return []any{}
	}

	return out
}

// intersectList keeps the items whose index is selected: a list again when they are the first ones
// in order, else an object keyed by index, as json_encode writes a PHP array with gaps.
func intersectList(items reflect.Value, tree fieldTree) any {
	var kept mapping.Object
	sequential := true
	for i := 0; i < items.Len(); i++ {
		key := strconv.Itoa(i)
		sel, ok := tree[key]
		if !ok {
			continue
		}
		v := items.Index(i).Interface()
		if sub, isTree := sel.(fieldTree); isTree {
			v = intersect(v, sub)
		}
		sequential = sequential && len(kept) == i
		kept = append(kept, mapping.KV{Key: key, Value: v})
	}

	if !sequential {
		return kept
	}

	out := make([]any, 0, len(kept))
	for _, kv := range kept {
		out = append(out, kv.Value)
	}

	return out
}

// isList reports whether v encodes as a JSON list.
func isList(v any) bool {
	switch v.(type) {
	case nil, mapping.Object, mapping.Raw:
		return false
	}
	return reflect.TypeOf(v).Kind() == reflect.Slice
}

// selectFields applies `_fields` to a successful answer as WordPress does for every REST answer
// (rest_filter_response_fields). The namespace index keeps its _links whatever is selected:
// WordPress adds response links after the filter.
func selectFields(rt *route, r *request, body any) any {
	tree := parseFields(r.params)
	if tree == nil {
		return body
	}

	obj, isObject := body.(mapping.Object)
	if rt.pattern != "" || !isObject {
		return filterFields(body, tree)
	}

	filtered := filterFields(obj, tree)
	links, ok := obj.Get("_links")
	if !ok {
		return filtered
	}

	out, _ := filtered.(mapping.Object) // nil when nothing was selected
	kept := mapping.Object{}
	for _, kv := range out {
		if kv.Key != "_links" {
			kept = append(kept, kv)
		}
	}

	return append(kept, mapping.KV{Key: "_links", Value: links})
}
