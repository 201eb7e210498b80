package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"calshim/internal/testkit/wpfake"
)

// With ops_listen set, /metrics is served there and no longer on the public address; /healthz and
// /readyz answer on both, and the requests of both count in the same metrics.
func TestOpsListen(t *testing.T) {
	wp := wpfake.New(t)
	public, ops := freeAddr(t), freeAddr(t)
	startCalshim(t, map[string]string{"CALSHIM_UPSTREAM_URL": wp.Root, "CALSHIM_LISTEN": public,
		"CALSHIM_OPS_LISTEN": ops})

	waitStatus(t, "http://"+public+"/readyz", http.StatusOK)
	for _, tc := range []struct {
		addr, path string
		want       int
	}{
		{public, "/metrics", http.StatusNotFound},
		{public, "/healthz", http.StatusOK},
		{public, "/wp-json/cal/events/v1/events?per_page=1", http.StatusOK},
		{ops, "/healthz", http.StatusOK},
		{ops, "/readyz", http.StatusOK},
		{ops, "/wp-json/cal/events/v1/events", http.StatusNotFound},
		{ops, "/metrics", http.StatusOK},
	} {
		if got := status(t, "http://"+tc.addr+tc.path); got != tc.want {
			t.Errorf("%s%s: %d, want %d", tc.addr, tc.path, got, tc.want)
		}
	}

	metrics := body(t, "http://"+ops+"/metrics")
	for _, want := range []string{`route="/events",status="200"`, `route="/healthz",status="200"`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("ops /metrics lacks %s", want)
		}
	}
}

// /readyz tells anyone that the last poll failed, never how: the error names upstream's address and
// path (here a made-up internal host name in the path of an upstream that no longer answers).
func TestReadyzHidesPollError(t *testing.T) {
	const secret = "cms-7.corp.internal"
	wp := wpfake.New(t)
	target, _ := url.Parse(wp.URL)
	front := httptest.NewServer(http.StripPrefix("/"+secret, httputil.NewSingleHostReverseProxy(target)))
	defer front.Close()
	addr := freeAddr(t)
	startCalshim(t, map[string]string{"CALSHIM_UPSTREAM_URL": front.URL + "/" + secret + "/wp-json",
		"CALSHIM_LISTEN": addr, "CALSHIM_CATALOG_POLL_INTERVAL": "20ms"})
	waitStatus(t, "http://"+addr+"/readyz", http.StatusOK)

	front.Close() // every poll fails from now on
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(body(t, "http://"+addr+"/metrics"), "\ncalshim_catalog_last_poll_failed 1\n") {
		if time.Now().After(deadline) {
			t.Fatal("no failed poll in the metrics")
		}
		time.Sleep(20 * time.Millisecond)
	}

	ready := body(t, "http://"+addr+"/readyz")
	host := strings.TrimPrefix(front.URL, "http://")
	for _, leak := range []string{secret, host, "127.0.0.1", "refused", "dial"} {
		if strings.Contains(ready, leak) {
			t.Errorf("/readyz shows %q: %s", leak, ready)
		}
	}
	var r struct {
		Error string `json:"last_poll_error"`
	}
	if err := json.Unmarshal([]byte(ready), &r); err != nil || r.Error == "" {
		t.Errorf("/readyz does not say the poll failed (%v): %s", err, ready)
	}
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startCalshim runs calshim with env (no snapshot, no drain, quiet) until the test ends.
func startCalshim(t *testing.T, env map[string]string) {
	t.Helper()
	for k, v := range map[string]string{"CALSHIM_CATALOG_SNAPSHOT": "none", "CALSHIM_SHUTDOWN_DRAIN": "0s",
		"CALSHIM_LOG_LEVEL": "error"} {
		if env[k] == "" {
			env[k] = v
		}
	}
	stop := make(chan os.Signal, 2)
	done := make(chan error, 1)
	go func() { done <- run(stop, nil, func(k string) string { return env[k] }, io.Discard, io.Discard) }()
	t.Cleanup(func() {
		stop <- syscall.SIGTERM
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
}

func body(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

// /metrics shows the build, each configured language's catalog and the upstream requests by
// operation; a failed poll counts under its language.
func TestMetricsBuildCatalogsUpstream(t *testing.T) {
	wp := wpfake.New(t)
	target, _ := url.Parse(wp.URL)
	front := httptest.NewServer(httputil.NewSingleHostReverseProxy(target))
	defer front.Close()
	addr := freeAddr(t)
	startCalshim(t, map[string]string{"CALSHIM_UPSTREAM_URL": front.URL + "/wp-json", "CALSHIM_LISTEN": addr,
		"CALSHIM_LANGUAGES": "en,de", "CALSHIM_UPSTREAM_LANGUAGE_PARAM": "lang",
		"CALSHIM_CATALOG_POLL_INTERVAL": "20ms"})
	waitStatus(t, "http://"+addr+"/readyz", http.StatusOK)

	// /readyz answers once the default language's catalog is loaded; the others load next.
	both := regexp.MustCompile(`(?s)calshim_catalog_items{kind="events",lang="de"} [1-9].*` +
		`calshim_catalog_items{kind="events",lang="en"} [1-9]`)
	metrics := body(t, "http://"+addr+"/metrics")
	for deadline := time.Now().Add(10 * time.Second); !both.MatchString(metrics); {
		if time.Now().After(deadline) {
			t.Fatalf("no events in both languages' catalogs:\n%s", metrics)
		}
		time.Sleep(20 * time.Millisecond)
		metrics = body(t, "http://"+addr+"/metrics")
	}
	for _, want := range []string{
		`calshim_build_info{goversion="` + runtime.Version() + `",revision="`,
		`calshim_catalog_poll_failures_total{lang="de"} 0`,
		`calshim_upstream_requests_total{operation="index",status="200"}`,
		`calshim_upstream_requests_total{operation="posts",status="200"}`,
		`calshim_upstream_request_duration_seconds_count{operation="posts"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s\n%s", want, metrics)
		}
	}

	front.Close() // every poll fails from now on
	deadline := time.Now().Add(10 * time.Second)
	for strings.Contains(body(t, "http://"+addr+"/metrics"), `calshim_catalog_poll_failures_total{lang="en"} 0`) {
		if time.Now().After(deadline) {
			t.Fatal("no failed poll counted")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Which request of the poll fails first (a count, a list) depends on where the poll stood.
	failed := regexp.MustCompile(`calshim_upstream_requests_total{operation="[a-z_]+",status="error"} [1-9]`)
	if m := body(t, "http://"+addr+"/metrics"); !failed.MatchString(m) {
		t.Errorf("the failed upstream requests are not counted:\n%s", m)
	}
}
