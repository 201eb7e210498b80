package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"calshim/cmsclient"
	"calshim/mapping"
)

// Run polls upstream every PollInterval, and at once on a push notice (Notify), until ctx ends,
// through the plugin's change feed (feed.go) or, without it, through wp/v2: each poll then fetches
// posts modified since the previous poll by the upstream's clock (wp/v2 modified_after), reloads
// the terms, and checks totals to notice permanent deletions; a mismatch (or every ReconcileEvery
// polls) triggers a full ID reconciliation. Errors are recorded for readiness and the next poll
// retries: reads keep being served meanwhile. onError, when not nil, is told about each failed
// poll. The catalog is saved to its snapshot file now and then while it changes, and when ctx ends.
func (c *Catalog) Run(ctx context.Context, onError func(error)) {
	t := time.NewTicker(c.opt.PollInterval)
	defer t.Stop()
	// Best effort on the way out: Save logs nothing, and the next start reloads.
	defer func() { _ = c.Save() }()

	if c.feed.catchingUp.Load() { // a restored snapshot: confirm it now, not a poll interval later
		c.pollOnce(ctx, onError)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-c.feed.notices():
		}
		c.pollOnce(ctx, onError)
	}
}

// pollOnce is one poll of Run: its error recorded for readiness and told to onError, its success
// saved to the snapshot file now and then.
func (c *Catalog) pollOnce(ctx context.Context, onError func(error)) {
	if err := c.Poll(ctx); err != nil {
		c.lastPollErr.Store(err.Error())
		if onError != nil && ctx.Err() == nil {
			onError(err)
		}
		return
	}
	c.lastPollErr.Store("")
	c.lastPollOK.Store(time.Now().UnixNano())
	c.saveSoon()
}

// Poll brings the catalog up to date once.
func (c *Catalog) Poll(ctx context.Context) (err error) {
	old := c.snap.Load()
	if old == nil {
		return c.Load(ctx)
	}

	if c.feed.on.Load() {
		return c.pollFeed(ctx, true)
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	c.polls++
	// A failed poll drops the changes it had read, so it must not move the modified_after marks
	// either: the next poll asks for those changes again.
	since := maps.Clone(c.since)
	defer func() {
		if err != nil {
			c.since = since
		}
	}()
	old = c.snap.Load()
	posts := old.posts.toMap() // wp/v2 polling (no plugin) rebuilds the catalog on a change
	changed := false
	for _, typ := range []string{c.opt.Types.Event, c.opt.Types.Venue, c.opt.Types.Organizer} {
		n, err := c.pollType(ctx, typ, posts)
		if err != nil {
			return err
		}
		changed = changed || n
	}

	terms, err := c.fetchTerms(ctx)
	if err != nil {
		return err
	}

	if !sameTerms(old.terms, terms) {
		changed = true
	} else {
		terms = old.terms
	}

	media, err := c.fetchMedia(ctx, maps.All(posts), old.media)
	if err != nil {
		return err
	}

	if !changed && len(media) == len(old.media) {
		return nil
	}

	base := *old
	base.Version++
	c.publish(build(base, posts, terms, media))
	return nil
}

// loadV2Posts reads every post from wp/v2, and the upstream clock per type for the next poll.
func (c *Catalog) loadV2Posts(ctx context.Context) (map[int]*mapping.Post, error) {
	posts := map[int]*mapping.Post{}
	for _, typ := range c.postTypes() {
		_, clock, err := c.count(ctx, typ)
		if err != nil {
			return nil, err
		}
		if err := c.fetchPosts(ctx, typ, nil, posts); err != nil {
			return nil, err
		}
		c.since[typ] = clock
	}

	return posts, nil
}

// pollType applies one post type's changes to posts and reports whether anything changed. It reads
// the upstream clock first (with the count), so that whatever is modified while this poll runs is
// asked for again by the next one. The clock is the upstream's, not the newest "modified" seen: a
// scheduled post's modification time lies in the future and would hide every change until then.
func (c *Catalog) pollType(
	ctx context.Context, typ string, posts map[int]*mapping.Post,
) (bool, error) {
	total, clock, err := c.count(ctx, typ)
	if err != nil {
		return false, err
	}

	// wp/v2 compares "after" (strictly greater) at one-second resolution: step back two seconds so a
	// post saved in the same second as the last poll is not missed. Re-reading it is harmless.
	after := c.since[typ].Add(-2 * time.Second)
	fresh := map[int]*mapping.Post{}
	if err := c.fetchPosts(ctx, typ, &after, fresh); err != nil {
		return false, err
	}

	if err := c.fetchIDs(ctx, typ, c.due(typ, clock, posts, fresh), fresh); err != nil {
		return false, err
	}

	c.since[typ] = clock
	changed := false
	for id, p := range fresh {
		if q, ok := posts[id]; !ok || !samePost(q, p) {
			posts[id] = p
			changed = true
		}
	}

	have := 0
	for _, p := range posts {
		if p.Type() == typ {
			have++
		}
	}

	if total == have && (c.opt.ReconcileEvery <= 0 || c.polls%c.opt.ReconcileEvery != 0) {
		return changed, nil
	}

	removed, err := c.reconcile(ctx, typ, posts)
	return changed || removed, err
}

// due returns the scheduled posts of typ whose publication time has come by the upstream clock and
// that fresh does not hold. WordPress' cron publishes a scheduled post by changing its status alone
// (wp_publish_post): its modification time stays that of its last edit and the totals do not move,
// so only re-reading it shows the change — once per poll while the cron is late.
func (c *Catalog) due(typ string, clock time.Time, posts, fresh map[int]*mapping.Post) []int {
	now := clock.UTC().Format(time.DateTime)
	var ids []int
	for id, p := range posts {
		if _, ok := fresh[id]; !ok && p.Type() == typ && p.Status() == "future" && p.DateGMT() <= now {
			ids = append(ids, id)
		}
	}
	return ids
}

// count asks upstream how many posts of a type exist in the statuses the catalog holds, and its
// clock.
func (c *Catalog) count(ctx context.Context, typ string) (int, time.Time, error) {
	n, date, err := c.client.CountPosts(ctx, typ, c.statuses())
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("catalog: count %s: %w", typ, err)
	}
	return n, date, nil
}

