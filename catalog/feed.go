package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"calshim/cmsclient"
	"calshim/mapping"
)

// This file syncs the catalog through the calshim plugin's change log: a bulk load at start, then one
// request per poll asking what changed since the last sequence seen (cmsclient.Changes). A log that
// cannot continue from there — pruned past the sequence, reset, of another site — means a full reload,
// never a silently stale catalog. Without the plugin's feed (an older plugin, an anonymous catalog:
// the feed answers the service credential only) the catalog polls wp/v2 instead (poll.go).

// bulkChunk is how many posts one bulk request reads.
var bulkChunk = 2500

// errReload says the change log cannot continue from the catalog's sequence: load everything.
var errReload = errors.New("catalog: the change log cannot continue from the catalog's sequence")

// feedState is where the catalog stands in the plugin's change log. It changes under Catalog.mu; seq
// and lag are read by Health without it.
type feedState struct {
	on   atomic.Bool // the catalog syncs through the feed
	log  string      // identity of the log the sequence belongs to
	site string      // the site's home URL
	seq  atomic.Int64
	// lagMS is how long the newest change the last poll applied waited in WordPress before the catalog
	// had it, in milliseconds.
	lagMS atomic.Int64
	// plugin: the catalog reads attachments through the plugin (readMedia). It equals on, but load sets it
	// before it reads the featured images, and on only once the new snapshot is published.
	plugin atomic.Bool
	// shown is the sequence of the snapshot readers get: seq once the snapshot it led to is published
	// (catchUp moves seq first), so that a request waiting for a sequence (Sequence) sees its changes.
	shown atomic.Int64
	// head is the log's head as the last feed answer gave it; writeHead the head a write's refresh
	// read (WriteHead), 0 when that refresh failed.
	head, writeHead atomic.Int64
	// catchingUp: the catalog serves a restored snapshot file that the first poll has not yet
	// confirmed (pollFeed: the log replayed since its sequence, every post counted, the checksums of
	// the whole compared).
	catchingUp atomic.Bool

	noticeOnce sync.Once
	notice     chan struct{} // a pending push notice (notices): at most one, so bursts coalesce
}

// notices is the channel Notify queues a poll on.
func (f *feedState) notices() chan struct{} {
	f.noticeOnce.Do(func() { f.notice = make(chan struct{}, 1) })
	return f.notice
}

// Notify asks Run for a poll now, without waiting for it: the plugin's push notice says the change
// log grew. Notices that arrive while one is pending coalesce into it, so a burst costs one poll
// (and one more if it goes on during that poll). Polling at the interval goes on regardless.
func (c *Catalog) Notify() {
	select {
	case c.feed.notices() <- struct{}{}:
	default:
	}
}

// published records that the current snapshot reflects the log up to seq.
func (f *feedState) published() { f.shown.Store(f.seq.Load()) }

// start makes the feed continue from head; nil: no feed (wp/v2 polling).
func (f *feedState) start(head *cmsclient.FeedHead) {
	f.on.Store(head != nil)
	if head == nil {
		return
	}
	f.log, f.site = head.Log, head.Site
	f.seq.Store(head.Seq)
	f.head.Store(head.Head)
}

// feedHead reads the change log's head, or nil when the catalog cannot sync through it: anonymous
// catalogs (the feed answers the service credential only), a reader without the calshim_reader role
// (403) and plugins without the feed (404), the last two with a warning and its fix. A credential
// WordPress ignores or refuses (401) is an error: wp/v2 would not show it the catalog's statuses.
func (c *Catalog) feedHead(ctx context.Context) (*cmsclient.FeedHead, error) {
	if !c.opt.Authenticated {
		return nil, nil
	}
	head, err := c.client.FeedHead(ctx)
	if err == nil {
		return head, nil
	}
	if p := feedProblem(err, c.opt.Reader); p != nil {
		if p.Fatal {
			return nil, p
		}
		c.notify("change feed not used", p)
		return nil, nil
	}
	return nil, fmt.Errorf("catalog: change feed: %w", err)
}

