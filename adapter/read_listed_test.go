package adapter

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"calshim/internal/testkit/wpfake"
)

// TestListedEventsFromCache: lists answered with the rendered-event cache on equal, byte for byte
// and header for header, those rendered afresh — on their first request and when the events come
// from the cache —, for every kind of list, including those that must bypass it (_fields, password),
// an enveloped one, both namespaces and the rest_route form.
func TestListedEventsFromCache(t *testing.T) {
	wp := wpfake.New(t)
	cat := fakeCatalog(t, wp)
	fresh := NewServer(cat, zap.NewNop(), testOptions())
	opt := testOptions()
	opt.EventCacheBytes = 1 << 20
	s, cached := newServer(cat, zap.NewNop(), opt)

	const ev = "/wp-json/cal/events/v1/events"
	targets := []string{ev, ev + "?per_page=50", ev + "?start_date=2000-01-01&per_page=50",
		ev + "?start_date=2000-01-01&per_page=50&page=2", ev + "?categories=3&start_date=2000-01-01",
		ev + "?tags=7&start_date=2000-01-01", ev + "?featured=1&start_date=2000-01-01",
		ev + "?search=event&start_date=2000-01-01", ev + "?_fields=id,title&start_date=2000-01-01",
		ev + "?password=secret&start_date=2000-01-01&per_page=50", ev + "?_envelope&per_page=3",
		ev + "?status=publish&start_date=2000-01-01", "/wp-json/tribe/events/v1/events?per_page=50",
		"/index.php?rest_route=/cal/events/v1/events&per_page=5"}
	for round := range 2 {
		for _, target := range targets {
			want, got := serve(fresh, http.MethodGet, target), serve(cached, http.MethodGet, target)
			name := fmt.Sprintf("round %d %s", round, target)
			if got.Code != want.Code || got.Body.String() != want.Body.String() {
				t.Fatalf("%s: %d %.300s\nwant %d %.300s", name, got.Code, got.Body, want.Code, want.Body)
			}
			if !maps.EqualFunc(got.Header(), want.Header(), slices.Equal) {
				t.Errorf("%s: headers %v, want %v", name, got.Header(), want.Header())
			}
		}
	}
	if s.events.Used() == 0 {
		t.Error("no event was kept: the lists were all rendered afresh")
	}
}

// TestListedEventsAfterAnEdit: an event kept rendered is not served once it changed in WordPress:
// the catalog version is part of the key.
func TestListedEventsAfterAnEdit(t *testing.T) {
	wp := wpfake.New(t)
	opt := testOptions()
	opt.EventCacheBytes = 1 << 20
	cat := fakeCatalog(t, wp)
	_, h := newServer(cat, zap.NewNop(), opt)
	const list = "/wp-json/cal/events/v1/events?start_date=2000-01-01&per_page=50"
	id := wp.IDs("tribe_events")[0]
	before := serve(h, http.MethodGet, list).Body.String()
	if !strings.Contains(before, fmt.Sprintf(`"id":%d,`, id)) || strings.Contains(before, "Renamed Again") {
		t.Fatalf("event %d not listed, or already renamed: %.300s", id, before)
	}

	wp.Advance(time.Minute)
	wp.Modify("tribe_events", id, func(o wpfake.Object) { wp.Sub(o, "calshim")["title"] = "Renamed Again" })
	if err := cat.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if after := serve(h, http.MethodGet, list).Body.String(); !strings.Contains(after, "Renamed Again") {
		t.Errorf("the list after the edit still shows the old event: %.300s", after)
	}
}
