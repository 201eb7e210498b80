package adapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"calshim/cmsclient"
	"calshim/internal/testkit/wpfake"
)

// accessLine serves req and returns the access log's line for it.
func accessLine(t *testing.T, h http.Handler, out *syncBuffer, req *http.Request) (map[string]any,
	*httptest.ResponseRecorder) {
	t.Helper()
	out.Reset()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var line map[string]any
	if err := json.Unmarshal(out.Bytes(), &line); err != nil || line["msg"] != "request" {
		t.Fatalf("not one access line (%v): %s", err, out.String())
	}
	return line, rec
}

// The access line names the client (behind a trusted proxy, the address it forwarded), the body's
// bytes and the request ID, which the answer echoes: the client's when it is a short safe token,
// else a new one.
func TestAccessLogClientBytesRequestID(t *testing.T) {
	var out syncBuffer
	log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), &out,
		zapcore.InfoLevel))
	opt := testOptions()
	opt.Limits.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	h := NewServer(fakeCatalog(t, wpfake.New(t)), log, opt)
	generated := regexp.MustCompile(`^[0-9a-f]{32}$`)

	for _, tc := range []struct {
		name, remote, forwarded, given, wantClient string
		keep                                       bool
	}{
		{"direct, safe ID", "192.0.2.7:5555", "", "req-42_a.B", "192.0.2.7", true},
		{"behind a trusted proxy", "10.1.2.3:5555", "198.51.100.9", "", "198.51.100.9", false},
		{"forwarded by an untrusted client", "192.0.2.8:1", "198.51.100.9", "", "192.0.2.8", false},
		{"ID with a space", "192.0.2.7:5555", "", "a b", "192.0.2.7", false},
		{"ID too long", "192.0.2.7:5555", "", strings.Repeat("a", 65), "192.0.2.7", false},
		{"ID with a newline escape", "192.0.2.7:5555", "", "a\u2028b", "192.0.2.7", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/wp-json/cal/events/v1/events?per_page=1", nil)
			req.RemoteAddr = tc.remote
			if tc.forwarded != "" {
				req.Header.Set("X-Forwarded-For", tc.forwarded)
			}
			if tc.given != "" {
				req.Header.Set("X-Request-ID", tc.given)
			}
			line, rec := accessLine(t, h, &out, req)
			id := rec.Header().Get("X-Request-ID")
			if tc.keep && id != tc.given || !tc.keep && !generated.MatchString(id) {
				t.Errorf("X-Request-ID %q for %q (keep %v)", id, tc.given, tc.keep)
			}
			if line["request_id"] != id || line["client"] != tc.wantClient ||
				line["bytes"] != float64(rec.Body.Len()) || rec.Body.Len() == 0 {
				t.Errorf("line %v; want request_id %q, client %s, bytes %d", line, id, tc.wantClient,
					rec.Body.Len())
			}
		})
	}
}

// A request's ID goes with every request calshim makes of WordPress for it.
func TestRequestIDSentUpstream(t *testing.T) {
	fake := wpfake.New(t)
	h := NewServer(fakeCatalog(t, fake), zap.NewNop(), testOptions())
	var mu sync.Mutex
	var sent []string
	fake.SetIntercept(func(_ http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		sent = append(sent, r.Header.Get("X-Request-ID"))
		return false
	})

	for i, given := range []string{"trace-7", "not safe!"} {
		req := httptest.NewRequest(http.MethodGet, "/wp-json/cal/events/v1/events/"+[]string{"987654",
			"987655"}[i], nil) // IDs the catalog lacks: calshim asks WordPress whose they are
		req.Header.Set("X-Request-ID", given)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		mu.Lock()
		got := sent
		sent = nil
		mu.Unlock()
		id := rec.Header().Get("X-Request-ID")
		if len(got) != 1 || got[0] != id || id == "" || (i == 0) != (id == given) {
			t.Errorf("%q: answer's ID %q, upstream got %q", given, id, got)
		}
	}
}

// metricValue is a metric's value in a /metrics body ("" when absent).
func metricValue(body, series string) string {
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			return v
		}
	}
	return ""
}

