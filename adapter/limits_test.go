package adapter

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"

	"calshim/catalog"
	"calshim/internal/testkit/wpfake"
	"calshim/mapping"
)

// The client address is the connection's, unless it comes from a trusted proxy: then the nearest
// X-Forwarded-For entry that is not a trusted proxy; entries the client wrote itself are not
// believed.
func TestClientAddr(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	for _, tc := range []struct{ remote, xff, want string }{
		{"192.0.2.1:5000", "", "192.0.2.1"},
		{"192.0.2.1:5000", "198.51.100.7", "192.0.2.1"}, // not from a proxy: the header is ignored
		{"10.0.0.2:5000", "", "10.0.0.2"},
		{"10.0.0.2:5000", "198.51.100.7", "198.51.100.7"},
		{"10.0.0.2:5000", "203.0.113.9, 198.51.100.7", "198.51.100.7"}, // the client's own entry is left
		{"10.0.0.2:5000", "198.51.100.7, 10.1.1.1", "198.51.100.7"},    // two proxies
		{"10.0.0.2:5000", "junk, 10.1.1.1", "10.1.1.1"},
		{"[::1]:5000", "2001:db8::5", "2001:db8::5"},
		{"[::ffff:192.0.2.1]:5000", "", "192.0.2.1"},
	} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = tc.remote
		if tc.xff != "" {
			req.Header.Set("X-Forwarded-For", tc.xff)
		}
		if got := clientAddr(req, trusted).String(); got != tc.want {
			t.Errorf("%s with X-Forwarded-For %q: %s, want %s", tc.remote, tc.xff, got, tc.want)
		}
	}

	if got := clientKey(netip.MustParseAddr("2001:db8:1:2:3:4:5:6")); got != "2001:db8:1:2::/64" {
		t.Errorf("IPv6 key = %s", got)
	}
}

// A bucket admits its burst, then one request per refill interval; buckets of other keys are apart.
func TestKeyedLimiter(t *testing.T) {
	k := newKeyedLimiter(60, 3) // one a second
	now := time.Unix(1000, 0)
	for i := range 3 {
		if wait := k.take("a", now, 1); wait != 0 {
			t.Fatalf("request %d of the burst waits %v", i, wait)
		}
	}

	if wait := k.take("a", now, 1); wait <= 0 || wait > time.Second {
		t.Errorf("past the burst: wait %v, want (0, 1s]", wait)
	}

	if wait := k.take("b", now, 1); wait != 0 {
		t.Errorf("another key waits %v", wait)
	}

	if wait := k.take("a", now.Add(time.Second), 1); wait != 0 {
		t.Errorf("after a second: wait %v", wait)
	}

	k.take("c", now, 1)
	k.sweep(now.Add(2 * time.Minute))
	if len(k.byKey) != 0 {
		t.Errorf("full buckets kept after a sweep: %d", len(k.byKey))
	}

	if wait := newKeyedLimiter(0, 0).take("a", now, 1); wait != 0 {
		t.Errorf("a limiter without a rate waits %v", wait)
	}
}

// limitedServer is a calshim over the fake with the given limits, answering users/me as answerMe does.
func limitedServer(t *testing.T, lim LimitOptions) (*wpfake.Server, http.Handler) {
	wp := wpfake.New(t)
	opt := testOptions()
	opt.Limits = lim
	h := NewServer(fakeCatalog(t, wp), zap.NewNop(), opt)
	wp.SetIntercept(answerMe)
	wp.ResetRequests()
	return wp, h
}

// limitsTarget is what the limit tests ask: a page of events to read, a missing event to write.
func limitsTarget(method string) string {
	if method == http.MethodGet {
		return calV1 + "/events?per_page=1"
	}
	return calV1 + "/events/999999"
}

func meRequests(wp *wpfake.Server) int {
	n := 0
	for _, r := range wp.Requests() {
		if r.Path == "/wp-json/wp/v2/users/me" {
			n++
		}
	}
	return n
}

