package catalog

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"calshim/mapping"
)

// indexTypes are the default post types and taxonomies.
var indexTypes = Types{Event: "tribe_events", Venue: "tribe_venue", Organizer: "tribe_organizer",
	CategoryTax: "tribe_events_cat", TagTax: "post_tag"}

// randomEvents is n events with few distinct dates (many ties), some without start or end, some
// ending before they start, hidden, featured, in several statuses, with terms, venues, organizers.
func randomEvents(rnd *rand.Rand, n int) map[int]*mapping.Post {
	date := func() string {
		if rnd.Intn(20) == 0 {
			return ""
		}
		return fmt.Sprintf("2026-%02d-%02d %02d:00:00", 1+rnd.Intn(3), 1+rnd.Intn(5), rnd.Intn(3))
	}
	ids := func(base, k int) []int {
		var out []int
		for range rnd.Intn(k) {
			out = append(out, base+rnd.Intn(4))
		}
		return out
	}

	posts := map[int]*mapping.Post{}
	for id := 1; id <= n; id++ {
		p := &mapping.Post{Text: mapping.TextFields{Type: indexTypes.Event, Slug: fmt.Sprint("e", id),
			Status: []string{"publish", "publish", "publish", "draft", "future", "trash"}[rnd.Intn(6)],
			Date:   fmt.Sprintf("2025-01-%02d 10:00:00", 1+rnd.Intn(4)),
			Title:  []string{"Jazz night", "Tech talk", "Jazz brunch"}[rnd.Intn(3)]}.Pack(),
			ID: id, Parent: rnd.Intn(2), Terms: map[string][]int{mapping.TaxonomyCategory: ids(1, 3),
				mapping.TaxonomyTag: ids(10, 2)},
		}
		p.Derived = mapping.Derived{Start: date(), End: date(), Hidden: rnd.Intn(15) == 0,
			Featured: rnd.Intn(4) == 0, Venues: ids(20, 2), Organizers: ids(30, 3)}
		search := mapping.SearchText(p)
		p.EditText(func(f *mapping.TextFields) { f.Search = search })
		posts[id] = p
	}

	return posts
}

// randomFilter is an archive query over randomEvents' values; dates are bounds between theirs.
func randomFilter(rnd *rand.Rand) *mapping.EventFilter {
	date := func() string {
		if rnd.Intn(2) == 0 {
			return ""
		}
		return fmt.Sprintf("2026-%02d-%02d %02d:30:00", 1+rnd.Intn(3), 1+rnd.Intn(5), rnd.Intn(3)-1+1)
	}
	ids := func(base int) []int {
		if rnd.Intn(3) != 0 {
			return nil
		}
		out := []int{}
		for range rnd.Intn(3) {
			out = append(out, base+rnd.Intn(5))
		}
		return out
	}

	f := &mapping.EventFilter{StartMin: date(), EndMax: date(), StartsBefore: date(),
		StartsAfter: date(), EndsBefore: date(), EndsAfter: date(), Categories: ids(1), Tags: ids(10),
		Venues: ids(20), Organizers: ids(30),
		Statuses: [][]string{{"publish"}, {"publish", "draft", "future"}, {"draft"}, {"publish",
			"publish"}, {"pending"}}[rnd.Intn(5)]}
	extraFilter(rnd, f)
	return f
}

// extraFilter sets the rarer members: featured, search, post_parent, include.
func extraFilter(rnd *rand.Rand, f *mapping.EventFilter) {
	if b := rnd.Intn(3); b < 2 {
		featured := b == 1
		f.Featured = &featured
	}

	if rnd.Intn(4) == 0 {
		f.Search = mapping.SearchWords([]string{"jazz", "-brunch", "talk jazz"}[rnd.Intn(3)])
	}

	if rnd.Intn(6) == 0 {
		parent := rnd.Intn(2)
		f.PostParent = &parent
	}

	if rnd.Intn(6) == 0 {
		f.Include = []int{3, 1, 7, 3, 900, 40}
	}
}

// scanEvents is the definition ListEvents must meet: every event in archive order that MatchEvent
// accepts (include: by post date, then ID).
func scanEvents(s *Snapshot, f *mapping.EventFilter) []*mapping.Post {
	var out []*mapping.Post
	for _, p := range s.Events {
		if mapping.MatchEvent(p, f) {
			out = append(out, p)
		}
	}

	if f.Include != nil {
		slices.SortStableFunc(out, func(a, b *mapping.Post) int {
			if mapping.PostDateLess(a, b) {
				return -1
			}
			return 1
		})
	}

	return out
}

// ListEvents answers as scanning does, whatever the size of the index's blocks (one event, a few,
// the whole catalog in one) and of its groups of blocks: in every other round the events end when
// they start, as in a real calendar, so that whole groups of blocks meet a date bound or none of
// them does (counted a group at a time) besides the groups that straddle one.
func TestListEventsEqualsScan(t *testing.T) {
	defer func(n int) { eventBlockSize = n }(eventBlockSize)
	rnd := rand.New(rand.NewSource(7))
	for round := range 40 {
		eventBlockSize = []int{1, 5, 64, 1024}[round%4]
		events := randomEvents(rnd, 1+rnd.Intn(400))
		if round%8 >= 4 {
			for _, p := range events {
				p.Derived.End = p.Derived.Start
			}
		}
		s := build(Snapshot{types: indexTypes}, events, nil, nil)
		checkQueries(t, rnd, s, 300, fmt.Sprint("round ", round))
	}
}

// checkQueries asks s n random archive queries, pages at random offsets, and fails unless each
// answers as scanning does.
func checkQueries(t *testing.T, rnd *rand.Rand, s *Snapshot, n int, name string) {
	t.Helper()
	for q := range n {
		f := randomFilter(rnd)
		want := scanEvents(s, f)
		offset, limit := rnd.Intn(len(want)+3), 1+rnd.Intn(12)
		page, total := s.ListEvents(f, offset, limit)
		from := min(offset, len(want))
		if total != len(want) || !slices.Equal(page, want[from:min(from+limit, len(want))]) {
			t.Fatalf("%s query %d %+v offset %d limit %d: total %d, want %d; page %v, want %v",
				name, q, *f, offset, limit, total, len(want), postIDs(page),
				postIDs(want[from:min(from+limit, len(want))]))
		}
	}
}

func postIDs(l []*mapping.Post) []int {
	ids := make([]int, len(l))
	for i, p := range l {
		ids[i] = p.ID
	}
	return ids
}

// Hidden events are never listed, whatever the query; a page past the end is empty but counted.
func TestListEventsPastTheEnd(t *testing.T) {
	s := build(Snapshot{types: indexTypes}, randomEvents(rand.New(rand.NewSource(1)), 50), nil, nil)
	f := &mapping.EventFilter{Statuses: []string{"publish", "draft", "future", "trash"}}
	_, total := s.ListEvents(f, 0, 10)
	page, again := s.ListEvents(f, 1000, 10)
	if len(page) != 0 || again != total || total != len(scanEvents(s, f)) {
		t.Fatalf("past the end: %d events, total %d then %d", len(page), total, again)
	}

	if page, _ := s.ListEvents(f, -5, 10); len(page) != 0 {
		t.Fatalf("negative offset: %d events", len(page))
	}
}