// The response cache's hits, misses, entries and bytes are metrics.
func TestResponseCacheMetrics(t *testing.T) {
	opt := testOptions()
	opt.CacheTTL, opt.CacheMaxEntries = time.Minute, 100
	h := NewServer(fakeCatalog(t, wpfake.New(t)), zap.NewNop(), opt)
	for _, target := range []string{"?per_page=1", "?per_page=1", "?per_page=1", "?per_page=2"} {
		serve(h, http.MethodGet, "/wp-json/cal/events/v1/events"+target)
	}
	body := serve(h, http.MethodGet, "/metrics").Body.String()
	for series, want := range map[string]string{"calshim_response_cache_hits_total": "2",
		"calshim_response_cache_misses_total": "2", "calshim_response_cache_entries": "2"} {
		if got := metricValue(body, series); got != want {
			t.Errorf("%s = %q, want %s", series, got, want)
		}
	}
	if b := metricValue(body, "calshim_response_cache_bytes"); b == "" || b == "0" {
		t.Errorf("calshim_response_cache_bytes = %q", b)
	}
}

// Whatever a client sends as X-Request-ID, the ID calshim uses is a token of at most 64 safe bytes:
// the client's own when it is one, else a new one.
func FuzzRequestID(f *testing.F) {
	for _, seed := range []string{"", "abc-1", "a b", "\r\nX: y", strings.Repeat("z", 65), "é"} {
		f.Add(seed)
	}
	safe := regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
	f.Fuzz(func(t *testing.T, given string) {
		id := requestID(given)
		if !safe.MatchString(id) || (safe.MatchString(given) != (id == given)) {
			t.Errorf("requestID(%q) = %q", given, id)
		}
	})
}

// randomText is n random bytes of the printable ASCII range, which a header or a URL carries.
func randomText(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('!' + rng.IntN('~'-'!'+1))
	}
	return string(b)
}

// randomWord is n random lowercase letters, for path segments and query keys.
func randomWord(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + rng.IntN(26))
	}
	return string(b)
}

// hostileRequests are requests of fixed kinds (each kind always answers the same status on the
// same route) whose client-chosen text is random: methods, method overrides, paths, query keys,
// languages, header names and values.
func hostileRequests(rng *rand.Rand, round int) []*http.Request {
	const ns = "/wp-json/cal/events/v1"
	var reqs []*http.Request
	add := func(method, target string, header ...string) {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Method = method
		req.URL.Path, req.URL.RawQuery, _ = strings.Cut(target, "?")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		req.Header.Set("User-Agent", randomText(rng, 40))
		req.Header.Set("Referer", "https://"+randomWord(rng, 8)+".example/"+randomText(rng, 20))
		req.Header.Set("X-"+randomWord(rng, 6), randomText(rng, 30))
		req.Header.Set("X-Request-ID", randomText(rng, 1+rng.IntN(80)))
		reqs = append(reqs, req)
	}
	lang := randomWord(rng, 2)
	if lang == "de" { // the one configured variant
		lang = "xx"
	}

	add(http.MethodGet, ns+"/events?per_page=1", "X-HTTP-Method-Override", randomText(rng, 12))
	add(http.MethodPost, ns+"/events?_method="+randomWord(rng, 10))
	add(randomWord(rng, 7), ns+"/events")
	add(http.MethodGet, ns+"/"+randomWord(rng, 12))
	add(http.MethodGet, "/"+randomWord(rng, 9)+"/"+randomWord(rng, 5))
	add(http.MethodGet, "/"+lang+ns+"/events")
	add(http.MethodGet, fmt.Sprintf("%s/events/%d", ns, 900000+rng.IntN(99999))) // asks WordPress
	add(http.MethodGet, fmt.Sprintf("%s/events?per_page=1&%s%d=%s", ns, randomWord(rng, 6), round,
		randomWord(rng, 4)))
	return reqs
}

// seriesCount is the number of series calshim's registry holds.
func seriesCount(t *testing.T, s *Server) int {
	t.Helper()
	families, err := s.metrics.registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range families {
		n += len(f.GetMetric())
	}
	return n
}