// A credential WordPress refused gets the same refusal from memory: WordPress is asked once.
func TestRefusedCredentialsRemembered(t *testing.T) {
	wp, h := limitedServer(t, LimitOptions{RefusedTTL: time.Minute})
	first := serve(h, http.MethodGet, limitsTarget(http.MethodGet), fromAddr("192.0.2.1:1"), asUser(wrongAuth))
	for range 5 {
		rec := serve(h, http.MethodGet, limitsTarget(http.MethodGet), fromAddr("192.0.2.1:1"), asUser(wrongAuth))
		if rec.Code != first.Code || rec.Body.String() != first.Body.String() {
			t.Fatalf("remembered refusal %d %s differs from %d %s", rec.Code, rec.Body, first.Code,
				first.Body)
		}
	}

	if first.Code != http.StatusUnauthorized ||
		!strings.Contains(first.Body.String(), "incorrect_password") {
		t.Errorf("refusal: %d %s", first.Code, first.Body)
	}

	if n := meRequests(wp); n != 1 {
		t.Errorf("users/me asked %d times, want 1", n)
	}
}

// Checks of credentials not seen before are rationed per client address: past the burst the
// answer is 429 calshim_rate_limited with Retry-After, WordPress is not asked, and another address
// (a known credential included) is not affected.
func TestAuthChecksRateLimited(t *testing.T) {
	wp, h := limitedServer(t, LimitOptions{AuthChecksPerMinute: 60, AuthChecksBurst: 3,
		RefusedTTL: time.Minute})
	limited := 0
	for i := range 20 {
		auth := "Basic " + base64.StdEncoding.EncodeToString(fmt.Appendf(nil, "user%d:pw", i))
		rec := serve(h, http.MethodGet, limitsTarget(http.MethodGet), fromAddr("192.0.2.1:1"), asUser(auth))
		if rec.Code != http.StatusTooManyRequests {
			continue
		}
		limited++
		want := `{"code":"calshim_rate_limited","message":"Too many requests with credentials not seen ` +
			`before from your address. Try again in 1 seconds.","data":{"status":429}}`
		if rec.Body.String() != want || rec.Header().Get("Retry-After") != "1" {
			t.Fatalf("429: %s (Retry-After %q)", rec.Body, rec.Header().Get("Retry-After"))
		}
	}

	if n := meRequests(wp); n > 4 || limited < 16 {
		t.Errorf("20 new credentials: %d upstream checks, %d limited", n, limited)
	}

	if rec := serve(h, http.MethodGet, limitsTarget(http.MethodGet), fromAddr("192.0.2.2:1"), asUser(editorAuth)); rec.Code != 200 {
		t.Errorf("another address: %d %s", rec.Code, rec.Body)
	}
}

// Writes are rationed per client address too.
func TestWritesRateLimited(t *testing.T) {
	_, h := limitedServer(t, LimitOptions{WritesPerMinute: 60, WritesBurst: 2})
	var codes []int
	for range 3 {
		codes = append(codes, serve(h, http.MethodDelete, limitsTarget(http.MethodDelete), fromAddr("192.0.2.1:1"), asUser("")).Code)
	}

	if fmt.Sprint(codes) != "[401 401 429]" {
		t.Errorf("three anonymous deletes: %v, want [401 401 429]", codes)
	}

	if rec := serve(h, http.MethodDelete, limitsTarget(http.MethodDelete), fromAddr("192.0.2.2:1"), asUser("")); rec.Code != http.StatusUnauthorized {
		t.Errorf("another address: %d", rec.Code)
	}

	if rec := serve(h, http.MethodGet, limitsTarget(http.MethodGet), fromAddr("192.0.2.1:1"), asUser("")); rec.Code != http.StatusOK {
		t.Errorf("a read of the limited address: %d", rec.Code)
	}
}

