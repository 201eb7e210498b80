package mapping

import (
	"encoding/json"
	"fmt"
	"html"
	"strings"
	"testing"
	"time"

	"calshim/internal/testkit/jsontest"
)

// stNow is when the recorded examples were taken: 2026-11-22 18:54:25 UTC, a Sunday.
var stNow = time.Date(2026, 11, 22, 18, 54, 25, 0, time.UTC)

// mustZone is LoadZone that fails the test on an error.
func mustZone(tb testing.TB, name string) *time.Location {
	tb.Helper()

	loc, err := LoadZone(name)
	if err != nil {
		tb.Fatal(err)
	}

	return loc
}

// mustLoadExample reads the recorded response of the original called name.
func mustLoadExample(tb testing.TB, name string) jsontest.Example {
	tb.Helper()

	return jsontest.MustLoadExample(tb, name)
}

// mustDecodeOrdered decodes JSON keeping the order of object members.
func mustDecodeOrdered(tb testing.TB, b []byte) any {
	tb.Helper()

	return jsontest.MustDecode(tb, b)
}

// mustExampleItem returns the member of a list body (e.g. "events") with the given id.
func mustExampleItem(tb testing.TB, ex jsontest.Example, listKey string, id int) any {
	tb.Helper()

	list, _ := jsontest.At(mustDecodeOrdered(tb, ex.Body), listKey).([]any)
	for _, item := range list {
		if jsontest.At(item, "id") == json.Number(fmt.Sprint(id)) {
			return item
		}
	}

	tb.Fatalf("%s: no %s item with id %d", ex.Path, listKey, id)

	return nil
}

// assertJSON compares what got encodes to with want, member by member and in order. The JSON-LD
// e-mail addresses, obfuscated at random by the original, are compared after decoding their
// entities.
func assertJSON(tb testing.TB, got, want any) {
	tb.Helper()

	g := normalizeEmails(mustDecodeOrdered(tb, EncodeJSON(got)))
	w := normalizeEmails(want)
	if diffs := jsontest.Diff(g, w); len(diffs) > 0 {
		diffs = jsontest.Truncate(diffs, 15)
		tb.Errorf("JSON differs from the original:\n%s", strings.Join(diffs, "\n"))
	}
}

// normalizeEmails decodes the entities of the email member of every schema.org Person.
func normalizeEmails(v any) any {
	switch x := v.(type) {
	case jsontest.Object:
		out := append(jsontest.Object(nil), x...)
		isPerson := jsontest.At(x, "@type") == "Person"

		for i, m := range out {
			if s, ok := m.Value.(string); ok && isPerson && m.Key == "email" {
				out[i].Value = html.UnescapeString(s)
				continue
			}

			out[i].Value = normalizeEmails(m.Value)
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

// keys lists the member names of a rendered representation in order.
func keys(o Object) []string {
	k := make([]string, len(o))
	for i, kv := range o {
		k[i] = kv.Key
	}

	return k
}
