package mapping

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// example is one recorded response of the original (testdata/examples, copied from spec/examples).
type example struct {
	Path          string          `json:"path"`
	Body          json.RawMessage `json:"body"`
	BodyRawPrefix string          `json:"body_raw_prefix"`
}

// mustLoadExample reads testdata/examples/<name>.json.
func mustLoadExample(tb testing.TB, name string) example {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "examples", name+".json"))
	if err != nil {
		tb.Fatal(err)
	}
	var ex example
	if err := json.Unmarshal(b, &ex); err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return ex
}

// mustDecodeOrdered decodes JSON keeping the order of object members: objects become Object, arrays
// []any, numbers json.Number.
func mustDecodeOrdered(tb testing.TB, b []byte) any {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		tb.Fatalf("decode %.80q: %v", b, err)
	}
	return v
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := Object{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o = append(o, KV{k.(string), v})
			}
			_, err := dec.Token()
			return o, err
		case '[':
			l := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			_, err := dec.Token()
			return l, err
		}
	}
	return tok, nil
}

// mustExampleItem returns the member of a list body (e.g. "events") with the given id.
func mustExampleItem(tb testing.TB, ex example, listKey string, id int) any {
	tb.Helper()
	body := mustDecodeOrdered(tb, ex.Body).(Object)
	list, _ := body.Get(listKey)
	for _, item := range list.([]any) {
		if v, _ := item.(Object).Get("id"); v == json.Number(fmt.Sprint(id)) {
			return item
		}
	}
	tb.Fatalf("%s: no %s item with id %d", ex.Path, listKey, id)
	return nil
}

// assertJSON compares what got encodes to with want, member by member and in order. The JSON-LD e-mail
// addresses, obfuscated at random by the original, are compared after decoding their entities.
func assertJSON(tb testing.TB, got, want any) {
	tb.Helper()
	g := normalizeEmails(mustDecodeOrdered(tb, EncodeJSON(got)))
	w := normalizeEmails(want)
	if diffs := diffJSON("$", g, w); len(diffs) > 0 {
		if len(diffs) > 15 {
			diffs = append(diffs[:15], "…")
		}
		tb.Errorf("JSON differs from the original:\n%s", strings.Join(diffs, "\n"))
	}
}

// normalizeEmails decodes the entities of the email member of every schema.org Person.
func normalizeEmails(v any) any {
	switch x := v.(type) {
	case Object:
		out := x.Clone()
		isPerson := false
		if t, _ := x.Get("@type"); t == "Person" {
			isPerson = true
		}
		for i, kv := range out {
			if s, ok := kv.Value.(string); ok && isPerson && kv.Key == "email" {
				out[i].Value = html.UnescapeString(s)
				continue
			}
			out[i].Value = normalizeEmails(kv.Value)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeEmails(e)
		}
		return out
	}
	return v
}

// diffJSON lists the differences between two decoded values, with their paths; key order counts.
func diffJSON(path string, got, want any) []string {
	switch w := want.(type) {
	case Object:
		g, ok := got.(Object)
		if !ok {
			return []string{fmt.Sprintf("%s: got %s, want an object", path, EncodeJSON(got))}
		}
		var diffs []string
		if gk, wk := keys(g), keys(w); !reflect.DeepEqual(gk, wk) {
			diffs = append(diffs, fmt.Sprintf("%s: keys\n  got  %v\n  want %v", path, gk, wk))
		}
		for _, kv := range w {
			if gv, ok := g.Get(kv.Key); ok {
				diffs = append(diffs, diffJSON(path+"."+kv.Key, gv, kv.Value)...)
			}
		}
		return diffs
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: got %s, want %s", path, EncodeJSON(got), EncodeJSON(want))}
		}
		var diffs []string
		for i := range w {
			diffs = append(diffs, diffJSON(fmt.Sprintf("%s[%d]", path, i), g[i], w[i])...)
		}
		return diffs
	}
	if !reflect.DeepEqual(got, want) {
		return []string{fmt.Sprintf("%s: got %s, want %s", path, jsonText(got), jsonText(want))}
	}
	return nil
}

func jsonText(v any) string {
	if n, ok := v.(json.Number); ok {
		return string(n)
	}
	return string(EncodeJSON(v))
}

func keys(o Object) []string {
	k := make([]string, len(o))
	for i, kv := range o {
		k[i] = kv.Key
	}
	return k
}
