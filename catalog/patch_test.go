package catalog

import (
	"fmt"
	"maps"
	"math/rand"
	"reflect"
	"testing"

	"calshim/mapping"
)

// patch re-indexes a few changed posts; its snapshot must equal a full build of the same posts.
func TestPatchEqualsBuild(t *testing.T) {
	types := Types{Event: "tribe_events", Venue: "tribe_venue", Organizer: "tribe_organizer",
		CategoryTax: "tribe_events_cat", TagTax: "post_tag"}
	rnd := rand.New(rand.NewSource(1))
	post := func(id int) *mapping.Post {
		typ := []string{types.Event, types.Venue, types.Organizer}[rnd.Intn(3)]
		p := &mapping.Post{ID: id, Text: mapping.TextFields{Type: typ,
			Slug: fmt.Sprintf("s%d-%d", id, rnd.Intn(3)), // unique per post, as WordPress keeps them
			Date: fmt.Sprintf("2026-01-%02d 10:00:00", 1+rnd.Intn(9))}.Pack()}
		p.Derived.Start = fmt.Sprintf("2026-02-%02d 10:00:00", 1+rnd.Intn(9))
		return p
	}
	posts := map[int]*mapping.Post{}
	for id := 1; id <= 300; id++ {
		posts[id] = post(id)
	}
	terms := map[int]*mapping.Term{1: {ID: 1, Name: "b", Taxonomy: types.CategoryTax}, 2: {ID: 2, Name: "a", Taxonomy: types.TagTax}}
	old := build(Snapshot{types: types}, posts, terms, nil)
	for round := 0; round < 50; round++ {
		next := maps.Clone(old.posts)
		var changed []int
		for i := 0; i < 1+rnd.Intn(8); i++ {
			id := 1 + rnd.Intn(320)
			changed = append(changed, id)
			if rnd.Intn(4) == 0 {
				delete(next, id)
			} else {
				next[id] = post(id)
			}
		}
		got := patch(Snapshot{types: types}, old, next, terms, nil, changed)
		want := build(Snapshot{types: types}, next, terms, nil)
		for name, pair := range map[string][2][]*mapping.Post{"events": {got.Events, want.Events},
			"venues": {got.Venues, want.Venues}, "organizers": {got.Organizers, want.Organizers}} {
			if !reflect.DeepEqual(ids(pair[0]), ids(pair[1])) {
				t.Fatalf("round %d %s: patch %v, build %v", round, name, ids(pair[0]), ids(pair[1]))
			}
		}
		if !reflect.DeepEqual(got.slugs, want.slugs) || !reflect.DeepEqual(got.Categories, want.Categories) {
			t.Fatalf("round %d: slugs or terms differ", round)
		}
		old = got
	}
}

func ids(l []*mapping.Post) []int {
	out := make([]int, len(l))
	for i, p := range l {
		out[i] = p.ID
	}
	return out
}
