package catalog_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"calshim/catalog"
	"calshim/internal/testkit/wpfake"
	"calshim/mapping"
)

// savedCatalog loads a catalog with a snapshot file, saves it and returns the file's path and the
// options a restarted catalog uses (checksums compared, the periodic check not due for an hour).
func savedCatalog(t *testing.T, fake *wpfake.Server) func(*catalog.Options) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "catalog.gob")
	opts := func(o *catalog.Options) {
		o.SnapshotPath, o.Upstream, o.VerifyEvery = path, "http://cms/wp-json#", time.Hour
	}
	cat := newCatalog(t, fake, opts)
	if err := cat.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := cat.Save(); err != nil {
		t.Fatal(err)
	}
	return opts
}

// A restart from the snapshot file serves it at once, after one request (the change log's head),
// flagged as catching up; the first poll replays the log, compares the checksums of the whole
// catalog, repairs what changed around the log while calshim was stopped and ends the flag.
func TestStartServesSnapshotWhileCatchingUp(t *testing.T) {
	fake := wpfake.New(t)
	feed := newFakeFeed(fake)
	opts := savedCatalog(t, fake)
	ids := fake.IDs("tribe_events")
	bySQL, byHook := ids[0], ids[1]
	fake.Update("tribe_events", bySQL, func(o wpfake.Object) { calshimField(fake, o)["title"] = "Written by SQL" })
	fake.Update("tribe_events", byHook, func(o wpfake.Object) { calshimField(fake, o)["title"] = "Through the log" })
	feed.change("tribe_events", byHook)

	cat := newCatalog(t, fake, opts)
	fake.ResetRequests()
	if err := cat.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := countPaths(fake); len(n) != 1 || n["/calshim/v1/changes"] != 1 {
		t.Errorf("Start asked %v, want the change log's head only", n)
	}
	sync := cat.Health().Sync
	if !sync.Restored || !sync.CatchingUp || sync.Unconfirmed {
		t.Errorf("after Start: %+v, want restored and catching up", sync)
	}
	for _, id := range []int{bySQL, byHook} {
		if p, _ := cat.Snapshot().Post(id); p == nil || p.Title() == "Written by SQL" || p.Title() == "Through the log" {
			t.Errorf("post %d before the first poll: %+v, want the file's", id, p)
		}
	}

	fake.ResetRequests()
	snap := mustPoll(t, cat)
	if cat.Health().Sync.CatchingUp {
		t.Error("still catching up after the first poll")
	}
	for id, want := range map[int]string{bySQL: "Written by SQL", byHook: "Through the log"} {
		if p, _ := snap.Post(id); p == nil || p.Title() != want {
			t.Errorf("post %d after the first poll: %+v, want %q", id, p, want)
		}
	}
	whole := false
	for _, r := range fake.Requests() {
		if r.Path == "/wp-json/calshim/v1/checksums" && r.Query.Get("kind") == "posts" &&
			r.Query.Get("from") == "0" && !r.Query.Has("to") && !r.Query.Has("items") {
			whole = true
		}
	}
	if !whole {
		t.Error("the first poll did not compare the checksums of every post")
	}
	if cat.Repaired("posts") != 1 {
		t.Errorf("repaired posts = %d, want 1 (the one written around the log)", cat.Repaired("posts"))
	}
}

// When WordPress does not answer at start, the file is served, unconfirmed and catching up, until a
// poll reaches WordPress.
func TestStartUnreachableCatchesUpLater(t *testing.T) {
	fake := wpfake.New(t)
	feed := newFakeFeed(fake)
	opts := savedCatalog(t, fake)
	var down atomic.Bool
	fake.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		if down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return true
		}
		return feed.serve(w, r)
	})
	down.Store(true)

	cat := newCatalog(t, fake, opts)
	if err := cat.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := cat.Health().Sync; !s.CatchingUp || !s.Unconfirmed || cat.Snapshot() == nil {
		t.Fatalf("WordPress down at start: %+v, want the file served, unconfirmed and catching up", s)
	}
	if err := cat.Poll(context.Background()); err == nil {
		t.Fatal("poll succeeded while WordPress is down")
	}
	if s := cat.Health().Sync; !s.CatchingUp || !s.Unconfirmed {
		t.Errorf("after a failed poll: %+v, want still catching up", s)
	}
	down.Store(false)
	mustPoll(t, cat)
	if s := cat.Health().Sync; s.CatchingUp || s.Unconfirmed {
		t.Errorf("after WordPress answered: %+v, want caught up", s)
	}
}

