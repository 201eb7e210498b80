package catalog

import (
	"iter"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"

	"calshim/mapping"
)

// eventIndex answers the event archive from structures whose cost follows the page and the postings
// a query names, not the number of events: the listable events (not hidden) in archive order
// (mapping.EventLess, so a start bound is a binary-searched range), cut into blocks of about
// eventBlockSize. Each block holds its events' positions per status, category, tag, venue,
// organizer and featured flag, and per status its end dates sorted, so that the default window
// (start ≥ A, end ≤ B) is counted a block at a time without visiting its events. A poll that changes
// k events rebuilds the blocks they leave and enter (patched), not the index: the blocks are shared
// between snapshots and never modified. mapping.MatchEvent stays the definition of a match: every
// event returned passed it.
type eventIndex struct {
	blocks []*eventBlock
	before []int // before[i]: the events in blocks[:i]; one more entry than blocks (the total)
	// groups[g] sums blocks[g*groupBlocks:(g+1)*groupBlocks]: a list of dates and statuses counts a
	// group at once when every end date in it meets the bounds, or none does (most groups: events
	// end near their start), so that counting a million events visits some thirty groups, not a
	// thousand blocks.
	groups []blockGroup
}

// groupBlocks is how many blocks a group sums.
const groupBlocks = 32

// blockGroup is, per status, how many events a group of blocks holds and their least and greatest
// end dates.
type blockGroup map[string]endSpan

type endSpan struct {
	n           int
	first, last string
}

// eventBlockSize is how many events a block holds when built; a patched block larger than twice
// that is cut again. A variable for the tests, which use small blocks.
var eventBlockSize = 1024

// pos is a position inside a block: blocks hold at most a few times eventBlockSize events.
type pos = uint16

// eventBlock is a run of listed events in archive order and its postings (positions in posts,
// ascending).
type eventBlock struct {
	posts      []*mapping.Post
	byStatus   map[string]statusList
	categories map[int][]pos
	tags       map[int][]pos
	venues     map[int][]pos
	organizers map[int][]pos
	featured   [2][]pos // [0]: not featured, [1]: featured
}

// statusList is the positions of one status's events in a block and their end dates, sorted.
type statusList struct {
	pos  []pos
	ends []string
}

// newEventIndex indexes events, given in archive order.
func newEventIndex(events []*mapping.Post) *eventIndex {
	var listed []*mapping.Post
	for _, p := range events {
		if !p.Derived.Hidden {
			listed = append(listed, p)
		}
	}
	chunks := slices.Collect(slices.Chunk(listed, eventBlockSize))
	x := &eventIndex{blocks: make([]*eventBlock, len(chunks))}
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), len(chunks))
	for w := range workers { // the blocks are independent: built on every CPU
		wg.Go(func() {
			for i := w; i < len(chunks); i += workers {
				x.blocks[i] = newEventBlock(chunks[i])
			}
		})
	}
	wg.Wait()
	x.count()
	return x
}

// count fills before and groups from the blocks: a pass over the blocks' statuses, made again
// when a patch changes some blocks.
func (x *eventIndex) count() {
	x.before = make([]int, len(x.blocks)+1)
	x.groups = make([]blockGroup, (len(x.blocks)+groupBlocks-1)/groupBlocks)
	for i, b := range x.blocks {
		x.before[i+1] = x.before[i] + len(b.posts)
		g := x.groups[i/groupBlocks]
		if g == nil {
			g = blockGroup{}
			x.groups[i/groupBlocks] = g
		}
		for st, l := range b.byStatus {
			if len(l.ends) == 0 {
				continue
			}
			sp, ok := g[st]
			if !ok || l.ends[0] < sp.first {
				sp.first = l.ends[0]
			}
			if !ok || l.ends[len(l.ends)-1] > sp.last {
				sp.last = l.ends[len(l.ends)-1]
			}
			sp.n += len(l.ends)
			g[st] = sp
		}
	}
}

