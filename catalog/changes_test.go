package catalog

import (
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"calshim/mapping"
)

// The journal answers what changed after a version, with each post's state then (without its
// text), and stops answering versions it has forgotten.
func TestJournalChangesSince(t *testing.T) {
	types := Types{Event: "tribe_events", Venue: "tribe_venue", Organizer: "tribe_organizer"}
	a := &mapping.Post{Text: mapping.TextFields{Type: "tribe_events", Title: "a"}.Pack(), ID: 1}
	venue := &mapping.Post{Text: mapping.TextFields{Type: "tribe_venue"}.Pack(), ID: 2}
	// Room for the last three changes below: a changed, the venue deleted, an organizer added.
	room := changeSize(change{before: earlier(a)}) + changeSize(change{before: earlier(venue)}) +
		changeSize(change{})
	c := New(nil, Options{Types: types, MaxChangeBytes: room})
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
	publish(func() { posts[1] = a })
	publish(func() { posts[2] = venue })
	publish(func() {
		posts[1] = &mapping.Post{Text: mapping.TextFields{Type: "tribe_events", Title: "a2"}.Pack(), ID: 1}
	})
	publish(func() { delete(posts, 2) })

	epoch := c.SyncEpoch()
	got, ok := c.ChangesSince(epoch, 1, version)
	if !ok || len(got) != 2 || got[1] == nil || got[1].Type() != "tribe_events" || got[1].Title() != "" ||
		got[2] != nil {
		t.Errorf("since 1: %v %v", got, ok)
	}

	if got, ok := c.ChangesSince(epoch, 3, version); !ok || len(got) != 1 || got[2].Type() != "tribe_venue" {
		t.Errorf("since 3: %v %v", got, ok)
	}

	if _, ok := c.ChangesSince("other", 1, version); ok {
		t.Error("another epoch answered")
	}

	// Unchanged copies are no change; beyond MaxChangeBytes the oldest versions are forgotten.
	publish(func() {
		posts[1] = &mapping.Post{Text: mapping.TextFields{Type: "tribe_events", Title: "a2"}.Pack(), ID: 1}
	})
	publish(func() { posts[3] = &mapping.Post{Text: mapping.TextFields{Type: "tribe_organizer"}.Pack(), ID: 3} })
	if got, ok := c.ChangesSince(epoch, 5, version); !ok || len(got) != 1 {
		t.Errorf("since 5: %v %v", got, ok)
	}

	if _, ok := c.ChangesSince(epoch, 1, version); ok {
		t.Error("a forgotten version answered")
	}
}

// BenchmarkJournalRecord is the journal's cost per published snapshot on a catalog of 100,000
// events of which one changed (one feed poll's usual change).
func BenchmarkJournalRecord(b *testing.B) {
	types := Types{Event: "tribe_events"}
	posts := map[int]*mapping.Post{}
	for i := 1; i <= 100000; i++ {
		posts[i] = &mapping.Post{Text: mapping.TextFields{Type: "tribe_events"}.Pack(), ID: i}
	}
	old := build(Snapshot{Version: 1, types: types}, posts, nil, nil)
	next := map[int]*mapping.Post{}
	for id, p := range posts {
		next[id] = p
	}
	next[7] = &mapping.Post{Text: mapping.TextFields{Type: "tribe_events", Title: "changed"}.Pack(), ID: 7}
	snap := build(Snapshot{Version: 2, types: types}, next, nil, nil)
	b.ResetTimer()
	for b.Loop() {
		if len(diffPosts(old, snap)) != 1 {
			b.Fatal("want one change")
		}
	}
}

// The side-by-side walk finds what comparing every post finds, whatever moves in the order.
func TestDiffListMatchesDiffAll(t *testing.T) {
	types := Types{Event: "tribe_events"}
	posts := map[int]*mapping.Post{}
	for i := 1; i <= 200; i++ {
		posts[i] = &mapping.Post{Text: mapping.TextFields{Type: "tribe_events"}.Pack(),
			ID: i, Derived: mapping.Derived{Start: "2030-01-01"}}
	}
	old := build(Snapshot{Version: 1, types: types}, posts, nil, nil)
	for seed := 1; seed < 40; seed++ {
		next := map[int]*mapping.Post{}
		for id, p := range posts {
			next[id] = p
		}
		for k := 0; k < seed%7+1; k++ {
			id := (seed*37 + k*53) % 230
			switch k % 3 {
			case 0: // moved to another place in the order
				next[id] = &mapping.Post{Text: mapping.TextFields{Type: "tribe_events"}.Pack(),
					ID: id, Derived: mapping.Derived{Start: "2029-06-01"}}
			case 1:
				delete(next, id)
			default: // changed in place
				next[id] = &mapping.Post{Text: mapping.TextFields{Type: "tribe_events", Title: "x"}.Pack(),
					ID: id, Derived: mapping.Derived{Start: "2030-01-01"}}
			}
		}
		snap := build(Snapshot{Version: 2, types: types}, next, nil, nil)
		walk := changedIDs(diffList(old.Events, snap.Events, old, snap))
		all := changedIDs(diffAll(old.Events, snap.Events, old, snap))
		if !slices.Equal(walk, all) {
			t.Errorf("seed %d: walk %v, all %v", seed, walk, all)
		}
	}
}

