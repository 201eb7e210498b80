package adapter

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

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
