package catalog

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"calshim/cmsclient"
	"calshim/mapping"
)

// This file makes the catalog converge on WordPress' database whatever wrote to it. The change log
// sees only writes that go through WordPress' hooks; rows written around them (direct SQL imports,
// search-replace, plugins writing rows themselves) reach the catalog here. The plugin computes a
// digest of every object the catalog mirrors (cmsclient.Checksums); the catalog keeps each object's
// digest as the bulk load and the feed send it (sums), so it computes any ID range's digest itself.
// A check compares the top-level ranges, descends only into those that differ, and refetches only
// the objects of the differing leaves; where much differs (a quarter of a range's objects, and more
// than verifyBulkAt) it reads the differing ranges in bulk pages instead, as a load does. It runs at
// the first poll after a start from the snapshot file (the whole catalog, in slices compared in
// parallel) and then every Options.VerifyEvery (pollFeed).

const (
	verifyParts = 16 // sub-ranges per checksum request
	// verifyLeaf: a differing range holding at most this many objects is listed object by object
	// rather than split again.
	verifyLeaf = 64
	// allIDs is an upper bound on any ID (the plugin's range arguments are BIGINTs).
	allIDs = 1<<53 - 1
)

// verifyBulkAt: when more objects than this (and than a quarter of a range's) lie in its differing
// sub-ranges, reading them in bulk pages (readSpans) costs less than the descent.
var verifyBulkAt = 5000

// verifySlice is how many posts one periodic check compares at most: a larger catalog is checked a
// slice of IDs at a time, one slice every VerifyEvery divided by their number, so that each check
// costs WordPress a bounded share of the database time a whole comparison takes and the whole is
// still compared every VerifyEvery. The check after a restart from the snapshot compares all, in
// these slices, several at a time (checkPosts).
var verifySlice = 12500

// sums are the plugin's digests of what the catalog holds: posts and terms by ID, options by name.
// They change under Catalog.mu.
type sums struct {
	posts, terms map[int]cmsclient.Digest
	options      map[string]cmsclient.Digest
}

func newSums() sums {
	return sums{posts: map[int]cmsclient.Digest{}, terms: map[int]cmsclient.Digest{},
		options: map[string]cmsclient.Digest{}}
}

// feed records the digests a feed answer brings with its changed posts and terms.
func (s *sums) feed(ch *cmsclient.Changes, t Types) {
	for typ, set := range ch.Posts {
		if typ == t.Event || typ == t.Venue || typ == t.Organizer {
			setDigests(s.posts, set)
		}
	}
	for base, set := range ch.Terms {
		if base == t.CategoryBase || base == t.TagBase {
			setDigests(s.terms, set)
		}
	}
}

// setDigests sets the digest of each changed ID, or forgets it when the plugin sent none (gone).
func setDigests(m map[int]cmsclient.Digest, set cmsclient.ChangedSet) {
	for _, id := range set.Changed {
		if d, ok := set.Digests[id]; ok {
			m[id] = d
		} else {
			delete(m, id)
		}
	}
}

// verifyState is when the catalog last checked its sums and what the checks repaired.
type verifyState struct {
	last  time.Time // under Catalog.mu
	slice int       // the slice of posts the next periodic check compares; under Catalog.mu
	ids   heldIDs   // the IDs of the posts last checked, ascending; under Catalog.mu
	off   bool      // the plugin serves no checksums (an older plugin): never check
	// noTouch: the plugin cannot log what a check finds (an older plugin: its feed does not say
	// `touch`), so the check repairs it itself (touch). Set by every feed answer.
	noTouch  bool
	repaired [3]atomic.Uint64
}

// The kinds of objects a check repairs, the label values of calshim_catalog_repaired_total.
var repairKinds = [3]string{cmsclient.KindPosts, cmsclient.KindTerms, "options"}

// Repaired answers how many objects of a kind ("posts", "terms", "options") checks found different
// from WordPress (changed, added or removed around the change log) and refetched.
func (c *Catalog) Repaired(kind string) uint64 {
	i := slices.Index(repairKinds[:], kind)
	if i < 0 {
		return 0
	}
	return c.verify.repaired[i].Load()
}

// RepairKinds lists the kinds Repaired counts.
func RepairKinds() []string { return repairKinds[:] }