// A request reaching calshim while its catalog loads waits for it (up to LoadWait); without a wait
// it answers 503 at once. /readyz answers 503 while draining.
func TestLoadWaitAndDraining(t *testing.T) {
	wp := wpfake.New(t)
	cat := catalog.New(fakeCatalog(t, wp).Client(), catalog.Options{
		Types: catalog.Types{Event: "tribe_events", Venue: "tribe_venue", Organizer: "tribe_organizer",
			CategoryTax: "tribe_events_cat", TagTax: "post_tag", CategoryBase: "tribe_events_cat",
			TagBase: "tags"}, PollInterval: time.Hour, PerPage: 10, Authenticated: true})
	draining := false
	opt := testOptions()
	opt.Draining = func() bool { return draining }
	impatient := NewServer(cat, zap.NewNop(), opt)
	opt.LoadWait = 10 * time.Second
	patient := NewServer(cat, zap.NewNop(), opt)
	if rec := serve(impatient, http.MethodGet, limitsTarget(http.MethodGet), fromAddr("192.0.2.1:1"), asUser("")); rec.Code != 503 {
		t.Errorf("without a load wait: %d", rec.Code)
	}

	go func() { time.Sleep(100 * time.Millisecond); _ = cat.Start(t.Context()) }()
	if rec := serve(patient, http.MethodGet, limitsTarget(http.MethodGet), fromAddr("192.0.2.1:1"), asUser("")); rec.Code != 200 {
		t.Errorf("with a load wait: %d %.200s", rec.Code, rec.Body)
	}

	if rec := serve(patient, http.MethodGet, "/readyz"); rec.Code != 200 {
		t.Errorf("readyz once loaded: %d", rec.Code)
	}

	draining = true
	rec := serve(patient, http.MethodGet, "/readyz")
	if rec.Code != 503 || !strings.Contains(rec.Body.String(), `"draining":true`) {
		t.Errorf("readyz while draining: %d %s", rec.Code, rec.Body)
	}

	if rec := serve(patient, http.MethodGet, limitsTarget(http.MethodGet), fromAddr("192.0.2.1:1"), asUser("")); rec.Code != 200 {
		t.Errorf("a request while draining: %d", rec.Code)
	}
}

// Single reads of IDs the catalog does not hold ask WordPress once per ID, within the client's
// allowance; past it the answer is 429 and WordPress is not asked.
func TestLookupsRateLimited(t *testing.T) {
	wp, h := limitedServer(t, LimitOptions{LookupsPerMinute: 60, LookupsBurst: 2})
	var codes []int
	for id := range 4 {
		target := fmt.Sprintf("/wp-json/cal/events/v1/events/%d", 999990+id)
		codes = append(codes, serve(h, http.MethodGet, target, fromAddr("192.0.2.1:1")).Code)
	}

	lookups := 0
	for _, r := range wp.Requests() {
		if strings.HasPrefix(r.Path, "/wp-json/calshim/v1/posts/") {
			lookups++
		}
	}

	if fmt.Sprint(codes) != "[404 404 429 429]" || lookups != 2 {
		t.Errorf("four unknown IDs: %v with %d look-ups, want [404 404 429 429] with 2", codes, lookups)
	}
}

// Browsers may send X-Calshim-Min-Seq across origins (the preflight allows it when asked) and read
// X-Calshim-Seq; other answers keep their headers. A catalog without the change feed has no
// sequence: the header is ignored.
func TestSequenceHeadersCORS(t *testing.T) {
	h := newTestServer(t)
	preflight := func(asked string) string {
		rec := serve(h, http.MethodOptions, calV1+"/events", withHeader("Origin", "https://app.example"),
			withHeader("Access-Control-Request-Headers", asked))
		return rec.Header().Get("Access-Control-Allow-Headers")
	}

	plain := "Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type"
	if got := preflight("authorization"); got != plain {
		t.Errorf("preflight without the header: %q", got)
	}
	if got := preflight("authorization, x-calshim-min-seq"); got != plain+", X-Calshim-Min-Seq" {
		t.Errorf("preflight with the header: %q", got)
	}

	rec := serve(h, http.MethodGet, calV1+"/events?per_page=1", withHeader("X-Calshim-Min-Seq", "5"))
	if rec.Code != http.StatusOK || rec.Header().Get("X-Calshim-Seq") != "" {
		t.Errorf("min-seq on a catalog without the feed: %d, X-Calshim-Seq %q", rec.Code,
			rec.Header().Get("X-Calshim-Seq"))
	}
}

// workServer is a calshim over the recorded data set whose reads count one unit per post expected
// to be scanned or rendered, with the given allowance, concurrency and wait.
func workServer(t testing.TB, perMinute, burst, concurrency int, wait time.Duration,
	cacheEntries int) (*Server, http.Handler) {
	opt := testOptions()
	opt.CacheMaxEntries = cacheEntries
	opt.Limits = LimitOptions{WorkUnit: 1, WorkPerMinute: perMinute, WorkBurst: burst,
		WorkConcurrency: concurrency, WorkWait: wait}
	return newServer(fakeCatalog(t, wpfake.New(t)), zap.NewNop(), opt)
}

