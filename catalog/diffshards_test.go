package catalog

import (
	"math/rand"
	"slices"
	"testing"

	"calshim/mapping"
)

// Comparing the shards a poll wrote to finds what comparing every post of the lists finds: random
// edits made as a poll makes them (the map edited, then patch), of events, venues, organizers and
// posts of a type no list holds (added, removed, changed in place or in the order, set again to an
// equal copy); and maps made afresh fall back to the lists.
func TestDiffShardsMatchesDiffAll(t *testing.T) {
	types := Types{Event: "tribe_events", Venue: "tribe_venue", Organizer: "tribe_organizer"}
	kinds := []string{types.Event, types.Venue, types.Organizer, "attachment"}
	post := func(rnd *rand.Rand, id int, title string) *mapping.Post {
		return &mapping.Post{ID: id, Text: mapping.TextFields{Type: kinds[id%len(kinds)], Title: title}.Pack(),
			Derived: mapping.Derived{Start: []string{"2030-01-01", "2029-06-01"}[rnd.Intn(2)]}}
	}
	rnd := rand.New(rand.NewSource(5))
	posts := map[int]*mapping.Post{}
	for id := 1; id <= 3000; id++ {
		posts[id] = post(rnd, id, "")
	}
	old := build(Snapshot{Version: 1, types: types}, posts, nil, nil)
	for round := range 60 {
		e := old.posts.edit()
		var changed []int
		for range 1 + rnd.Intn([]int{3, 30, 900}[round%3]) {
			id := 1 + rnd.Intn(3300)
			changed = append(changed, id)
			switch p, had := e.get(id); {
			case rnd.Intn(4) == 0:
				e.delete(id)
			case had && rnd.Intn(3) == 0: // an equal copy: no change
				q := *p
				e.set(id, &q)
			default:
				e.set(id, post(rnd, id, []string{"a", "b", ""}[rnd.Intn(3)]))
			}
		}
		base := *old
		base.Version++
		next := patch(base, old, e.done(), old.terms, old.media, changed)
		shards, ok := diffShards(old, next)
		var all []change
		for _, l := range [][2][]*mapping.Post{{old.Events, next.Events}, {old.Venues, next.Venues},
			{old.Organizers, next.Organizers}} {
			all = append(all, diffAll(l[0], l[1], old, next)...)
		}
		if !ok || !slices.Equal(changedIDs(shards), changedIDs(all)) {
			t.Fatalf("round %d: shards %v (ok %v), all %v", round, changedIDs(shards), ok, changedIDs(all))
		}
		for i, ch := range shards {
			if p, _ := old.posts.get(ch.id); ch.before != p {
				t.Fatalf("round %d: change %d of %d: before %p, want old's %p", round, i, ch.id, ch.before, p)
			}
		}
		old = next
	}
	if _, ok := diffShards(old, build(Snapshot{Version: 99, types: types}, posts, nil, nil)); ok {
		t.Error("a map made afresh compared by its shards")
	}
}
