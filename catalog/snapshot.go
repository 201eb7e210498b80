// Package catalog keeps an in-memory copy of the calendar held by the upstream CMS: events, venues,
// organizers, their terms and featured images. It loads everything at start, then polls for changes.
// Readers get an immutable Snapshot, so the read path never locks and never calls upstream.
package catalog

import (
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

	posts map[int]*mapping.Post
	terms map[int]*mapping.Term
	media map[int]*mapping.Media

	Events     []*mapping.Post // by start wall time, then post date, then ID
	Venues     []*mapping.Post // by post date descending, then ID descending (WordPress' default order)
	Organizers []*mapping.Post // same
	Categories []*mapping.Term // by name
	Tags       []*mapping.Term // by name

	slugs map[string]map[string]int // post type → slug → ID
	types Types
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
	s := base
	s.posts, s.terms, s.media = posts, terms, media
	s.Events, s.Venues, s.Organizers, s.Categories, s.Tags = nil, nil, nil, nil, nil
	s.slugs = map[string]map[string]int{}
	for _, p := range posts {
		if s.slugs[p.Type] == nil {
			s.slugs[p.Type] = map[string]int{}
		}
		if p.Slug != "" { // never-published drafts have none; "" is no slug to look up
			s.slugs[p.Type][p.Slug] = p.ID
		}
		switch p.Type {
		case s.types.Event:
			s.Events = append(s.Events, p)
		case s.types.Venue:
			s.Venues = append(s.Venues, p)
		case s.types.Organizer:
			s.Organizers = append(s.Organizers, p)
		}
	}
	sort.Slice(s.Events, func(i, j int) bool { return mapping.EventLess(s.Events[i], s.Events[j]) })
	newestFirst := func(l []*mapping.Post) func(i, j int) bool {
		return func(i, j int) bool {
			if l[i].Date != l[j].Date {
				return l[i].Date > l[j].Date
			}
			return l[i].ID > l[j].ID
		}
	}
	sort.Slice(s.Venues, newestFirst(s.Venues))
	sort.Slice(s.Organizers, newestFirst(s.Organizers))
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
	return &s
}