// loadPosts reads every post: through the bulk route when the catalog syncs through the feed and
// needs no language filter, else from wp/v2.
// The bulk pages' digests go into digests.
func (c *Catalog) loadPosts(ctx context.Context, head *cmsclient.FeedHead,
	digests map[int]cmsclient.Digest) (map[int]*mapping.Post, error) {
	if head == nil || c.opt.Multilingual {
		return c.loadV2Posts(ctx)
	}
	// The load allocates the whole catalog at once: collecting garbage less often meanwhile saves CPU
	// (at the cost of a larger heap until the next collection), up to the bound the posts read so
	// far project (loadBound).
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	ids := make([][]int, 0, 3)
	total := 0
	for _, typ := range c.postTypes() {
		l, err := c.client.BulkIDs(ctx, typ)
		if err != nil {
			return nil, fmt.Errorf("catalog: bulk %s: %w", typ, err)
		}
		ids, total = append(ids, l), total+len(l)
	}
	c.loading = newLoadBound(total)
	posts := make(map[int]*mapping.Post, total)
	for i, typ := range c.postTypes() {
		if err := c.readPages(ctx, typ, ids[i], func(int) bool { return true }, posts, digests); err != nil {
			return nil, err
		}
	}
	return posts, nil
}

func (c *Catalog) postTypes() []string {
	return []string{c.opt.Types.Event, c.opt.Types.Venue, c.opt.Types.Organizer}
}

// readPages reads in bulk the posts of typ whose ID want accepts into dst, and their digests into
// digests, where live lists every ID of typ WordPress holds, ascending: in pages of at most bulkChunk
// of live's IDs, each narrowed to the first and last wanted ID it holds (a page without one is not
// read), Options' concurrency at a time across WordPress' workers. A full load reads every page this
// way, and so does a catalog that finds much missing or different (reconcileIDs, checkPosts): never
// slower than a load, nor post by post.
func (c *Catalog) readPages(ctx context.Context, typ string, live []int, want func(int) bool,
	dst map[int]*mapping.Post, digests map[int]cmsclient.Digest) error {
	var mu sync.Mutex // over dst and digests: each page goes into them as soon as it is decoded
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(c.client.Concurrency, 1))
	for _, r := range pageRanges(live, want) {
		g.Go(func() error {
			posts, sums, err := c.readPage(gctx, typ, r)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			for id, p := range posts {
				if want(id) && c.holds(p.Status()) {
					dst[id] = p
					if d, ok := sums[id]; ok {
						digests[id] = d
					}
				}
			}
			c.loading.page(len(posts))
			return nil
		})
	}
	return g.Wait()
}

// pageRanges cuts live into pages of at most bulkChunk IDs, each narrowed to the first and last ID
// want accepts in it; a page without one is left out.
func pageRanges(live []int, want func(int) bool) [][2]int {
	var ranges [][2]int
	for chunk := range slices.Chunk(live, bulkChunk) {
		first := slices.IndexFunc(chunk, want)
		if first < 0 {
			continue
		}
		last := len(chunk) - 1
		for !want(chunk[last]) {
			last--
		}
		ranges = append(ranges, [2]int{chunk[first], chunk[last]})
	}
	return ranges
}

// readPage reads and decodes the bulk page of typ's posts with IDs in r, and answers them and their
// digests (the page's JSON is left behind); timed into c.stats.
func (c *Catalog) readPage(ctx context.Context, typ string, r [2]int) (
	map[int]*mapping.Post, map[int]cmsclient.Digest, error) {
	t0 := time.Now()
	page, err := c.client.BulkPosts(ctx, typ, r[0], r[1])
	if err != nil {
		return nil, nil, fmt.Errorf("catalog: bulk %s: %w", typ, err)
	}
	t1 := time.Now()
	posts := make(map[int]*mapping.Post, len(page.Items))
	err = c.decodePosts(typ, page.Items, posts)
	c.stats.fetch.Add(int64(t1.Sub(t0)))
	c.stats.decode.Add(int64(time.Since(t1)))
	return posts, page.Digests, err
}

