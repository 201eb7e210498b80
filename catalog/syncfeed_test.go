package catalog_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"calshim/catalog"
	"calshim/internal/testkit/wpfake"
)

// A sync position names the change log and a sequence: a catalog that followed the log since
// answers it from memory, with each post's state then (and the events that embed a changed venue);
// one that started later (another replica, a restart) does not know those states: expired, as are
// another log and a sequence the log pruned.
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
	if err != nil || mine[ev].Before == nil || mine[ev].Before.ID != ev ||
		mine[venue].Before == nil || mine[venue].Type != "tribe_venue" || feed.rowRequests != 0 {
		t.Errorf("the catalog that followed the log: %+v %v, %d rows requests", mine, err, feed.rowRequests)
	}

	b := mustLoad(t, fake) // loaded after the changes: what was before them it cannot know
	if _, err := b.ChangesSince(ctx, ident, since, b.Snapshot()); !errors.Is(err, catalog.ErrSyncExpired) ||
		feed.rowRequests != 0 {
		t.Errorf("a catalog loaded later: %v, %d rows requests", err, feed.rowRequests)
	}
	if _, err := a.ChangesSince(ctx, "log-0", since, a.Snapshot()); !errors.Is(err, catalog.ErrSyncExpired) {
		t.Errorf("another log: %v", err)
	}
	feed.floor = since + 1
	d := mustLoad(t, fake)
	if _, err := d.ChangesSince(ctx, ident, since, d.Snapshot()); !errors.Is(err, catalog.ErrSyncExpired) {
		t.Errorf("a pruned sequence: %v", err)
	}
}