// verifies reports whether the catalog checks its sums: it syncs through the feed, reads every
// language at once, and the plugin serves checksums.
func (c *Catalog) verifies() bool {
	return c.opt.VerifyEvery > 0 && !c.opt.Multilingual && !c.verify.off && c.feed.on.Load()
}

// verifyDue reports whether a periodic check is due: one per slice of posts every VerifyEvery.
func (c *Catalog) verifyDue() bool {
	every := c.opt.VerifyEvery / time.Duration(verifySlices(len(c.sums.posts)))
	return c.verifies() && time.Since(c.verify.last) >= every
}

// verifySlices is how many slices a periodic check splits held posts into.
func verifySlices(held int) int {
	return max(1, (held+verifySlice-1)/verifySlice)
}

// sliceBounds is the ID range of slice k of n of the sorted IDs: as many of them in each, the first
// from 0 and the last open (to -1), so that an ID WordPress holds and the catalog does not lies in one.
func sliceBounds(ids []int, k, n int) (from, to int) {
	if k > 0 {
		from = ids[k*len(ids)/n]
	}
	if k == n-1 {
		return from, -1
	}
	return from, ids[(k+1)*len(ids)/n] - 1
}

// unsupported reports whether err is the plugin's answer that it has no checksum route (an older
// plugin): the checks are then switched off.
func (c *Catalog) unsupported(err error) bool {
	var ue *cmsclient.Error
	if errors.As(err, &ue) && ue.Status == http.StatusNotFound {
		c.verify.off = true
		c.notify("the plugin serves no checksums: changes written around its hooks are not noticed", err)
		return true
	}
	return false
}

// loadSums reads the digests a full load needs besides the bulk pages' (options and terms), before
// the site and the terms are read: a change in between leaves the catalog an older digest, which the
// next check notices.
func (c *Catalog) loadSums(ctx context.Context, head *cmsclient.FeedHead) (sums, error) {
	s := newSums()
	if head == nil || c.opt.Multilingual || c.opt.VerifyEvery <= 0 || c.verify.off {
		return s, nil
	}
	opts, err := c.client.OptionSums(ctx)
	if c.unsupported(err) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("catalog: checksums: %w", err)
	}
	s.options = opts
	items, err := c.listSums(ctx, cmsclient.KindTerms, 0, allIDs)
	for _, it := range items {
		s.terms[it.ID] = it.Digest
	}
	return s, err
}

// listSums lists every object of kind in [from, to] with its digest, a page at a time.
func (c *Catalog) listSums(ctx context.Context, kind string, from, to int) ([]cmsclient.ItemSum, error) {
	var out []cmsclient.ItemSum
	for {
		page, err := c.client.ChecksumItems(ctx, kind, from, to)
		if err != nil {
			return nil, fmt.Errorf("catalog: checksums: %w", err)
		}
		out = append(out, page.Items...)
		if !page.More || len(page.Items) == 0 {
			return out, nil
		}
		from = page.Items[len(page.Items)-1].ID + 1
	}
}

// check compares the catalog with WordPress' checksums and has what differs logged (touch): the
// plugin writes a row for each object, which the caller's next read of the feed brings, so that the
// change enters every replica's catalog at that row's sequence like any other (one position, one
// state, on every replica: sync tokens depend on it). cur is returned, and touched says whether
// rows were written. Where the plugin cannot (an older plugin), or so much differs that reading it in
// bulk pages is due (readSpans), the check repairs the catalog itself: the snapshot returned differs
// from cur, at a position of this replica's own (a repair, changes.go). whole compares every post,
// else the next slice of them (verifySlice). errReload: so much differs (or a setting that changes
// every link) that a full load is due.
func (c *Catalog) check(ctx context.Context, cur *Snapshot, whole bool) (next *Snapshot, touched bool, err error) {
	c.verify.last = time.Now()
	// A check that fails half-way publishes nothing: the digests go back to the published snapshot's.
	saved := sums{posts: maps.Clone(c.sums.posts), terms: maps.Clone(c.sums.terms), options: c.sums.options}
	defer func() {
		if err != nil {
			c.sums = saved
		}
	}()
	t := &cmsclient.Touch{Since: c.feed.seq.Load(), Posts: map[string][]int{}, Terms: map[string][]int{}}
	if c.verify.noTouch {
		t = nil
	}
	var nOpts, nPosts, nTerms int
	next, nOpts, err = c.checkOptions(ctx, cur, t)
	if err != nil || c.verify.off {
		return next, false, err
	}
	next, nPosts, err = c.checkPosts(ctx, next, whole, t)
	if err != nil {
		return nil, false, err
	}
	next, nTerms, err = c.checkTerms(ctx, next, t)
	if err != nil {
		return nil, false, err
	}
	if touched, err = c.touch(ctx, t); err != nil {
		return nil, false, err
	}
	if t != nil && !touched { // every object differing had a row after since: changes the feed brings
		nOpts, nPosts, nTerms = 0, 0, 0
	}
	for i, n := range []int{nPosts, nTerms, nOpts} {
		c.verify.repaired[i].Add(uint64(n))
	}
	if nPosts+nTerms+nOpts > 0 {
		c.notify(fmt.Sprintf("checksums: repaired %d posts, %d terms and %d options changed around the change log",
			nPosts, nTerms, nOpts), nil)
	}
	return next, touched, nil
}