func changedIDs(l []change) []int {
	out := make([]int, 0, len(l))
	for _, c := range l {
		out = append(out, c.id)
	}
	slices.Sort(out)
	return out
}

// A contributor saving a large draft again and again: the journal keeps of each earlier version
// what the sync filters test, not its text, so the memory it holds does not grow with the saves.
func TestJournalKeepsNoText(t *testing.T) {
	small, large := journalHeap(20), journalHeap(60)
	t.Logf("heap after 20 saves of a 500 KB draft: %d KB, after 60: %d KB", small>>10, large>>10)
	if large > small+(4<<20) {
		t.Errorf("heap after 20 saves of a 500 KB draft: %d KB, after 60: %d KB", small>>10, large>>10)
	}
}

// The journal's accounted bytes stay under the bound whatever is saved, and what it forgets
// expires the tokens of those versions.
func TestJournalBytesBound(t *testing.T) {
	types := Types{Event: "tribe_events"}
	const bound = 4 << 10
	c := New(nil, Options{Types: types, MaxChangeBytes: bound})
	for v := 1; v <= 400; v++ {
		posts := map[int]*mapping.Post{}
		for id := 1; id <= 3; id++ { // three posts changed per version, one with 200 tags
			p := &mapping.Post{ID: id, Text: mapping.TextFields{Type: "tribe_events",
				Title: strconv.Itoa(v)}.Pack(), Terms: map[string][]int{mapping.TaxonomyTag: make([]int, 200*(id/3))}}
			posts[id] = p
		}
		c.publish(build(Snapshot{Version: uint64(v), types: types}, posts, nil, nil))
		if c.journal.bytes > bound {
			t.Fatalf("version %d: %d bytes accounted", v, c.journal.bytes)
		}
	}

	epoch := c.SyncEpoch()
	if _, ok := c.ChangesSince(epoch, 2, 400); ok {
		t.Error("a version the bound dropped answered")
	}
	if got, ok := c.ChangesSince(epoch, 399, 400); !ok || len(got) != 3 {
		t.Errorf("the last version: %v %v", got, ok)
	}
}

// journalHeap is the heap a catalog holds after the given saves of one 500 KB event, as the
// catalog stores a written post (Derive, then a block of its own).
func journalHeap(saves int) uint64 {
	types := Types{Event: "tribe_events"}
	c := New(nil, Options{Types: types})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for v := 1; v <= saves; v++ {
		content := strings.Repeat("draft ", 500<<10/6) + strconv.Itoa(v)
		p := &mapping.Post{ID: 1, Text: mapping.TextFields{Type: "tribe_events", Status: "draft",
			Content: content}.Pack(), Meta: mapping.NewMeta(map[string][]string{
			"_EventStartDate": {"2034-05-01 10:00:00"}, "_EventEndDate": {"2034-05-01 11:00:00"}})}
		mapping.Derive(p)
		block := []*mapping.Post{p}
		compactBlocks(block)
		c.publish(build(Snapshot{Version: uint64(v), types: types}, map[int]*mapping.Post{1: block[0]}, nil, nil))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(c)
	return after.HeapInuse - min(after.HeapInuse, before.HeapInuse)
}

// A snapshot is journaled before anyone can read it: a reader that sees a version finds what that
// version changed (sync tokens and edge purges ask ChangesSince for the versions they see).
func TestJournalRecordsBeforePublishing(t *testing.T) {
	types := Types{Event: "tribe_events", Venue: "tribe_venue", Organizer: "tribe_organizer"}
	c := New(nil, Options{Types: types})
	epoch := c.SyncEpoch()
	const versions = 3000
	done := make(chan int)
	go func() {
		missed := 0
		for seen := uint64(1); seen < versions; {
			snap := c.Snapshot()
			if snap == nil || snap.Version == seen {
				continue
			}
			if got, ok := c.ChangesSince(epoch, snap.Version-1, snap.Version); !ok || len(got) != 1 {
				missed++
			}
			seen = snap.Version
		}
		done <- missed
	}()

	for v := uint64(1); v <= versions; v++ { // each version renames event 1
		title := strconv.FormatUint(v, 10)
		posts := map[int]*mapping.Post{1: {Text: mapping.TextFields{Type: "tribe_events", Title: title}.Pack(), ID: 1}}
		c.mu.Lock()
		c.publish(build(Snapshot{Version: v, types: types}, posts, nil, nil))
		c.mu.Unlock()
	}
	if missed := <-done; missed > 0 {
		t.Errorf("%d versions were readable before their changes were journaled", missed)
	}
}
