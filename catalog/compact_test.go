package catalog

import (
	"testing"
	"unsafe"

	"calshim/mapping"
)

// Posts with equal term lists share one map, equal venue lists one slice; a restored post's start
// shares its meta's bytes.
func TestCompactShares(t *testing.T) {
	post := func(start string) *mapping.Post {
		p := &mapping.Post{Terms: map[string][]int{mapping.TaxonomyCategory: {2}, mapping.TaxonomyTag: {7, 8}},
			Meta:    mapping.NewMeta(map[string][]string{"_EventStartDate": {start}}),
			Derived: mapping.Derived{Start: string([]byte(start)), Venues: []int{5, 6}}}
		compact(p)
		return p
	}

	a, b := post("2026-01-01 10:00:00"), post("2026-01-01 10:00:00")
	if start, _ := a.MetaFirst("_EventStartDate"); unsafe.StringData(a.Derived.Start) != unsafe.StringData(start) {
		t.Error("start not shared with the meta")
	}

	if len(b.Terms) != 2 || &a.Terms[mapping.TaxonomyTag][0] != &b.Terms[mapping.TaxonomyTag][0] {
		t.Error("equal term lists not shared")
	}

	if &a.Derived.Venues[0] != &b.Derived.Venues[0] {
		t.Error("equal venue lists not shared")
	}
}
