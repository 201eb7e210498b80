package adapter

import (
	"iter"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"calshim/mapping"
	"calshim/mapping/php"
)

// fieldTree is the `_fields` selection as WordPress' rest_filter_response_fields keys it: a member
// maps to true (keep it whole) or to the selection of its own members.
type fieldTree map[string]any

// parseFields builds the selection of a `_fields` parameter; nil when the parameter is absent or
// names nothing. Like WordPress it splits a string on commas and white space (a list is taken item
// by item), and it stops at the first dotted field under a member already kept whole ("a,a.b,c"
// keeps only a: WordPress' loop breaks out there). A field repeated walks the members it made
// before; each new member takes fieldNodeCost from the request's memory budget (take; nil: none),
// whose refusal is the answer.
func parseFields(p Params, take func(int64) error) (fieldTree, error) {
	raw, ok := p["_fields"]
	if !ok {
		return nil, nil
	}

	b := fieldBuilder{tree: fieldTree{}, take: take}
	for field := range fieldList(raw) {
		if !b.add(strings.TrimSpace(field)) {
			break
		}
	}

	if b.err != nil || len(b.tree) == 0 {
		return nil, b.err
	}

	return b.tree, nil
}

// maxFieldDepth bounds the members of one dotted field: v1 answers nest 6 levels at most
// (events.0.image.sizes.medium.url), so what a field names past 16 selects nothing of them; the
// parts past it are not read, so a field of a million dots costs 16 members, not a million.
const maxFieldDepth = 16

// fieldNodeCost is what a key of the selection, or a member's map of its own, holds at most (a
// map of one key, or a key with the map's growth around it), and fieldCharge how many are taken from
// the budget at a time.
const (
	fieldNodeCost = 320
	fieldCharge   = 256
)

// fieldBuilder fills a selection, charging its members to the budget.
type fieldBuilder struct {
	tree    fieldTree
	take    func(int64) error
	members int // taken from the budget, not yet used
	err     error
}

// fieldList is wp_parse_list: a string split on commas and white space, a list's scalar items as
// they are. It yields the fields one by one, so that a long list is never held twice.
func fieldList(raw any) iter.Seq[string] {
	if s, ok := raw.(string); ok {
		return php.ParseList(s)
	}
	return slices.Values((Params{"l": raw}).list("l"))
}

// add adds one dotted field; false when WordPress would stop reading the list (or the budget is
// spent).
func (b *fieldBuilder) add(field string) bool {
	ref := b.tree
	for depth := 1; ; depth++ {
		next, rest, dotted := strings.Cut(field, ".")
		old, had := ref[next]
		if !had && !b.charge() { // a new key of ref
			return false
		}
		if !dotted || depth == maxFieldDepth {
			ref[next] = true
			return true
		}

		switch sub := old.(type) {
		case bool:
			return false
		case fieldTree:
			ref = sub
		default:
			if !b.charge() { // its own map
				return false
			}
			child := fieldTree{}
			ref[next] = child
			ref = child
		}
		field = rest
	}
}

// charge accounts for one more member, taking fieldCharge of them from the budget when none is
// left.
func (b *fieldBuilder) charge() bool {
	if b.take == nil {
		return true
	}

	if b.members == 0 {
		if b.err = b.take(fieldCharge * fieldNodeCost); b.err != nil {
			return false
		}
		b.members = fieldCharge
	}

	b.members--
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
func selectFields(rt *route, r *request, body any) (any, error) {
	tree, err := parseFields(r.params, func(n int64) error { return r.mem.take(r.gc, n) })
	if tree == nil {
		return body, err
	}

	obj, isObject := body.(mapping.Object)
	if rt.pattern != "" || !isObject {
		return filterFields(body, tree), nil
	}

	filtered := filterFields(obj, tree)
	links, ok := obj.Get("_links")
	if !ok {
		return filtered, nil
	}

	out, _ := filtered.(mapping.Object) // nil when nothing was selected
	kept := mapping.Object{}
	for _, kv := range out {
		if kv.Key != "_links" {
			kept = append(kept, kv)
		}
	}

	return append(kept, mapping.KV{Key: "_links", Value: links}), nil
}
