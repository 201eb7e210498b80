package test

import (
	"net/http"
	"strings"
	"testing"
)

// Every form a legacy client may use answers the same data, and every URL in the answer keeps the
// client on the address it started from (issue 5).
func TestAddressingForms(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start string // first request, below the host
		base  string // every v1 URL of the answers starts with it
	}{
		{"canonical", "/wp-json/cal/events/v1/events?per_page=7", shim + "/wp-json/cal/events/v1/"},
		{"original namespace alias", "/wp-json/tribe/events/v1/events?per_page=7", shim + "/wp-json/tribe/events/v1/"},
		{"rest_route", "/?rest_route=/cal/events/v1/events&per_page=7", shim + "/?rest_route=/cal/events/v1/"},
		{"rest_route on index.php with alias", "/index.php?rest_route=/tribe/events/v1/events/&per_page=7", shim + "/index.php?rest_route=/tribe/events/v1/"},
		{"language variant", "/fr/wp-json/cal/events/v1/events?per_page=7", shim + "/fr/wp-json/cal/events/v1/"},
		{"language variant with rest_route", "/de/?rest_route=/tribe/events/v1/events&per_page=7", shim + "/de/?rest_route=/tribe/events/v1/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := ids(at(get(t, "/events?per_page=50").body, "events"))
			var got []int
			next := tc.start
			for n := 0; next != ""; n++ {
				if n > 20 {
					t.Fatal("next_rest_url does not end")
				}
				r := call(t, http.MethodGet, next)
				if r.status != http.StatusOK {
					t.Fatalf("GET %s: %d %s", next, r.status, r.raw)
				}
				for _, u := range []string{str(at(r.body, "rest_url")), str(at(r.body, "next_rest_url")), str(at(r.body, "previous_rest_url")),
					str(at(r.body, "events", 0, "rest_url")), str(at(r.body, "events", 0, "categories", 0, "urls", "self"))} {
					if u != "" && !strings.HasPrefix(u, tc.base) {
						t.Errorf("URL %s leaves %s", u, tc.base)
					}
				}
				got = append(got, ids(at(r.body, "events"))...)
				next = strings.TrimPrefix(strings.ReplaceAll(str(at(r.body, "next_rest_url")), " ", "%20"), shim)
			}
			if len(got) != len(want) {
				t.Errorf("paged through %d events, want %d", len(got), len(want))
			}
			for _, path := range []string{"venues", "organizers", "categories", "tags"} {
				u := strings.Replace(tc.start, "/v1/events", "/v1/"+path, 1)
				r := call(t, http.MethodGet, u)
				if r.status != http.StatusOK || !strings.HasPrefix(str(at(r.body, "rest_url")), tc.base+path+"/") {
					t.Errorf("GET %s: %d rest_url %s", u, r.status, str(at(r.body, "rest_url")))
				}
			}
		})
	}
}

func TestAliasIndexAndDoc(t *testing.T) {
	idx := call(t, http.MethodGet, "/wp-json/tribe/events/v1")
	if str(at(idx.body, "namespace")) != "tribe/events/v1" || at(idx.body, "routes", "/tribe/events/v1/events") == nil {
		t.Errorf("alias index: %.300s", idx.raw)
	}
	if strings.Contains(string(idx.raw), "cal\\/events") {
		t.Errorf("alias index mentions the canonical namespace")
	}
	doc := call(t, http.MethodGet, "/?rest_route=/tribe/events/v1/doc")
	if got := str(at(doc.body, "servers", 0, "url")); got != shim+"/?rest_route=/tribe/events/v1/" {
		t.Errorf("doc server in rest_route form = %s", got)
	}
	de := call(t, http.MethodGet, "/de/wp-json/cal/events/v1/doc")
	if got := str(at(de.body, "servers", 0, "url")); got != shim+"/de/wp-json/cal/events/v1/" {
		t.Errorf("doc server in de = %s", got)
	}
	en := get(t, "/doc")
	if got := keys(at(de.body, "paths")); len(got) != len(keys(at(en.body, "paths"))) {
		t.Errorf("de doc has %d paths", len(got))
	}
	param := func(r reply) string {
		return str(at(r.body, "paths", "/events", "get", "parameters", 0, "description"))
	}
	if param(en) != "The archive page to return" || param(de) == param(en) || param(de) == "" {
		t.Errorf("page description: en %q, de %q", param(en), param(de))
	}
	deIdx := call(t, http.MethodGet, "/de/wp-json/cal/events/v1")
	if d := str(at(deIdx.body, "routes", "/cal/events/v1/events", "endpoints", 0, "args", "page", "description")); d != param(de) {
		t.Errorf("de index page description %q, doc %q", d, param(de))
	}
	if l := idx.header.Get("Link"); l != "<"+shim+"/wp-json/>; rel=\"https://api.w.org/\"" {
		t.Errorf("Link = %s", l)
	}
}

func TestUnknownAddresses(t *testing.T) {
	for _, path := range []string{"/xx/wp-json/cal/events/v1/events", "/wp-json/other/v1/events", "/de/wp-json/nope/v1",
		"/?rest_route=/nope/v1/events", "/wp-jsonx/cal/events/v1/events"} {
		wantError(t, call(t, http.MethodGet, path), http.StatusNotFound, "rest_no_route")
	}
}