// newEventBlock indexes a run of listed events in archive order.
func newEventBlock(posts []*mapping.Post) *eventBlock {
	b := &eventBlock{posts: posts, byStatus: map[string]statusList{}, categories: map[int][]pos{},
		tags: map[int][]pos{}, venues: map[int][]pos{}, organizers: map[int][]pos{}}
	for i, p := range posts {
		at := pos(i)
		l := b.byStatus[p.Status()]
		l.pos = append(l.pos, at)
		l.ends = append(l.ends, p.Derived.End)
		b.byStatus[p.Status()] = l
		addPostings(b.categories, p.Terms[mapping.TaxonomyCategory], at)
		addPostings(b.tags, p.Terms[mapping.TaxonomyTag], at)
		addPostings(b.venues, p.Derived.Venues, at)
		addPostings(b.organizers, p.Derived.Organizers, at)
		b.featured[b2i(p.Derived.Featured)] = append(b.featured[b2i(p.Derived.Featured)], at)
	}
	for _, l := range b.byStatus {
		slices.Sort(l.ends)
	}
	return b
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// addPostings appends position at to the posting of each ID, once per ID (a post may repeat one).
func addPostings(m map[int][]pos, ids []int, at pos) {
	for _, id := range ids {
		l := m[id]
		if len(l) == 0 || l[len(l)-1] != at {
			m[id] = append(l, at)
		}
	}
}

// patched returns x with the events gone removed and those in add inserted (both listed events,
// gone as x holds them): the blocks they touch are rebuilt, the others shared with x.
func (x *eventIndex) patched(gone, add []*mapping.Post) *eventIndex {
	if len(gone) == 0 && len(add) == 0 {
		return x
	}
	touched := map[int]*blockEdit{}
	edit := func(b int) *blockEdit {
		if touched[b] == nil {
			touched[b] = &blockEdit{gone: map[*mapping.Post]bool{}}
		}
		return touched[b]
	}
	for _, p := range gone {
		i := sort.Search(x.len(), func(i int) bool { return !mapping.EventLess(x.post(i), p) })
		b := x.blockOf(min(i, max(x.len()-1, 0)))
		edit(b).gone[p] = true
	}
	for _, p := range add { // after the last event before it, else into the first block
		i := sort.Search(x.len(), func(i int) bool { return mapping.EventLess(p, x.post(i)) })
		b := x.blockOf(max(i-1, 0))
		edit(b).add = append(edit(b).add, p)
	}

	out := &eventIndex{blocks: make([]*eventBlock, 0, len(x.blocks)+len(touched))}
	for b, blk := range x.blocks {
		e, ok := touched[b]
		if !ok {
			out.blocks = append(out.blocks, blk)
			continue
		}
		out.blocks = append(out.blocks, e.apply(blk.posts)...)
	}
	if e, ok := touched[0]; ok && len(x.blocks) == 0 { // an empty index: a first block
		out.blocks = e.apply(nil)
	}
	out.count()
	return out
}

// blockEdit is what patched removes from and adds to one block.
type blockEdit struct {
	gone map[*mapping.Post]bool
	add  []*mapping.Post
}

// apply returns the blocks that replace one holding posts: none when it is left empty, more than
// one when it grew past twice eventBlockSize.
func (e *blockEdit) apply(posts []*mapping.Post) []*eventBlock {
	kept := make([]*mapping.Post, 0, len(posts)+len(e.add))
	for _, p := range posts {
		if !e.gone[p] {
			kept = append(kept, p)
		}
	}
	kept = append(kept, e.add...)
	slices.SortFunc(kept, eventCmp)
	var out []*eventBlock
	size := len(kept)
	if size > 2*eventBlockSize {
		size = eventBlockSize
	}
	for chunk := range slices.Chunk(kept, max(size, 1)) {
		out = append(out, newEventBlock(chunk))
	}
	return out
}

func eventCmp(a, b *mapping.Post) int {
	switch {
	case mapping.EventLess(a, b):
		return -1
	case mapping.EventLess(b, a):
		return 1
	}
	return 0
}

// len is the number of listed events.
func (x *eventIndex) len() int { return x.before[len(x.blocks)] }

// blockOf is the block holding position i (of all listed events).
func (x *eventIndex) blockOf(i int) int {
	return sort.Search(len(x.blocks), func(b int) bool { return x.before[b+1] > i })
}

// post is the listed event at position i.
func (x *eventIndex) post(i int) *mapping.Post {
	b := x.blockOf(i)
	return x.blocks[b].posts[i-x.before[b]]
}

// spans yields, for each block that holds positions of [lo, hi), the block and that range within
// it.
func (x *eventIndex) spans(lo, hi int) iter.Seq2[*eventBlock, [2]int] {
	return func(yield func(*eventBlock, [2]int) bool) {
		for b := x.blockOf(lo); b < len(x.blocks) && x.before[b] < hi; b++ {
			from, to := max(lo-x.before[b], 0), min(hi-x.before[b], len(x.blocks[b].posts))
			if !yield(x.blocks[b], [2]int{from, to}) {
				return
			}
		}
	}
}

// ListEvents returns the events the archive query f lists, from the offset-th on (at most limit),
// and how many it lists in all: what scanning the snapshot's Events with mapping.MatchEvent gives,
// in the same order (f.Include: by post date, then ID).
func (s *Snapshot) ListEvents(f *mapping.EventFilter, offset, limit int) ([]*mapping.Post, int) {
	x := s.eventIdx
	if offset < 0 { // an overflowed page number: past the last page
		offset = math.MaxInt
	}

	if f.Include != nil {
		return pageOf(x.included(s, f), offset, limit)
	}

	lo, hi := x.startRange(f)
	if src, ok := x.postingSource(f); ok {
		return scan(f, x.candidates(src, lo, hi), offset, limit)
	}

	if f.Search != nil || f.PostParent != nil { // no posting narrows these: the range is scanned
		return scan(f, x.between(lo, hi), offset, limit)
	}

	return x.ranged(f, lo, hi, offset, limit)
}

func pageOf(l []*mapping.Post, offset, limit int) ([]*mapping.Post, int) {
	from := min(offset, len(l))
	return l[from:min(from+limit, len(l))], len(l)
}

// included answers an include query: the named events that match, by post date, then ID.
func (x *eventIndex) included(s *Snapshot, f *mapping.EventFilter) []*mapping.Post {
	var out []*mapping.Post
	seen := map[int]bool{}
	for _, id := range f.Include {
		p, ok := s.Post(id)
		if ok && !seen[id] && p.Type() == s.types.Event && mapping.MatchEvent(p, f) {
			out = append(out, p)
		}
		seen[id] = true
	}

	slices.SortFunc(out, func(a, b *mapping.Post) int {
		if mapping.PostDateLess(a, b) {
			return -1
		}
		return 1
	})
	return out
}

// startRange is the range of positions whose start dates meet f's start bounds; an event without a
// start date ("", first in archive order) never meets a bound.
func (x *eventIndex) startRange(f *mapping.EventFilter) (lo, hi int) {
	hi = x.len()
	first := func(ok func(start string) bool) int {
		return sort.Search(x.len(), func(i int) bool { return ok(x.post(i).Derived.Start) })
	}

	if f.StartMin != "" || f.StartsBefore != "" || f.StartsAfter != "" {
		lo = first(func(s string) bool { return s != "" })
	}

	if f.StartMin != "" {
		lo = max(lo, first(func(s string) bool { return s >= f.StartMin }))
	}

	if f.StartsAfter != "" {
		lo = max(lo, first(func(s string) bool { return s > f.StartsAfter }))
	}

	if f.StartsBefore != "" {
		hi = first(func(s string) bool { return s >= f.StartsBefore })
	}

	return lo, max(lo, hi)
}

// endBounds counts the events of a block that meet f's end bounds (an end after after, not after
// max, before before; "" is no bound); all: f has none. An event without an end date never meets a
// bound: "" is after nothing.
type endBounds struct {
	after, max, before string
	all                bool
}

func newEndBounds(f *mapping.EventFilter) endBounds {
	return endBounds{after: f.EndsAfter, max: f.EndMax, before: f.EndsBefore,
		all: f.EndMax == "" && f.EndsBefore == "" && f.EndsAfter == ""}
}

func (e endBounds) meets(end string) bool {
	return e.all || end > e.after && (e.max == "" || end <= e.max) && (e.before == "" || end < e.before)
}

// count is how many of l's events at positions r (of block b) meet the bounds: by binary searches of
// the sorted end dates when r is the whole block, else event by event.
func (e endBounds) count(b *eventBlock, l statusList, r [2]int) int {
	whole := r[0] == 0 && r[1] == len(b.posts)
	var sp endSpan
	if len(l.ends) > 0 {
		sp = endSpan{n: len(l.ends), first: l.ends[0], last: l.ends[len(l.ends)-1]}
	}
	if n, ok := e.decide(sp); whole && ok {
		return n
	}
	if whole {
		// The first end after a string s is the first at or after s+"\x00".
		lo, _ := slices.BinarySearch(l.ends, e.after+"\x00")
		hi := len(l.ends)
		if e.max != "" {
			hi, _ = slices.BinarySearch(l.ends, e.max+"\x00")
		}
		if e.before != "" {
			at, _ := slices.BinarySearch(l.ends, e.before)
			hi = min(hi, at)
		}
		return max(0, hi-lo)
	}
	n := 0
	i, j := within(l.pos, r[0], r[1])
	for _, at := range l.pos[i:j] {
		if e.meets(b.posts[at].Derived.End) {
			n++
		}
	}
	return n
}

// decide counts the events of sp when all of them meet the bounds or none does; ok is false when
// their end dates straddle a bound.
func (e endBounds) decide(sp endSpan) (n int, ok bool) {
	switch {
	case sp.n == 0:
		return 0, true
	case e.all || e.meets(sp.first) && e.meets(sp.last):
		return sp.n, true // the bounds are an interval: all between meet them too
	case sp.last <= e.after || e.max != "" && sp.first > e.max || e.before != "" && sp.first >= e.before:
		return 0, true // they end before the bounds or start after them (events end near their start)
	}
	return 0, false
}

// postings is, for a block, the candidate lists a filter names.
type postings func(b *eventBlock) [][]pos

// postingSource is the smallest candidate list f's filters name (each filter is a union of
// postings); ok is false when f names none.
func (x *eventIndex) postingSource(f *mapping.EventFilter) (src postings, ok bool) {
	size := -1
	consider := func(lists postings) {
		n := 0
		for _, b := range x.blocks {
			for _, l := range lists(b) {
				n += len(l)
			}
		}
		if size < 0 || n < size {
			src, size = lists, n
		}
	}
	byID := func(m func(b *eventBlock) map[int][]pos, ids []int) {
		if ids == nil {
			return
		}
		consider(func(b *eventBlock) [][]pos {
			ls := make([][]pos, 0, len(ids))
			for _, id := range ids {
				ls = append(ls, m(b)[id])
			}
			return ls
		})
	}

	byID(func(b *eventBlock) map[int][]pos { return b.categories }, f.Categories)
	byID(func(b *eventBlock) map[int][]pos { return b.tags }, f.Tags)
	byID(func(b *eventBlock) map[int][]pos { return b.venues }, f.Venues)
	byID(func(b *eventBlock) map[int][]pos { return b.organizers }, f.Organizers)
	if f.Featured != nil {
		k := b2i(*f.Featured)
		consider(func(b *eventBlock) [][]pos { return [][]pos{b.featured[k]} })
	}

	return src, size >= 0
}

// candidates yields the events of src's lists in [lo, hi), in archive order, each once.
func (x *eventIndex) candidates(src postings, lo, hi int) iter.Seq[*mapping.Post] {
	return func(yield func(*mapping.Post) bool) {
		for b, r := range x.spans(lo, hi) {
			for _, i := range narrow(src(b), r[0], r[1]) {
				if !yield(b.posts[i]) {
					return
				}
			}
		}
	}
}

// between yields the events at positions [lo, hi).
func (x *eventIndex) between(lo, hi int) iter.Seq[*mapping.Post] {
	return func(yield func(*mapping.Post) bool) {
		for b, r := range x.spans(lo, hi) {
			for _, p := range b.posts[r[0]:r[1]] {
				if !yield(p) {
					return
				}
			}
		}
	}
}

// narrow merges the candidate lists into one ascending list of distinct positions in [lo, hi).
func narrow(lists [][]pos, lo, hi int) []pos {
	var out []pos
	for _, l := range lists {
		from, to := within(l, lo, hi)
		out = append(out, l[from:to]...)
	}

	if len(lists) > 1 {
		slices.Sort(out)
		out = slices.Compact(out)
	}

	return out
}

// within is the range of the ascending list l whose positions are in [lo, hi).
func within(l []pos, lo, hi int) (from, to int) {
	from = sort.Search(len(l), func(i int) bool { return int(l[i]) >= lo })
	to = sort.Search(len(l), func(i int) bool { return int(l[i]) >= hi })
	return from, to
}

// scan checks every candidate with MatchEvent: the cost follows the candidates.
func scan(f *mapping.EventFilter, cand iter.Seq[*mapping.Post],
	offset, limit int) ([]*mapping.Post, int) {
	var page []*mapping.Post
	total := 0
	for p := range cand {
		if !mapping.MatchEvent(p, f) {
			continue
		}

		if total >= offset && len(page) < limit {
			page = append(page, p)
		}
		total++
	}

	return page, total
}

// ranged answers a query of statuses and dates only: the total is counted a group of blocks at a
// time where the group lies within the start range and its statuses' end dates decide it, else a
// block at a time from the statuses' sorted end dates (a block the start bounds cut is counted
// event by event); then the page is read from the block group that holds its first event.
func (x *eventIndex) ranged(f *mapping.EventFilter,
	lo, hi, offset, limit int) ([]*mapping.Post, int) {
	statuses, ends := distinct(f.Statuses), newEndBounds(f)
	total, from, skipped := 0, -1, 0 // from: the first block of the unit holding the offset-th match
	for b := x.blockOf(lo); b < len(x.blocks) && x.before[b] < hi; {
		n, next := x.countGroup(b, lo, hi, statuses, ends)
		if from < 0 && total+n > offset {
			from, skipped = b, total
		}
		total, b = total+n, next
	}
	if offset >= total || limit <= 0 {
		return nil, total
	}
	return x.rangedPage(f, statuses, ends, from, lo, hi, offset-skipped, limit), total
}

// countGroup counts the matches from block b on: of its whole group when b starts one that lies
// within [lo, hi) and the group's end dates decide every status, else of block b alone; next is the
// block after those counted.
func (x *eventIndex) countGroup(b, lo, hi int, statuses []string, ends endBounds) (n, next int) {
	if last := min(b+groupBlocks, len(x.blocks)); b%groupBlocks == 0 && x.before[b] >= lo && x.before[last] <= hi {
		g, decided := x.groups[b/groupBlocks], true
		for _, st := range statuses {
			k, ok := ends.decide(g[st])
			n, decided = n+k, decided && ok
		}
		if decided {
			return n, last
		}
	}
	return x.countBlock(b, lo, hi, statuses, ends), b + 1
}

// countBlock counts the matches of block b within [lo, hi).
func (x *eventIndex) countBlock(b, lo, hi int, statuses []string, ends endBounds) int {
	blk := x.blocks[b]
	r := [2]int{max(lo-x.before[b], 0), min(hi-x.before[b], len(blk.posts))}
	n := 0
	for _, st := range statuses {
		n += ends.count(blk, blk.byStatus[st], r)
	}
	return n
}

// rangedPage reads ranged's page from block from on, offset matches in: the blocks before the one
// holding the offset-th match are skipped by their counts.
func (x *eventIndex) rangedPage(f *mapping.EventFilter, statuses []string, ends endBounds,
	from, lo, hi, offset, limit int) []*mapping.Post {
	page := make([]*mapping.Post, 0, limit)
	for b := from; b < len(x.blocks) && x.before[b] < hi; b++ {
		if offset > 0 {
			if n := x.countBlock(b, lo, hi, statuses, ends); offset >= n {
				offset -= n
				continue
			}
		}
		blk := x.blocks[b]
		for _, at := range statusPositions(blk, statuses, max(lo-x.before[b], 0), min(hi-x.before[b], len(blk.posts))) {
			if p := blk.posts[at]; mapping.MatchEvent(p, f) {
				if offset > 0 {
					offset--
					continue
				}
				if page = append(page, p); len(page) == limit {
					return page
				}
			}
		}
	}
	return page
}

// distinct is l without repetitions, in its order.
func distinct(l []string) []string {
	var out []string
	for _, s := range l {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// statusPositions is the ascending positions in [lo, hi) of a block's events in the statuses.
func statusPositions(b *eventBlock, statuses []string, lo, hi int) []pos {
	lists := make([][]pos, 0, len(statuses))
	for _, st := range statuses {
		lists = append(lists, b.byStatus[st].pos)
	}
	return narrow(lists, lo, hi)
}