// reconcile drops posts of typ that upstream no longer lists (deleted permanently, or moved to a
// status the catalog does not hold), and reads those it lists but the catalog lacks: a post created
// with an explicit past date (an import, a back-dated entry) gets that date as its modification
// time, and a scheduled post published while the catalog holds published posts only keeps its own,
// so modified_after does not return them.
func (c *Catalog) reconcile(
	ctx context.Context, typ string, posts map[int]*mapping.Post,
) (bool, error) {
	items, err := c.client.Posts(ctx, typ, cmsclient.PostQuery{Statuses: c.statuses(), IDsOnly: true})
	if err != nil {
		return false, fmt.Errorf("catalog: reconcile %s: %w", typ, err)
	}

	live := map[int]bool{}
	for _, raw := range items {
		var x struct {
			ID int `json:"id"`
		}
		if err := json.Unmarshal(raw, &x); err != nil {
			return false, fmt.Errorf("catalog: reconcile %s: %w", typ, err)
		}
		live[x.ID] = true
	}

	removed := false
	for id, p := range posts {
		if p.Type() == typ && !live[id] {
			delete(posts, id)
			removed = true
		}
	}

	var missing []int
	for id := range live {
		if _, ok := posts[id]; !ok {
			missing = append(missing, id)
		}
	}

	if err := c.fetchIDs(ctx, typ, missing, posts); err != nil {
		return false, err
	}

	return removed || len(missing) > 0, nil
}

// fetchIDs reads the posts of typ with the given IDs into dst, 100 per request.
func (c *Catalog) fetchIDs(
	ctx context.Context, typ string, ids []int, dst map[int]*mapping.Post,
) error {
	slices.Sort(ids)
	for len(ids) > 0 {
		n := min(len(ids), 100)
		q := cmsclient.PostQuery{Statuses: c.statuses(), Include: ids[:n]}
		ids = ids[n:]
		items, err := c.client.Posts(ctx, typ, q)
		if err != nil {
			return fmt.Errorf("catalog: list %s by id: %w", typ, err)
		}
		if err := c.decodePosts(typ, items, dst); err != nil {
			return err
		}
	}

	return nil
}
