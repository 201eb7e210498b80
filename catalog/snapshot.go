// Package catalog keeps an in-memory copy of the calendar held by the upstream CMS: events, venues,
// organizers, their terms and featured images. It loads everything at start, then polls for changes.
// Readers get an immutable Snapshot, so the read path never locks and never calls upstream.
package catalog

import (
	"maps"
	"reflect"
	"sort"
	"time"

	"calshim/mapping"
)

// Snapshot is one consistent, immutable state of the catalog. Never modify what it holds: a refresh
// builds a new Snapshot.
type Snapshot struct {
	Version  uint64 // increases on every change; part of response cache keys
	Site     mapping.Site
	Location *time.Location // site time zone, as TEC localizes dates with it (mapping.LocalizeZone)
	// MultiDayCutoff is TEC's "HH:MM" option used to widen dates to whole days.
	MultiDayCutoff string
	PerPage        int // default per_page
	LoadedAt       time.Time
	// Authenticated tells whether the catalog was loaded with a service credential (so it holds drafts,
	// private posts and passwords) or anonymously (published posts only).
	Authenticated bool
	pos           *syncPos // where in the change log it stands (changes.go); nil without the feed

	posts map[int]*mapping.Post
	terms map[int]*mapping.Term
	media map[int]*mapping.Media

	Events     []*mapping.Post // by start wall time, then post date, then ID
	Venues     []*mapping.Post // by post date descending, then ID descending (WordPress' default order)
	Organizers []*mapping.Post // same
	Categories []*mapping.Term // by name
	Tags       []*mapping.Term // by name

	slugs    map[string]map[string]int // post type → slug → ID
	types    Types
	eventIdx *eventIndex // answers ListEvents
}

// Types names the upstream post types and taxonomies.
type Types struct {
	Event, Venue, Organizer string // post types, e.g. tribe_events
	CategoryTax, TagTax     string // taxonomy names, e.g. tribe_events_cat, post_tag
	CategoryBase, TagBase   string // their wp/v2 REST bases, e.g. tribe_events_cat, tags
}

// Post returns any post of the catalog by ID (implements mapping.Lookup).
func (s *Snapshot) Post(id int) (*mapping.Post, bool) { p, ok := s.posts[id]; return p, ok }

// Term returns a term by ID.
func (s *Snapshot) Term(id int) (*mapping.Term, bool) { t, ok := s.terms[id]; return t, ok }

// Media returns an attachment by ID.
func (s *Snapshot) Media(id int) (*mapping.Media, bool) { m, ok := s.media[id]; return m, ok }

// BySlug returns the post of the given type with that slug, in any status.
func (s *Snapshot) BySlug(postType, slug string) (*mapping.Post, bool) {
	id, ok := s.slugs[postType][slug]
	if !ok {
		return nil, false
	}
	return s.Post(id)
}

// Types returns the post type and taxonomy names the catalog was loaded with.
func (s *Snapshot) Types() Types { return s.types }

// build indexes posts, terms and media into a new snapshot.
func build(
	base Snapshot, posts map[int]*mapping.Post, terms map[int]*mapping.Term, media map[int]*mapping.Media,
) *Snapshot {
	return buildOrdered(base, posts, nil, terms, media)
}

// buildOrdered is build with the posts also given as a list (nil: taken from the map): lists already
// in index order (a restored snapshot) sort in linear time.
func buildOrdered(base Snapshot, posts map[int]*mapping.Post, ordered []*mapping.Post,
	terms map[int]*mapping.Term, media map[int]*mapping.Media) *Snapshot {
	if ordered == nil {
		ordered = make([]*mapping.Post, 0, len(posts))
		for _, p := range posts {
			ordered = append(ordered, p)
		}
	}
	s := base
	s.posts, s.terms, s.media = posts, terms, media
	s.Events, s.Venues, s.Organizers, s.Categories, s.Tags = nil, nil, nil, nil, nil
	s.slugs = map[string]map[string]int{}
	for _, p := range ordered {
		if s.slugs[p.Type()] == nil {
			s.slugs[p.Type()] = map[string]int{}
		}
		if p.Slug() != "" { // never-published drafts have none; "" is no slug to look up
			s.slugs[p.Type()][p.Slug()] = p.ID
		}
		switch p.Type() {
		case s.types.Event:
			s.Events = append(s.Events, p)
		case s.types.Venue:
			s.Venues = append(s.Venues, p)
		case s.types.Organizer:
			s.Organizers = append(s.Organizers, p)
		}
	}
	sort.Slice(s.Events, func(i, j int) bool { return mapping.EventLess(s.Events[i], s.Events[j]) })
	sort.Slice(s.Venues, func(i, j int) bool { return mapping.NewerFirst(s.Venues[i], s.Venues[j]) })
	sort.Slice(s.Organizers, func(i, j int) bool {
		return mapping.NewerFirst(s.Organizers[i], s.Organizers[j])
	})
	for _, t := range terms {
		switch t.Taxonomy {
		case s.types.CategoryTax:
			s.Categories = append(s.Categories, t)
		case s.types.TagTax:
			s.Tags = append(s.Tags, t)
		}
	}
	byName := func(l []*mapping.Term) func(i, j int) bool {
		return func(i, j int) bool {
			if l[i].Name != l[j].Name {
				return l[i].Name < l[j].Name
			}
			return l[i].ID < l[j].ID
		}
	}
	sort.Slice(s.Categories, byName(s.Categories))
	sort.Slice(s.Tags, byName(s.Tags))
	s.eventIdx = newEventIndex(s.Events)
	return &s
}

