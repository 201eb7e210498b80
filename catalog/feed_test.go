package catalog_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"calshim/catalog"
	"calshim/internal/testkit/wpfake"
)

// fakeFeed serves the plugin's calshim/v1 routes from a wpfake's posts: a change log the test fills.
type fakeFeed struct {
	fake *wpfake.Server
	mu   sync.Mutex
	log  string
	seq  int64
	// floor: a since below it is expired (410).
	floor int64
	// changes by sequence: post type and ID.
	changes map[int64][2]string
	// page > 0 answers at most that many sequences per request ("more" when others follow); failAt > 0
	// makes the failAt-th changes request from now on fail with a 500.
	page, failAt int
	// noMedia: a plugin older than the media route (404).
	noMedia     bool
	rowRequests int // changes/rows requests answered
	// touch: the plugin logs what the checksums find (changes/touch, touchAnswer); touched counts
	// the rows it wrote so.
	touch   bool
	touched int
	// logDigests: each row keeps its object's digest when it was written (logged, "0": gone), and
	// the feed's sets send them (the plugin's `logged`).
	logDigests bool
	logged     map[int64]string
}

func newFakeFeed(fake *wpfake.Server) *fakeFeed {
	f := &fakeFeed{fake: fake, log: "log-1", seq: 10, changes: map[int64][2]string{}, logged: map[int64]string{}}
	fake.SetIntercept(f.serve)
	return f
}

// change records a change of one post (the fake holds its new state, or no longer has it).
func (f *fakeFeed) change(typ string, id int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.addRow(typ, id)
}

// addRow writes the next row, about one post (with its digest now when logDigests), with f.mu held.
func (f *fakeFeed) addRow(typ string, id int) {
	f.seq++
	f.changes[f.seq] = [2]string{typ, strconv.Itoa(id)}
	if f.logDigests {
		f.logged[f.seq] = "0"
		if f.has(typ, id) {
			f.logged[f.seq] = f.digest(typ, id)
		}
	}
}

func (f *fakeFeed) serve(w http.ResponseWriter, r *http.Request) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := r.URL.Query()
	switch r.URL.Path {
	case "/wp-json/calshim/v1/changes":
		f.changesAnswer(w, q.Get("since"), q.Get("ids"))
	case "/wp-json/calshim/v1/changes/rows":
		f.rowsAnswer(w, q.Get("since"), q.Get("until"))
	case "/wp-json/calshim/v1/bulk":
		f.bulkAnswer(w, q.Get("type"), q.Get("from"), q.Get("to"))
	case "/wp-json/calshim/v1/checksums":
		f.checksumAnswer(w, q)
	case "/wp-json/calshim/v1/changes/touch":
		if !f.touch {
			return false
		}
		f.touchAnswer(w, r)
	case "/wp-json/calshim/v1/media":
		if f.noMedia {
			return false
		}
		f.mediaAnswer(w, q.Get("include"))
	default:
		return false
	}
	return true
}

func (f *fakeFeed) changesAnswer(w http.ResponseWriter, sinceArg, ids string) {
	head := map[string]any{"log": f.log, "site": "http://cms", "head": f.seq, "seq": f.seq, "floor": f.floor,
		"touch": f.touch}
	if sinceArg == "" {
		writeJSON(w, http.StatusOK, head)
		return
	}
	if f.failAt > 0 {
		if f.failAt--; f.failAt == 0 {
			writeJSON(w, http.StatusInternalServerError, map[string]any{"code": "db_error", "message": "x"})
			return
		}
	}
	since, _ := strconv.ParseInt(sinceArg, 10, 64)
	if since < f.floor || since > f.seq {
		writeJSON(w, http.StatusGone, map[string]any{"code": "calshim_changes_expired", "message": "reload",
			"data": map[string]any{"status": 410}})
		return
	}
	posts, rows := map[string]map[string]any{}, []any{}
	upTo := f.seq
	if f.page > 0 && since+int64(f.page) < f.seq {
		upTo = since + int64(f.page)
		head["seq"], head["more"] = upTo, true
	}
	for s := since + 1; s <= upTo; s++ {
		c, ok := f.changes[s]
		if !ok {
			continue
		}
		set := posts[c[0]]
		if set == nil {
			set = map[string]any{"changed": []int{}, "items": []any{}}
			posts[c[0]] = set
		}
		id, _ := strconv.Atoi(c[1])
		rows = append(rows, f.row(s, c))
		set["changed"] = append(set["changed"].([]int), id)
		if d, ok := f.logged[s]; ok {
			if set["logged"] == nil {
				set["logged"] = map[string]string{}
			}
			set["logged"].(map[string]string)[c[1]] = d // the newest row's
		}
		if f.has(c[0], id) {
			set["items"] = append(set["items"].([]any), f.fake.Item(c[0], id))
			f.addDigest(set, c[0], id)
		}
	}
	head["posts"], head["terms"], head["rows"] = posts, map[string]any{}, rows
	f.addIDs(head, ids)
	head["media"] = map[string]any{"changed": []int{}, "items": []any{}}
	writeJSON(w, http.StatusOK, head)
}

