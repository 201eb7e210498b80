package catalog_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"calshim/catalog"
	"calshim/cmsclient"
	"calshim/internal/testkit/wpfake"
	"calshim/mapping"
)

// types are the upstream names of the recorded rig (config defaults).
var types = catalog.Types{Event: "tribe_events", Venue: "tribe_venue", Organizer: "tribe_organizer",
	CategoryTax: "tribe_events_cat", TagTax: "post_tag", CategoryBase: "tribe_events_cat", TagBase: "tags"}

// recordedAt is when the seed saved the recorded posts (modified_gmt of the first event): tests date
// their changes after it.
func recordedAt(tb testing.TB, fake *wpfake.Server) time.Time {
	tb.Helper()
	s, _ := fake.Item("tribe_events", 17)["modified_gmt"].(string)
	t, err := time.Parse("2006-01-02T15:04:05", s)
	if err != nil {
		tb.Fatalf("modified_gmt of event 17: %v", err)
	}
	return t
}

// newCatalog returns a catalog reading the fake as the service user. The fake's clock (the upstream
// clock the catalog polls from) stops one minute after the recording, before the recorded scheduled
// post's date. opts may adjust the options.
func newCatalog(tb testing.TB, fake *wpfake.Server, opts ...func(*catalog.Options)) *catalog.Catalog {
	tb.Helper()
	fake.SetNow(recordedAt(tb, fake).Add(time.Minute))
	opt := catalog.Options{Types: types, PollInterval: time.Millisecond, ReconcileEvery: 1000, PerPage: 10,
		Authenticated: true}
	for _, f := range opts {
		f(&opt)
	}
	return catalog.New(cmsclient.New(fake.Root, "calshim-reader", "app password", 5*time.Second), opt)
}

