package adapter

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"calshim/internal/testkit/jsontest"
)

// The REST root answers WordPress' index: the upstream site's members, calshim's namespaces and
// routes only, in every addressing form; other methods keep answering 404.
func TestRESTIndex(t *testing.T) {
	h := newTestServer(t)
	for _, target := range []string{"/wp-json/", "/wp-json", "/?rest_route=/", "/de/wp-json/"} {
		rec := serve(h, http.MethodGet, target)
		body, err := jsontest.Decode(rec.Body.Bytes())
		if rec.Code != http.StatusOK || err != nil {
			t.Fatalf("GET %s = %d %.300s", target, rec.Code, rec.Body.String())
		}
		var idx struct {
			Namespaces []string
			Routes     map[string]json.RawMessage
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &idx)
		wantKeys := []string{"name", "description", "url", "home", "gmt_offset", "timezone_string",
			"namespaces", "authentication", "routes"}
		if keys := body.(jsontest.Object).Keys(); !slices.Equal(keys[:len(wantKeys)], wantKeys) ||
			keys[len(keys)-1] != "_links" || slices.Contains(keys, "calshim") {
			t.Errorf("%s keys %v", target, keys)
		}
		if !slices.Equal(idx.Namespaces, []string{"cal/events/v1", "tribe/events/v1"}) ||
			idx.Routes["/"] == nil || idx.Routes["/cal/events/v1/events"] == nil ||
			idx.Routes["/tribe/events/v1/venues/(?P<id>\\d+)"] == nil {
			t.Errorf("%s: namespaces %v, %d routes", target, idx.Namespaces, len(idx.Routes))
		}
		for r := range idx.Routes {
			if strings.HasPrefix(r, "/wp/") || strings.Contains(r, ".ics") {
				t.Errorf("%s lists %s", target, r)
			}
		}
	}

	rec := serve(h, http.MethodPost, "/wp-json/")
	if rec.Code != http.StatusNotFound {
		t.Errorf("POST /wp-json/ = %d", rec.Code)
	}
}
