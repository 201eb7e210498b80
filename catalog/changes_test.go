package catalog

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"calshim/cmsclient"
	"calshim/mapping"
)

// Without the feed, the journal answers what changed after a version, with each post's state then
// (without its text), and stops answering versions it has forgotten.
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

	ctx, snap := context.Background(), c.Snapshot()
	epoch, _ := c.SyncPoint(snap)
	got, err := c.ChangesSince(ctx, epoch, 1, snap)
	if err != nil || len(got) != 2 || got[1].Before == nil || got[1].Type != "tribe_events" ||
		got[1].Before.Title() != "" || got[2].Before != nil {
		t.Errorf("since 1: %v %v", got, err)
	}

	if got, err := c.ChangesSince(ctx, epoch, 3, snap); err != nil || len(got) != 1 || got[2].Type != "tribe_venue" {
		t.Errorf("since 3: %v %v", got, err)
	}

	if _, err := c.ChangesSince(ctx, "other", 1, snap); !errors.Is(err, ErrSyncExpired) {
		t.Errorf("another epoch answered: %v", err)
	}

	// Unchanged copies are no change; beyond MaxChangeBytes the oldest versions are forgotten.
	publish(func() {
		posts[1] = &mapping.Post{Text: mapping.TextFields{Type: "tribe_events", Title: "a2"}.Pack(), ID: 1}
	})
	publish(func() { posts[3] = &mapping.Post{Text: mapping.TextFields{Type: "tribe_organizer"}.Pack(), ID: 3} })
	if got, err := c.ChangesSince(ctx, epoch, 5, c.Snapshot()); err != nil || len(got) != 1 {
		t.Errorf("since 5: %v %v", got, err)
	}

	if _, err := c.ChangesSince(ctx, epoch, 1, c.Snapshot()); !errors.Is(err, ErrSyncExpired) {
		t.Errorf("a forgotten version answered: %v", err)
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

	snap := c.Snapshot()
	epoch, _ := c.SyncPoint(snap)
	if _, err := c.ChangesSince(context.Background(), epoch, 2, snap); !errors.Is(err, ErrSyncExpired) {
		t.Errorf("a version the bound dropped answered: %v", err)
	}
	if got, err := c.ChangesSince(context.Background(), epoch, 399, snap); err != nil || len(got) != 3 {
		t.Errorf("the last version: %v %v", got, err)
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
	epoch := c.journal.epochID()
	const versions = 3000
	done := make(chan int)
	go func() {
		missed := 0
		for seen := uint64(1); seen < versions; {
			snap := c.Snapshot()
			if snap == nil || snap.Version == seen {
				continue
			}
			if got, err := c.ChangesSince(context.Background(), epoch, int64(snap.Version-1), snap); err != nil || len(got) != 1 {
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

// With the feed, a changed post's state at a sequence is known from the first change recorded after
// it (a change published at the sequence without moving it, a repair, counts as after it; a
// snapshot straddling the sequence gives the state it replaced); none recorded, it is as the
// catalog holds it now; a sequence the journal does not reach back to leaves it unknown.
func TestJournalBeforeAtSequence(t *testing.T) {
	state := func(title string) *mapping.Post {
		return &mapping.Post{Text: mapping.TextFields{Type: "tribe_events", Title: title}.Pack()}
	}
	j := &journal{started: true, ident: "L", floor: 10, entries: []change{
		{from: 10, pos: 12, id: 1, before: state("1 at 10")}, // the poll that led to 12
		{from: 12, pos: 12, id: 2, before: state("2 at 12")}, // a repair at 12
		{from: 12, pos: 15, id: 3, before: state("3 at 12")},
		{from: 15, pos: 15, id: 1, before: state("1 at 15")},
		{from: 15, pos: 20, id: 1, before: state("1 later")},
	}}
	for i := range j.entries {
		j.entries[i].typ = "tribe_events"
	}
	rows := []cmsclient.LogRow{{Seq: 13, ID: 1, Type: "tribe_events"}, {Seq: 14, ID: 2, Type: "tribe_events"},
		{Seq: 15, ID: 3, Type: "tribe_events"}}
	now := state("3 now")
	now.ID = 3
	types := Types{Event: "tribe_events"}
	known := func(ident string, since, until int64) map[int]string {
		snap := build(Snapshot{types: types}, map[int]*mapping.Post{3: now}, nil, nil)
		snap.pos = &syncPos{log: "L"}
		snap.pos.seq.Store(until)
		out := map[int]string{}
		changed, known := j.before(ident, rows, since, snap, 0)
		for id, c := range changed {
			switch {
			case !known:
			case c.Type != "tribe_events":
				t.Errorf("%d: type %q", id, c.Type)
			case c.Before == nil:
				out[id] = "none"
			default:
				out[id] = c.Before.Title()
			}
		}
		return out
	}

	for _, c := range []struct {
		ident        string
		since, until int64
		want         map[int]string
	}{
		{"L", 12, 20, map[int]string{1: "1 at 15", 2: "2 at 12", 3: "3 at 12"}},
		{"L", 13, 20, map[int]string{1: "1 at 15", 2: "none", 3: "3 at 12"}}, // 12 → 15 straddles 13
		{"L", 12, 14, map[int]string{1: "none", 2: "2 at 12", 3: "3 now"}},   // nothing after 12 up to 14: as now
		{"L", 10, 20, map[int]string{}},                                      // the floor after a drop: changes at it may be forgotten
		{"M", 12, 20, map[int]string{}},
	} {
		if got := known(c.ident, c.since, c.until); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s since %d until %d: known %v, want %v", c.ident, c.since, c.until, got, c.want)
		}
	}

	j.exact = true // the journal started at 10: every change after it is recorded
	want := map[int]string{1: "1 at 10", 2: "2 at 12", 3: "3 at 12"}
	if got := known("L", 10, 20); !reflect.DeepEqual(got, want) {
		t.Errorf("since its start: known %v, want %v", got, want)
	}
}

// Rows and earlier states share the bound: the oldest of either go first, and what went expires
// the positions before it.
func TestJournalTrimsRowsAndEntries(t *testing.T) {
	row := cmsclient.LogRow{Type: "tribe_events"}
	j := &journal{started: true, ident: "L", floor: 10, rowFloor: 10, rowTop: 10}
	for seq := int64(11); seq <= 20; seq++ {
		row.Seq, row.ID = seq, int(seq)
		j.rows = append(j.rows, row)
		j.bytes += rowSize(row)
		j.entries = append(j.entries, change{from: seq - 1, pos: seq, id: int(seq)})
		j.bytes += changeSize(change{})
	}
	j.rowTop = 20
	j.trim(5 * (rowSize(row) + changeSize(change{})))
	if len(j.rows) != 5 || len(j.entries) != 5 || j.rowFloor != 15 || j.floor != 15 {
		t.Errorf("kept %d rows from %d, %d entries from %d", len(j.rows), j.rowFloor, len(j.entries), j.floor)
	}
	if rows, floor := j.rowsSince("L", 12, 20); floor != 15 || len(rows) != 5 {
		t.Errorf("since 12: %d rows, floor %d: the rows after 12 up to 15 must come from the plugin", len(rows), floor)
	}
	if rows, floor := j.rowsSince("L", 17, 20); floor != 17 || len(rows) != 3 {
		t.Errorf("since 17: %d rows, floor %d", len(rows), floor)
	}
}

// A change is placed against a token's position by its own positions and, when this replica's poll
// straddled the position (a token of another replica), by the post's first log row after it.
func TestChangeAfterPosition(t *testing.T) {
	first := map[int]int64{1: 14, 2: 17}
	for _, c := range []struct {
		name            string
		ch              change
		after, unplaced bool
	}{
		{"before the position", change{from: 8, pos: 10, id: 1}, false, false},
		{"the change that led to the position", change{from: 10, pos: 12, id: 1}, false, false},
		{"a repair at the position", change{from: 12, pos: 12, id: 1, repair: true}, true, false},
		{"after the position", change{from: 12, pos: 15, id: 1}, true, false},
		{"straddled, its first row after the position in it", change{from: 11, pos: 15, id: 1}, true, false},
		{"straddled, its first row after the position later", change{from: 11, pos: 15, id: 2}, false, false},
		{"straddled, no row after the position", change{from: 11, pos: 15, id: 3}, false, false},
		{"a repair straddled", change{from: 11, pos: 15, id: 3, repair: true}, false, true},
		{"an embedded change straddled", change{from: 11, pos: 15, id: 3, embedded: true}, false, true},
	} {
		after, unplaced := c.ch.after(12, first)
		if after != c.after || unplaced != c.unplaced {
			t.Errorf("%s: after %v unplaced %v, want %v %v", c.name, after, unplaced, c.after, c.unplaced)
		}
	}
}

// Each replica reads a changed term's or venue's state when its poll reads the feed, possibly after
// later rows: a replica that recorded the new count of a tag before a position answers a token there
// of another replica, which still showed the old one. The term's (or venue's) row after the
// position re-sends the events that embed it, on every replica; a term's ID is not a post's.
func TestJournalRowsResendEmbedders(t *testing.T) {
	types := Types{Event: "tribe_events", Venue: "tribe_venue"}
	event := func(id int, venue int, tags ...int) *mapping.Post {
		p := &mapping.Post{ID: id, Text: mapping.TextFields{Type: "tribe_events", Status: "publish"}.Pack(),
			Terms: map[string][]int{mapping.TaxonomyTag: tags}}
		if venue != 0 {
			p.Derived.Venues = []int{venue}
		}
		return p
	}
	posts := map[int]*mapping.Post{5: event(5, 0, 7), 6: event(6, 8), 9: event(9, 0)}
	snap := build(Snapshot{types: types}, posts, nil, nil)
	snap.pos = &syncPos{log: "L"}
	snap.pos.seq.Store(30)
	// The journal recorded the tag's and venue's new states (and the events') before 20.
	j := &journal{started: true, ident: "L", floor: 10, exact: true, entries: []change{
		{from: 10, pos: 20, id: 5, typ: "tribe_events", embedded: true, before: event(5, 0, 7)},
		{from: 10, pos: 20, id: 6, typ: "tribe_events", embedded: true, before: event(6, 8)},
	}}
	rows := []cmsclient.LogRow{{Seq: 21, ID: 7, Type: "post_tag", Term: true},
		{Seq: 22, ID: 9, Type: "post_tag", Term: true}, {Seq: 23, ID: 8, Type: "tribe_venue"}}

	changed, known := j.before("L", rows, 20, snap, 0)
	if !known {
		t.Fatal("a position the journal reaches is unknown")
	}
	got := map[int]string{}
	for id, c := range changed {
		got[id] = c.Type
		if c.Before != nil && id != 8 {
			t.Errorf("%d: re-sent for what it embeds with a state then, which could name it deleted", id)
		}
	}
	want := map[int]string{5: "tribe_events", 6: "tribe_events", 8: "tribe_venue"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changed since 20: %v, want %v (the tag's and venue's events, never the term's ID as a post)", got, want)
	}
}