// row is the change at seq as the feed and the rows route list it.
func (f *fakeFeed) row(seq int64, c [2]string) map[string]any {
	id, _ := strconv.Atoi(c[1])
	return map[string]any{"seq": seq, "id": id, "type": c[0], "deleted": !f.has(c[0], id)}
}

// rowsAnswer is the plugin's changes/rows: the rows after since up to until, f.page per answer
// when set.
func (f *fakeFeed) rowsAnswer(w http.ResponseWriter, sinceArg, untilArg string) {
	f.rowRequests++
	since, _ := strconv.ParseInt(sinceArg, 10, 64)
	until, _ := strconv.ParseInt(untilArg, 10, 64)
	head := map[string]any{"log": f.log, "site": "http://cms", "head": f.seq, "floor": f.floor}
	if since < f.floor || since > f.seq {
		writeJSON(w, http.StatusGone, map[string]any{"code": "calshim_changes_expired", "message": "reload",
			"data": map[string]any{"status": 410}})
		return
	}
	upTo := min(until, f.seq)
	if f.page > 0 && since+int64(f.page) < upTo {
		upTo, head["more"] = since+int64(f.page), true
	}
	rows := []any{}
	for s := since + 1; s <= upTo; s++ {
		if c, ok := f.changes[s]; ok {
			rows = append(rows, f.row(s, c))
		}
	}
	head["seq"], head["rows"] = upTo, rows
	writeJSON(w, http.StatusOK, head)
}

// addIDs adds the counts or the full ID lists a poll asked for.
func (f *fakeFeed) addIDs(answer map[string]any, ids string) {
	counts, lists := map[string]any{}, map[string]any{}
	for _, typ := range []string{"tribe_events", "tribe_venue", "tribe_organizer"} {
		sum := 0
		for _, id := range f.fake.IDs(typ) {
			sum += id
		}
		counts[typ] = map[string]int{"count": len(f.fake.IDs(typ)), "sum": sum}
		lists[typ] = f.fake.IDs(typ)
	}
	switch ids {
	case "count":
		answer["counts"] = counts
	case "true":
		answer["ids"] = lists
	}
}

func (f *fakeFeed) has(typ string, id int) bool {
	for _, x := range f.fake.IDs(typ) {
		if x == id {
			return true
		}
	}
	return false
}

func (f *fakeFeed) bulkAnswer(w http.ResponseWriter, typ, from, to string) {
	if from == "" {
		writeJSON(w, http.StatusOK, map[string]any{"ids": f.fake.IDs(typ)})
		return
	}
	lo, _ := strconv.Atoi(from)
	hi, _ := strconv.Atoi(to)
	page := map[string]any{"items": []any{}}
	for _, id := range f.fake.IDs(typ) {
		if id >= lo && id <= hi {
			page["items"] = append(page["items"].([]any), f.fake.Item(typ, id))
			f.addDigest(page, typ, id)
		}
	}
	writeJSON(w, http.StatusOK, page)
}

