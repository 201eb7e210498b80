package catalog

import (
	"fmt"
	"maps"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"

	"calshim/cmsclient"
	"calshim/mapping"
)

// The catalog's costs at 100,000 and 1,000,000 events (docs/performance.md, "A million events").

// BenchmarkPatchOne is what a poll bringing one edited event costs the catalog at 100,000 and at
// 1,000,000 events: the posts map edited (as applyPosts does) and patch, which re-indexes it.
func BenchmarkPatchOne(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		posts := randomEvents(rand.New(rand.NewSource(1)), n)
		base := Snapshot{types: indexTypes}
		old := build(base, posts, map[int]*mapping.Term{}, map[int]*mapping.Media{})
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for i := range b.N {
				id := 1 + i%n
				edit := old.posts.edit()
				p, _ := edit.get(id)
				q := *p
				edit.set(id, &q)
				patch(base, old, edit.done(), old.terms, old.media, []int{id})
			}
		})
	}
}

// BenchmarkPollBookkeeping is what a poll bringing one edited event costs besides patch, at
// 100,000 and 1,000,000 events, the way before issue 28's million work and now: a periodic check
// listing the IDs the catalog holds ("ids/sorted": a map of their digests and a sort, as it was;
// "ids/held": heldIDs following the edit) and the journal's diff ("diff/lists": the three lists
// walked side by side, as it was; "diff/shards": the shards the edit wrote to).
func BenchmarkPollBookkeeping(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		posts := randomEvents(rand.New(rand.NewSource(1)), n)
		base := Snapshot{types: indexTypes}
		first := build(base, posts, map[int]*mapping.Term{}, map[int]*mapping.Media{})
		digests := make(map[int]cmsclient.Digest, n)
		for id := range posts {
			digests[id] = cmsclient.Digest(id)
		}
		edited := func(old *Snapshot, i int) *Snapshot {
			id := 1 + i%n
			edit := old.posts.edit()
			p, _ := edit.get(id)
			q := *p
			q.Derived.Start = "2026-12-01 10:00:00"
			edit.set(id, &q)
			next := base
			next.Version = old.Version + 1
			return patch(next, old, edit.done(), old.terms, old.media, []int{id})
		}
		b.Run(fmt.Sprint(n, "/ids/sorted"), func(b *testing.B) {
			for b.Loop() {
				local := make(map[int]cmsclient.Digest, len(digests))
				for id := range first.posts.all() {
					local[id] = digests[id]
				}
				_ = slices.Sorted(maps.Keys(local))
			}
		})
		next := edited(first, 7)
		b.Run(fmt.Sprint(n, "/ids/held"), func(b *testing.B) { // from one to the other and back
			var h heldIDs
			h.of(first.posts)
			for i := 0; b.Loop(); i++ {
				h.of([]*Snapshot{next, first}[i%2].posts)
			}
		})
		b.Run(fmt.Sprint(n, "/diff/lists"), func(b *testing.B) {
			for b.Loop() {
				diffList(first.Events, next.Events, first, next)
			}
		})
		b.Run(fmt.Sprint(n, "/diff/shards"), func(b *testing.B) {
			for b.Loop() {
				diffShards(first, next)
			}
		})
	}
}

// BenchmarkListEvents is ListEvents' cost per page at 100,000 and 1,000,000 events (loadTestEvents):
// a list of dates and statuses counted from the index (the default list, a window) and a category's
// posting scanned.
func BenchmarkListEvents(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		s := build(Snapshot{types: indexTypes}, loadTestEvents(n), nil, nil)
		for _, q := range []struct {
			name string
			f    mapping.EventFilter
		}{
			{"list", mapping.EventFilter{Statuses: []string{"publish"}, EndsAfter: "2026-06-03 00:30:00"}},
			{"window", mapping.EventFilter{Statuses: []string{"publish"}, StartMin: "2026-06-03 00:30:00",
				EndMax: "2026-08-01 00:00:00"}},
			{"category", mapping.EventFilter{Statuses: []string{"publish"}, StartMin: "2026-06-03 00:30:00",
				Categories: []int{2}}},
		} {
			b.Run(fmt.Sprint(n, "/", q.name), func(b *testing.B) {
				for range b.N {
					s.ListEvents(&q.f, 40, 10)
				}
			})
		}
	}
}