// patchLimit is the number of changed posts up to which patch updates the indexes in place of build.
const patchLimit = 256

// patch returns what build(base, posts, terms, media) returns, made from old by re-indexing only the
// posts whose IDs are in changed (added, replaced or removed): a poll that brings a few changes costs
// a copy of the lists, not a sort of the whole catalog. Many changes are rebuilt in full.
func patch(base Snapshot, old *Snapshot, posts map[int]*mapping.Post, terms map[int]*mapping.Term,
	media map[int]*mapping.Media, changed []int) *Snapshot {
	if len(changed) > patchLimit {
		return build(base, posts, terms, media)
	}
	s := base
	s.posts, s.terms, s.media, s.types = posts, terms, media, old.types
	gone := make(map[int]bool, len(changed))
	for _, id := range changed {
		gone[id] = true
	}
	byType := func(typ string) []*mapping.Post {
		var l []*mapping.Post
		for id := range gone {
			if p, ok := posts[id]; ok && p.Type() == typ {
				l = append(l, p)
			}
		}
		return l
	}
	s.Events = reinsert(old.Events, gone, byType(s.types.Event), mapping.EventLess)
	s.Venues = reinsert(old.Venues, gone, byType(s.types.Venue), mapping.NewerFirst)
	s.Organizers = reinsert(old.Organizers, gone, byType(s.types.Organizer), mapping.NewerFirst)
	s.slugs = patchSlugs(old, posts, changed)
	s.Categories, s.Tags = old.Categories, old.Tags
	if !sameTermSet(old.terms, terms) {
		s.Categories, s.Tags = sortedTerms(terms, s.types)
	}
	s.eventIdx = newEventIndex(s.Events)
	return &s
}

// reinsert returns list without the posts in gone, with add inserted in order (less).
func reinsert(list []*mapping.Post, gone map[int]bool, add []*mapping.Post,
	less func(a, b *mapping.Post) bool) []*mapping.Post {
	out := make([]*mapping.Post, 0, len(list)+len(add))
	for _, p := range list {
		if !gone[p.ID] {
			out = append(out, p)
		}
	}
	for _, p := range add {
		i := sort.Search(len(out), func(i int) bool { return less(p, out[i]) })
		out = append(out, nil)
		copy(out[i+1:], out[i:])
		out[i] = p
	}
	return out
}

// patchSlugs returns old's slug index with the changed posts' entries updated; the inner map of a
// post type is copied only when one of its posts changed.
func patchSlugs(old *Snapshot, posts map[int]*mapping.Post, changed []int) map[string]map[string]int {
	slugs := make(map[string]map[string]int, len(old.slugs))
	for typ, m := range old.slugs {
		slugs[typ] = m
	}
	copied := map[string]bool{}
	own := func(typ string) map[string]int {
		if !copied[typ] {
			slugs[typ] = maps.Clone(slugs[typ])
			if slugs[typ] == nil {
				slugs[typ] = map[string]int{}
			}
			copied[typ] = true
		}
		return slugs[typ]
	}
	for _, id := range changed {
		before, had := old.posts[id]
		after, has := posts[id]
		if had && has && before.Type() == after.Type() && before.Slug() == after.Slug() {
			continue // most edits keep the slug: the index stays shared
		}
		if had && before.Slug() != "" && slugs[before.Type()][before.Slug()] == id {
			delete(own(before.Type()), before.Slug())
		}
		if has && after.Slug() != "" {
			own(after.Type())[after.Slug()] = id
		}
	}
	return slugs
}

// sameTermSet reports whether two term maps are the same map (unchanged terms are passed on as is).
func sameTermSet(a, b map[int]*mapping.Term) bool {
	if len(a) != len(b) {
		return false
	}
	return len(a) == 0 || reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// sortedTerms lists the categories and the tags by name, as build does.
func sortedTerms(terms map[int]*mapping.Term, types Types) (cats, tags []*mapping.Term) {
	for _, t := range terms {
		switch t.Taxonomy {
		case types.CategoryTax:
			cats = append(cats, t)
		case types.TagTax:
			tags = append(tags, t)
		}
	}
	byName := func(l []*mapping.Term) func(i, j int) bool {
		return func(i, j int) bool {
			if l[i].Name != l[j].Name {
				return l[i].Name < l[j].Name
			}
			return l[i].ID < l[j].ID
		}
	}
	sort.Slice(cats, byName(cats))
	sort.Slice(tags, byName(tags))
	return cats, tags
}
