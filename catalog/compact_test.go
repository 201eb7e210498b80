package catalog

import (
	"testing"
	"unsafe"

	"calshim/mapping"
)

// Posts with equal term lists share one map, equal dates and short meta values one string.
func TestCompactShares(t *testing.T) {
	post := func(date string) *mapping.Post {
		p := &mapping.Post{Type: string([]byte("tribe_events")), Date: date, Modified: string([]byte(date)),
			Terms: map[string][]int{mapping.TaxonomyCategory: {2}, mapping.TaxonomyTag: {7, 8}},
			Meta:  mapping.NewMeta(map[string][]string{"_EventTimezone": {string([]byte("UTC"))}})}
		compact(p)
		return p
	}

	a, b := post("2026-01-01 10:00:00"), post("2026-01-01 10:00:00")
	if unsafe.StringData(a.Modified) != unsafe.StringData(a.Date) {
		t.Error("equal dates not shared")
	}

	if unsafe.StringData(a.Type) != unsafe.StringData(b.Type) ||
		unsafe.StringData(a.Meta.Get("_EventTimezone")[0]) != unsafe.StringData(b.Meta.Get("_EventTimezone")[0]) {
		t.Error("short strings not shared")
	}

	if len(b.Terms) != 2 || &a.Terms[mapping.TaxonomyTag][0] != &b.Terms[mapping.TaxonomyTag][0] {
		t.Error("equal term lists not shared")
	}
}