// A file whose log cannot continue (another log, a sequence pruned or past the head) is never served:
// Start discards it and loads everything, which leaves nothing to catch up.
func TestStartDiscardsFileTheLogCannotContinue(t *testing.T) {
	for name, change := range map[string]func(*fakeFeed){
		"another log":       func(f *fakeFeed) { f.log = "log-2" },
		"pruned past it":    func(f *fakeFeed) { f.floor = f.seq + 1; f.seq += 2 },
		"a restored backup": func(f *fakeFeed) { f.seq-- },
	} {
		t.Run(name, func(t *testing.T) {
			fake := wpfake.New(t)
			feed := newFakeFeed(fake)
			opts := savedCatalog(t, fake)
			change(feed)
			var events []string
			cat := newCatalog(t, fake, opts, func(o *catalog.Options) {
				o.Notify = func(event string, _ error) { events = append(events, event) }
			})
			fake.ResetRequests()
			if err := cat.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			if s := cat.Health().Sync; s.Restored || s.CatchingUp {
				t.Errorf("sync %+v, want a full load", s)
			}
			if !slices.Contains(events, "snapshot discarded") || countPaths(fake)["/calshim/v1/bulk"] == 0 {
				t.Errorf("events %v, requests %v: want the file discarded and a bulk load", events, countPaths(fake))
			}
		})
	}
}

// bulkPages lists the bulk pages (from-to) a catalog read, and whether it listed every ID of a type
// or asked the change log's head (as a full load does first).
func bulkPages(fake *wpfake.Server) (pages []string, idLists int, head bool) {
	for _, r := range fake.Requests() {
		switch {
		case r.Path == "/wp-json/calshim/v1/bulk" && r.Query.Has("from"):
			pages = append(pages, r.Query.Get("from")+"-"+r.Query.Get("to"))
		case r.Path == "/wp-json/calshim/v1/bulk":
			idLists++
		case r.Path == "/wp-json/calshim/v1/changes" && !r.Query.Has("since"):
			head = true
		}
	}
	return pages, idLists, head
}

// When most of a catalog differs from WordPress' checksums (a search-replace over every event), the
// check reads the differing ranges in bulk pages of the load's size, in parallel, rather than
// descending into them and refetching post by post, and rather than reloading everything.
func TestVerifyReadsMuchInBulk(t *testing.T) {
	defer func(n, m int) { *catalog.VerifyBulkAt, *catalog.BulkChunk = n, m }(*catalog.VerifyBulkAt, *catalog.BulkChunk)
	*catalog.VerifyBulkAt, *catalog.BulkChunk = 50, 100
	fake, cat := manyVerified(t, 300)
	ids := fake.IDs("tribe_events")
	for _, id := range ids {
		fake.Update("tribe_events", id, func(o wpfake.Object) { calshimField(fake, o)["title"] = "Replaced by SQL" })
	}

	fake.ResetRequests()
	snap := mustPoll(t, cat)
	for _, id := range ids {
		if p, _ := snap.Post(id); p == nil || p.Title() != "Replaced by SQL" {
			t.Fatalf("post %d not repaired: %+v", id, p)
		}
	}
	pages, idLists, head := bulkPages(fake)
	_, listings, _ := checksumRequests(fake)
	// 300 events and the recorded ones: pages of at most 100 (the load's here), plus the venues' and
	// organizers' of the differing ranges.
	if head || idLists != 3 || len(pages) < 4 || len(pages) > 6 || listings["posts"] != 0 {
		t.Errorf("bulk pages %v, ID lists %d, head %v, listings %v: want the ranges read in load-sized pages, no reload",
			pages, idLists, head, listings)
	}
	if n := cat.Repaired("posts"); n != uint64(len(ids)) {
		t.Errorf("repaired %d posts, want %d", n, len(ids))
	}
}

// Posts imported around the change log while calshim was stopped (more than a page) are read in
// pages of the load's size (100 here), in parallel, not a few hundred at a time one after the other.
func TestReconcileReadsImportInPages(t *testing.T) {
	defer func(n int) { *catalog.BulkChunk = n }(*catalog.BulkChunk)
	*catalog.BulkChunk = 100
	fake := wpfake.New(t)
	newFakeFeed(fake)
	opts := savedCatalog(t, fake)
	manyEvents(fake, 30000, 240)
	cat := newCatalog(t, fake, opts)
	if err := cat.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	fake.ResetRequests()
	snap := mustPoll(t, cat)
	if _, ok := snap.Post(30239); !ok || len(snap.Events) < 240 {
		t.Fatalf("%d events after the first poll, want the 240 imported", len(snap.Events))
	}
	if pages, _, head := bulkPages(fake); head || len(pages) != 3 {
		t.Errorf("bulk pages %v (head %v): want the import read in 3 pages of at most 100 posts", pages, head)
	}
}

