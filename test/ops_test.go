package test

import (
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"calshim/internal/testkit/cluster"
)

func TestConditionalGet(t *testing.T) {
	first := get(t, "/events?per_page=3")
	tag := first.header.Get("ETag")
	if tag == "" || !strings.Contains(first.header.Get("Cache-Control"), "public") {
		t.Fatalf("anonymous GET: ETag %q, Cache-Control %q", tag, first.header.Get("Cache-Control"))
	}
	again := call(t, http.MethodGet, "/wp-json/cal/events/v1/events?per_page=3", header("If-None-Match", tag))
	if again.status != http.StatusNotModified || len(again.raw) != 0 {
		t.Errorf("If-None-Match: %d, %d bytes", again.status, len(again.raw))
	}
	other := call(t, http.MethodGet, "/wp-json/cal/events/v1/events?per_page=3", header("If-None-Match", `"stale"`))
	if other.status != http.StatusOK {
		t.Errorf("stale tag: %d", other.status)
	}
	bad := get(t, "/events?page=0")
	if bad.header.Get("ETag") != "" || !strings.Contains(bad.header.Get("Cache-Control"), "no-store") {
		t.Errorf("error answer: ETag %q, Cache-Control %q", bad.header.Get("ETag"), bad.header.Get("Cache-Control"))
	}
}

func TestCORSAndOptions(t *testing.T) {
	r := call(t, http.MethodGet, "/wp-json/cal/events/v1/events?per_page=1", header("Origin", "https://app.example"))
	if r.header.Get("Access-Control-Allow-Origin") != "https://app.example" ||
		!strings.Contains(r.header.Get("Access-Control-Expose-Headers"), "X-TEC-Total") {
		t.Errorf("CORS headers: %v", r.header)
	}
	o := call(t, http.MethodOptions, "/wp-json/cal/events/v1/events", header("Origin", "https://app.example"))
	if o.status != http.StatusOK || str(at(o.body, "namespace")) != "cal/events/v1" || len(list(at(o.body, "endpoints"))) == 0 {
		t.Errorf("OPTIONS: %d %.300s", o.status, o.raw)
	}
	wantError(t, call(t, http.MethodOptions, "/wp-json/cal/events/v1/nope"), http.StatusNotFound, "rest_no_route")
}

func TestMetrics(t *testing.T) {
	get(t, "/events?per_page=1")
	b := call(t, http.MethodGet, "/metrics", lenient).raw
	for _, want := range []string{`calshim_http_requests_total{cache=`, `route="/events"`, "calshim_catalog_events ", "calshim_catalog_last_poll_success_timestamp_seconds"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

// A sidecar may start before its CMS: calshim listens at once, says it is not ready, answers v1 calls
// with a clear 503 instead of hanging, and loads as soon as the CMS answers.
func TestStartsBeforeItsUpstream(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing listens there yet
	url, stop, err := launch(filepath.Join(t.TempDir(), "log"),
		"CALSHIM_UPSTREAM_URL=http://127.0.0.1:"+strconv.Itoa(port)+"/wp-json")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if r := call(t, http.MethodGet, url+"/readyz", lenient); r.status != http.StatusServiceUnavailable {
		t.Errorf("/readyz before the catalog loads = %d, want 503", r.status)
	}
	r := call(t, http.MethodGet, url+v1+"/events")
	if r.status != http.StatusServiceUnavailable || !strings.Contains(string(r.raw), `"code":"calshim_not_ready"`) {
		t.Errorf("v1 call before load = %d %s", r.status, r.raw)
	}
	// The CMS comes up: a proxy to the real WordPress on the port calshim waits for.
	proxy, err := cluster.NewProxy(wpEnv["WP_URL"], port)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	eventually(t, "catalog loaded after the CMS came up", func() bool {
		return call(t, http.MethodGet, url+"/readyz", lenient).status == http.StatusOK
	})
}
