// Package catalog keeps an in-memory copy of the calendar held by the upstream CMS: events, venues,
// organizers, their terms and featured images. It loads everything at start, then polls for changes.
// Readers get an immutable Snapshot, so the read path never locks and never calls upstream.
package catalog

import (
	"maps"
	"reflect"
	"slices"
	"sort"
	"sync"
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

	posts *postMap
	terms map[int]*mapping.Term
	media map[int]*mapping.Media

	Events     []*mapping.Post // by start wall time, then post date, then ID
	Venues     []*mapping.Post // by post date descending, then ID descending (WordPress' default order)
	Organizers []*mapping.Post // same
	Categories []*mapping.Term // by name
	Tags       []*mapping.Term // by name

	slugs    map[string]*slugMap // post type → slug → ID
	types    Types
	eventIdx *eventIndex // answers ListEvents
}

// Types names the upstream post types and taxonomies.
type Types struct {
	Event, Venue, Organizer string // post types, e.g. tribe_events
	CategoryTax, TagTax     string // taxonomy names, e.g. tribe_events_cat, post_tag
	CategoryBase, TagBase   string // their wp/v2 REST bases, e.g. tribe_events_cat, tags
}

// postMap holds the posts by ID, shared by the snapshots a poll makes from one another.
type postMap = shardMap[int, *mapping.Post]

// slugMap holds one post type's IDs by slug.
type slugMap = shardMap[string, int]

// Post returns any post of the catalog by ID (implements mapping.Lookup).
func (s *Snapshot) Post(id int) (*mapping.Post, bool) { return s.posts.get(id) }

// Term returns a term by ID.
func (s *Snapshot) Term(id int) (*mapping.Term, bool) { t, ok := s.terms[id]; return t, ok }

// Media returns an attachment by ID.
func (s *Snapshot) Media(id int) (*mapping.Media, bool) { m, ok := s.media[id]; return m, ok }

// BySlug returns the post of the given type with that slug, in any status.
func (s *Snapshot) BySlug(postType, slug string) (*mapping.Post, bool) {
	id, ok := s.slugs[postType].get(slug)
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
	return buildOrdered(base, shardMapOf(posts, intShard), nil, terms, media)
}

