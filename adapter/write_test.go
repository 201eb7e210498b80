package adapter

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"calshim/internal/testkit/wpfake"
	"calshim/mapping"
)

// TestWriteUpstreamDown: a write while the CMS cannot be reached is a prompt 503 with the error body.
func TestWriteUpstreamDown(t *testing.T) {
	wp, h := viewerServer(t)
	if rec := serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(`{}`)); rec.Code != http.StatusBadRequest { // resolves and caches the viewer
		t.Fatalf("warm-up: %d %s", rec.Code, rec.Body)
	}
	for _, down := range []int{wpfake.Drop, http.StatusBadGateway} {
		wp.SetDown(down)
		start := time.Now()
		rec := serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(`{"title":"x","start_date":"2031-01-01 10:00","end_date":"2031-01-01 11:00"}`))
		if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"code":"calshim_upstream_unavailable"`) {
			t.Errorf("down %d: %d %s", down, rec.Code, rec.Body)
		}
		if time.Since(start) > 10*time.Second {
			t.Errorf("down %d: took %v", down, time.Since(start))
		}
	}
}

// TestWriteFailsHalfWay: the nested venue is created, then the event is refused: the answer is the
// refusal, and the catalog holds the venue the CMS now has.
func TestWriteFailsHalfWay(t *testing.T) {
	wp := wpfake.New(t)
	h := fakeServer(t, wp)
	venueID := wp.IDs("tribe_venue")[0]
	wp.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		switch {
		case answerMe(w, r):
		case r.Method == http.MethodPost && r.URL.Path == "/wp-json/wp/v2/tribe_venue":
			wp.Clone("tribe_venue", venueID, 990001, func(o wpfake.Object) { o["slug"] = "half-way-hall" })
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"id":990001}`))
		case r.Method == http.MethodPost && r.URL.Path == "/wp-json/wp/v2/tribe_events":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"code":"db_insert_error","message":"Could not insert post into the database.","data":{"status":500}}`))
		default:
			return false
		}
		return true
	})
	rec := serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(`{"title":"x","start_date":"2031-01-01 10:00","end_date":"2031-01-01 11:00","venue":{"venue":"Half Way Hall"}}`))
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), `"db_insert_error"`) {
		t.Fatalf("got %d %s", rec.Code, rec.Body)
	}
	got := serve(h, http.MethodGet, calV1+"/venues/990001")
	if got.Code != http.StatusOK {
		t.Errorf("venue created half-way is not in the catalog: %d %s", got.Code, got.Body)
	}
}

func TestViewerCapabilities(t *testing.T) {
	contributor := &viewer{ID: 4, Caps: map[string]bool{"edit_tribe_events": true, "delete_tribe_events": true}}
	event := func(author int, status string) *mapping.Post {
		return &mapping.Post{Author: author, Text: mapping.TextFields{Type: "tribe_events", Status: status}.Pack()}
	}
	own, published, others := event(4, "draft"), event(4, "publish"), event(1, "draft")
	var anonymous *viewer
	for _, tc := range []struct {
		name string
		got  bool
		want bool
	}{
		{"own draft editable", contributor.mayEdit(own), true},
		{"own published not editable", contributor.mayEdit(published), false},
		{"others' not editable", contributor.mayEdit(others), false},
		{"own draft readable", contributor.mayRead(own), true},
		{"anonymous reads published", anonymous.mayRead(published), true},
		{"anonymous cannot read drafts", anonymous.mayRead(own), false},
		{"anonymous cannot edit", anonymous.mayEdit(own), false},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %v", tc.name, tc.got)
		}
	}
}

func TestFetchImageLimits(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", map[bool]string{true: "image/png", false: "text/html"}[strings.HasSuffix(r.URL.Path, ".png")])
		_, _ = w.Write([]byte(strings.Repeat("x", 100)))
	}))
	defer srv.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opt  Options
		url  string
		ok   bool
	}{
		{"loopback refused by default", Options{}, srv.URL + "/a.png", false},
		{"loopback allowed when configured", Options{ImageAllowPrivate: true}, srv.URL + "/a.png", true},
		{"not an image", Options{ImageAllowPrivate: true}, srv.URL + "/a.html", false},
		{"too large", Options{ImageAllowPrivate: true, ImageMaxBytes: 50}, srv.URL + "/a.png", false},
		{"not http", Options{ImageAllowPrivate: true}, "file:///etc/passwd", false},
	} {
		s := &Server{opt: tc.opt}
		data, ctype, name, err := s.fetchImage(ctx, tc.url)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err = %v", tc.name, err)
		}
		if tc.ok && (len(data) != 100 || ctype != "image/png" || name != "a.png") {
			t.Errorf("%s: %d bytes, %q, %q", tc.name, len(data), ctype, name)
		}
	}
}
