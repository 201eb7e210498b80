package catalog

import (
	"testing"
	"unsafe"

	"calshim/mapping"
)

// Posts with equal term lists share one map, equal venue lists one slice; posts compacted together
// share one array (mapping's TestColocate checks their string), and a restored post's start shares
// its meta's bytes.
func TestCompactShares(t *testing.T) {
	post := func(title, start string) *mapping.Post {
		return &mapping.Post{Text: mapping.TextFields{Title: title, Slug: title + "-slug"}.Pack(),
			Terms: map[string][]int{mapping.TaxonomyCategory: {2}, mapping.TaxonomyTag: {7, 8}},
			Meta:  mapping.NewMeta(map[string][]string{"_EventStartDate": {start}, "_EventCost": {"5", "9"}}),
			// decoded apart from the meta, as a restored post's is
			Derived: mapping.Derived{Start: string([]byte(start)), Venues: []int{5, 6}}}
	}

	posts := []*mapping.Post{post("a", "2026-01-01 10:00:00"), post("b", "2026-02-01 10:00:00")}
	before := posts[0]
	compactBlocks(posts)
	a, b := posts[0], posts[1]
	if a == before || a.Title() != "a" || b.Title() != "b" || b.Slug() != "b-slug" {
		t.Fatalf("posts not moved intact: %q %q %q", a.Title(), b.Title(), b.Slug())
	}

	if got := b.Meta.Get("_EventCost"); len(got) != 2 || got[0] != "5" || got[1] != "9" {
		t.Errorf("meta rows %q", got)
	}

	if uintptr(unsafe.Pointer(b))-uintptr(unsafe.Pointer(a)) != unsafe.Sizeof(*a) {
		t.Error("posts compacted together are not one array")
	}

	if start, _ := b.MetaFirst("_EventStartDate"); unsafe.StringData(b.Derived.Start) != unsafe.StringData(start) ||
		b.Derived.Start != "2026-02-01 10:00:00" {
		t.Error("start not shared with the meta")
	}

	if &a.Terms[mapping.TaxonomyTag][0] != &b.Terms[mapping.TaxonomyTag][0] {
		t.Error("equal term lists not shared")
	}

	if &a.Derived.Venues[0] != &b.Derived.Venues[0] {
		t.Error("equal venue lists not shared")
	}
}

// compactBlocks cuts blocks of blockPosts posts.
func TestCompactBlocks(t *testing.T) {
	posts := make([]*mapping.Post, blockPosts+1)
	for i := range posts {
		posts[i] = &mapping.Post{ID: i}
	}

	compactBlocks(posts)
	for i, p := range posts {
		if p.ID != i {
			t.Fatalf("post %d has ID %d", i, p.ID)
		}
	}

	first, last := uintptr(unsafe.Pointer(posts[0])), uintptr(unsafe.Pointer(posts[blockPosts-1]))
	if last-first != uintptr(blockPosts-1)*unsafe.Sizeof(*posts[0]) {
		t.Error("the first block is not one array")
	}
}
