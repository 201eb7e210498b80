package cmsclient

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// bulkLikePosts generates wp/v2 posts as the plugin's bulk page and wp/v2 send them, with the term
// lists in every form a key can take: a list, an empty list, null, absent, another type.
func bulkLikePosts(tb testing.TB, n int, seed uint64) []json.RawMessage {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "wp", "tribe_events.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var recorded []map[string]any
	if err := json.Unmarshal(b, &recorded); err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	forms := []func() any{
		func() any { return []int{rng.IntN(50)} },
		func() any { return []int{rng.IntN(50), rng.IntN(50), rng.IntN(50)} },
		func() any { return []int{} },
		func() any { return nil },
		func() any { return "not a list" },
		func() any { return map[string]int{"a": 1} },
	}
	out := make([]json.RawMessage, n)
	for i := range out {
		post := map[string]any{}
		for k, v := range recorded[rng.IntN(len(recorded))] {
			post[k] = v
		}
		post["id"] = 1000 + i
		for _, key := range []string{"tribe_events_cat", "tags"} {
			if f := rng.IntN(len(forms) + 1); f < len(forms) {
				post[key] = forms[f]()
			} else {
				delete(post, key)
			}
		}
		out[i], _ = json.Marshal(post)
	}
	return out
}

// One pass (the run-time struct type) decodes every generated post as two passes (the struct, then a
// map of every key) do: the same post, or both an error.
func TestDecodePostOnePassEqualsTwo(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	taxonomies := []string{"tribe_events_cat", "tags"}
	one := postDecoder(taxonomies)
	if one == nil {
		t.Fatal("no one-pass decoder for the default taxonomy keys")
	}
	for i, raw := range bulkLikePosts(t, 3000, seed) {
		got, gerr := decodePost(raw, one, taxonomies)
		want, werr := decodePost(raw, nil, taxonomies)
		if (gerr == nil) != (werr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("post %d: one pass %+v, %v\ntwo passes %+v, %v\n%s", i, got, gerr, want, werr, raw)
		}
	}
}

// Keys one pass would confuse (encoding/json folds case) are decoded in two.
func TestPostDecoderFallsBack(t *testing.T) {
	for _, taxonomies := range [][]string{{"Type", "tags"}, {"tags", "TAGS"}, {"tags", "tags"}, {`a"b`}, {"calshim"}} {
		if postDecoder(taxonomies) != nil {
			t.Errorf("%q: one pass", taxonomies)
		}
	}
	if postDecoder([]string{"category", "post_tag"}) == nil {
		t.Error("category, post_tag: two passes")
	}
}

// BenchmarkDecodeBulkPage: what decoding a bulk page of 2,500 posts costs calshim (the envelope, then
// each post).
func BenchmarkDecodeBulkPage(b *testing.B) {
	page, _ := json.Marshal(map[string]any{"items": bulkLikePosts(b, 2500, 1), "digests": map[string]string{}})
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		var bulk Bulk
		if err := json.Unmarshal(page, &bulk); err != nil {
			b.Fatal(err)
		}
		for _, raw := range bulk.Items {
			if _, err := DecodePost(raw, "tribe_events_cat", "tags"); err != nil {
				b.Fatal(fmt.Errorf("%w: %s", err, raw))
			}
		}
	}
}
