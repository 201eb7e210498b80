package adapter

import (
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"testing"
	"time"

	"calshim/internal/testkit/wpfake"

	"go.uber.org/zap"
)

// A cached answer carries the headers the first (uncached) one did, Content-Length included; a
// revalidation that matches answers 304 without a body length.
func TestCachedAnswerHeaders(t *testing.T) {
	opt := testOptions()
	opt.CacheTTL, opt.CacheMaxEntries = time.Minute, 100
	h := NewServer(fakeCatalog(t, wpfake.New(t)), zap.NewNop(), opt)
	const target = "/wp-json/cal/events/v1/events?per_page=2"
	first, second := serve(h, http.MethodGet, target), serve(h, http.MethodGet, target)
	if first.Code != http.StatusOK || !reflect.DeepEqual(first.Header(), second.Header()) ||
		first.Body.String() != second.Body.String() {
		t.Fatalf("cached answer differs:\n%v\n%v", first.Header(), second.Header())
	}

	if got := first.Header().Get("Content-Length"); got != strconv.Itoa(first.Body.Len()) {
		t.Errorf("Content-Length = %q, body %d bytes", got, first.Body.Len())
	}

	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("If-None-Match", first.Header().Get("ETag"))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotModified || rec.Header().Get("Content-Length") != "" ||
		rec.Header().Get("ETag") != first.Header().Get("ETag") {
		t.Errorf("revalidation: %d, headers %v", rec.Code, rec.Header())
	}
}

// The metrics count every request under its label set, cached series or not.
func TestMetricsCountRequests(t *testing.T) {
	h := newTestServer(t)
	for range 3 {
		serve(h, http.MethodGet, "/wp-json/cal/events/v1/events?per_page=1")
	}

	body := serve(h, http.MethodGet, "/metrics").Body.String()
	want := `calshim_http_requests_total{cache="miss",method="GET",route="/events",status="200"} 3`
	if !containsLine(body, want) {
		t.Errorf("metrics lack %s:\n%s", want, body)
	}
}

func containsLine(body, line string) bool {
	for start := 0; start < len(body); {
		end := start
		for end < len(body) && body[end] != '\n' {
			end++
		}

		if body[start:end] == line {
			return true
		}
		start = end + 1
	}

	return false
}
