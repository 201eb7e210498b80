package catalog

import (
	"iter"
	"math"
	"slices"
	"sort"

	"calshim/mapping"
)

// eventIndex answers the event archive from structures whose cost follows the page and the postings
// a query names, not the number of events: the listable events (not hidden) in archive order
// (mapping.EventLess, so a start bound is a binary-searched range), positions per status, category,
// tag, venue, organizer and featured flag, and per status a rankTree of end dates, so that the
// default window (start ≥ A, end ≤ B) is counted exactly without visiting its events.
// mapping.MatchEvent stays the definition of a match: every event returned passed it.
type eventIndex struct {
	listed []*mapping.Post // not hidden, in archive order
	ends   []string        // the distinct end dates of listed, ascending: an end's rank is its index

	byStatus   map[string]statusList
	categories map[int][]int32 // positions in listed, ascending
	tags       map[int][]int32
	venues     map[int][]int32
	organizers map[int][]int32
	featured   [2][]int32 // [0]: not featured, [1]: featured
}

// statusList is the positions of one status's listed events and the rank tree of their end dates.
type statusList struct {
	pos  []int32
	ends rankTree
}

// newEventIndex indexes events, given in archive order.
func newEventIndex(events []*mapping.Post) *eventIndex {
	x := &eventIndex{categories: map[int][]int32{}, tags: map[int][]int32{},
		venues: map[int][]int32{}, organizers: map[int][]int32{}}
	for _, p := range events {
		if !p.Derived.Hidden {
			x.listed = append(x.listed, p)
		}
	}

	x.ends = distinctEnds(x.listed)
	statusPos := map[string][]int32{}
	for i, p := range x.listed {
		at := int32(i)
		statusPos[p.Status()] = append(statusPos[p.Status()], at)
		addPostings(x.categories, p.Terms[mapping.TaxonomyCategory], at)
		addPostings(x.tags, p.Terms[mapping.TaxonomyTag], at)
		addPostings(x.venues, p.Derived.Venues, at)
		addPostings(x.organizers, p.Derived.Organizers, at)
		x.featured[b2i(p.Derived.Featured)] = append(x.featured[b2i(p.Derived.Featured)], at)
	}

	x.byStatus = make(map[string]statusList, len(statusPos))
	for status, pos := range statusPos {
		x.byStatus[status] = statusList{pos: pos, ends: newRankTree(x.endRanks(pos))}
	}

	return x
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// addPostings appends position at to the posting of each ID, once per ID (a post may repeat one).
func addPostings(m map[int][]int32, ids []int, at int32) {
	for _, id := range ids {
		l := m[id]
		if len(l) == 0 || l[len(l)-1] != at {
			m[id] = append(l, at)
		}
	}
}

func distinctEnds(posts []*mapping.Post) []string {
	ends := make([]string, 0, len(posts))
	for _, p := range posts {
		ends = append(ends, p.Derived.End)
	}

	slices.Sort(ends)
	return slices.Compact(ends)
}

func (x *eventIndex) endRanks(pos []int32) []int32 {
	ranks := make([]int32, len(pos))
	for i, at := range pos {
		r, _ := slices.BinarySearch(x.ends, x.listed[at].Derived.End)
		ranks[i] = int32(r)
	}
	return ranks
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
		return scan(f, x.at(narrow(src, lo, hi)), offset, limit)
	}

	if f.Search != nil || f.PostParent != nil { // no posting narrows these: the range is scanned
		return scan(f, slices.Values(x.listed[lo:hi]), offset, limit)
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
		p, ok := s.posts[id]
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

// startRange is the range of listed whose start dates meet f's start bounds; an event without a
// start date ("", first in archive order) never meets a bound.
func (x *eventIndex) startRange(f *mapping.EventFilter) (lo, hi int) {
	hi = len(x.listed)
	first := func(ok func(start string) bool) int {
		return sort.Search(len(x.listed), func(i int) bool { return ok(x.listed[i].Derived.Start) })
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

// endRanks is the range of end ranks that meet f's end bounds; an event without an end date
// never meets a bound.
func (x *eventIndex) endRange(f *mapping.EventFilter) (lo, hi int32) {
	hi = int32(len(x.ends))
	if f.EndMax == "" && f.EndsBefore == "" && f.EndsAfter == "" {
		return 0, hi
	}

	rank := func(ok func(end string) bool) int32 {
		return int32(sort.Search(len(x.ends), func(i int) bool { return ok(x.ends[i]) }))
	}

	lo = rank(func(e string) bool { return e != "" })
	if f.EndMax != "" {
		hi = rank(func(e string) bool { return e > f.EndMax })
	}

	if f.EndsBefore != "" {
		hi = min(hi, rank(func(e string) bool { return e >= f.EndsBefore }))
	}

	if f.EndsAfter != "" {
		lo = max(lo, rank(func(e string) bool { return e > f.EndsAfter }))
	}

	return lo, max(lo, hi)
}

// postingSource is the smallest candidate list f's filters name (each filter is a union of
// postings); ok is false when f names none.
func (x *eventIndex) postingSource(f *mapping.EventFilter) (lists [][]int32, ok bool) {
	best, size := [][]int32(nil), -1
	consider := func(m map[int][]int32, ids []int) {
		if ids == nil {
			return
		}

		var ls [][]int32
		n := 0
		for _, id := range ids {
			ls = append(ls, m[id])
			n += len(m[id])
		}

		if size < 0 || n < size {
			best, size = ls, n
		}
	}

	consider(x.categories, f.Categories)
	consider(x.tags, f.Tags)
	consider(x.venues, f.Venues)
	consider(x.organizers, f.Organizers)
	if f.Featured != nil {
		consider(map[int][]int32{0: x.featured[b2i(*f.Featured)]}, []int{0})
	}

	return best, size >= 0
}

// narrow merges the candidate lists into one ascending list of distinct positions in [lo, hi).
func narrow(lists [][]int32, lo, hi int) []int32 {
	var out []int32
	for _, l := range lists {
		from, _ := slices.BinarySearch(l, int32(lo))
		to, _ := slices.BinarySearch(l, int32(hi))
		out = append(out, l[from:to]...)
	}

	if len(lists) > 1 {
		slices.Sort(out)
		out = slices.Compact(out)
	}

	return out
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

// at is the events at the given positions.
func (x *eventIndex) at(pos []int32) iter.Seq[*mapping.Post] {
	return func(yield func(*mapping.Post) bool) {
		for _, i := range pos {
			if !yield(x.listed[i]) {
				return
			}
		}
	}
}

// ranged answers a query of statuses and dates only: the total is counted per status from the
// rank trees, the page found by a binary search on the count, then read by merging the statuses'
// positions from there.
func (x *eventIndex) ranged(f *mapping.EventFilter,
	lo, hi, offset, limit int) ([]*mapping.Post, int) {
	rlo, rhi := x.endRange(f)
	anyEnd := rlo == 0 && int(rhi) == len(x.ends)
	lists := x.statusLists(f.Statuses)
	count := func(upTo int) int { // matches at positions lo to upTo
		n := 0
		for _, l := range lists {
			from, _ := slices.BinarySearch(l.pos, int32(lo))
			to, _ := slices.BinarySearch(l.pos, int32(upTo))
			if anyEnd {
				n += to - from
				continue
			}

			n += l.ends.between(from, to, rlo, rhi)
		}
		return n
	}

	total := count(hi)
	if offset >= total || limit <= 0 {
		return nil, total
	}

	// The first position whose matches up to and including it exceed offset holds the page's first.
	at := lo + sort.Search(hi-lo, func(i int) bool { return count(lo+i+1) > offset })
	return x.merged(f, lists, at, hi, limit), total
}

// statusLists are the lists of the given statuses, each once.
func (x *eventIndex) statusLists(statuses []string) []statusList {
	var lists []statusList
	for i, st := range statuses {
		if l, ok := x.byStatus[st]; ok && !slices.Contains(statuses[:i], st) {
			lists = append(lists, l)
		}
	}
	return lists
}

// merged reads up to limit matches from position at (before hi), in archive order, over the
// statuses' positions.
func (x *eventIndex) merged(f *mapping.EventFilter, lists []statusList,
	at, hi, limit int) []*mapping.Post {
	next := make([]int, len(lists))
	for i, l := range lists {
		next[i], _ = slices.BinarySearch(l.pos, int32(at))
	}

	page := make([]*mapping.Post, 0, limit)
	for len(page) < limit {
		best := -1
		for i, l := range lists {
			if next[i] < len(l.pos) && (best < 0 || l.pos[next[i]] < lists[best].pos[next[best]]) {
				best = i
			}
		}

		if best < 0 || int(lists[best].pos[next[best]]) >= hi {
			break
		}

		p := x.listed[lists[best].pos[next[best]]]
		next[best]++
		if mapping.MatchEvent(p, f) {
			page = append(page, p)
		}
	}

	return page
}

// rankTree counts, within a range of a list of ranks, those in a range of values: a merge sort
// tree (level k holds the ranks sorted within aligned blocks of 2^k), O(log² n) per count, n·log n
// ranks of memory.
type rankTree struct{ levels [][]int32 }

func newRankTree(ranks []int32) rankTree {
	levels := [][]int32{ranks}
	for w := 1; w < len(ranks); w *= 2 {
		prev, next := levels[len(levels)-1], make([]int32, 0, len(ranks))
		for i := 0; i < len(ranks); i += 2 * w {
			mid, end := min(i+w, len(ranks)), min(i+2*w, len(ranks))
			next = mergeSorted(next, prev[i:mid], prev[mid:end])
		}
		levels = append(levels, next)
	}

	return rankTree{levels: levels}
}

func mergeSorted(dst, a, b []int32) []int32 {
	for len(a) > 0 && len(b) > 0 {
		if a[0] <= b[0] {
			dst, a = append(dst, a[0]), a[1:]
		} else {
			dst, b = append(dst, b[0]), b[1:]
		}
	}

	return append(append(dst, a...), b...)
}

// between counts the entries i in [from, to) with rlo ≤ rank < rhi.
func (t rankTree) between(from, to int, rlo, rhi int32) int {
	if len(t.levels) == 0 || from >= to || rlo >= rhi {
		return 0
	}

	n := 0
	for from < to {
		k := 0
		for k+1 < len(t.levels) && from%(2<<k) == 0 && from+(2<<k) <= to {
			k++
		}

		block := t.levels[k][from : from+1<<k]
		a, _ := slices.BinarySearch(block, rlo)
		b, _ := slices.BinarySearch(block, rhi)
		n += b - a
		from += 1 << k
	}

	return n
}
