package cmsclient_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"calshim/cmsclient"
	"calshim/internal/testkit/wpfake"
	"calshim/mapping"
)

const allStatuses = "publish,future,draft,pending,private,trash"

func newClient(root string) *cmsclient.Client {
	return cmsclient.New(root, "calshim-reader", "app password", 5*time.Second)
}

func decodeIDs(t *testing.T, items []json.RawMessage) []int {
	t.Helper()
	var ids []int
	for _, raw := range items {
		var x struct{ ID int }
		if err := json.Unmarshal(raw, &x); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, x.ID)
	}
	return ids
}

func TestListAllPages(t *testing.T) {
	fake := wpfake.New(t)
	fake.SetMaxPerPage(7)
	want := slices.Sorted(slices.Values(fake.IDs("tribe_events")))
	wantPages := (len(want) + 6) / 7

	items, total, err := newClient(fake.Root).ListAll(context.Background(), "/wp/v2/tribe_events",
		url.Values{"status": {allStatuses}, "orderby": {"id"}, "order": {"asc"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeIDs(t, items); !reflect.DeepEqual(got, want) {
		t.Errorf("IDs = %v, want %v (page order kept)", got, want)
	}
	if got, want := total, len(want); got != want {
		t.Errorf("total = %d, want %d", got, want)
	}
	var pages []string
	for _, r := range fake.Requests() {
		if got, want := r.Query.Get("per_page"), "100"; got != want {
			t.Errorf("%s: per_page = %q, want %q", r, got, want)
		}
		if got, want := r.Query.Get("status"), allStatuses; got != want {
			t.Errorf("%s: status = %q, want %q", r, got, want)
		}
		pages = append(pages, r.Query.Get("page"))
	}
	slices.Sort(pages)
	if got, want := len(pages), wantPages; got != want || pages[0] != "1" {
		t.Errorf("pages requested = %v, want 1 to %d once each", pages, want)
	}
}

// ListAll fetches the pages after the first in parallel, never more than Concurrency at a time.
func TestListAllConcurrency(t *testing.T) {
	const limit = 3
	fake := wpfake.New(t)
	fake.SetMaxPerPage(2) // 25 pages or so
	var (
		mu                sync.Mutex
		inFlight, maxSeen int
		reached           = make(chan struct{})
		once              sync.Once
	)
	fake.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Query().Get("page") == "1" {
			return false
		}
		mu.Lock()
		inFlight++
		maxSeen = max(maxSeen, inFlight)
		if inFlight == limit {
			once.Do(func() { close(reached) })
		}
		mu.Unlock()
		// Hold the first requests until `limit` of them run at once, so that an unbounded client would
		// be caught with more in flight.
		select {
		case <-reached:
		case <-time.After(5 * time.Second):
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
		return false
	})
	c := newClient(fake.Root)
	c.Concurrency = limit
	items, _, err := c.ListAll(context.Background(), "/wp/v2/tribe_events", url.Values{"status": {allStatuses}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(items), len(fake.IDs("tribe_events")); got != want {
		t.Errorf("len(items) = %d, want %d", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if got, want := maxSeen, limit; got != want {
		t.Errorf("max pages in flight = %d, want %d", got, want)
	}
}

func TestListAllFailingPage(t *testing.T) {
	fake := wpfake.New(t)
	fake.SetMaxPerPage(10)
	fake.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Query().Get("page") != "3" {
			return false
		}
		w.WriteHeader(http.StatusBadGateway)
		return true
	})
	_, _, err := newClient(fake.Root).ListAll(context.Background(), "/wp/v2/tribe_events", url.Values{"status": {allStatuses}})
	if !errors.Is(err, cmsclient.ErrUnavailable) {
		t.Errorf("err = %v, want ErrUnavailable", err)
	}
}

// Without X-WP-TotalPages (a proxy stripped it) ListAll takes the first page as the only one.
func TestListAllWithoutTotals(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`[{"id":1},{"id":2}]`))
	}))
	defer srv.Close()
	items, total, err := newClient(srv.URL).ListAll(context.Background(), "/wp/v2/tags", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := decodeIDs(t, items), []int{1, 2}; !reflect.DeepEqual(got, want) || total != -1 {
		t.Errorf("IDs, total = %v, %d, want %v, -1", got, total, want)
	}
}

