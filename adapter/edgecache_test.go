package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"calshim/catalog"
	"calshim/internal/testkit/wpfake"
	"calshim/mapping"
)

// edgeServer is a calshim over the fake with edge caching on (keys in "xkey", purges to purgeURLs),
// its writes answered as writeRig's are.
func edgeServer(t *testing.T, log *zap.Logger, purgeURLs ...string) (*wpfake.Server, *Server, http.Handler) {
	wp := wpfake.New(t)
	opt := testOptions()
	opt.EventCacheBytes = 1 << 20 // lists show events kept as JSON (listedEvent)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	opt.Edge = EdgeOptions{SMaxAge: 5 * time.Minute, StaleWhileRevalidate: 30 * time.Second, KeyHeader: "xkey",
		PurgeURLs: purgeURLs, PurgeMethod: "PURGE", PurgeKeyHeader: "xkey-purge", PurgeHeader: "X-Token: t0k",
		Context: ctx}
	s, h := newServer(fakeCatalog(t, wp), log, opt)
	me := strings.Replace(fullEditorMe, `"upload_files":true`, `"upload_files":true,"delete_tribe_venues":true,`+
		`"delete_others_tribe_venues":true,"delete_published_tribe_venues":true`, 1) // trashes venues too
	wp.RecordWrites(map[string]string{editorAuth: me})
	return wp, s, h
}

// shownKeys are the keys of every object an answer shows, read from its JSON: the list's items or
// the single object, and an event's venue, organizers and terms.
func shownKeys(t *testing.T, kind string, single bool, body []byte) []string {
	t.Helper()
	var items []map[string]any
	if single {
		var o map[string]any
		mustJSON(t, body, &o)
		items = []map[string]any{o}
	} else {
		var l map[string]json.RawMessage
		mustJSON(t, body, &l)
		mustJSON(t, l[kind], &items)
	}

	var keys []string
	id := func(prefix string, o any) {
		if m, ok := o.(map[string]any); ok {
			keys = append(keys, prefix+strconv.Itoa(int(m["id"].(float64))))
		}
	}
	for _, it := range items {
		id(collections[kind], it)
		id("v", it["venue"])
		for _, field := range []struct{ name, prefix string }{{"organizer", "o"}, {"categories", "t"}, {"tags", "t"}} {
			l, _ := it[field.name].([]any)
			for _, o := range l {
				id(field.prefix, o)
			}
		}
	}
	return keys
}

func mustJSON(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %.300s", err, b)
	}
}

