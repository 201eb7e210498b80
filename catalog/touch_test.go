package catalog_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"calshim/catalog"
	"calshim/internal/testkit/wpfake"
)

// touchAnswer is the plugin's changes/touch: a row for each post named that has none after since.
func (f *fakeFeed) touchAnswer(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Since int64            `json:"since"`
		Posts map[string][]int `json:"posts"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"code": "bad", "message": err.Error()})
		return
	}
	logged := map[string]bool{}
	for s := body.Since + 1; s <= f.seq; s++ {
		if c, ok := f.changes[s]; ok {
			logged[c[1]] = true
		}
	}
	n := 0
	for typ, ids := range body.Posts {
		for _, id := range ids {
			if !logged[strconv.Itoa(id)] {
				f.addRow(typ, id)
				n++
			}
		}
	}
	f.touched += n
	writeJSON(w, http.StatusOK, map[string]any{"log": f.log, "site": "http://cms", "head": f.seq, "seq": f.seq,
		"floor": f.floor, "touch": true, "touched": n})
}

// A post changed around the log (SQL) that the checksum comparison finds is logged by the plugin
// (touch) and enters the catalog with that row, at its sequence: the position moves, a token taken
// before it is answered with the post's state then, and no repair of the catalog's own is made.
// One changed after the comparison's feed read, whose row is in the log, is not touched again.
func TestVerifyTouchesWhatDiffers(t *testing.T) {
	fake := wpfake.New(t)
	feed := newFakeFeed(fake)
	feed.touch = true
	cat := mustLoad(t, fake, func(o *catalog.Options) { o.VerifyEvery = time.Nanosecond })
	ctx := context.Background()
	ident, before := cat.SyncPoint(cat.Snapshot())
	id := fake.IDs("tribe_events")[0]
	old, _ := cat.Snapshot().Post(id)
	fake.Update("tribe_events", id, func(o wpfake.Object) { calshimField(fake, o)["title"] = "Written by SQL" })

	snap := mustPoll(t, cat)
	if p, _ := snap.Post(id); p == nil || p.Title() != "Written by SQL" {
		t.Fatalf("after the poll: %+v, want the title written by SQL", p)
	}
	if _, pos := cat.SyncPoint(snap); feed.touched != 1 || pos != before+1 {
		t.Errorf("touched %d rows, position %d after %d: want one row, the position after it", feed.touched, pos, before)
	}
	changed, err := cat.ChangesSince(ctx, ident, before, snap)
	if err != nil || changed[id].Before == nil || changed[id].Before.Status() != old.Status() {
		t.Errorf("changes since %d: %v %v, want post %d with its state before the row", before, changed, err, id)
	}
	if _, pos := cat.SyncPoint(snap); len(must(cat.ChangesSince(ctx, ident, pos, snap))) != 0 {
		t.Error("the change is also after the row's own position")
	}

	mustPoll(t, cat)
	if feed.touched != 1 {
		t.Errorf("a poll with nothing different touched %d rows in all, want 1", feed.touched)
	}
}

// A restarted catalog answers the tokens its clients took before the restart: the snapshot file
// keeps the journal, so the states before a change are known after the restart too.
func TestRestartAnswersEarlierTokens(t *testing.T) {
	fake := wpfake.New(t)
	feed := newFakeFeed(fake)
	opts := savedCatalog(t, fake)
	ctx := context.Background()
	cat := mustLoad(t, fake, opts)
	ident, token := cat.SyncPoint(cat.Snapshot())
	id := fake.IDs("tribe_events")[0]
	fake.Update("tribe_events", id, func(o wpfake.Object) { calshimField(fake, o)["status"] = "draft" })
	feed.change("tribe_events", id)
	mustPoll(t, cat)
	if err := cat.Save(); err != nil {
		t.Fatal(err)
	}

	again := newCatalog(t, fake, opts)
	if err := again.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for _, snap := range []*catalog.Snapshot{again.Snapshot(), mustPoll(t, again)} {
		changed, err := again.ChangesSince(ctx, ident, token, snap)
		if err != nil || changed[id].Before == nil || changed[id].Before.Status() != "publish" {
			t.Errorf("token of before the restart: %v %v, want post %d, publish then", changed, err, id)
		}
	}
	if _, err := again.ChangesSince(ctx, ident, token-1, again.Snapshot()); err == nil {
		t.Error("a position before the first catalog's start is answered, want expired")
	}
}

// A post one poll read two rows of: a token between them (another replica's) is one this catalog
// never stood at, the post's state there unknown, before a restart and after it (the snapshot file
// keeps the gap with the journal); the positions around it are answered.
func TestRestartKeepsGaps(t *testing.T) {
	fake := wpfake.New(t)
	feed := newFakeFeed(fake)
	opts := savedCatalog(t, fake)
	ctx := context.Background()
	cat := mustLoad(t, fake, opts)
	ident, token := cat.SyncPoint(cat.Snapshot())
	id := fake.IDs("tribe_events")[0]
	for _, status := range []string{"draft", "private"} {
		fake.Update("tribe_events", id, func(o wpfake.Object) { calshimField(fake, o)["status"] = status })
		feed.change("tribe_events", id)
	}
	mustPoll(t, cat)
	if err := cat.Save(); err != nil {
		t.Fatal(err)
	}

	again := newCatalog(t, fake, opts)
	if err := again.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*catalog.Catalog{"before the restart": cat, "after it": again} {
		if got := must(c.ChangesSince(ctx, ident, token+1, c.Snapshot())); !got[id].Unknown {
			t.Errorf("%s: a token between the two rows: %+v, want the post's state unknown", name, got[id])
		}
		if got := must(c.ChangesSince(ctx, ident, token, c.Snapshot())); got[id].Unknown ||
			got[id].Before == nil || got[id].Before.Status() != "publish" {
			t.Errorf("%s: the token before both rows: %+v, want publish then", name, got[id])
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Posts deleted and imported by SQL, which the per-type counts notice, are logged as well when few:
// the catalog has them at the rows' sequence, not in place.
func TestReconcileTouchesFewPosts(t *testing.T) {
	fake := wpfake.New(t)
	feed := newFakeFeed(fake)
	feed.touch = true
	cat := mustLoad(t, fake, func(o *catalog.Options) { o.ReconcileEvery = 1 })
	_, before := cat.SyncPoint(cat.Snapshot())
	gone := fake.IDs("tribe_events")[0]
	fake.Delete("tribe_events", gone)
	manyEvents(fake, 30000, 2)

	snap := mustPoll(t, cat)
	_, pos := cat.SyncPoint(snap)
	if _, held := snap.Post(gone); held || feed.touched != 3 || pos != before+3 {
		t.Errorf("deleted post held %v, %d rows touched, position %d after %d: want it gone at the rows' position",
			held, feed.touched, pos, before)
	}
	if _, ok := snap.Post(30001); !ok {
		t.Error("the imported posts are missing")
	}
}

// A repair made in place (a plugin without the touch route, or a mass import read in bulk) has no
// row: each replica makes it at a position of its own, so within the repair window a token on
// either side of it gets the post as Unknown (re-sent to a caller that sees it, else 410), never a
// state then that another replica's client may not have held.
func TestRepairInPlaceIsUnknownNearby(t *testing.T) {
	fake := wpfake.New(t)
	newFakeFeed(fake) // no touch route
	cat := mustLoad(t, fake, func(o *catalog.Options) { o.VerifyEvery = time.Nanosecond })
	ctx := context.Background()
	ident, before := cat.SyncPoint(cat.Snapshot())
	id := fake.IDs("tribe_events")[0]
	fake.Update("tribe_events", id, func(o wpfake.Object) { o["status"] = "draft" })

	snap := mustPoll(t, cat)
	if p, _ := snap.Post(id); p == nil || p.Status() != "draft" {
		t.Fatalf("after the poll: %+v, want the draft written by SQL", p)
	}
	_, after := cat.SyncPoint(snap)
	for _, since := range []int64{before, after} {
		changed, err := cat.ChangesSince(ctx, ident, since, snap)
		if err != nil || !changed[id].Unknown || changed[id].Before != nil {
			t.Errorf("changes since %d: %+v %v, want post %d Unknown", since, changed[id], err, id)
		}
	}
}