// pollFeed applies what changed since the catalog's sequence, reloading everything when the log
// cannot continue from it. The first poll after a start from the snapshot file (catchingUp) also
// counts every post and compares the checksums of the whole catalog: what changed around the log
// while calshim was stopped is repaired then, while the file's state is served. periodic: a poll of
// Run, which counts the posts every ReconcileEvery polls and compares checksums when due; a write's
// refresh (false) reads the feed alone, so that the writer does not wait for them.
func (c *Catalog) pollFeed(ctx context.Context, periodic bool) (err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if periodic {
		c.polls++
	} else {
		c.feed.writeHead.Store(0)
		defer func() {
			if err == nil {
				c.feed.writeHead.Store(c.feed.head.Load())
			}
		}()
	}
	c.relogged = nil
	confirm := c.feed.catchingUp.Load()
	withIDs := confirm || periodic && c.opt.ReconcileEvery > 0 && c.polls%c.opt.ReconcileEvery == 0
	cur := c.snap.Load()
	next, err := c.catchUp(ctx, cur, withIDs)
	if errors.Is(err, errReload) {
		c.notify("change log cannot continue: reloading the catalog", err)
		return c.load(ctx)
	}
	if err != nil {
		return err
	}
	if confirm && c.verifies() || periodic && c.verifyDue() {
		// What the feed brought is published first, at its rows: a repair the check makes in place
		// is then recorded alone, as a repair (changes.go), even of a post the feed brought too.
		c.commit(cur, next)
		cur = next
		next, err = c.checkAndRead(ctx, next, confirm)
		if errors.Is(err, errReload) {
			c.notify("checksums differ too much: reloading the catalog", err)
			return c.load(ctx)
		}
		if err != nil {
			// The sequence has moved on with what the feed brought: that is published, or the
			// next poll, reading on from the sequence, would never apply it.
			c.commit(cur, next)
			return err
		}
	}
	c.commit(cur, next)
	c.confirmed()
	return nil
}

// commit publishes next, the catalog at the feed's sequence, unless it is cur.
func (c *Catalog) commit(cur, next *Snapshot) {
	if next != cur {
		c.publish(next)
	} else {
		c.advanced(cur)
	}
	c.feed.published()
}

// checkAndRead compares the checksums (check) and reads what the comparison had logged: the rows
// the check wrote, and what the checksums found that was a change made since the feed was read,
// whose row is in the log now, so that the change enters at its sequence with its row (changes.go)
// and only what a check repaired itself stays a repair.
// On an error it answers the catalog at the feed's sequence still: next, or what the check repaired
// (the digests are those of what it answers).
func (c *Catalog) checkAndRead(ctx context.Context, next *Snapshot, whole bool) (*Snapshot, error) {
	checked, touched, err := c.check(ctx, next, whole)
	if err != nil {
		return next, err
	}
	if !touched && checked == next {
		return checked, nil
	}
	read, err := c.catchUp(ctx, checked, false)
	if err != nil {
		return checked, err
	}
	return read, nil
}

// confirmed records that the catalog has reached WordPress' state since the start: no longer
// catching up, no longer serving an unconfirmed file.
func (c *Catalog) confirmed() {
	c.feed.catchingUp.Store(false)
	c.disk.unconfirmed.Store(false)
}

// catchUp applies the feed's changes after the catalog's sequence to cur until none follow, and
// returns the resulting snapshot (cur itself when nothing changed). check: the first answer also
// counts every post, and when the counts differ from cur's the next one lists every post ID, to
// reconcile with (reconcileIDs).
func (c *Catalog) catchUp(ctx context.Context, cur *Snapshot, check bool) (*Snapshot, error) {
	ids := cmsclient.IDsNone
	if check && !c.opt.Multilingual {
		ids = cmsclient.IDsCount
	}
	// The sequence moves on only when every page is applied: a failure half-way leaves it where the
	// published snapshot is, and the next poll asks again for what that snapshot lacks.
	seq, lag, relogs := c.feed.seq.Load(), int64(-1), 0
	for {
		ch, err := c.changes(ctx, seq, ids)
		ids = cmsclient.IDsNone
		if err != nil {
			return nil, err
		}
		c.feed.head.Store(ch.Head)

		more := false
		if cur, more, err = c.take(ctx, cur, ch, seq, &relogs); err != nil {
			return nil, err
		}
		seq = ch.Seq
		touched := false
		if cur, touched, err = c.reconcileIDs(ctx, cur, ch.IDs, seq); err != nil {
			return nil, err
		}
		if touched {
			continue // the rows of the posts written around the log follow
		}
		if ch.NewestMS > 0 {
			lag = max(0, time.Now().UnixMilli()-ch.NewestMS)
		}
		if ch.Counts != nil && !c.sameCounts(cur, ch.Counts) {
			ids = cmsclient.IDsList
			continue
		}
		if !more {
			c.feed.seq.Store(seq)
			if lag >= 0 {
				c.feed.lagMS.Store(lag)
			}
			return cur, nil
		}
	}
}

