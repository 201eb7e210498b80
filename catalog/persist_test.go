package catalog

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"calshim/cmsclient"
	"calshim/internal/testkit/wpfake"
	"calshim/mapping"
)

// A saved catalog restores to the same posts, lists, terms and feed position, its posts read in
// frames decoded in parallel; a file of another upstream, an unreadable or a truncated one is
// refused.
func TestSaveRestore(t *testing.T) {
	defer func(n int) { framePosts = n }(framePosts)
	framePosts = 7
	types := Types{Event: "tribe_events", Venue: "tribe_venue", Organizer: "tribe_organizer",
		CategoryTax: "tribe_events_cat", TagTax: "post_tag"}
	path := filepath.Join(t.TempDir(), "catalog.gob")
	opt := Options{Types: types, Authenticated: true, SnapshotPath: path, Upstream: "http://cms/wp-json#"}
	c := New(nil, opt)
	posts := map[int]*mapping.Post{}
	for id := 1; id <= 50; id++ {
		typ := []string{types.Event, types.Venue, types.Organizer}[id%3]
		slug := "p" + string(rune('a'+id%26)) + string(rune('a'+id/26))
		p := &mapping.Post{ID: id, Text: mapping.TextFields{Type: typ, Slug: slug}.Pack(),
			Meta: mapping.NewMeta(map[string][]string{"_EventCost": {"5"}}), Terms: map[string][]int{mapping.TaxonomyCategory: {3}}}
		p.Derived.Start = "2026-01-01 10:00:00"
		posts[id] = p
	}
	terms := map[int]*mapping.Term{3: {ID: 3, Name: "Music", Taxonomy: types.CategoryTax}}
	site := mapping.Site{Home: "http://cms", Timezone: "UTC"}
	c.snap.Store(build(Snapshot{Version: 7, Site: site, Authenticated: true, types: types}, posts, terms, nil))
	c.feed.on.Store(true)
	c.feed.log, c.feed.site = "log-1", "http://cms"
	c.feed.seq.Store(42)
	if err := c.Save(); err != nil {
		t.Fatal(err)
	}

	r := New(nil, opt)
	got, err := r.restore()
	if err != nil || got == nil {
		t.Fatalf("restore: %v", err)
	}
	want := c.snap.Load()
	if !reflect.DeepEqual(got.posts.toMap(), want.posts.toMap()) || !reflect.DeepEqual(ids(got.Events), ids(want.Events)) ||
		!reflect.DeepEqual(ids(got.Venues), ids(want.Venues)) || !reflect.DeepEqual(got.terms, want.terms) ||
		got.Version != 7 || got.Site != site {
		t.Errorf("restored snapshot differs")
	}
	if r.feed.seq.Load() != 42 || r.feed.log != "log-1" || !r.feed.on.Load() {
		t.Errorf("feed position = %d %q", r.feed.seq.Load(), r.feed.log)
	}

	other := opt
	other.Upstream = "http://other/wp-json#"
	if s, err := New(nil, other).restore(); s != nil || err == nil {
		t.Errorf("snapshot of another upstream restored")
	}
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	last := len(saved) // where the last frame starts: the file cut there ends on a frame
	for at := 0; at < len(saved); {
		last = at
		at += 8 + int(binary.BigEndian.Uint64(saved[at:]))
	}
	for _, cut := range []int{len(saved) - 1, len(saved) - 300, len(saved) / 2, 4, last} {
		if err := os.WriteFile(path, saved[:cut], 0o600); err != nil {
			t.Fatal(err)
		}
		if s, err := New(nil, opt).restore(); s != nil || err == nil {
			t.Errorf("snapshot cut at %d of %d bytes restored", cut, len(saved))
		}
	}
	if err := os.WriteFile(path, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := New(nil, opt).restore(); s != nil || err == nil {
		t.Errorf("unreadable snapshot restored")
	}
}

// Start removes the temporary files that saves stopped midway left in the snapshot's directory, and
// says how many; a temporary file written lately (a replica sharing the directory, saving now) and
// other files stay.
func TestStartRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for _, name := range []string{".calshim-snapshot-1", ".calshim-snapshot-2", ".calshim-snapshot-new", "other.gob"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("half a file"), 0o600); err != nil {
			t.Fatal(err)
		}
		if name != ".calshim-snapshot-new" {
			_ = os.Chtimes(path, old, old)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, ".calshim-snapshot-dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(filepath.Join(dir, ".calshim-snapshot-dir"), old, old)

	fake := wpfake.New(t)
	var events []string
	c := New(cmsclient.New(fake.Root, "calshim-reader", "app password", 5*time.Second), Options{
		Types: Types{Event: "tribe_events", Venue: "tribe_venue", Organizer: "tribe_organizer",
			CategoryTax: "tribe_events_cat", TagTax: "post_tag", CategoryBase: "tribe_events_cat", TagBase: "tags"},
		Authenticated: true, SnapshotPath: filepath.Join(dir, "catalog.gob"),
		Notify: func(event string, _ error) { events = append(events, event) }})
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}

	left, _ := os.ReadDir(dir)
	var names []string
	for _, e := range left {
		names = append(names, e.Name())
	}
	if want := []string{".calshim-snapshot-dir", ".calshim-snapshot-new", "other.gob"}; !slices.Equal(names, want) {
		t.Errorf("left %v, want %v", names, want)
	}
	if !slices.Contains(events, "removed 2 snapshot temporary files left by stopped saves") {
		t.Errorf("told %q", events)
	}
}