// BenchmarkRestore is a restart's reading of the snapshot file at 100,000 and 1,000,000 events
// shaped like scripts/seed.php's generated ones (loadTestEvents): the time per restore, the peak
// resident size while it runs (VmHWM, reset before each restore; Linux) above the size before it,
// the heap live after it, and the file's size. ns/op is the restore alone.
func BenchmarkRestore(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			opt := Options{Types: indexTypes, Authenticated: true, Upstream: "http://cms/wp-json#",
				SnapshotPath: filepath.Join(b.TempDir(), "catalog.gob")}
			saveLoadTestEvents(b, opt, n)
			info, err := os.Stat(opt.SnapshotPath)
			if err != nil {
				b.Fatal(err)
			}
			var peak, live uint64
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				runtime.GC()
				debug.FreeOSMemory()
				before := resetPeakRSS(b)
				b.StartTimer()
				snap, err := New(nil, opt).restore()
				b.StopTimer()
				if err != nil || snap == nil || len(snap.Events) != n {
					b.Fatalf("restore: %v", err)
				}
				peak = max(peak, procStatus(b, "VmHWM")-before)
				runtime.GC()
				live = max(live, heapLive())
				runtime.KeepAlive(snap)
				b.StartTimer()
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
			b.ReportMetric(float64(live)/(1<<20), "live-MiB")
			b.ReportMetric(float64(info.Size())/(1<<20), "file-MiB")
		})
	}
}

// saveLoadTestEvents writes the snapshot file of a catalog of n loadTestEvents.
func saveLoadTestEvents(b *testing.B, opt Options, n int) {
	c := New(nil, opt)
	posts := loadTestEvents(n)
	c.snap.Store(build(Snapshot{Version: 1, Site: mapping.Site{Home: "http://cms", Timezone: "UTC"},
		Authenticated: true, types: indexTypes}, posts, nil, nil))
	c.feed.on.Store(true)
	c.feed.log, c.feed.site = "log-1", "http://cms"
	if err := c.Save(); err != nil {
		b.Fatal(err)
	}
}

// loadTestEvents is n events as scripts/seed.php generates them (a title, a sentence of content,
// a link, about 12 meta rows: dates, time zone, cost, venue, organizers), as the catalog keeps
// them.
func loadTestEvents(n int) map[int]*mapping.Post {
	posts := make(map[int]*mapping.Post, n)
	for i := 1; i <= n; i++ {
		slug := fmt.Sprintf("load-test-event-%07d", i)
		title := fmt.Sprintf("Load Test Event %07d", i)
		start := fmt.Sprintf("2026-%02d-%02d %02d:00:00", 1+i%12, 1+i%28, 8+i%12)
		end := fmt.Sprintf("2026-%02d-%02d %02d:00:00", 1+i%12, 1+i%28, 9+i%12)
		meta := map[string][]string{"_EventStartDate": {start}, "_EventEndDate": {end},
			"_EventStartDateUTC": {start}, "_EventEndDateUTC": {end}, "_EventTimezone": {"Europe/London"},
			"_EventTimezoneAbbr": {"GMT"}, "_EventDuration": {"3600"}, "_EventCost": {strconv.Itoa(i % 50)},
			"_EventOrigin": {"events-calendar"}, "_EventShowMapLink": {""}, "_EventShowMap": {""},
			"_EventVenueID": {strconv.Itoa(10 + i%9)}, "_EventOrganizerID": {strconv.Itoa(20 + i%7)}}
		content := "<p>" + title + ": generated for load tests.</p>"
		p := &mapping.Post{ID: i, Author: 1, Meta: mapping.NewMeta(meta),
			Terms: map[string][]int{mapping.TaxonomyCategory: {1 + i%6}, mapping.TaxonomyTag: {7 + i%5}},
			Text: mapping.TextFields{Type: indexTypes.Event, Status: "publish", Date: start, DateGMT: start,
				Modified: start, ModifiedGMT: start, Slug: slug, Link: "http://cms/event/" + slug + "/",
				Title: title, Content: content, ExcerptText: title + ": generated for load tests.",
				Search: strings.ToLower(title + " " + content)}.Pack(),
			Version: fmt.Sprintf("%032x", i*7919)}
		p.Derived = mapping.Derived{Start: start, End: end, Featured: i%23 == 0,
			Venues: []int{10 + i%9}, Organizers: []int{20 + i%7}}
		posts[i] = p
	}
	return posts
}

// resetPeakRSS resets the process's peak resident size (VmHWM) to its current one, which it
// answers.
func resetPeakRSS(b *testing.B) uint64 {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Skipf("peak resident size: %v", err)
	}
	return procStatus(b, "VmRSS")
}

// procStatus is a size /proc/self/status gives (VmRSS, VmHWM), in bytes.
func procStatus(b *testing.B, field string) uint64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skipf("peak resident size: %v", err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	b.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// heapLive is the heap the last collection marked live.
func heapLive() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
