package adapter

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"calshim/catalog"
	"calshim/cmsclient"
	"calshim/internal/testkit/wpfake"
)

// recordingNow is when the fixtures' data set sat where the default date window expects it.
var recordingNow = time.Date(2026, 11, 22, 18, 54, 25, 0, time.UTC)

// fakeServer serves v1 from a catalog loaded from a fake WordPress (internal/testkit/wpfake, recorded
// answers), at a fixed clock so the default date window is the recording's.
func fakeServer(tb testing.TB, wp *wpfake.Server) http.Handler {
	tb.Helper()
	return NewServer(fakeCatalog(tb, wp), zap.NewNop(), testOptions())
}

func testOptions() Options {
	return Options{RESTRoot: "/wp-json", Namespaces: []string{"cal/events/v1", "tribe/events/v1"},
		Languages: []string{"de"}, MaxPerPage: 50, Now: func() time.Time { return recordingNow }}
}

// fakeCatalog is a catalog loaded from a fake WordPress.
func fakeCatalog(tb testing.TB, wp *wpfake.Server) *catalog.Catalog {
	tb.Helper()
	client := cmsclient.New(wp.Root, "", "", 30*time.Second)
	client.WritePause = time.Millisecond // a lost answer is asked again at once: tests need not wait
	cat := catalog.New(client, catalog.Options{
		Types: catalog.Types{Event: "tribe_events", Venue: "tribe_venue", Organizer: "tribe_organizer",
			CategoryTax: "tribe_events_cat", TagTax: "post_tag", CategoryBase: "tribe_events_cat", TagBase: "tags"},
		PollInterval: time.Hour, ReconcileEvery: 1, PerPage: 10, Authenticated: true,
	})
	if err := cat.Load(context.Background()); err != nil {
		tb.Fatal(err)
	}

	return cat
}

// newTestServer is fakeServer over the recorded data set as it is.
func newTestServer(tb testing.TB) http.Handler { return fakeServer(tb, wpfake.New(tb)) }

func TestGETRoutesAnswerFromTheCatalog(t *testing.T) {
	h := newTestServer(t)
	for _, tc := range []struct {
		target string
		status int
		want   string // a fragment of the body
	}{
		{"/wp-json/cal/events/v1/events?per_page=2", 200, `&per_page=2&`},
		{"/wp-json/cal/events/v1/events/17", 200, `"title":"Opening Night Gala"`},
		{"/wp-json/cal/events/v1/events/by-slug/opening-night-gala", 200, `"id":17,`},
		{"/wp-json/cal/events/v1/venues/5", 200, `"venue":"Blue Note Jazz Club"`},
		{"/wp-json/cal/events/v1/organizers?per_page=1", 200, `"organizers":[{`},
		{"/wp-json/cal/events/v1/categories/3", 200, `"up":"http:\/\/example.com\/wp-json\/cal\/events\/v1\/categories\/2"`},
		{"/wp-json/cal/events/v1/tags", 200, `"tags":[`},
		{"/wp-json/cal/events/v1/events/39", 403, `"code":"event-not-accessible"`},
		{"/wp-json/cal/events/v1/events/999999", 404, `"code":"rest-event-not-found"`},
		{"/wp-json/cal/events/v1/events?page=0", 400, `"params":{"page":"Invalid parameter."}`},
		{"/de/wp-json/tribe/events/v1/events?per_page=1", 200, `http:\/\/example.com\/de\/wp-json\/tribe\/events\/v1\/events\/?page=1`},
		{"/wp-json/cal/events/v1/nope", 404, `"code":"rest_no_route"`},
	} {
		t.Run(tc.target, func(t *testing.T) {
			rec := serve(h, http.MethodGet, tc.target)
			if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.want) {
				t.Errorf("GET %s = %d %.300s\nwant %d with %s", tc.target, rec.Code, rec.Body.String(), tc.status, tc.want)
			}
		})
	}
}

// A multilingual CMS: each language variant answers from its own catalog.
func TestLanguageVariantsKeepTheirCatalogs(t *testing.T) {
	en, de := wpfake.New(t), wpfake.New(t)
	de.Modify("tribe_events", 17, func(o wpfake.Object) { de.Sub(o, "calshim")["title"] = "Eröffnungsgala" })
	opt := testOptions()
	opt.Catalogs = map[string]*catalog.Catalog{"de": fakeCatalog(t, de)}
	h := NewServer(fakeCatalog(t, en), zap.NewNop(), opt)
	for target, want := range map[string]string{
		"/wp-json/cal/events/v1/events/17":    `"title":"Opening Night Gala"`,
		"/de/wp-json/cal/events/v1/events/17": `"title":"Er\u00f6ffnungsgala"`,
	} {
		if rec := serve(h, http.MethodGet, target); !strings.Contains(rec.Body.String(), want) {
			t.Errorf("GET %s = %d %.200s, want %s", target, rec.Code, rec.Body.String(), want)
		}
	}
}

// FuzzGETQuery: whatever the query string, no GET route answers 5xx or panics, and every answer is
// JSON of the original's shapes (an envelope or an error body).
func FuzzGETQuery(f *testing.F) {
	for _, s := range []string{"page=2&per_page=5", "start_date=tomorrow&end_date=%2B2%20weeks&strict_dates=1",
		"categories[]=music&tags=free,7&venue=5&organizer=12,13&featured=1", "include=17,18&status=publish",
		"search=jazz&post_parent=17&ticketed=false", "starts_before=2026-12-01T10:00:00Z&ends_after=@0",
		"hide_empty=0&orderby=count&order=desc&parent=2&post=20&event=20&slug=jazz&exclude=3",
		"has_events=yes&only_with_upcoming=1&event=17", "password=letmein&_envelope", "page=99999999999999999999"} {
		f.Add(s)
	}

	h := newTestServer(f)
	routes := []string{"events", "events/17", "events/by-slug/opening-night-gala", "venues", "venues/5", "organizers",
		"organizers/12", "categories", "categories/2", "tags", "tags/7", "", "doc"}
	f.Fuzz(func(t *testing.T, query string) {
		for _, r := range routes {
			rec := serve(h, http.MethodGet, "/wp-json/cal/events/v1/"+r+"?"+query)
			if rec.Code >= 500 {
				t.Fatalf("GET %s?%s = %d %s", r, query, rec.Code, rec.Body.String())
			}
			if b := rec.Body.String(); rec.Code != http.StatusNotModified && !strings.HasPrefix(b, "{") {
				t.Fatalf("GET %s?%s: body %.100q", r, query, b)
			}
		}
	})
}
