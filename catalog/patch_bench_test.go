package catalog

import (
	"math/rand"
	"strconv"
	"testing"

	"calshim/mapping"
)

// BenchmarkPatchOne is what a poll bringing one edited event costs the catalog at 100,000 and at
// 1,000,000 events: the posts map edited (as applyPosts does) and patch, which re-indexes it.
func BenchmarkPatchOne(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		posts := randomEvents(rand.New(rand.NewSource(1)), n)
		base := Snapshot{types: indexTypes}
		old := build(base, posts, map[int]*mapping.Term{}, map[int]*mapping.Media{})
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for i := range b.N {
				id := 1 + i%n
				edit := old.posts.edit()
				p, _ := edit.get(id)
				q := *p
				edit.set(id, &q)
				patch(base, old, edit.done(), old.terms, old.media, []int{id})
			}
		})
	}
}