func TestGetErrors(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	tests := []struct {
		name      string
		down      int                                   // wpfake.SetDown
		serve     func(*wpfake.Server) http.HandlerFunc // or answer with this
		root      string                                // or ask another root
		wantUnav  bool
		wantError *cmsclient.Error // Data not compared
	}{
		{name: "500", down: http.StatusInternalServerError, wantUnav: true},
		{name: "503", down: http.StatusServiceUnavailable, wantUnav: true},
		{name: "429", down: http.StatusTooManyRequests, wantUnav: true},
		{name: "connection closed", down: wpfake.Drop, wantUnav: true},
		{name: "connection refused", root: closed.URL, wantUnav: true},
		{name: "400 rest_invalid_param", serve: recorded("error-400-per-page.json"),
			wantError: &cmsclient.Error{Status: 400, Code: "rest_invalid_param", Message: "Invalid parameter(s): per_page"}},
		{name: "401 rest_forbidden_context", serve: recorded("error-401-context-edit.json"),
			wantError: &cmsclient.Error{Status: 401, Code: "rest_forbidden_context", Message: "Sorry, you are not allowed to edit posts in this post type."}},
		{name: "403 rest_forbidden", serve: recorded("error-403-settings.json"),
			wantError: &cmsclient.Error{Status: 403, Code: "rest_forbidden", Message: "Sorry, you are not allowed to do that."}},
		{name: "404 rest_no_route", serve: recorded("error-404-no-route.json"),
			wantError: &cmsclient.Error{Status: 404, Code: "rest_no_route", Message: "No route was found matching the URL and request method."}},
		{name: "403 not JSON", serve: func(*wpfake.Server) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { http.Error(w, "Forbidden", http.StatusForbidden) }
		}, wantError: &cmsclient.Error{Status: 403}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := wpfake.New(t)
			fake.SetDown(tc.down)
			if tc.serve != nil {
				h := tc.serve(fake)
				fake.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool { h(w, r); return true })
			}
			root := fake.Root
			if tc.root != "" {
				root = tc.root
			}
			_, err := newClient(root).Get(context.Background(), "/wp/v2/tribe_events", nil)
			if got, want := errors.Is(err, cmsclient.ErrUnavailable), tc.wantUnav; got != want {
				t.Errorf("errors.Is(%v, ErrUnavailable) = %v, want %v", err, got, want)
			}
			var e *cmsclient.Error
			if got, want := errors.As(err, &e), tc.wantError != nil; got != want {
				t.Fatalf("errors.As(%v, *Error) = %v, want %v", err, got, want)
			}
			if e == nil {
				return
			}
			if got, want := [3]any{e.Status, e.Code, e.Message}, [3]any{tc.wantError.Status, tc.wantError.Code, tc.wantError.Message}; got != want {
				t.Errorf("Status, Code, Message = %v, want %v", got, want)
			}
		})
	}
}

// recorded answers with a recorded error (status and body).
func recorded(file string) func(*wpfake.Server) http.HandlerFunc {
	return func(fake *wpfake.Server) http.HandlerFunc {
		rec := fake.Recordings[file]
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.WriteHeader(rec.Status)
			w.Write(rec.Body)
		}
	}
}