// take applies one feed answer, which read the log after since, to cur, and has the objects it sent
// in states their rows do not place logged again (relog, counted in relogs). It answers whether more
// rows follow: the answer says so, or such objects' rows do.
func (c *Catalog) take(ctx context.Context, cur *Snapshot, ch *cmsclient.Changes, since int64,
	relogs *int) (*Snapshot, bool, error) {
	cur, err := c.apply(ctx, cur, ch)
	if err != nil {
		return nil, false, err
	}
	c.sums.feed(ch, c.opt.Types)
	c.addRows(since, ch.Seq, ch.Rows)
	relogged, err := c.relog(ctx, ch, relogs)
	return cur, ch.More || relogged, err
}

// changes asks the feed for what follows since: a 410 (a since past the retention) or an answer of
// another log or site means the catalog must be reloaded (errReload).
func (c *Catalog) changes(ctx context.Context, since int64, ids string) (*cmsclient.Changes, error) {
	ch, err := c.client.Changes(ctx, since, ids)
	var ue *cmsclient.Error
	if errors.As(err, &ue) && ue.Status == http.StatusGone {
		return nil, fmt.Errorf("%w: %s", errReload, ue.Message)
	}
	if errors.As(err, &ue) && ue.Status == http.StatusNotFound {
		return nil, pluginGone // it answered the load: an older plugin is not the reason
	}
	if p := feedProblem(err, c.opt.Reader); p != nil {
		return nil, p
	}
	if err != nil {
		return nil, fmt.Errorf("catalog: change feed: %w", err)
	}

	if ch.Log != c.feed.log || ch.Site != c.feed.site {
		return nil, fmt.Errorf("%w: log %s of %s, the catalog has log %s of %s", errReload, ch.Log, ch.Site,
			c.feed.log, c.feed.site)
	}
	c.verify.noTouch = !ch.Touch
	return ch, nil
}

// reloadOptions are the settings whose change alters every post's link: the catalog reloads.
var reloadOptions = []string{"permalink_structure", "home", "siteurl"}

// apply returns cur with one feed answer applied (cur itself when nothing changed).
func (c *Catalog) apply(ctx context.Context, cur *Snapshot, ch *cmsclient.Changes) (*Snapshot, error) {
	for _, name := range ch.Options {
		if slices.Contains(reloadOptions, name) {
			return nil, fmt.Errorf("%w: setting %s changed", errReload, name)
		}
	}
	base := *cur
	siteChanged, err := c.applySite(ctx, &base, ch.Options)
	if err != nil {
		return nil, err
	}
	posts, changedIDs, err := c.applyPosts(cur.posts, ch.Posts)
	if err != nil {
		return nil, err
	}
	terms, termsChanged, err := c.applyTerms(cur.terms, ch.Terms)
	if err != nil {
		return nil, err
	}
	media, err := c.applyMedia(ctx, posts, changedIDs, cur.media, ch.Media)
	if err != nil {
		return nil, err
	}
	if !siteChanged && len(changedIDs) == 0 && !termsChanged && reflectEqualMedia(media, cur.media) {
		return cur, nil
	}
	base.Version++
	return patch(base, cur, posts, terms, media, changedIDs), nil
}

// applySite re-reads the site's settings when the feed says some changed.
func (c *Catalog) applySite(ctx context.Context, base *Snapshot, options []string) (bool, error) {
	if len(options) == 0 {
		return false, nil
	}
	site, err := c.client.Site(ctx)
	if err != nil {
		return false, fmt.Errorf("catalog: site: %w", err)
	}
	loc, err := mapping.LocalizeZone(site.Timezone)
	if err != nil {
		return false, fmt.Errorf("catalog: site time zone %q: %w", site.Timezone, err)
	}
	if site.Site == base.Site && site.MultiDayCutoff == base.MultiDayCutoff {
		return false, nil
	}
	base.Site, base.Location, base.MultiDayCutoff = site.Site, loc, site.MultiDayCutoff
	return true, nil
}

