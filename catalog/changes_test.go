package catalog

import (
	"testing"

	"calshim/mapping"
)

// The journal answers what changed after a version, with each post's state then, and stops
// answering versions it has forgotten.
func TestJournalChangesSince(t *testing.T) {
	types := Types{Event: "tribe_events", Venue: "tribe_venue", Organizer: "tribe_organizer"}
	c := New(nil, Options{Types: types, MaxChanges: 3})
	posts := map[int]*mapping.Post{}
	version := uint64(0)
	publish := func(change func()) {
		next := map[int]*mapping.Post{}
		for id, p := range posts {
			next[id] = p
		}
		posts = next
		change()
		version++
		c.publish(build(Snapshot{Version: version, types: types}, posts, nil, nil))
	}
	a := &mapping.Post{ID: 1, Type: "tribe_events", Title: "a"}
	publish(func() { posts[1] = a })
	publish(func() { posts[2] = &mapping.Post{ID: 2, Type: "tribe_venue"} })
	publish(func() { posts[1] = &mapping.Post{ID: 1, Type: "tribe_events", Title: "a2"} })
	publish(func() { delete(posts, 2) })

	epoch := c.SyncEpoch()
	got, ok := c.ChangesSince(epoch, 1, version)
	if !ok || len(got) != 2 || got[1] != a || got[2] != nil {
		t.Errorf("since 1: %v %v", got, ok)
	}

	if got, ok := c.ChangesSince(epoch, 3, version); !ok || len(got) != 1 || got[2] == nil {
		t.Errorf("since 3: %v %v", got, ok)
	}

	if _, ok := c.ChangesSince("other", 1, version); ok {
		t.Error("another epoch answered")
	}

	// Unchanged copies are no change; beyond MaxChanges the oldest versions are forgotten.
	publish(func() { posts[1] = &mapping.Post{ID: 1, Type: "tribe_events", Title: "a2"} })
	publish(func() { posts[3] = &mapping.Post{ID: 3, Type: "tribe_organizer"} })
	if got, ok := c.ChangesSince(epoch, 5, version); !ok || len(got) != 1 {
		t.Errorf("since 5: %v %v", got, ok)
	}

	if _, ok := c.ChangesSince(epoch, 1, version); ok {
		t.Error("a forgotten version answered")
	}
}
