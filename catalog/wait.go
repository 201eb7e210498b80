package catalog

import (
	"context"
	"time"
)

// This file lets a request wait for the catalog: for its first load (a request reaching a replica
// that is still starting), or for a change log sequence another replica's write answered
// (read-your-writes across replicas). Waiting looks at the catalog's state at short intervals
// instead of hooking every place that publishes a snapshot: only waiting requests pay for it, and
// the catalog's own paths stay as they are.

// waitTick is how often a waiting request looks again: short next to a poll interval (1 s).
const waitTick = 10 * time.Millisecond

// WaitLoaded returns the catalog's snapshot as soon as it has one, or nil when ctx ends first.
func (c *Catalog) WaitLoaded(ctx context.Context) *Snapshot {
	if snap := c.snap.Load(); snap != nil {
		return snap
	}

	t := time.NewTicker(waitTick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return c.snap.Load()
		case <-t.C:
		}

		if snap := c.snap.Load(); snap != nil {
			return snap
		}
	}
}

// Sequence returns the change log sequence the catalog reflects, and false when it does not sync
// through the plugin's change feed (then there is no sequence to wait for).
func (c *Catalog) Sequence() (int64, bool) {
	if !c.feed.on.Load() || c.snap.Load() == nil {
		return 0, false
	}
	return c.feed.shown.Load(), true
}

// WriteHead is the change log's head as the last write's refresh (Refresh) read it from the feed,
// after the write: the write's rows are at or below it. Refreshes are serialised, so a later one
// (also after this write) may have replaced it with a higher head; false when the last refresh
// failed, or the catalog does not sync through the feed: the caller reads the head itself.
func (c *Catalog) WriteHead() (int64, bool) {
	h := c.feed.writeHead.Load()
	return h, h > 0 && c.feed.on.Load()
}

// WaitSequence waits until the catalog reflects the change log up to seq, or ctx ends, and returns
// the sequence it reached (false: the catalog does not sync through the feed).
func (c *Catalog) WaitSequence(ctx context.Context, seq int64) (int64, bool) {
	t := time.NewTicker(waitTick)
	defer t.Stop()
	for {
		have, ok := c.Sequence()
		if !ok || have >= seq {
			return have, ok
		}

		select {
		case <-ctx.Done():
			return c.Sequence()
		case <-t.C:
		}
	}
}