// buildOrdered is build with the posts in a postMap (nil: made from ordered) and also given as a
// list (nil: taken from the map): lists already in index order (a restored snapshot) sort in linear
// time. The maps, the lists and the event index are made in parallel.
func buildOrdered(base Snapshot, posts *postMap, ordered []*mapping.Post,
	terms map[int]*mapping.Term, media map[int]*mapping.Media) *Snapshot {
	if ordered == nil {
		ordered = make([]*mapping.Post, 0, posts.len())
		for _, p := range posts.all() {
			ordered = append(ordered, p)
		}
	}
	s := base
	s.terms, s.media = terms, media
	var wg sync.WaitGroup
	if posts == nil {
		wg.Go(func() { posts = postMapOf(ordered) })
	}
	var slugs map[string]*slugMap
	wg.Go(func() { slugs = slugIndex(ordered) })
	s.Events, s.Venues, s.Organizers = nil, nil, nil
	for _, p := range ordered {
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
	s.Categories, s.Tags = sortedTerms(terms, s.types)
	s.eventIdx = newEventIndex(s.Events)
	wg.Wait()
	s.posts, s.slugs = posts, slugs
	return &s
}

// postMapOf holds the posts by ID.
func postMapOf(posts []*mapping.Post) *postMap {
	e := newShardMap[int, *mapping.Post](intShard).edit()
	for _, p := range posts {
		e.set(p.ID, p)
	}
	return e.done()
}

// slugIndex is the posts' IDs by type and slug; of two posts of a type with one slug, the later.
func slugIndex(posts []*mapping.Post) map[string]*slugMap {
	edits := map[string]*shardEdit[string, int]{}
	for _, p := range posts {
		if edits[p.Type()] == nil {
			edits[p.Type()] = newShardMap[string, int](stringShard).edit()
		}
		if p.Slug() != "" { // never-published drafts have none; "" is no slug to look up
			edits[p.Type()].set(p.Slug(), p.ID)
		}
	}
	slugs := make(map[string]*slugMap, len(edits))
	for typ, e := range edits {
		slugs[typ] = e.done()
	}
	return slugs
}

// patch returns what build(base, posts, terms, media) returns, made from old by re-indexing only the
// posts whose IDs are in changed (added, replaced or removed): a poll that brings k changes of n
// posts costs k binary searches and one copy of the three lists (pointers), k blocks of the event
// index and k shards of the maps, not a sort nor an index of the whole catalog. When a large part
// of the catalog changed, it is built afresh (which also evens out the index's blocks).
func patch(base Snapshot, old *Snapshot, posts *postMap, terms map[int]*mapping.Term,
	media map[int]*mapping.Media, changed []int) *Snapshot {
	if len(changed) > max(posts.len(), old.posts.len())/4 {
		return buildOrdered(base, posts, nil, terms, media)
	}
	s := base
	s.posts, s.terms, s.media, s.types = posts, terms, media, old.types
	type edit struct{ gone, add []*mapping.Post }
	edits := map[string]*edit{s.types.Event: {}, s.types.Venue: {}, s.types.Organizer: {}}
	var goneListed, addListed []*mapping.Post
	for _, id := range distinctIDs(changed) {
		if p, ok := old.posts.get(id); ok && edits[p.Type()] != nil {
			edits[p.Type()].gone = append(edits[p.Type()].gone, p)
			if p.Type() == s.types.Event && !p.Derived.Hidden {
				goneListed = append(goneListed, p)
			}
		}
		if p, ok := posts.get(id); ok && edits[p.Type()] != nil {
			edits[p.Type()].add = append(edits[p.Type()].add, p)
			if p.Type() == s.types.Event && !p.Derived.Hidden {
				addListed = append(addListed, p)
			}
		}
	}
	e, v, o := edits[s.types.Event], edits[s.types.Venue], edits[s.types.Organizer]
	s.Events = splice(old.Events, e.gone, e.add, mapping.EventLess)
	s.Venues = splice(old.Venues, v.gone, v.add, mapping.NewerFirst)
	s.Organizers = splice(old.Organizers, o.gone, o.add, mapping.NewerFirst)
	s.slugs = patchSlugs(old, posts, changed)
	s.Categories, s.Tags = old.Categories, old.Tags
	if !sameTermSet(old.terms, terms) {
		s.Categories, s.Tags = sortedTerms(terms, s.types)
	}
	s.eventIdx = old.eventIdx.patched(goneListed, addListed)
	return &s
}

// distinctIDs is ids without repetitions.
func distinctIDs(ids []int) []int {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// splice returns list (sorted by less) without the posts in gone (which it holds) and with those in
// add, in order: a binary search per post and one copy of the list.
func splice(list, gone, add []*mapping.Post, less func(a, b *mapping.Post) bool) []*mapping.Post {
	if len(gone) == 0 && len(add) == 0 {
		return list
	}
	cut := make([]int, 0, len(gone))
	for _, p := range gone {
		i := sort.Search(len(list), func(i int) bool { return !less(list[i], p) })
		if i == len(list) || list[i] != p {
			i = slices.Index(list, p) // not where its order puts it: never so in a sorted list
		}
		if i >= 0 {
			cut = append(cut, i)
		}
	}
	slices.Sort(cut)
	add = slices.Clone(add)
	slices.SortFunc(add, func(a, b *mapping.Post) int {
		if less(a, b) {
			return -1
		}
		return 1
	})
	out := make([]*mapping.Post, 0, len(list)-len(cut)+len(add))
	from := 0 // the next post of list to copy
	for len(cut) > 0 || len(add) > 0 {
		at := len(list) + 1
		if len(add) > 0 {
			at = sort.Search(len(list), func(i int) bool { return less(add[0], list[i]) })
		}
		if len(cut) == 0 || at <= cut[0] {
			out = append(append(out, list[from:at]...), add[0])
			from, add = at, add[1:]
			continue
		}
		out = append(out, list[from:cut[0]]...)
		from, cut = cut[0]+1, cut[1:]
	}
	return append(out, list[from:]...)
}

// patchSlugs returns old's slug index with the changed posts' entries updated; the map of a post
// type is edited (shardMap) only when one of its posts changed slug.
func patchSlugs(old *Snapshot, posts *postMap, changed []int) map[string]*slugMap {
	edits := map[string]*shardEdit[string, int]{}
	own := func(typ string) *shardEdit[string, int] {
		if edits[typ] == nil {
			m := old.slugs[typ]
			if m == nil {
				m = newShardMap[string, int](stringShard)
			}
			edits[typ] = m.edit()
		}
		return edits[typ]
	}
	for _, id := range changed {
		before, had := old.posts.get(id)
		after, has := posts.get(id)
		if had && has && before.Type() == after.Type() && before.Slug() == after.Slug() {
			continue // most edits keep the slug: the index stays shared
		}
		if had && before.Slug() != "" {
			if at, ok := own(before.Type()).get(before.Slug()); ok && at == id {
				own(before.Type()).delete(before.Slug())
			}
		}
		if has && after.Slug() != "" {
			own(after.Type()).set(after.Slug(), id)
		}
	}
	if len(edits) == 0 {
		return old.slugs
	}
	slugs := maps.Clone(old.slugs)
	for typ, e := range edits {
		slugs[typ] = e.done()
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