// mediaAnswer is the plugin's attachments by ID: every attachment the fake holds among them.
func (f *fakeFeed) mediaAnswer(w http.ResponseWriter, include string) {
	items := []any{}
	for _, s := range strings.Split(include, ",") {
		id, _ := strconv.Atoi(s)
		if f.has("media", id) {
			items = append(items, f.fake.Item("media", id))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"items": items})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// countPaths counts the fake's requests by path.
func countPaths(fake *wpfake.Server) map[string]int {
	n := map[string]int{}
	for _, r := range fake.Requests() {
		n[strings.TrimPrefix(r.Path, "/wp-json")]++
	}
	return n
}

// With the plugin's feed the catalog loads in bulk, then each poll is one request that applies
// updates and removals; an expired sequence or another log reloads everything.
func TestFeedSync(t *testing.T) {
	fake := wpfake.New(t)
	feed := newFakeFeed(fake)
	cat := newCatalog(t, fake)
	if err := cat.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	n := countPaths(fake)
	if n["/calshim/v1/bulk"] != 6 || n["/wp/v2/tribe_events"] != 0 {
		t.Errorf("load requests: %v", n)
	}
	if h := cat.Health().Sync; h.Mode != "feed" || h.Seq != 10 {
		t.Errorf("sync = %+v", h)
	}
	// A post deleted around WordPress' APIs (no change logged) is noticed by the count check.
	checking := newCatalog(t, fake, func(o *catalog.Options) { o.ReconcileEvery = 1 })
	if err := checking.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	fake.ResetRequests()
	mustPoll(t, checking)
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("poll with equal counts: %d requests, want 1", n)
	}
	venue := fake.IDs("tribe_venue")[0]
	fake.Delete("tribe_venue", venue)
	if _, ok := mustPoll(t, checking).Post(venue); ok {
		t.Errorf("venue %d deleted around the log still in the catalog", venue)
	}

	ev := fake.IDs("tribe_events")[0]

	before := cat.Snapshot()
	fake.ResetRequests()
	if got := mustPoll(t, cat); got != before || len(fake.Requests()) != 1 {
		t.Errorf("idle poll: %d requests, new snapshot %v", len(fake.Requests()), got != before)
	}

	fake.Update("tribe_events", ev, func(o wpfake.Object) { calshimField(fake, o)["title"] = "Renamed by feed" })
	feed.change("tribe_events", ev)
	if p, _ := mustPoll(t, cat).Post(ev); p == nil || p.Title() != "Renamed by feed" {
		t.Errorf("update not applied: %+v", p)
	}
	fake.Delete("tribe_events", ev)
	feed.change("tribe_events", ev)
	if _, ok := mustPoll(t, cat).Post(ev); ok || cat.Health().Sync.Seq != feed.seq {
		t.Errorf("deletion not applied (seq %d)", cat.Health().Sync.Seq)
	}

	for name, breakLog := range map[string]func(){
		"expired":     func() { feed.floor = feed.seq + 1; feed.seq += 2 },
		"another log": func() { feed.log = "log-2" },
	} {
		feed.mu.Lock()
		breakLog()
		feed.mu.Unlock()
		fake.ResetRequests()
		mustPoll(t, cat)
		if n := countPaths(fake); n["/calshim/v1/bulk"] != 6 {
			t.Errorf("%s: no reload: %v", name, n)
		}
	}

}

// A catch-up that fails half-way publishes nothing and keeps its sequence: the next poll asks again
// from where the published snapshot is, so the changes of the pages already read are not lost.
func TestFeedFailureHalfWay(t *testing.T) {
	fake := wpfake.New(t)
	feed := newFakeFeed(fake)
	cat := newCatalog(t, fake)
	if err := cat.Load(context.Background()); err != nil {
		t.Fatal(err)
	}

	ev := fake.IDs("tribe_events")[0]
	fake.Update("tribe_events", ev, func(o wpfake.Object) { calshimField(fake, o)["title"] = "First page" })
	feed.change("tribe_events", ev)
	venue := fake.IDs("tribe_venue")[0]
	fake.Delete("tribe_venue", venue)
	feed.change("tribe_venue", venue)
	feed.mu.Lock()
	feed.page, feed.failAt = 1, 2 // the first page is read, the second fails
	feed.mu.Unlock()

	if err := cat.Poll(context.Background()); err == nil {
		t.Fatal("poll with a failing second page succeeded")
	}
	if seq := cat.Health().Sync.Seq; seq != 10 {
		t.Errorf("sequence after the failed poll = %d, want 10 (the published snapshot's)", seq)
	}

	snap := mustPoll(t, cat)
	if p, _ := snap.Post(ev); p == nil || p.Title() != "First page" {
		t.Errorf("first page's change lost: %+v", p)
	}
	if _, ok := snap.Post(venue); ok || cat.Health().Sync.Seq != feed.seq {
		t.Errorf("second page's change not applied (seq %d, want %d)", cat.Health().Sync.Seq, feed.seq)
	}
}