// A catalog restarted from its file and stopped again with nothing changed leaves the file as it is;
// once something changed, it writes it.
func TestSaveSkipsUnchangedFile(t *testing.T) {
	fake := wpfake.New(t)
	feed := newFakeFeed(fake)
	var path string
	opts := savedCatalog(t, fake)
	cat := newCatalog(t, fake, opts, func(o *catalog.Options) { path = o.SnapshotPath })
	if err := cat.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustPoll(t, cat)
	written := func() time.Time {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return info.ModTime()
	}
	before := written()
	time.Sleep(20 * time.Millisecond)
	if err := cat.Save(); err != nil || !written().Equal(before) {
		t.Errorf("unchanged catalog: Save %v, file rewritten %v", err, !written().Equal(before))
	}

	id := fake.IDs("tribe_events")[0]
	fake.Update("tribe_events", id, func(o wpfake.Object) { calshimField(fake, o)["title"] = "Changed" })
	feed.change("tribe_events", id)
	mustPoll(t, cat)
	if err := cat.Save(); err != nil || written().Equal(before) {
		t.Errorf("changed catalog: Save %v, file not rewritten", err)
	}
}

// The whole comparison after a restart asks the checksums of a large catalog slice by slice (each
// of at most VerifySlice posts, as a periodic check does, so that no request's database time grows
// with the catalog), the slices together covering every ID once, and no more of them at a time
// than the client's concurrency.
func TestStartComparesWholeCatalogBySlices(t *testing.T) {
	defer func(n int) { *catalog.VerifySlice = n }(*catalog.VerifySlice)
	*catalog.VerifySlice = 500
	for _, n := range []int{300, 2500} {
		fake := wpfake.New(t)
		feed := newFakeFeed(fake)
		manyEvents(fake, 30000, n)
		opts := savedCatalog(t, fake)
		cat := newCatalog(t, fake, opts)
		if err := cat.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		var inFlight, most atomic.Int32
		fake.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
			if r.URL.Path == "/wp-json/calshim/v1/checksums" && r.URL.Query().Get("kind") == "posts" {
				now := inFlight.Add(1)
				defer inFlight.Add(-1)
				raise(&most, now)
				time.Sleep(5 * time.Millisecond)
			}
			return feed.serve(w, r)
		})
		fake.ResetRequests()
		snap := mustPoll(t, cat)
		held := len(snap.Events) + len(snap.Venues) + len(snap.Organizers)
		want := (held + 499) / 500

		type rng struct{ from, to int } // to -1: open
		var asked []rng                 // nothing having changed, the top level only
		for _, r := range fake.Requests() {
			q := r.Query
			if r.Path != "/wp-json/calshim/v1/checksums" || q.Get("kind") != "posts" || q.Has("items") {
				continue
			}
			g := rng{atoi(t, q.Get("from")), -1}
			if q.Has("to") {
				g.to = atoi(t, q.Get("to"))
			}
			asked = append(asked, g)
		}
		if len(asked) != want {
			t.Fatalf("%d posts: ranges asked %v, want %d slices", held, asked, want)
		}
		slices.SortFunc(asked, func(a, b rng) int { return a.from - b.from })
		if asked[0].from != 0 || asked[want-1].to != -1 {
			t.Errorf("%d posts: slices %v: the first must start at 0 and the last be open", held, asked)
		}
		for k := 1; k < want; k++ {
			if asked[k].from != asked[k-1].to+1 {
				t.Errorf("%d posts: slices %v: %d does not start where the one before ended", held, asked, k)
			}
			if ids := countIDs(snap, asked[k-1].from, asked[k-1].to); ids > 500 {
				t.Errorf("%d posts: slice %v holds %d posts, want at most 500", held, asked[k-1], ids)
			}
		}
		if m := most.Load(); m > 4 {
			t.Errorf("%d posts: %d checksum requests at once, want at most the client's concurrency (4)", held, m)
		}
		if cat.Health().Sync.CatchingUp {
			t.Errorf("%d posts: still catching up after the first poll", held)
		}
	}
}

// countIDs counts the posts of snap with from <= ID <= to.
func countIDs(snap *catalog.Snapshot, from, to int) int {
	n := 0
	for _, l := range [][]*mapping.Post{snap.Events, snap.Venues, snap.Organizers} {
		for _, p := range l {
			if p.ID >= from && p.ID <= to {
				n++
			}
		}
	}
	return n
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// raise sets v to n when n is larger.
func raise(v *atomic.Int32, n int32) {
	for m := v.Load(); n > m; m = v.Load() {
		if v.CompareAndSwap(m, n) {
			return
		}
	}
}