const feed = "/wp-json/cal/events/v1/events.ics"

// The estimate counts what a read will scan or render, before doing it: every event for the feed
// and an event search (with a post's worth per KiB of text it reads), the page size for a plain list,
// nothing for a single read.
func TestWorkEstimate(t *testing.T) {
	s, _ := workServer(t, 0, 0, 1, 0, 0)
	snap := s.cat.Snapshot()
	events := len(snap.Events)
	for _, tc := range []struct {
		target string
		want   int
	}{
		{feed, events},
		{"/wp-json/cal/events/v1/events?per_page=5", 5},
		{"/wp-json/cal/events/v1/events?per_page=100000", 50}, // MaxPerPage
		{"/wp-json/cal/events/v1/events?search=a&per_page=5", events + textScanned(snap.Events) + 5},
		{"/wp-json/cal/events/v1/events?include=1,2,3&per_page=5", 8},
		{"/wp-json/cal/events/v1/tags?include[]=1&include[]=2", len(snap.Categories) + len(snap.Tags) + 2},
		{"/wp-json/cal/events/v1/events/1", 0},
	} {
		req := httptest.NewRequest(http.MethodGet, tc.target, nil)
		addr, _ := s.resolve(req)
		rt, _ := s.match(addr.ns, addr.route)
		r := &request{method: http.MethodGet, snap: snap, params: parseForm(req.URL.RawQuery)}
		if got := s.workEstimate(rt, r); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.target, got, tc.want)
		}
	}
}

// Expensive reads take their cost from the client's allowance: past it the feed answers 429
// calshim_rate_limited with Retry-After, while the same client's cheap reads and another client's
// feed are still answered. Cached answers cost nothing.
func TestExpensiveReadsRateLimited(t *testing.T) {
	s, h := workServer(t, 1, 1, 4, time.Second, 0)
	events := s.cat.Snapshot().Events
	s.limits.work = newKeyedLimiter(1, 3*len(events)) // three feeds, then one unit a minute
	var codes []int
	for range 4 {
		codes = append(codes, serve(h, http.MethodGet, feed, fromAddr("192.0.2.1:1")).Code)
	}
	if fmt.Sprint(codes) != "[200 200 200 429]" {
		t.Fatalf("four feeds: %v, want [200 200 200 429]", codes)
	}

	rec := serve(h, http.MethodGet, feed, fromAddr("192.0.2.1:1"))
	if !strings.HasPrefix(rec.Body.String(), `{"code":"calshim_rate_limited","message":"Too many `+
		`expensive requests (feeds, searches, long lists) from your address. Try again in `) ||
		!strings.HasSuffix(rec.Body.String(), ` seconds.","data":{"status":429}}`) ||
		rec.Header().Get("Retry-After") == "" {
		t.Errorf("429: %s (Retry-After %q)", rec.Body, rec.Header().Get("Retry-After"))
	}

	single := "/wp-json/cal/events/v1/events/" + strconv.Itoa(events[0].ID)
	if rec := serve(h, http.MethodGet, single, fromAddr("192.0.2.1:1")); rec.Code != 200 {
		t.Errorf("a cheap read of the limited client: %d", rec.Code)
	}
	if rec := serve(h, http.MethodGet, feed, fromAddr("192.0.2.2:1")); rec.Code != 200 {
		t.Errorf("another client's feed: %d", rec.Code)
	}

	_, cached := workServer(t, 1, len(events), 4, time.Second, 100) // one feed's allowance, cache on
	for i := range 10 {
		if rec := serve(cached, http.MethodGet, feed, fromAddr("192.0.2.1:1")); rec.Code != 200 {
			t.Fatalf("cached feed %d: %d", i, rec.Code)
		}
	}
}