// A push notice makes Run poll at once, whatever the interval; a burst of notices coalesces into
// at most two polls (one pending while the other runs).
func TestNotifyCoalesces(t *testing.T) {
	fake := wpfake.New(t)
	feed := newFakeFeed(fake)
	cat := newCatalog(t, fake, func(o *catalog.Options) { o.PollInterval = time.Hour })
	if err := cat.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go cat.Run(ctx, nil)

	ev := fake.IDs("tribe_events")[0]
	fake.Update("tribe_events", ev, func(o wpfake.Object) { calshimField(fake, o)["title"] = "Pushed" })
	feed.change("tribe_events", ev)
	fake.ResetRequests()
	for range 10 {
		cat.Notify()
	}
	deadline := time.Now().Add(5 * time.Second)
	for p, _ := cat.Snapshot().Post(ev); p.Title() != "Pushed"; p, _ = cat.Snapshot().Post(ev) {
		if time.Now().After(deadline) {
			t.Fatal("the notice did not make the catalog poll within 5 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	if n := countPaths(fake)["/calshim/v1/changes"]; n < 1 || n > 2 {
		t.Errorf("10 notices made %d polls, want 1 or 2", n)
	}
}

// The sequence Health reports is the published snapshot's. A poll whose checksum check fails after
// the feed was read publishes what the feed brought, at the feed's sequence: the next poll reads on
// from there, so a change it held back would never be applied (its digest is already the catalog's,
// and no check would notice it either).
func TestHealthSequenceIsPublished(t *testing.T) {
	fake := wpfake.New(t)
	feed := newFakeFeed(fake)
	cat := newCatalog(t, fake, func(o *catalog.Options) { o.VerifyEvery = time.Nanosecond })
	if err := cat.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	ev := fake.IDs("tribe_events")[0]
	fake.Update("tribe_events", ev, func(o wpfake.Object) { calshimField(fake, o)["title"] = "Through the log" })
	feed.change("tribe_events", ev)
	fake.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/wp-json/calshim/v1/checksums" {
			writeJSON(w, http.StatusInternalServerError, map[string]any{"code": "db_error", "message": "x"})
			return true
		}
		return feed.serve(w, r)
	})
	if err := cat.Poll(context.Background()); err == nil {
		t.Fatal("poll with a failing check succeeded")
	}
	if p, _ := cat.Snapshot().Post(ev); p == nil || p.Title() != "Through the log" {
		t.Fatalf("the poll whose check failed did not publish the feed's change: %+v", p)
	}
	seq, _ := cat.Sequence()
	if h := cat.Health().Sync; h.Seq != 11 || seq != 11 {
		t.Errorf("Health().Sync.Seq = %d, Sequence() = %d; want the published 11", h.Seq, seq)
	}
}

// A write's refresh reads the log's head with the feed, after the write (WriteHead, for the write's
// X-Calshim-Seq); a refresh that fails leaves none, so the head is read again.
func TestRefreshGivesWriteHead(t *testing.T) {
	fake := wpfake.New(t)
	feed := newFakeFeed(fake)
	cat := mustLoad(t, fake)
	id := fake.IDs("tribe_events")[0]
	feed.change("tribe_events", id)
	if err := cat.Refresh(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	if head, ok := cat.WriteHead(); !ok || head != feed.seq {
		t.Errorf("WriteHead after a refresh: %d %v, want %d", head, ok, feed.seq)
	}
	feed.change("tribe_events", id)
	feed.failAt = 1
	if err := cat.Refresh(context.Background(), false); err == nil {
		t.Fatal("the refresh did not fail")
	}
	if head, ok := cat.WriteHead(); ok {
		t.Errorf("WriteHead after a failed refresh: %d, want none", head)
	}
}
