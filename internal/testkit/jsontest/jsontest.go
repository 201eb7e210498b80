// Package jsontest is the test support shared by calshim's packages: it decodes JSON keeping the order
// of object members (the original's key order is part of its contract), compares such values, and reads
// the recorded responses of the original (internal/testkit/testdata/examples).
package jsontest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"calshim/adapter/shadow"
)

// Object is a decoded JSON object whose members keep their order.
type Object []Member

// Member is one member of an Object.
type Member struct {
	Key   string
	Value any
}

// Get returns the value of key and whether o has it.
func (o Object) Get(key string) (any, bool) {
	for _, m := range o {
		if m.Key == key {
			return m.Value, true
		}
	}

	return nil, false
}

// At returns the value of key, nil when o does not have it.
func (o Object) At(key string) any {
	v, _ := o.Get(key)
	return v
}

// Keys returns the member names in order.
func (o Object) Keys() []string {
	if o == nil {
		return nil // not an object at all: callers tell it from an empty one
	}
	keys := make([]string, len(o))
	for i, m := range o {
		keys[i] = m.Key
	}

	return keys
}

// Set replaces the value of key in place; a key o does not have is ignored.
func (o Object) Set(key string, v any) {
	for i := range o {
		if o[i].Key == key {
			o[i].Value = v
		}
	}
}

// MarshalJSON encodes o with its members in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')

	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}

		k, _ := json.Marshal(m.Key)
		v, err := json.Marshal(m.Value)
		if err != nil {
			return nil, err
		}

		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}

	b.WriteByte('}')

	return b.Bytes(), nil
}

// Decode decodes one JSON value: objects become Object, arrays []any, numbers json.Number, and strings,
// bools and null string, bool and nil. Data after the value is an error. The decoding is the live
// shadow's (shadow.Parse), the one ordered-JSON decoder of calshim; this is its tests' view of it.
func Decode(b []byte) (any, error) {
	n, err := shadow.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("jsontest: %w", err)
	}

	return valueOf(n), nil
}

// MustDecode is Decode that fails the test on an error.
func MustDecode(tb testing.TB, b []byte) any {
	tb.Helper()

	v, err := Decode(b)
	if err != nil {
		tb.Fatalf("decode %.80q: %v", b, err)
	}

	return v
}

// valueOf is a decoded node as Decode answers it.
func valueOf(n *shadow.Node) any {
	switch n.Kind {
	case shadow.KObject:
		o := make(Object, 0, len(n.Keys))
		for i, k := range n.Keys {
			o = append(o, Member{k, valueOf(n.Vals[i])})
		}
		return o
	case shadow.KArray:
		l := make([]any, 0, len(n.Vals))
		for _, v := range n.Vals {
			l = append(l, valueOf(v))
		}
		return l
	case shadow.KNumber:
		return json.Number(n.Lit)
	case shadow.KString:
		return n.Lit
	case shadow.KBool:
		return n.Lit == "true"
	}

	return nil
}

// At walks a decoded value along a path of keys (strings for objects, ints for lists); nil when a step
// is absent.
func At(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			o, _ := v.(Object)
			v, _ = o.Get(k)
		case int:
			l, _ := v.([]any)
			if k < 0 || k >= len(l) {
				return nil
			}

			v = l[k]
		default:
			return nil
		}
	}

	return v
}

// Text writes a decoded value as JSON (numbers as they were written), for messages.
func Text(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}

	return string(b)
}

// Diff lists the differences between got and want, each with its path ("/events/0/title"): object keys
// and their order, list lengths and scalar values. It is Options{}.Diff.
func Diff(got, want any) []string { return Options{}.Diff(got, want) }

// Options adjust a comparison. The zero value compares everything strictly.
type Options struct {
	// Skip, when not nil, leaves out the paths it returns true for.
	Skip func(path string) bool
	// Loose compares scalars by their text, so the number 5 equals the string "5".
	Loose bool
}

// Diff lists the differences between got and want under o.
func (o Options) Diff(got, want any) []string {
	var diffs []string
	o.diff("", got, want, &diffs)

	return diffs
}

func (o Options) diff(path string, got, want any, diffs *[]string) {
	if o.Skip != nil && o.Skip(path) {
		return
	}

	switch w := want.(type) {
	case Object:
		o.diffObject(path, got, w, diffs)
	case []any:
		o.diffList(path, got, w, diffs)
	default:
		if !o.sameScalar(got, want) {
			*diffs = append(*diffs, fmt.Sprintf("%s: got %s, want %s", path, Text(got), Text(want)))
		}
	}
}

func (o Options) diffObject(path string, got any, want Object, diffs *[]string) {
	g, ok := got.(Object)
	if !ok {
		*diffs = append(*diffs, fmt.Sprintf("%s: got %s, want an object", path, Text(got)))
		return
	}

	if gk, wk := strings.Join(g.Keys(), ","), strings.Join(want.Keys(), ","); gk != wk {
		*diffs = append(*diffs, fmt.Sprintf("%s: keys\n  got  %s\n  want %s", path, gk, wk))
	}

	for _, m := range want {
		if gv, ok := g.Get(m.Key); ok {
			o.diff(path+"/"+m.Key, gv, m.Value, diffs)
		}
	}
}

func (o Options) diffList(path string, got any, want []any, diffs *[]string) {
	g, ok := got.([]any)
	if !ok || len(g) != len(want) {
		*diffs = append(*diffs, fmt.Sprintf("%s: got %s, want %d items", path, Text(got), len(want)))
		return
	}

	for i := range want {
		o.diff(fmt.Sprintf("%s/%d", path, i), g[i], want[i], diffs)
	}
}

func (o Options) sameScalar(got, want any) bool {
	if o.Loose {
		return fmt.Sprint(got) == fmt.Sprint(want)
	}

	return got == want
}

// Truncate keeps the first n lines of diffs and says how many more there were.
func Truncate(diffs []string, n int) []string {
	if len(diffs) <= n {
		return diffs
	}

	return append(diffs[:n:n], fmt.Sprintf("… and %d more", len(diffs)-n))
}
