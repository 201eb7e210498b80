package catalog

import (
	"fmt"
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
		edit := old.posts.edit()
		var changed []int
		for i := 0; i < 1+rnd.Intn(8); i++ {
			id := 1 + rnd.Intn(320)
			changed = append(changed, id)
			if rnd.Intn(4) == 0 {
				edit.delete(id)
			} else {
				edit.set(id, post(id))
			}
		}
		next := edit.done()
		got := patch(Snapshot{types: types}, old, next, terms, nil, changed)
		want := build(Snapshot{types: types}, next.toMap(), terms, nil)
		for name, pair := range map[string][2][]*mapping.Post{"events": {got.Events, want.Events},
			"venues": {got.Venues, want.Venues}, "organizers": {got.Organizers, want.Organizers}} {
			if !reflect.DeepEqual(ids(pair[0]), ids(pair[1])) {
				t.Fatalf("round %d %s: patch %v, build %v", round, name, ids(pair[0]), ids(pair[1]))
			}
		}
		if !reflect.DeepEqual(slugMaps(got), slugMaps(want)) ||
			!reflect.DeepEqual(got.Categories, want.Categories) {
			t.Fatalf("round %d: slugs or terms differ", round)
		}
		old = got
	}
}

// slugMaps is a snapshot's slug index as plain maps, without the post types that have no slug.
func slugMaps(s *Snapshot) map[string]map[string]int {
	out := map[string]map[string]int{}
	for typ, m := range s.slugs {
		if m.len() > 0 {
			out[typ] = m.toMap()
		}
	}
	return out
}

// A patched event index answers every query as scanning the patched snapshot's events does, over
// rounds of random edits (added, changed, hidden, removed events) in small blocks that patching
// splits and empties.
func TestPatchedIndexEqualsScan(t *testing.T) {
	defer func(n int) { eventBlockSize = n }(eventBlockSize)
	rnd := rand.New(rand.NewSource(11))
	for _, size := range []int{1, 3, 8} {
		eventBlockSize = size
		pool := randomEvents(rnd, 400)
		initial := map[int]*mapping.Post{}
		for id := 1; id <= 1+rnd.Intn(60); id++ {
			initial[id] = pool[id]
		}
		s := build(Snapshot{types: indexTypes}, initial, nil, nil)
		for round := range 60 {
			edit := s.posts.edit()
			var changed []int
			for range 1 + rnd.Intn(6) {
				id := 1 + rnd.Intn(80)
				changed = append(changed, id)
				if rnd.Intn(3) == 0 {
					edit.delete(id)
				} else {
					p := *pool[1+rnd.Intn(400)] // another event's fields under this ID
					p.ID = id
					edit.set(id, &p)
				}
			}
			s = patch(Snapshot{types: indexTypes}, s, edit.done(), nil, nil, changed)
			checkQueries(t, rnd, s, 40, fmt.Sprintf("block %d round %d", size, round))
			for b, blk := range s.eventIdx.blocks {
				if len(blk.posts) == 0 || len(blk.posts) > 2*size {
					t.Fatalf("block %d round %d: block %d holds %d events", size, round, b, len(blk.posts))
				}
			}
		}
	}
}

func ids(l []*mapping.Post) []int {
	out := make([]int, len(l))
	for i, p := range l {
		out[i] = p.ID
	}
	return out
}
