package catalog

import (
	"maps"
	"math/rand"
	"slices"
	"testing"

	"calshim/mapping"
)

// heldIDs answers the sorted IDs of any map, listed from the one before it or afresh: maps made
// from one another by random edits (sets, deletes, IDs re-added), a map not made from the previous
// one, an empty one; and diffKeys' added and removed are what the maps' keys say.
func TestHeldIDsFollowEdits(t *testing.T) {
	rnd := rand.New(rand.NewSource(3))
	var h heldIDs
	cur := newShardMap[int, *mapping.Post](intShard)
	want := map[int]bool{}
	for round := range 300 {
		prev, before := cur, maps.Clone(want)
		switch rnd.Intn(10) {
		case 0: // a map made afresh, sharing nothing
			cur = shardMapOf(map[int]*mapping.Post{}, intShard)
			want = map[int]bool{}
			fallthrough
		default:
			e := cur.edit()
			for range rnd.Intn([]int{3, 40, 3000}[rnd.Intn(3)]) {
				id := 1 + rnd.Intn(20000)
				if rnd.Intn(3) == 0 {
					e.delete(id)
					delete(want, id)
				} else {
					e.set(id, &mapping.Post{ID: id})
					want[id] = true
				}
			}
			cur = e.done()
		}
		if got := h.of(cur); !slices.Equal(got, slices.Sorted(maps.Keys(want))) {
			t.Fatalf("round %d: %d IDs, want %d", round, len(got), len(want))
		}
		if added, removed, ok := cur.diffKeys(prev); ok {
			slices.Sort(added)
			slices.Sort(removed)
			var wantAdded, wantRemoved []int
			for id := range want {
				if !before[id] {
					wantAdded = append(wantAdded, id)
				}
			}
			for id := range before {
				if !want[id] {
					wantRemoved = append(wantRemoved, id)
				}
			}
			slices.Sort(wantAdded)
			slices.Sort(wantRemoved)
			if !slices.Equal(added, wantAdded) || !slices.Equal(removed, wantRemoved) {
				t.Fatalf("round %d: added %d removed %d, want %d and %d", round, len(added), len(removed),
					len(wantAdded), len(wantRemoved))
			}
		}
	}
}