// touch asks the plugin to log the objects t names (nil or empty: none), and answers whether it
// wrote rows.
func (c *Catalog) touch(ctx context.Context, t *cmsclient.Touch) (bool, error) {
	if t == nil || len(t.Posts) == 0 && len(t.Terms) == 0 && len(t.Options) == 0 {
		return false, nil
	}
	_, n, err := c.client.Touch(ctx, *t)
	if err != nil {
		return false, fmt.Errorf("catalog: touch: %w", err)
	}
	return n > 0, nil
}

// maxRelogs bounds how many times one catch-up has objects logged again (relog): an object written
// around the hooks over and over again must not hold the catalog back.
const maxRelogs = 3

// relog has the objects logged again that a feed answer sent in a state their newest row in it does
// not place: their digest now differs from the one the row kept (Logged), so they changed around
// WordPress' hooks (direct SQL) since that row was written. A reader of the log that read the row
// before that change shows the row's state there and the change at a later row (a check's touch);
// this catalog had the change with the earlier row. It has them logged now (a row after the answer,
// unless one is there already) and answers true: it reads on to those rows before it publishes, so
// that it never shows the change at a position where others do not. The posts' earlier rows go to
// relogged, for the journal (its gaps). Nothing is logged when the catalog does not compare
// checksums, or after maxRelogs in one catch-up (relogs counts them).
func (c *Catalog) relog(ctx context.Context, ch *cmsclient.Changes, relogs *int) (bool, error) {
	if !c.verifies() || c.verify.noTouch || *relogs >= maxRelogs {
		return false, nil
	}
	newest := map[rowKey]cmsclient.LogRow{}
	for _, r := range ch.Rows {
		newest[rowKey{r.Term, r.ID}] = r // rows come in sequence order
	}
	t := &cmsclient.Touch{Since: ch.Seq, Posts: map[string][]int{}, Terms: map[string][]int{}}
	n := 0
	for typ, set := range ch.Posts {
		if slices.Contains(c.postTypes(), typ) {
			n += c.stale(set, false, newest, t.Posts)
		}
	}
	for base, set := range ch.Terms {
		if base == c.opt.Types.CategoryBase || base == c.opt.Types.TagBase {
			n += c.stale(set, true, newest, t.Terms)
		}
	}
	if n == 0 {
		return false, nil
	}
	*relogs++
	_, err := c.touch(ctx, t)
	return err == nil, err
}

// rowKey names a post's (or a term's) rows.
type rowKey struct {
	term bool
	id   int
}

// stale adds to named, by type, the objects of set whose digest differs from their newest row's
// (newest), and answers how many; the posts' rows go to relogged.
func (c *Catalog) stale(set cmsclient.ChangedSet, term bool, newest map[rowKey]cmsclient.LogRow,
	named map[string][]int) int {
	n := 0
	for _, id := range set.Changed {
		logged, kept := set.Logged[id]
		r, ok := newest[rowKey{term, id}]
		if !kept || !ok || logged == set.Digests[id] || slices.Contains(named[r.Type], id) {
			continue
		}
		n++
		named[r.Type] = append(named[r.Type], id)
		if term {
			continue
		}
		if c.relogged == nil {
			c.relogged = map[int]cmsclient.LogRow{}
		}
		if w, ok := c.relogged[id]; !ok || r.Seq < w.Seq {
			c.relogged[id] = r
		}
	}
	return n
}