// With one slot, expensive reads are answered one at a time: concurrent ones wait for it, and one
// that waits longer than WorkWait answers 503 calshim_busy with Retry-After; cheap reads do not wait.
func TestExpensiveReadsConcurrency(t *testing.T) {
	s, h := workServer(t, 0, 0, 1, 10*time.Second, 0)
	var mu sync.Mutex
	running, most := 0, 0
	for i := range s.routes {
		if rt := &s.routes[i]; rt.pattern == `/events\.ics` {
			e := rt.endpoint(http.MethodGet)
			inner := e.h
			e.h = func(s *Server, r *request) (*response, error) {
				mu.Lock()
				running++
				most = max(most, running)
				mu.Unlock()
				time.Sleep(5 * time.Millisecond) // let the others arrive meanwhile
				mu.Lock()
				running--
				mu.Unlock()
				return inner(s, r)
			}
		}
	}

	var wg sync.WaitGroup
	codes := make([]int, 8)
	for i := range codes {
		wg.Go(func() { codes[i] = serve(h, http.MethodGet, feed, fromAddr(fmt.Sprintf("192.0.2.%d:1", i))).Code })
	}
	wg.Wait()
	if most != 1 || slices.ContainsFunc(codes, func(c int) bool { return c != 200 }) {
		t.Errorf("8 concurrent feeds with one slot: %d at once, answers %v", most, codes)
	}

	s.limits.opt.WorkWait = time.Millisecond
	s.limits.slots <- struct{}{} // the slot is held
	rec := serve(h, http.MethodGet, feed, fromAddr("192.0.2.1:1"))
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" ||
		!strings.HasPrefix(rec.Body.String(), `{"code":"calshim_busy","message":"Too many expensive`) {
		t.Errorf("no slot: %d %s (Retry-After %q)", rec.Code, rec.Body, rec.Header().Get("Retry-After"))
	}
	if rec := serve(h, http.MethodGet, "/wp-json/cal/events/v1/events/1", fromAddr("192.0.2.1:1")); rec.Code == 503 {
		t.Errorf("a cheap read waited for the slot")
	}

	<-s.limits.slots
	if rec := serve(h, http.MethodGet, feed, fromAddr("192.0.2.1:1")); rec.Code != 200 {
		t.Errorf("slot free again: %d", rec.Code)
	}
}

// Whatever the query, the estimate is never negative and never more than every post and term of
// the snapshot plus one per byte of the query plus a page: its cost follows what the catalog and
// the request hold, and computing it cannot fail.
func FuzzWorkEstimate(f *testing.F) {
	for _, q := range []string{"", "per_page=-5", "per_page=99999999999999999999", "include=1,2,,3",
		"include[]=1&include[a]=2&exclude[]=x", "search=a&has_events=1", "categories[0][1]=2"} {
		f.Add(q, uint8(0))
	}

	s, _ := workServer(f, 0, 0, 1, 0, 0)
	snap := s.cat.Snapshot()
	most := len(snap.Events)*2 + len(snap.Venues) + len(snap.Organizers) + len(snap.Categories) +
		len(snap.Tags) + s.opt.MaxPerPage
	f.Fuzz(func(t *testing.T, query string, route uint8) {
		rt := &s.routes[int(route)%len(s.routes)]
		r := &request{method: http.MethodGet, snap: snap, params: parseForm(query)}
		if n := s.workEstimate(rt, r); n < 0 || n > most+len(query) {
			t.Errorf("%s?%s: estimate %d, bounds [0, %d]", rt.pattern, query, n, most+len(query))
		}
	})
}

// TestSearchCostFollowsBytes: a search's expected work counts the bytes of text it scans, a post's
// worth per KiB, so that a few posts of long text make it expensive as many posts do.
func TestSearchCostFollowsBytes(t *testing.T) {
	post := func(size int) *mapping.Post {
		p := &mapping.Post{Text: mapping.TextFields{Status: "draft", Title: strings.Repeat("x", size)}.Pack()}
		mapping.DeriveLinked(p, mapping.VenueSearchMeta)
		return p
	}
	snap := &catalog.Snapshot{Venues: []*mapping.Post{post(10), post(1 << 20)}}
	search, plain := Params{"search": "x"}, Params{}
	if got := scansLinked(snap, plain); got != 2 {
		t.Errorf("a list without search scans %d, want its 2 posts", got)
	}
	if got := scansLinked(snap, search); got < 1024 {
		t.Errorf("a search over 1 MiB of text scans %d posts' worth, want at least 1024", got)
	}
}