// applyPosts returns posts with the changed sets applied, and the IDs it changed: an item the catalog
// holds replaces its old version, a changed ID without an item leaves the catalog.
func (c *Catalog) applyPosts(posts *postMap,
	sets map[string]cmsclient.ChangedSet) (*postMap, []int, error) {
	out := posts.edit()
	var ids []int
	for typ, set := range sets {
		if !slices.Contains(c.postTypes(), typ) {
			continue
		}
		fresh := map[int]*mapping.Post{}
		if err := c.decodePosts(typ, set.Items, fresh); err != nil {
			return nil, nil, err
		}
		for _, id := range set.Changed {
			p, ok := fresh[id]
			old, had := out.get(id)
			switch {
			case ok && c.holds(p.Status()) && (!had || !samePost(old, p)):
				out.set(id, p)
				ids = append(ids, id)
			case (!ok || !c.holds(p.Status())) && had:
				out.delete(id)
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return posts, nil, nil
	}
	return out.done(), ids, nil
}

// cloneOnce returns a copy of orig the first time a change is made (done false), else cur.
func cloneOnce[K comparable, V any](cur, orig map[K]V, done bool) map[K]V {
	if done {
		return cur
	}
	return maps.Clone(orig)
}

// applyTerms returns terms with the changed sets applied, like applyPosts.
func (c *Catalog) applyTerms(terms map[int]*mapping.Term,
	sets map[string]cmsclient.ChangedSet) (map[int]*mapping.Term, bool, error) {
	out, changed := terms, false
	for base, set := range sets {
		if base != c.opt.Types.CategoryBase && base != c.opt.Types.TagBase {
			continue
		}
		fresh, err := decodeTerms(set.Items)
		if err != nil {
			return nil, false, err
		}
		for _, id := range set.Changed {
			t, ok := fresh[id]
			old, had := out[id]
			switch {
			case ok && (!had || !sameTerm(old, t)):
				out, changed = cloneOnce(out, terms, changed), true
				out[id] = t
			case !ok && had:
				out, changed = cloneOnce(out, terms, changed), true
				delete(out, id)
			}
		}
	}
	return out, changed, nil
}

func decodeTerms(items []json.RawMessage) (map[int]*mapping.Term, error) {
	out := map[int]*mapping.Term{}
	for _, raw := range items {
		t, err := cmsclient.DecodeTerm(raw)
		if err != nil {
			return nil, fmt.Errorf("catalog: %w", err)
		}
		out[t.ID] = t
	}
	return out, nil
}

// applyMedia returns the featured images with the feed's changes: new versions in, images changed
// away out, and the images the changed posts now show read from wp/v2 when still missing. Only the
// changed posts are looked at: an image no post shows any more stays until the next full load.
func (c *Catalog) applyMedia(ctx context.Context, posts *postMap, changed []int,
	have map[int]*mapping.Media, set cmsclient.ChangedSet) (map[int]*mapping.Media, error) {
	touched := map[int]*mapping.Post{}
	for _, id := range changed {
		if p, ok := posts.get(id); ok && p.FeaturedMedia != 0 {
			touched[id] = p
		}
	}
	if len(set.Changed) == 0 && len(set.Items) == 0 && len(touched) == 0 {
		return have, nil
	}
	next := maps.Clone(have)
	for _, id := range set.Changed {
		delete(next, id)
	}
	for _, raw := range set.Items {
		m, err := cmsclient.DecodeMedia(raw)
		if err != nil {
			return nil, fmt.Errorf("catalog: %w", err)
		}
		next[m.ID] = m
	}
	shown, err := c.fetchMedia(ctx, maps.All(touched), next)
	if err != nil {
		return nil, err
	}
	maps.Copy(next, shown)
	return next, nil
}

// notify tells the operator about an event, when the catalog was given a Notify.
func (c *Catalog) notify(event string, err error) {
	if c.opt.Notify != nil {
		c.opt.Notify(event, err)
	}
}

// SyncHealth describes how the catalog syncs, for /readyz and the metrics.
type SyncHealth struct {
	Mode string // "feed" (the plugin's change log) or "wp/v2" (polling wp/v2)
	// Seq is the change log sequence the published snapshot reflects (feed): a reader that sees it
	// sees the changes up to it (the poll moves its own sequence before it publishes).
	Seq int64
	// Lag is how long the newest change the last applying poll read had waited in WordPress.
	Lag time.Duration
	// Restored: the catalog started from the snapshot file; Unconfirmed: upstream has not answered
	// since, so the file's state is served as it was saved; CatchingUp: the file's state is served
	// while the first poll brings it up to WordPress' (the log since the file, the checksums).
	Restored, Unconfirmed, CatchingUp bool
}

func (c *Catalog) syncHealth() SyncHealth {
	h := SyncHealth{Mode: "wp/v2", Restored: c.disk.restored.Load(), Unconfirmed: c.disk.unconfirmed.Load(),
		CatchingUp: c.feed.catchingUp.Load()}
	if c.feed.on.Load() {
		h.Mode, h.Seq = "feed", c.feed.shown.Load()
		h.Lag = time.Duration(c.feed.lagMS.Load()) * time.Millisecond
	}
	return h
}

// reconcileIDs brings cur in line with the full ID lists of a feed answer (nil: none asked for),
// which read the log up to seq. Writes made around WordPress' APIs (direct SQL imports and
// deletions) fire no hook and reach the catalog only this way. A few posts (at most verifyBulkAt)
// are logged (touch, as the checksum comparison does): cur is returned, touched, and the feed's next
// answer brings them at their rows' sequence. More, or with an older plugin, are repaired here: the
// posts the lists lack leave, those they have and cur lacks are read in bulk.
func (c *Catalog) reconcileIDs(ctx context.Context, cur *Snapshot,
	ids map[string][]int, seq int64) (*Snapshot, bool, error) {
	if ids == nil {
		return cur, false, nil
	}
	gone, missing, n := c.idDiff(cur, ids)
	switch {
	case n == 0:
		return cur, false, nil
	case n <= verifyBulkAt && !c.verify.noTouch:
		t := cmsclient.Touch{Since: seq, Posts: map[string][]int{}}
		for _, m := range []map[string][]int{gone, missing} {
			for typ, l := range m {
				t.Posts[typ] = append(t.Posts[typ], l...)
			}
		}
		touched, err := c.touch(ctx, &t)
		return cur, touched, err
	}
	return c.readIDs(ctx, cur, gone, missing)
}

// idDiff answers, by post type, the posts cur holds that the ID lists lack (gone) and those they
// list that cur lacks (missing), and how many in all.
func (c *Catalog) idDiff(cur *Snapshot, ids map[string][]int) (gone, missing map[string][]int, n int) {
	gone, missing = map[string][]int{}, map[string][]int{}
	for _, typ := range c.postTypes() {
		list, ok := ids[typ]
		if !ok {
			continue
		}
		live := make(map[int]bool, len(list))
		for _, id := range list {
			live[id] = true
			if _, held := cur.posts.get(id); !held {
				missing[typ], n = append(missing[typ], id), n+1
			}
		}
		for id, p := range cur.posts.all() {
			if p.Type() == typ && !live[id] {
				gone[typ], n = append(gone[typ], id), n+1
			}
		}
	}
	return gone, missing, n
}

// readIDs repairs cur: the posts gone leave, the posts missing are read in bulk (readPages: a large
// import read while calshim was stopped costs what loading it does).
func (c *Catalog) readIDs(ctx context.Context, cur *Snapshot, gone, missing map[string][]int) (*Snapshot, bool, error) {
	posts := cur.posts.edit()
	var changedIDs []int
	for _, l := range gone {
		for _, id := range l {
			posts.delete(id)
			changedIDs = append(changedIDs, id)
		}
	}
	for typ, l := range missing {
		live := slices.Clone(l)
		slices.Sort(live)
		want := func(id int) bool { _, ok := slices.BinarySearch(live, id); return ok }
		fresh := map[int]*mapping.Post{}
		if err := c.readPages(ctx, typ, live, want, fresh, c.sums.posts); err != nil {
			return nil, false, err
		}
		for id, p := range fresh {
			posts.set(id, p)
			changedIDs = append(changedIDs, id)
		}
	}
	if len(changedIDs) == 0 {
		return cur, false, nil
	}
	next := posts.done()
	media, err := c.fetchMedia(ctx, next.all(), cur.media)
	if err != nil {
		return nil, false, err
	}
	base := *cur
	base.Version++
	return patch(base, cur, next, cur.terms, media, changedIDs), false, nil
}

// sameCounts reports whether cur holds, per post type, as many posts with the same sum of IDs as
// WordPress counted.
func (c *Catalog) sameCounts(cur *Snapshot, counts map[string]cmsclient.IDCount) bool {
	have := map[string]cmsclient.IDCount{}
	for _, p := range cur.posts.all() {
		n := have[p.Type()]
		n.Count++
		n.Sum += int64(p.ID)
		have[p.Type()] = n
	}
	for _, typ := range c.postTypes() {
		if want, ok := counts[typ]; ok && want != have[typ] {
			return false
		}
	}
	return true
}