// No request text makes series: after a first round of hostile requests has made the series
// their kinds need, a second round with other random text (request IDs and unknown IDs calshim
// asks WordPress about included) adds none, and /metrics does not grow. Every method label is one
// WordPress knows or "other", every upstream operation and status one of cmsclient's.
func TestMetricsCardinalityBounded(t *testing.T) {
	opt := testOptions()
	opt.Registry = prometheus.NewRegistry()
	cat := fakeCatalog(t, wpfake.New(t))
	cat.Client().SetMetrics(cmsclient.NewMetrics(opt.Registry))
	s, h := newServer(cat, zap.NewNop(), opt)
	rng := rand.New(rand.NewPCG(1, 2))
	hostile := func(rounds, from int) {
		for i := range rounds {
			for _, req := range hostileRequests(rng, from+i) {
				h.ServeHTTP(httptest.NewRecorder(), req)
			}
		}
	}

	serve(h, http.MethodGet, "/metrics") // the scrapes' own series
	hostile(50, 0)
	series, size := seriesCount(t, s), serve(h, http.MethodGet, "/metrics").Body.Len()
	hostile(250, 50)
	afterSeries, afterSize := seriesCount(t, s), serve(h, http.MethodGet, "/metrics").Body.Len()
	t.Logf("series %d → %d, /metrics %d → %d bytes after %d more hostile requests", series,
		afterSeries, size, afterSize, 250*len(hostileRequests(rng, 0)))
	if afterSeries != series {
		t.Errorf("series grew from %d to %d", series, afterSeries)
	}

	families, _ := s.metrics.registry.Gather()
	if !strings.Contains(serve(h, http.MethodGet, "/metrics").Body.String(),
		`calshim_upstream_requests_total{operation="post_exists",status="404"}`) {
		t.Error("the upstream requests are not counted")
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "method" && methodLabel(l.GetValue()) != l.GetValue() {
					t.Errorf("%s has method %q", f.GetName(), l.GetValue())
				}
				if l.GetName() == "operation" && l.GetValue() != "post_exists" ||
					l.GetName() == "status" && strings.HasPrefix(f.GetName(), "calshim_upstream") &&
						l.GetValue() != "404" {
					t.Errorf("%s has %s %q", f.GetName(), l.GetName(), l.GetValue())
				}
			}
		}
	}
}

// syncBuffer is a bytes.Buffer for a zap core (zap locks around writes to one core).
type syncBuffer struct{ bytes.Buffer }

func (*syncBuffer) Sync() error { return nil }

// An access line costs what calshim chooses: the client's 100 KB method override, path, query or
// headers leave it short, with the clipped text marked.
func TestAccessLogLineBounded(t *testing.T) {
	var out syncBuffer
	log := zap.New(zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), &out,
		zapcore.InfoLevel))
	h := NewServer(fakeCatalog(t, wpfake.New(t)), log, testOptions())
	huge := strings.Repeat("A", 100<<10)
	const events = "/wp-json/cal/events/v1/events"
	for _, tc := range []struct {
		name, path, query string
		header            []string
	}{
		{"method override header", events, "", []string{"X-HTTP-Method-Override", huge}},
		{"_method", events, "_method=" + huge, nil},
		{"path", "/wp-json/cal/events/v1/" + huge, "", nil},
		{"query", events, huge + "=1", nil},
		{"headers", events, "", []string{"User-Agent", huge, "Referer", huge, "X-" + huge[:200], huge}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out.Reset()
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.URL.Path, req.URL.RawQuery = tc.path, tc.query
			for i := 0; i+1 < len(tc.header); i += 2 {
				req.Header.Set(tc.header[i], tc.header[i+1])
			}
			h.ServeHTTP(httptest.NewRecorder(), req)
			line := out.String()
			var entry map[string]any
			if err := json.Unmarshal([]byte(line), &entry); err != nil || entry["msg"] != "request" {
				t.Fatalf("not one access line (%v): %.300s", err, line)
			}
			if len(line) > 1024 {
				t.Errorf("access line of %d bytes: %.300s", len(line), line)
			}
		})
	}
	if !strings.Contains(fmt.Sprint(clip(huge)), "bytes clipped]") {
		t.Error("a clipped text is not marked")
	}
}

// A status calshim answers is its own label; any other an upstream answer carries, its class.
func TestStatusLabel(t *testing.T) {
	for code, want := range map[int]string{200: "200", 404: "404", 503: "503", 418: "4xx", 299: "2xx",
		599: "5xx"} {
		if got := statusLabel(code); got != want {
			t.Errorf("statusLabel(%d) = %q, want %q", code, got, want)
		}
	}
}