// Anonymous answers carry s-maxage, stale-while-revalidate, Vary: Origin and keys naming every
// event, venue, organizer and term they show (with `_fields` too, which leaves the IDs out of the
// body), plus the list's key; everything else is as before.
func TestEdgeKeysNameWhatAnswersShow(t *testing.T) {
	_, _, h := edgeServer(t, zap.NewNop())
	wide := "?start_date=2000-01-01&end_date=2100-01-01&per_page=50"
	for _, tc := range []struct {
		path, kind string
		single     bool
	}{
		{"/events" + wide, "events", false},
		{"/events/17", "events", true},
		{"/events/by-slug/opening-night-gala", "events", true},
		{"/venues?per_page=50", "venues", false},
		{"/venues/5", "venues", true},
		{"/organizers?per_page=50", "organizers", false},
		{"/categories?per_page=50", "categories", false},
		{"/categories/3", "categories", true},
		{"/tags", "tags", false},
	} {
		rec := serve(h, http.MethodGet, calV1+tc.path)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", tc.path, rec.Code, rec.Body)
		}
		keys := strings.Fields(rec.Header().Get("xkey"))
		want := append(shownKeys(t, tc.kind, tc.single, rec.Body.Bytes()), "calshim")
		if !tc.single {
			want = append(want, "list-"+tc.kind)
		}
		for _, k := range want {
			if !slices.Contains(keys, k) {
				t.Errorf("%s: keys %v lack %s", tc.path, keys, k)
			}
		}
		if len(want) < 2 || (tc.kind == "events" && !slices.ContainsFunc(keys, func(k string) bool { return k[0] == 'v' })) {
			t.Errorf("%s: too little shown to check: %v", tc.path, want)
		}
		if cc := rec.Header().Get("Cache-Control"); cc != "public, max-age=0, s-maxage=300, stale-while-revalidate=30" ||
			rec.Header().Get("Vary") != "Origin" {
			t.Errorf("%s: Cache-Control %q, Vary %q", tc.path, cc, rec.Header().Get("Vary"))
		}

		sep := "?"
		if strings.Contains(tc.path, "?") {
			sep = "&"
		}
		if got := serve(h, http.MethodGet, calV1+tc.path+sep+"_fields=title").Header().Get("xkey"); got != rec.Header().Get("xkey") {
			t.Errorf("%s with _fields: keys %q, without %q", tc.path, got, rec.Header().Get("xkey"))
		}
	}

	// Answers whose items calshim does not name carry every list key; errors and known callers none.
	if got := serve(h, http.MethodGet, calV1+"/events.ics").Header().Get("xkey"); got != coarseKeys {
		t.Errorf("feed keys %q", got)
	}
	missing := serve(h, http.MethodGet, calV1+"/events/999999")
	if missing.Header().Get("xkey") != "" || !strings.Contains(missing.Header().Get("Cache-Control"), "no-store") {
		t.Errorf("404 carries %v", missing.Header())
	}
	if rec := serve(h, http.MethodGet, calV1+"/events/17", asUser(editorAuth), jsonBody("")); rec.Header().Get("xkey") != "" ||
		strings.Contains(rec.Header().Get("Cache-Control"), "s-maxage") {
		t.Errorf("a known caller's answer carries %v", rec.Header())
	}

	// With an Origin, Vary names it once.
	rec := serve(h, http.MethodGet, calV1+"/events/17", withHeader("Origin", "https://example.org"))
	if v := rec.Header().Values("Vary"); !slices.Equal(v, []string{"Origin"}) {
		t.Errorf("Vary with an Origin: %q", v)
	}
}

// Off by default: Cache-Control is what it was and no keys are sent.
func TestEdgeOffByDefault(t *testing.T) {
	rec := serve(newTestServer(t), http.MethodGet, calV1+"/events/17")
	if rec.Header().Get("Cache-Control") != "public, max-age=0, must-revalidate" ||
		rec.Header().Get("Surrogate-Key") != "" || rec.Header().Get("Vary") != "" {
		t.Errorf("headers %v", rec.Header())
	}
}

// purgeRecorder is a cache that records the purges it receives; fail makes it answer 503.
type purgeRecorder struct {
	mu     sync.Mutex
	keys   [][]string
	header []string
	fail   bool
}

func (p *purgeRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	if r.Method != "PURGE" || r.URL.Path != "/purge" {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	p.keys = append(p.keys, strings.Fields(r.Header.Get("xkey-purge")))
	p.header = append(p.header, r.Header.Get("X-Token"))
}

func (p *purgeRecorder) setFail(fail bool) { p.mu.Lock(); p.fail = fail; p.mu.Unlock() }

// purged is every batch received since from.
func (p *purgeRecorder) since(from int) [][]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.keys[min(from, len(p.keys)):])
}

func (p *purgeRecorder) count() int { p.mu.Lock(); defer p.mu.Unlock(); return len(p.keys) }

