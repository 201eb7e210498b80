package cmsclient_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"calshim/cmsclient"
)

// upstreamSeries reads the registry's upstream request counters as "operation status" → count.
func upstreamSeries(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "calshim_upstream_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			got[labels["operation"]+" "+labels["status"]] = m.GetCounter().GetValue()
		}
	}
	return got
}

// Every upstream request counts under its typed method's operation and its status (a fixed label;
// "error" when nothing answered), and carries the request ID of the calshim request it serves.
func TestUpstreamMetricsAndRequestID(t *testing.T) {
	var mu sync.Mutex
	ids := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		ids[r.URL.Path] = r.Header.Get("X-Request-ID")
		mu.Unlock()
		switch {
		case strings.HasSuffix(r.URL.Path, "/changes"):
			_, _ = w.Write([]byte(`{"log":"l","head":3}`))
		case strings.HasSuffix(r.URL.Path, "/users/me"):
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"code":"rest_not_logged_in","message":"m","data":{"status":401}}`))
		default:
			w.WriteHeader(http.StatusTeapot)
		}
	}))
	defer srv.Close()
	reg := prometheus.NewRegistry()
	c := newClient(srv.URL)
	c.SetMetrics(cmsclient.NewMetrics(reg))
	ctx := cmsclient.WithRequestID(context.Background(), "abc-123")

	if _, err := c.FeedHead(ctx); err != nil {
		t.Fatal(err)
	}
	_, _ = c.ServiceUser(ctx)
	_, _ = c.SavePostAs(ctx, cmsclient.Credentials{Authorization: "Basic x"},
		cmsclient.PostSave{Type: "tribe_events", Body: map[string]any{}})
	_, _ = c.Get(context.Background(), "/anything", nil)

	want := map[string]float64{"feed 200": 1, "users_me 401": 1, "save_post 4xx": 1, "other 4xx": 1}
	got := upstreamSeries(t, reg)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v (all: %v)", k, got[k], v, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("series %v, want %v", got, want)
	}

	for path, id := range ids {
		if want := map[bool]string{true: "", false: "abc-123"}[path == "/anything"]; id != want {
			t.Errorf("%s: X-Request-ID %q, want %q", path, id, want)
		}
	}
}

// A request that got no answer counts as "error".
func TestUpstreamMetricsTransportError(t *testing.T) {
	reg := prometheus.NewRegistry()
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // nothing listens there any more
	c := newClient(srv.URL)
	c.SetMetrics(cmsclient.NewMetrics(reg))
	if _, err := c.Site(context.Background()); err == nil {
		t.Fatal("no error from a closed server")
	}
	if got := upstreamSeries(t, reg); got["index error"] != 1 || len(got) != 1 {
		t.Errorf("series %v, want index error 1", got)
	}
}