// checkOptions re-reads the site's settings when an option's digest changed; with t, it names them
// in t instead (the feed's option rows make the catalog read them).
func (c *Catalog) checkOptions(ctx context.Context, cur *Snapshot, t *cmsclient.Touch) (*Snapshot, int, error) {
	opts, err := c.client.OptionSums(ctx)
	if c.unsupported(err) {
		return cur, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("catalog: checksums: %w", err)
	}
	var changed []string
	for name := range maps.Keys(opts) {
		if d, ok := c.sums.options[name]; !ok || d != opts[name] {
			changed = append(changed, name)
		}
	}
	for name := range c.sums.options {
		if _, ok := opts[name]; !ok {
			changed = append(changed, name)
		}
	}
	if len(changed) == 0 {
		return cur, 0, nil
	}
	if t != nil {
		t.Options = changed
		c.sums.options = opts
		return cur, len(changed), nil
	}
	next, err := c.apply(ctx, cur, &cmsclient.Changes{Options: changed})
	if err != nil {
		return nil, 0, err
	}
	c.sums.options = opts
	return next, len(changed), nil
}

// checkPosts refetches the posts whose digests differ from WordPress'. whole compares every post,
// slice by slice (verifySlice posts each, as a periodic check), the client's concurrency of them at
// a time (WordPress' workers and the database's cores share the work), else the next slice of a
// periodic check. A slice bounds one request's database time, which grows with the posts it covers:
// a quarter of the catalog per request grows past upstream.timeout at a million posts. With t, the
// posts that differ are named in t rather than read, unless so many differ (more than verifyBulkAt)
// that reading them is cheaper than the feed's reading them again (readSpans or refetchPosts).
func (c *Catalog) checkPosts(ctx context.Context, cur *Snapshot, whole bool,
	t *cmsclient.Touch) (*Snapshot, int, error) {
	ids := c.verify.ids.of(cur.posts)
	local := heldSums{ids: ids, sums: c.sums.posts}
	var bounds [][2]int
	if n := verifySlices(len(ids)); whole {
		for k := range n {
			from, to := sliceBounds(ids, k, n)
			bounds = append(bounds, [2]int{from, to})
		}
	} else {
		k := c.verify.slice % n
		c.verify.slice = k + 1
		from, to := sliceBounds(ids, k, n)
		bounds = [][2]int{{from, to}}
	}
	found := make([]descent, len(bounds))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(c.client.Concurrency, 1))
	for i, b := range bounds {
		g.Go(func() (err error) {
			found[i], err = c.descend(gctx, cmsclient.KindPosts, local, b[0], b[1])
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return cur, 0, err
	}
	var d descent
	for _, f := range found {
		d.merge(f)
	}
	if len(d.wrong) == 0 && len(d.bulk) == 0 {
		return cur, 0, nil
	}
	if t != nil && len(d.bulk) == 0 && len(d.wrong) <= verifyBulkAt {
		for _, id := range d.wrong {
			typ := d.theirs[id].Type
			if p, ok := cur.posts.get(id); ok && typ == "" {
				typ = p.Type()
			}
			t.Posts[typ] = append(t.Posts[typ], id)
		}
		return cur, len(d.wrong), nil
	}
	fresh, digests, err := c.refetchPosts(ctx, d.theirs)
	if err != nil {
		return nil, 0, err
	}
	if len(d.bulk) > 0 {
		if d.wrong, err = c.readSpans(ctx, d.bulk, ids, fresh, digests, d.wrong); err != nil {
			return nil, 0, err
		}
	}
	return c.repairPosts(ctx, cur, d.wrong, fresh, digests)
}

// repairPosts puts into cur WordPress' version of each wrong post (fresh: those it holds, with their
// digests), and answers the new snapshot and how many posts changed.
func (c *Catalog) repairPosts(ctx context.Context, cur *Snapshot, wrong []int, fresh map[int]*mapping.Post,
	digests map[int]cmsclient.Digest) (*Snapshot, int, error) {
	posts := cur.posts.edit()
	var changed []int
	for _, id := range wrong {
		old, had := posts.get(id)
		p, has := fresh[id]
		if d, ok := digests[id]; ok && has {
			c.sums.posts[id] = d
		} else {
			delete(c.sums.posts, id)
		}
		switch {
		case has && (!had || !samePost(old, p)):
			posts.set(id, p)
			changed = append(changed, id)
		case !has && had:
			posts.delete(id)
			changed = append(changed, id)
		}
	}
	if len(changed) == 0 {
		return cur, 0, nil
	}
	next := posts.done()
	media, err := c.fetchMedia(ctx, next.all(), cur.media)
	if err != nil {
		return nil, 0, err
	}
	base := *cur
	base.Version++
	return patch(base, cur, next, cur.terms, media, changed), len(changed), nil
}

// readSpans reads in bulk pages (readPages) every post WordPress holds in the spans, into fresh and
// digests, and answers wrong with the IDs of the spans added: those read and those the catalog holds
// there (ids, ascending), which are gone when not read.
func (c *Catalog) readSpans(ctx context.Context, spans []span, ids []int, fresh map[int]*mapping.Post,
	digests map[int]cmsclient.Digest, wrong []int) ([]int, error) {
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	inSpans := func(id int) bool {
		i := sort.Search(len(spans), func(i int) bool { return spans[i].to >= id })
		return i < len(spans) && spans[i].from <= id
	}
	for _, typ := range c.postTypes() {
		live, err := c.client.BulkIDs(ctx, typ)
		if err != nil {
			return nil, fmt.Errorf("catalog: bulk %s: %w", typ, err)
		}
		if err := c.readPages(ctx, typ, live, inSpans, fresh, digests); err != nil {
			return nil, err
		}
	}
	seen := map[int]bool{}
	for _, id := range wrong {
		seen[id] = true
	}
	for _, s := range spans {
		for _, id := range idsIn(ids, s.from, s.to) {
			if !seen[id] {
				seen[id], wrong = true, append(wrong, id)
			}
		}
	}
	for id := range fresh {
		if inSpans(id) && !seen[id] {
			seen[id], wrong = true, append(wrong, id)
		}
	}
	return wrong, nil
}

// refetchPosts reads the listed posts through the bulk route, by type, in pages of close IDs.
func (c *Catalog) refetchPosts(ctx context.Context, theirs map[int]cmsclient.ItemSum) (
	map[int]*mapping.Post, map[int]cmsclient.Digest, error) {
	byType := map[string][]int{}
	for id, it := range theirs {
		byType[it.Type] = append(byType[it.Type], id)
	}
	fresh, digests := map[int]*mapping.Post{}, map[int]cmsclient.Digest{}
	for _, typ := range c.postTypes() {
		ids := byType[typ]
		slices.Sort(ids)
		for chunk := range slices.Chunk(ids, 500) {
			page, err := c.client.BulkPosts(ctx, typ, chunk[0], chunk[len(chunk)-1])
			if err != nil {
				return nil, nil, fmt.Errorf("catalog: bulk %s: %w", typ, err)
			}
			got := map[int]*mapping.Post{}
			if err := c.decodePosts(typ, page.Items, got); err != nil {
				return nil, nil, err
			}
			for _, id := range chunk {
				if p, ok := got[id]; ok && c.holds(p.Status()) {
					fresh[id], digests[id] = p, page.Digests[id]
				}
			}
		}
	}
	return fresh, digests, nil
}

// checkTerms re-reads the terms when some digests differ, and replaces those; with t, it names them
// in t instead.
func (c *Catalog) checkTerms(ctx context.Context, cur *Snapshot, t *cmsclient.Touch) (*Snapshot, int, error) {
	local := heldSums{ids: slices.Sorted(maps.Keys(cur.terms)), sums: c.sums.terms}
	d, err := c.descend(ctx, cmsclient.KindTerms, local, 0, -1)
	switch {
	case err != nil:
		return cur, 0, err
	case len(d.bulk) > 0: // thousands of terms changed: reloading is simplest
		return nil, 0, fmt.Errorf("%w: %d terms in ranges whose checksums differ", errReload, spanObjects(d.bulk))
	case len(d.wrong) == 0:
		return cur, 0, nil
	}
	wrong, theirs := d.wrong, d.theirs
	if t != nil {
		for _, id := range wrong {
			tax := theirs[id].Type
			if old, ok := cur.terms[id]; ok && tax == "" {
				tax = old.Taxonomy
			}
			t.Terms[tax] = append(t.Terms[tax], id)
		}
		return cur, len(wrong), nil
	}
	fresh, err := c.fetchTerms(ctx)
	if err != nil {
		return nil, 0, err
	}
	terms, n := maps.Clone(cur.terms), 0
	for _, id := range wrong {
		old, had := terms[id]
		t, has := fresh[id]
		if it, ok := theirs[id]; ok && has {
			c.sums.terms[id] = it.Digest
		} else {
			delete(c.sums.terms, id)
		}
		switch {
		case has && (!had || !sameTerm(old, t)):
			terms[id], n = t, n+1
		case !has && had:
			delete(terms, id)
			n++
		}
	}
	if n == 0 {
		return cur, 0, nil
	}
	base := *cur
	base.Version++
	return patch(base, cur, cur.posts, terms, cur.media, nil), n, nil
}

// heldSums is the digests of the objects a snapshot holds: their IDs, ascending, and the catalog's
// digests by ID (a held object without one has digest 0; a digest of an object not held is not
// counted). Nothing is copied: a check reads them under Catalog.mu, which every change of the
// digests holds.
type heldSums struct {
	ids  []int
	sums map[int]cmsclient.Digest
}

// get answers the digest of a held object; ok is false when id is not held.
func (h heldSums) get(id int) (d cmsclient.Digest, ok bool) {
	if _, ok = slices.BinarySearch(h.ids, id); ok {
		d = h.sums[id]
	}
	return d, ok
}

// heldIDs keeps the IDs of a postMap, ascending, from one check to the next: a periodic check
// compares one slice of the posts but bounds it by every ID, and at a million posts listing and
// sorting them under the catalog's lock at every check held up the polls (an edit's freshness). A
// later map is listed from the earlier one: only the shards it does not share with it (those a poll
// wrote to) are compared, and the IDs added or removed merged in.
type heldIDs struct {
	posts *postMap
	ids   []int
}

// of answers the IDs posts holds, ascending; the slice is shared: never modify it.
func (h *heldIDs) of(posts *postMap) []int {
	if h.posts == posts && h.ids != nil {
		return h.ids
	}
	added, removed, ok := posts.diffKeys(h.posts)
	if !ok {
		ids := make([]int, 0, posts.len())
		for id := range posts.all() {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		h.posts, h.ids = posts, ids
		return ids
	}
	slices.Sort(added)
	slices.Sort(removed)
	ids, rest := make([]int, 0, len(h.ids)+len(added)-len(removed)), h.ids
	for len(added) > 0 || len(removed) > 0 { // the runs between them copied whole
		if len(removed) > 0 && (len(added) == 0 || removed[0] < added[0]) {
			i, _ := slices.BinarySearch(rest, removed[0])
			ids, rest, removed = append(ids, rest[:i]...), rest[min(i+1, len(rest)):], removed[1:]
			continue
		}
		i, _ := slices.BinarySearch(rest, added[0])
		ids, rest, added = append(append(ids, rest[:i]...), added[0]), rest[i:], added[1:]
	}
	ids = append(ids, rest...)
	h.posts, h.ids = posts, ids
	return ids
}

// descent is what descend found: the IDs whose digests differ, WordPress' listing of those it holds,
// and the spans so much differs in that they are to be read whole (readSpans).
type descent struct {
	wrong  []int
	theirs map[int]cmsclient.ItemSum
	bulk   []span
}

func (d *descent) merge(o descent) {
	d.wrong, d.bulk = append(d.wrong, o.wrong...), append(d.bulk, o.bulk...)
	if d.theirs == nil {
		d.theirs = map[int]cmsclient.ItemSum{}
	}
	maps.Copy(d.theirs, o.theirs)
}

// descend finds the objects of kind with from <= ID <= to (to < 0: no bound) whose digest differs
// between the catalog (local, its IDs ascending in ids) and WordPress: the top-level ranges first,
// then, only within the ranges that differ, smaller ones, down to ranges few enough to list object by
// object; ranges where a large part differs are answered as spans to read whole. It only reads local
// and ids: checkPosts runs several at once.
func (c *Catalog) descend(ctx context.Context, kind string, local heldSums, from, to int) (descent, error) {
	d, ids := descent{theirs: map[int]cmsclient.ItemSum{}}, local.ids
	top, err := c.client.Checksums(ctx, kind, from, to, verifyParts)
	if err != nil {
		return d, fmt.Errorf("catalog: checksums: %w", err)
	}
	if to < 0 { // what the catalog holds beyond WordPress' highest ID is gone from WordPress
		d.wrong = slices.Clone(ids[sort.SearchInts(ids, max(top.To+1, from)):])
	}
	for queue := []*cmsclient.RangeSums{top}; len(queue) > 0; queue = queue[1:] {
		rs := queue[0]
		if rs.Parts != verifyParts || rs.To < rs.From || rs.From < 0 {
			return d, fmt.Errorf("catalog: checksums: an answer about %d parts of [%d, %d], asked %d parts",
				rs.Parts, rs.From, rs.To, verifyParts)
		}
		spans := differingSpans(rs, local)
		if bulkSpans(spans, rs) {
			d.bulk = append(d.bulk, spans...)
			continue
		}
		for _, s := range spans {
			if max(s.mine, s.theirs) > verifyLeaf && s.to-s.from+1 > verifyParts {
				sub, err := c.client.Checksums(ctx, kind, s.from, s.to, verifyParts)
				if err != nil {
					return d, fmt.Errorf("catalog: checksums: %w", err)
				}
				queue = append(queue, sub)
				continue
			}
			items, err := c.listSums(ctx, kind, s.from, s.to)
			if err != nil {
				return d, err
			}
			d.wrong = append(d.wrong, compareItems(items, idsIn(ids, s.from, s.to), local, d.theirs)...)
		}
	}
	return d, nil
}

// bulkSpans decides whether the differing spans of rs are read whole rather than split again: when
// they hold more than verifyBulkAt objects and more than a quarter of what rs holds (WordPress'
// counts), descending would compare most of them again, and list and refetch them in small pages
// after.
func bulkSpans(spans []span, rs *cmsclient.RangeSums) bool {
	total := 0
	for _, p := range rs.Ranges {
		total += p.Count
	}
	spread := spanObjects(spans)
	return spread > verifyBulkAt && spread > total/4
}

// span is a sub-range whose digests differ, with how many objects each side holds in it.
type span struct{ from, to, mine, theirs int }

// differingSpans computes the catalog's sums of rs's sub-ranges and answers those that differ from
// WordPress'.
func differingSpans(rs *cmsclient.RangeSums, local heldSums) []span {
	width := rs.To - rs.From + 1
	mine := make([]cmsclient.PartSum, rs.Parts)
	for _, id := range idsIn(local.ids, rs.From, rs.To) {
		p := (id - rs.From) * rs.Parts / width
		mine[p].Count++
		mine[p].Digest ^= local.sums[id]
	}
	theirs := make([]cmsclient.PartSum, rs.Parts)
	for _, p := range rs.Ranges {
		if p.Part >= 0 && p.Part < rs.Parts {
			theirs[p.Part] = p
		}
	}
	var out []span
	for p := range rs.Parts {
		if mine[p].Count == theirs[p].Count && mine[p].Digest == theirs[p].Digest {
			continue
		}
		// Part p holds the IDs with (ID-From)*Parts/width = p: from the smallest such ID up to the next part's.
		from := rs.From + (p*width+rs.Parts-1)/rs.Parts
		to := rs.From + ((p+1)*width+rs.Parts-1)/rs.Parts - 1
		if from > to {
			continue // a range narrower than its parts leaves some empty: no ID can be in them
		}
		out = append(out, span{from: from, to: to, mine: mine[p].Count, theirs: theirs[p].Count})
	}
	return out
}

func spanObjects(spans []span) int {
	n := 0
	for _, s := range spans {
		n += max(s.mine, s.theirs)
	}
	return n
}

// idsIn answers the sorted IDs within [from, to].
func idsIn(ids []int, from, to int) []int {
	return ids[sort.SearchInts(ids, from):sort.SearchInts(ids, to+1)]
}

// compareItems answers the IDs whose digests differ between WordPress' listing of a range and the
// catalog's IDs in it (mine), and records WordPress' listing of them in theirs.
func compareItems(items []cmsclient.ItemSum, mine []int, local heldSums,
	theirs map[int]cmsclient.ItemSum) []int {
	var wrong []int
	listed := make(map[int]bool, len(items))
	for _, it := range items {
		listed[it.ID] = true
		if d, ok := local.get(it.ID); !ok || d != it.Digest {
			wrong = append(wrong, it.ID)
			theirs[it.ID] = it
		}
	}
	for _, id := range mine {
		if !listed[id] {
			wrong = append(wrong, id)
		}
	}
	return wrong
}
