package adapter

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"calshim/catalog"
	"calshim/internal/wpfake"
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
		if wait := k.take("a", now); wait != 0 {
			t.Fatalf("request %d of the burst waits %v", i, wait)
		}
	}

	if wait := k.take("a", now); wait <= 0 || wait > time.Second {
		t.Errorf("past the burst: wait %v, want (0, 1s]", wait)
	}

	if wait := k.take("b", now); wait != 0 {
		t.Errorf("another key waits %v", wait)
	}

	if wait := k.take("a", now.Add(time.Second)); wait != 0 {
		t.Errorf("after a second: wait %v", wait)
	}

	k.take("c", now)
	k.sweep(now.Add(2 * time.Minute))
	if len(k.byKey) != 0 {
		t.Errorf("full buckets kept after a sweep: %d", len(k.byKey))
	}

	if wait := newKeyedLimiter(0, 0).take("a", now); wait != 0 {
		t.Errorf("a limiter without a rate waits %v", wait)
	}
}

// limitedServer is a calshim over the fake with the given limits, answering users/me as meAnswers.
func limitedServer(t *testing.T, lim LimitOptions) (*wpfake.Server, http.Handler) {
	wp := wpfake.New(t)
	opt := testOptions()
	opt.Limits = lim
	h := NewServer(fakeCatalog(t, wp), zap.NewNop(), opt)
	meAnswers(wp)
	wp.ResetRequests()
	return wp, h
}

func sendFrom(h http.Handler, remote, method, auth string) *httptest.ResponseRecorder {
	target := "/wp-json/cal/events/v1/events?per_page=1"
	if method != http.MethodGet {
		target = "/wp-json/cal/events/v1/events/999999"
	}
	req := httptest.NewRequest(method, target, nil)
	req.RemoteAddr = remote
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
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
	const wrong = "Basic YWRtaW46d3Jvbmc="
	first := sendFrom(h, "192.0.2.1:1", http.MethodGet, wrong)
	for range 5 {
		rec := sendFrom(h, "192.0.2.1:1", http.MethodGet, wrong)
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
		rec := sendFrom(h, "192.0.2.1:1", http.MethodGet, auth)
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

	editor := "Basic ZWRpdG9yOnNlY3JldA=="
	if rec := sendFrom(h, "192.0.2.2:1", http.MethodGet, editor); rec.Code != 200 {
		t.Errorf("another address: %d %s", rec.Code, rec.Body)
	}
}

// Writes are rationed per client address too.
func TestWritesRateLimited(t *testing.T) {
	_, h := limitedServer(t, LimitOptions{WritesPerMinute: 60, WritesBurst: 2})
	var codes []int
	for range 3 {
		codes = append(codes, sendFrom(h, "192.0.2.1:1", http.MethodDelete, "").Code)
	}

	if fmt.Sprint(codes) != "[401 401 429]" {
		t.Errorf("three anonymous deletes: %v, want [401 401 429]", codes)
	}

	if rec := sendFrom(h, "192.0.2.2:1", http.MethodDelete, ""); rec.Code != http.StatusUnauthorized {
		t.Errorf("another address: %d", rec.Code)
	}

	if rec := sendFrom(h, "192.0.2.1:1", http.MethodGet, ""); rec.Code != http.StatusOK {
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
	if rec := sendFrom(impatient, "192.0.2.1:1", http.MethodGet, ""); rec.Code != 503 {
		t.Errorf("without a load wait: %d", rec.Code)
	}

	go func() { time.Sleep(100 * time.Millisecond); _ = cat.Start(t.Context()) }()
	if rec := sendFrom(patient, "192.0.2.1:1", http.MethodGet, ""); rec.Code != 200 {
		t.Errorf("with a load wait: %d %.200s", rec.Code, rec.Body)
	}

	if rec := serveGET(patient, "/readyz"); rec.Code != 200 {
		t.Errorf("readyz once loaded: %d", rec.Code)
	}

	draining = true
	rec := serveGET(patient, "/readyz")
	if rec.Code != 503 || !strings.Contains(rec.Body.String(), `"draining":true`) {
		t.Errorf("readyz while draining: %d %s", rec.Code, rec.Body)
	}

	if rec := sendFrom(patient, "192.0.2.1:1", http.MethodGet, ""); rec.Code != 200 {
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
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.RemoteAddr = "192.0.2.1:1"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		codes = append(codes, rec.Code)
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
		req := httptest.NewRequest(http.MethodOptions, "/wp-json/cal/events/v1/events", nil)
		req.Header.Set("Origin", "https://app.example")
		req.Header.Set("Access-Control-Request-Headers", asked)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Header().Get("Access-Control-Allow-Headers")
	}

	plain := "Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type"
	if got := preflight("authorization"); got != plain {
		t.Errorf("preflight without the header: %q", got)
	}
	if got := preflight("authorization, x-calshim-min-seq"); got != plain+", X-Calshim-Min-Seq" {
		t.Errorf("preflight with the header: %q", got)
	}

	req := httptest.NewRequest(http.MethodGet, "/wp-json/cal/events/v1/events?per_page=1", nil)
	req.Header.Set("X-Calshim-Min-Seq", "5")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || rec.Header().Get("X-Calshim-Seq") != "" {
		t.Errorf("min-seq on a catalog without the feed: %d, X-Calshim-Seq %q", rec.Code,
			rec.Header().Get("X-Calshim-Seq"))
	}
}