func TestErrorData(t *testing.T) {
	fake := wpfake.New(t)
	_, err := newClient(fake.Root).Get(context.Background(), "/wp/v2/tribe_events", url.Values{"per_page": {"1000"}})
	var e *cmsclient.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want *cmsclient.Error", err)
	}
	var data struct{ Params map[string]string }
	if err := json.Unmarshal(e.Data, &data); err != nil {
		t.Fatal(err)
	}
	if got, want := data.Params["per_page"], "per_page must be between 1 (inclusive) and 100 (inclusive)"; got != want {
		t.Errorf("Data.params.per_page = %q, want %q", got, want)
	}
}

func TestSite(t *testing.T) {
	recordedSite := cmsclient.Site{Site: mapping.Site{Name: "calshim test site", Home: "http://127.0.0.1:8881", Timezone: "America/New_York",
		DefaultCurrencySymbol: "$", DefaultCurrencyCode: "USD"}, PluginVersion: "0.1.0", PostsPerPage: 10, MultiDayCutoff: "00:00"}
	withZone := func(zone string) cmsclient.Site { s := recordedSite; s.Timezone = zone; return s }
	tests := []struct {
		name  string
		index func(wpfake.Object)
		want  cmsclient.Site
	}{
		{"recorded", func(wpfake.Object) {}, recordedSite},
		// Without timezone_string WordPress sends the stored gmt_offset option: a string when set through
		// Settings > General, a number when computed.
		{"gmt_offset number", func(o wpfake.Object) { o["timezone_string"] = ""; o["gmt_offset"] = 5.5 }, withZone("UTC+5.5")},
		{"gmt_offset negative", func(o wpfake.Object) { o["timezone_string"] = ""; o["gmt_offset"] = -3 }, withZone("UTC-3")},
		{"gmt_offset zero", func(o wpfake.Object) { o["timezone_string"] = ""; o["gmt_offset"] = 0 }, withZone("UTC")},
		{"gmt_offset string", func(o wpfake.Object) { o["timezone_string"] = ""; o["gmt_offset"] = "5.5" }, withZone("UTC+5.5")},
		{"gmt_offset negative string", func(o wpfake.Object) { o["timezone_string"] = ""; o["gmt_offset"] = "-3" }, withZone("UTC-3")},
		// The option was never stored: get_option() gives "".
		{"gmt_offset empty string", func(o wpfake.Object) { o["timezone_string"] = ""; o["gmt_offset"] = "" }, withZone("UTC")},
		{"TEC options", func(o wpfake.Object) {
			tec := o["calshim"].(wpfake.Object)["tec"].(wpfake.Object)
			tec["multiDayCutoff"], tec["defaultCurrencySymbol"], tec["defaultCurrencyCode"] = "04:00", "€", "EUR"
		}, func() cmsclient.Site {
			s := recordedSite
			s.MultiDayCutoff, s.DefaultCurrencySymbol, s.DefaultCurrencyCode = "04:00", "€", "EUR"
			return s
		}()},
		{"plugin missing", func(o wpfake.Object) { delete(o, "calshim") }, func() cmsclient.Site {
			s := recordedSite
			s.PluginVersion, s.PostsPerPage = "", 0
			return s
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := wpfake.New(t)
			fake.SetIndex(tc.index)
			got, err := newClient(fake.Root).Site(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if *got != tc.want {
				t.Errorf("Site =\n%+v\nwant\n%+v", *got, tc.want)
			}
			if got, want := fake.Requests()[0].Path, "/wp-json/"; got != want {
				t.Errorf("request path = %q, want %q", got, want)
			}
		})
	}
}

// The client sends the service credential with every request.
func TestCredential(t *testing.T) {
	fake := wpfake.New(t)
	var (
		mu         sync.Mutex
		user, pass string
		ok         bool
	)
	fake.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		user, pass, ok = r.BasicAuth()
		return false
	})
	if _, err := newClient(fake.Root).Site(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !ok || user != "calshim-reader" || pass != "app password" {
		t.Errorf("BasicAuth = %q, %q, %v, want calshim-reader, app password, true", user, pass, ok)
	}
}
