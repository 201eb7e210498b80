package catalog_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"calshim/catalog"
	"calshim/internal/wpfake"
)

// A sync position names the change log and a sequence: a catalog that followed the log since
// answers it from memory, with each post's state then (and the events that embed a changed venue);
// one that started later (another replica, a restart) asks the plugin for the rows once and keeps
// them, and answers the rows' posts without their state then. Another log, or a sequence the log pruned, is expired.
func TestSyncFromChangeLog(t *testing.T) {
	ctx := context.Background()
	fake := wpfake.New(t)
	feed := newFakeFeed(fake)
	a := mustLoad(t, fake)
	ident, since := a.SyncPoint(a.Snapshot())
	if ident != "log-1" || since != 10 {
		t.Fatalf("position %s %d, want the log's", ident, since)
	}

	ev, venue := fake.IDs("tribe_events")[0], fake.IDs("tribe_venue")[0]
	fake.Advance(time.Minute)
	fake.Modify("tribe_events", ev, func(o wpfake.Object) { calshimField(fake, o)["title"] = "Changed" })
	feed.change("tribe_events", ev)
	fake.Delete("tribe_venue", venue)
	feed.change("tribe_venue", venue)
	mustPoll(t, a)
	mine, err := a.ChangesSince(ctx, ident, since, a.Snapshot())
	if err != nil || !mine[ev].Known || mine[ev].Before == nil || mine[ev].Before.ID != ev ||
		!mine[venue].Known || mine[venue].Type != "tribe_venue" || feed.rowRequests != 0 {
		t.Errorf("the catalog that followed the log: %+v %v, %d rows requests", mine, err, feed.rowRequests)
	}

	b := mustLoad(t, fake)
	for range 2 {
		theirs, err := b.ChangesSince(ctx, ident, since, b.Snapshot())
		if err != nil || !slices.Equal(sortedKeys(theirs), slices.Sorted(slices.Values([]int{ev, venue}))) || theirs[ev].Known ||
			theirs[venue].Type != "tribe_venue" || feed.rowRequests != 1 {
			t.Errorf("a catalog loaded later: %+v %v, %d rows requests", theirs, err, feed.rowRequests)
		}
	}

	if _, err := b.ChangesSince(ctx, "log-0", since, b.Snapshot()); !errors.Is(err, catalog.ErrSyncExpired) {
		t.Errorf("another log: %v", err)
	}
	feed.page = 1 // one sequence per answer
	c := mustLoad(t, fake)
	if got, err := c.ChangesSince(ctx, ident, since, c.Snapshot()); err != nil || len(got) != 2 || feed.rowRequests != 3 {
		t.Errorf("rows read in pages: %+v %v, %d rows requests", got, err, feed.rowRequests)
	}
	feed.floor = since + 1
	d := mustLoad(t, fake)
	if _, err := d.ChangesSince(ctx, ident, since, d.Snapshot()); !errors.Is(err, catalog.ErrSyncExpired) {
		t.Errorf("a pruned sequence: %v", err)
	}
}

func sortedKeys(m map[int]catalog.Changed) []int { return slices.Sorted(maps.Keys(m)) }