// mustLoad returns a loaded catalog.
func mustLoad(tb testing.TB, fake *wpfake.Server, opts ...func(*catalog.Options)) *catalog.Catalog {
	tb.Helper()
	cat := newCatalog(tb, fake, opts...)
	if err := cat.Load(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return cat
}

// idOf returns the recorded ID of a post by slug (the posts the seed adds get new IDs on every seed).
func idOf(tb testing.TB, fake *wpfake.Server, base, slug string) int {
	tb.Helper()
	for _, id := range fake.IDs(base) {
		if fake.Item(base, id)["slug"] == slug {
			return id
		}
	}
	tb.Fatalf("no %s with slug %q", base, slug)
	return 0
}

func postIDs(l []*mapping.Post) []int {
	var ids []int
	for _, p := range l {
		ids = append(ids, p.ID)
	}
	return ids
}

func termNames(l []*mapping.Term) []string {
	var names []string
	for _, t := range l {
		names = append(names, t.Name)
	}
	return names
}

func TestLoad(t *testing.T) {
	fake := wpfake.New(t)
	// One venue published earlier than the others, which the seed saved in the same second.
	fake.Update("tribe_venue", 10, func(o wpfake.Object) { o["date"] = "2020-01-01T00:00:00" })
	fake.Clone("media", 4, 99, nil) // an image no post uses
	cat := mustLoad(t, fake)
	s := cat.Snapshot()

	if got, want := [5]int{len(s.Events), len(s.Venues), len(s.Organizers), len(s.Categories), len(s.Tags)},
		[5]int{len(fake.IDs("tribe_events")), 8, 5, 5, 6}; got != want {
		t.Errorf("len Events, Venues, Organizers, Categories, Tags = %v, want %v", got, want)
	}
	if got, want := s.Version, uint64(1); got != want {
		t.Errorf("Version = %d, want %d", got, want)
	}
	if got, want := s.Location.String()+" "+s.Site.Timezone+" "+s.MultiDayCutoff, "America/New_York America/New_York 00:00"; got != want {
		t.Errorf("Location Timezone MultiDayCutoff = %q, want %q", got, want)
	}
	if !s.Authenticated || s.PerPage != 10 || s.Types() != types {
		t.Errorf("Authenticated, PerPage, Types = %v, %d, %+v", s.Authenticated, s.PerPage, s.Types())
	}

	t.Run("events by start date", func(t *testing.T) {
		if !slices.IsSortedFunc(s.Events, func(a, b *mapping.Post) int {
			if mapping.EventLess(a, b) {
				return -1
			}
			return 1
		}) {
			t.Errorf("Events not in EventLess order: %v", postIDs(s.Events))
		}
	})
	t.Run("venues newest first", func(t *testing.T) {
		bic := idOf(t, fake, "tribe_venue", "bangalore-international-centre")
		if got, want := postIDs(s.Venues), []int{bic, 11, 9, 8, 7, 6, 5, 10}; !slices.Equal(got, want) {
			t.Errorf("Venues = %v, want %v", got, want)
		}
	})
	t.Run("terms by name", func(t *testing.T) {
		if got, want := termNames(s.Categories), []string{"Family", "Jazz", "Music", "Technology", "Workshops"}; !slices.Equal(got, want) {
			t.Errorf("Categories = %q, want %q", got, want)
		}
		if got, want := termNames(s.Tags), []string{"charity", "free", "kids", "networking", "online", "outdoor"}; !slices.Equal(got, want) {
			t.Errorf("Tags = %q, want %q", got, want)
		}
	})
	t.Run("slugs", func(t *testing.T) {
		tests := []struct {
			typ, slug  string
			wantStatus string // "" = not found
		}{
			{"tribe_events", "opening-night-gala", "publish"},
			{"tribe_events", "cancelled-poetry-night__trashed", "trash"},
			{"tribe_events", "board-meeting", "private"},
			{"tribe_venue", "old-warehouse-unconfirmed", "draft"},
			{"tribe_organizer", "jazz-society-of-new-york", "publish"},
			{"tribe_venue", "opening-night-gala", ""},
			{"tribe_events", "no-such-event", ""},
		}
		for _, tc := range tests {
			p, ok := s.BySlug(tc.typ, tc.slug)
			got := ""
			if ok {
				got = p.Status()
				if p.Slug() != tc.slug || p.Type() != tc.typ {
					t.Errorf("BySlug(%s, %s) = %s %s", tc.typ, tc.slug, p.Type(), p.Slug())
				}
			}
			if got != tc.wantStatus {
				t.Errorf("BySlug(%s, %s) status = %q, want %q", tc.typ, tc.slug, got, tc.wantStatus)
			}
		}
	})
	t.Run("terms by role", func(t *testing.T) {
		p, ok := s.Post(17)
		if !ok {
			t.Fatal("no event 17")
		}
		want := map[string][]int{mapping.TaxonomyCategory: {2}, mapping.TaxonomyTag: {11}}
		if got := p.Terms; !mapsEqual(got, want) {
			t.Errorf("Terms = %v, want %v", got, want)
		}
		if p.Search() == "" {
			t.Error("SearchText empty")
		}
	})
	t.Run("never-published draft", func(t *testing.T) {
		if p, _ := s.Post(39); p == nil || p.DateGMT() != "0000-00-00 00:00:00" {
			t.Errorf("Post(39) = %+v, want the draft with date_gmt 0000-00-00 00:00:00", p)
		}
	})
	t.Run("featured images only", func(t *testing.T) {
		if m, ok := s.Media(4); !ok || len(m.Sizes) != 4 {
			t.Errorf("Media(4) = %+v, %v, want the stage image with 4 sizes", m, ok)
		}
		if _, ok := s.Media(99); ok {
			t.Error("Media(99) loaded, want only featured images")
		}
		var media []string
		for _, r := range fake.Requests() {
			if strings.HasSuffix(r.Path, "/media") {
				media = append(media, r.Query.Get("include"))
			}
		}
		if got, want := media, []string{"4"}; !slices.Equal(got, want) {
			t.Errorf("media requests include = %q, want %q", got, want)
		}
	})
	t.Run("requests", func(t *testing.T) {
		// the change feed's head (the fake has no feed: wp/v2 polling), index, 3 × (count for the
		// upstream clock + post list), 2 term lists, 1 media list
		if got, want := len(fake.Requests()), 11; got != want {
			t.Errorf("requests = %d, want %d: %v", got, want, fake.Requests())
		}
	})
}

func mapsEqual(a, b map[string][]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// Without a service credential only published posts are asked for (and held).
func TestLoadAnonymous(t *testing.T) {
	fake := wpfake.New(t)
	cat := mustLoad(t, fake, func(o *catalog.Options) { o.Authenticated = false })
	s := cat.Snapshot()
	for _, r := range fake.Requests() {
		if r.Query.Has("status") && r.Query.Get("status") != "publish" {
			t.Errorf("%s: status = %q, want publish", r, r.Query.Get("status"))
		}
	}
	for _, l := range [][]*mapping.Post{s.Events, s.Venues, s.Organizers} {
		for _, p := range l {
			if p.Status() != "publish" {
				t.Errorf("post %d status = %q, want only publish", p.ID, p.Status())
			}
		}
	}
	if got, want := len(s.Venues), 7; got != want {
		t.Errorf("len(Venues) = %d, want %d", got, want)
	}
	if s.Authenticated {
		t.Error("Authenticated = true, want false")
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(*wpfake.Server)
		wantUnav  bool
		wantInErr string
	}{
		{"plugin missing", func(f *wpfake.Server) { f.SetIndex(func(o wpfake.Object) { delete(o, "calshim") }) },
			false, "activate calshim bridge"},
		{"upstream down", func(f *wpfake.Server) { f.SetDown(503) }, true, "upstream unavailable"},
		{"post without the calshim field", func(f *wpfake.Server) {
			f.Update("tribe_events", 17, func(o wpfake.Object) { delete(o, "calshim") })
		}, false, "is the calshim WordPress plugin installed"},
		{"unknown time zone", func(f *wpfake.Server) {
			f.SetIndex(func(o wpfake.Object) { o["timezone_string"] = "Mars/Olympus_Mons" })
		}, false, "site time zone"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := wpfake.New(t)
			tc.setup(fake)
			cat := newCatalog(t, fake)
			err := cat.Load(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.wantInErr) {
				t.Fatalf("Load = %v, want an error containing %q", err, tc.wantInErr)
			}
			if got, want := errors.Is(err, cmsclient.ErrUnavailable), tc.wantUnav; got != want {
				t.Errorf("errors.Is(ErrUnavailable) = %v, want %v", got, want)
			}
			if cat.Snapshot() != nil || cat.Health().Loaded {
				t.Error("a snapshot after a failed first load")
			}
		})
	}
}