// waitPurged waits until the recorder holds a batch after from with every key of want, and returns
// the batches received after from.
func waitPurged(t *testing.T, p *purgeRecorder, from int, want ...string) [][]string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := p.since(from)
		for _, batch := range got {
			if !slices.ContainsFunc(want, func(k string) bool { return !slices.Contains(batch, k) }) {
				return got
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no purge of %v after batch %d; got %v", want, from, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A change purges exactly the keys of what it changed and the list of its kind, twice (settle);
// a start purges everything.
func TestEdgePurgesWhatChanged(t *testing.T) {
	rec := &purgeRecorder{}
	cache := httptest.NewServer(rec)
	defer cache.Close()
	wp, _, h := edgeServer(t, zap.NewNop(), cache.URL+"/purge")
	waitPurged(t, rec, 0, "calshim")
	time.Sleep(settle + 3*watchTick) // the start's second purge
	if got := rec.since(0); len(got) != 2 || rec.header[0] != "t0k" {
		t.Fatalf("start purged %v (header %q)", got, rec.header)
	}

	event, venue := wp.IDs("tribe_events")[0], wp.IDs("tribe_venue")[0]
	for _, tc := range []struct {
		method, path, body string
		want               []string
		// also are the prefixes of other keys the write changed: the events a deleted venue is
		// unlinked from, and their list
		also []string
	}{
		{http.MethodDelete, fmt.Sprintf("/events/%d", event), "", []string{fmt.Sprintf("e%d", event), "list-events"}, nil},
		{http.MethodDelete, fmt.Sprintf("/venues/%d", venue), "", []string{fmt.Sprintf("v%d", venue), "list-venues"}, []string{"e", "list-events"}},
		{http.MethodPost, "/tags", `{"name":"edge-tag"}`, []string{"list-tags"}, nil}, // and the new tag's key
	} {
		from := rec.count()
		res := serve(h, tc.method, calV1+tc.path, asUser(editorAuth), jsonBody(tc.body))
		if res.Code >= 300 {
			t.Fatalf("%s %s: %d %s", tc.method, tc.path, res.Code, res.Body)
		}
		if tc.path == "/tags" {
			var tag struct{ ID int }
			if err := json.Unmarshal(res.Body.Bytes(), &tag); err != nil || tag.ID == 0 {
				t.Fatalf("new tag: %v %s", err, res.Body)
			}
			tc.want = append(tc.want, fmt.Sprintf("t%d", tag.ID))
		}
		got := waitPurged(t, rec, from, tc.want...)[0]
		for _, k := range got {
			also := slices.ContainsFunc(tc.also, func(p string) bool { return strings.HasPrefix(k, p) })
			if !slices.Contains(tc.want, k) && !also {
				t.Errorf("%s %s purged %v: %s is not among %v", tc.method, tc.path, got, k, tc.want)
			}
		}
		waitPurged(t, rec, from+1, tc.want...) // again, settle later
	}
}

// A cache that fails gets its keys again with backoff, counted by result, with one log line when
// it starts failing and one when it answers again.
func TestEdgePurgeRetriesAFailingCache(t *testing.T) {
	rec := &purgeRecorder{fail: true}
	cache := httptest.NewServer(rec)
	defer cache.Close()
	core, logs := observer.New(zapcore.InfoLevel)
	_, s, _ := edgeServer(t, zap.New(core), cache.URL+"/purge")
	deadline := time.Now().Add(5 * time.Second)
	for counted(s.edge.failed) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	rec.setFail(false)
	waitPurged(t, rec, 0, "calshim")
	if counted(s.edge.ok) < 1 || counted(s.edge.failed) < 3 {
		t.Errorf("ok %v, failed %v", counted(s.edge.ok), counted(s.edge.failed))
	}
	if n := logs.FilterMessageSnippet("purge failed").Len(); n != 1 {
		t.Errorf("%d failure lines, want 1", n)
	}
	if n := logs.FilterMessageSnippet("succeed again").Len(); n != 1 {
		t.Errorf("%d recovery lines, want 1", n)
	}
}

func counted(c prometheus.Counter) float64 {
	m := &dto.Metric{}
	_ = c.Write(m)
	return m.GetCounter().GetValue()
}

// The queue of a cache is bounded: past maxPending keys, one purge of everything replaces them, and
// batches hold at most purgeBatch keys.
func TestPurgeQueueIsBounded(t *testing.T) {
	q := &purgeTarget{keys: map[string]bool{}, wake: make(chan struct{}, 1)}
	keys := make([]string, maxPending)
	for i := range keys {
		keys[i] = "e" + strconv.Itoa(i)
	}
	if q.add(keys) {
		t.Fatal("collapsed at the bound")
	}
	if b := q.take(purgeBatch); len(b) != purgeBatch {
		t.Fatalf("batch of %d", len(b))
	}
	if !q.add(append(keys, "e-1")) || len(q.keys) != 1 || !q.keys[keyAll] {
		t.Fatalf("past the bound: %d keys", len(q.keys))
	}
	if q.add(keys); len(q.keys) != 1 {
		t.Errorf("keys added to a purge of everything: %d", len(q.keys))
	}
}

// Keys of a listed event's JSON come from its opening id; anything else makes the answer coarse.
func TestItemID(t *testing.T) {
	for _, tc := range []struct {
		in string
		id int
		ok bool
	}{{`{"id":17,"global_id":"x"}`, 17, true}, {`{"global_id":"x","id":17}`, 0, false}, {`{"id":"17",`, 0, false},
		{`{"id":17}`, 0, false}} {
		if id, ok := itemID(mapping.Raw(tc.in)); id != tc.id || ok != tc.ok {
			t.Errorf("%s: %d %v", tc.in, id, ok)
		}
	}
}

// A post whose image changed, was added or removed while the post did not is purged with its list;
// an image equal to the one before is no change.
func TestChangedImagesPurgeTheirPosts(t *testing.T) {
	types := catalog.Types{Event: "tribe_events", Venue: "tribe_venue"}
	post := func(id, media int, typ string) *mapping.Post {
		return &mapping.Post{ID: id, FeaturedMedia: media, Text: mapping.TextFields{Type: typ}.Pack()}
	}
	lookup := func(m map[int]*mapping.Media) func(int) (*mapping.Media, bool) {
		return func(id int) (*mapping.Media, bool) { v, ok := m[id]; return v, ok }
	}
	was := map[int]*mapping.Media{100: {ID: 100, URL: "a"}, 101: {ID: 101, URL: "b"}, 102: {ID: 102, URL: "c"}}
	is := map[int]*mapping.Media{100: {ID: 100, URL: "a"}, 101: {ID: 101, URL: "b2"}, 103: {ID: 103, URL: "d"}}
	k := keySet{}
	k.addChangedImages(types, [][]*mapping.Post{
		{post(1, 100, "tribe_events"), post(2, 101, "tribe_events"), post(3, 0, "tribe_events")},
		{post(4, 102, "tribe_venue"), post(5, 103, "tribe_venue")},
	}, lookup(was), lookup(is))
	slices.Sort(k.list)
	if want := []string{"e2", "list-events", "list-venues", "v4", "v5"}; !slices.Equal(k.list, want) {
		t.Errorf("keys %v, want %v", k.list, want)
	}
}

// An answer whose keys would pass maxKeyBytes carries every list key instead.
func TestEdgeKeysOfALargeAnswerAreCoarse(t *testing.T) {
	e := newEdge(EdgeOptions{SMaxAge: time.Minute, KeyHeader: "xkey"}, zap.NewNop())
	r := &request{snap: fakeCatalog(t, wpfake.New(t)).Snapshot()}
	tags := func(n int) mapping.Object {
		var items []any
		for i := range n {
			items = append(items, mapping.Object{{Key: "id", Value: 1000000 + i}})
		}
		return mapping.Object{{Key: "tags", Value: items}}
	}
	if got := e.answerKeys(&route{pattern: "/tags", shows: shown{"tags", false}}, r, tags(3)); got != "calshim list-tags t1000000 t1000001 t1000002" {
		t.Errorf("3 tags: %q", got)
	}
	if got := e.answerKeys(&route{pattern: "/tags", shows: shown{"tags", false}}, r, tags(maxKeyBytes/8)); got != coarseKeys {
		t.Errorf("%d tags: %.100q", maxKeyBytes/8, got)
	}
}

// itemID reads any bytes without panicking, and an id it reads is the one the JSON opens with.
func FuzzItemID(f *testing.F) {
	f.Add([]byte(`{"id":17,"global_id":"x"}`))
	f.Add([]byte(`{"id":-1,`))
	f.Add([]byte(`{"id":01,`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if id, ok := itemID(mapping.Raw(b)); ok && !strings.HasPrefix(string(b), `{"id":`+strconv.Itoa(id)) {
			t.Errorf("%q read as %d", b, id)
		}
	})
}

// Every v1 route of a collection names it for the edge keys, single for an object's route; the
// others (the namespace, /doc, the iCalendar feed) name none and get the coarse keys.
func TestRoutesShowTheirCollection(t *testing.T) {
	for _, rt := range routeTable() {
		kind, rest, _ := strings.Cut(strings.TrimPrefix(rt.pattern, "/"), "/")
		want := shown{}
		if _, ok := collections[kind]; ok && !rt.hidden {
			want = shown{kind, rest != ""}
		}
		if rt.shows != want {
			t.Errorf("%s: shows %+v, want %+v", rt.pattern, rt.shows, want)
		}
	}
}
