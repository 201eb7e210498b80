package test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// GET {rest_root}/ answers WordPress' index with the site's members as WordPress gives them and
// only calshim's namespaces and routes, each route as the namespace index describes it.
func TestRESTIndexDiscovery(t *testing.T) {
	raw := call(t, http.MethodGet, wpEnv["WP_URL"]+"/wp-json/").raw
	var upstream map[string]any
	if err := json.Unmarshal(raw, &upstream); err != nil {
		t.Fatal(err)
	}

	nsIndex := map[string]any{}
	_ = json.Unmarshal(get(t, "").raw, &nsIndex)
	for _, path := range []string{"/wp-json/", "/?rest_route=/", "/wp-json", "/de/wp-json/"} {
		r := call(t, http.MethodGet, path)
		var idx map[string]any
		if err := json.Unmarshal(r.raw, &idx); err != nil || r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, r.status, r.raw)
		}
		for _, k := range []string{"name", "description", "url", "home", "gmt_offset", "timezone_string",
			"authentication"} {
			if !reflect.DeepEqual(idx[k], upstream[k]) {
				t.Errorf("%s %s = %v, WordPress has %v", path, k, idx[k], upstream[k])
			}
		}
		if ns := idx["namespaces"]; !reflect.DeepEqual(ns, []any{"cal/events/v1", "tribe/events/v1"}) {
			t.Errorf("%s namespaces %v", path, ns)
		}
		routes, _ := idx["routes"].(map[string]any)
		for name, route := range nsIndex["routes"].(map[string]any) {
			if path == "/wp-json/" && !reflect.DeepEqual(routes[name], route) {
				t.Errorf("%s route %s differs from the namespace index's", path, name)
			}
		}
		for name := range routes {
			if name != "/" && !strings.HasPrefix(name, "/cal/events/v1") &&
				!strings.HasPrefix(name, "/tribe/events/v1") {
				t.Errorf("%s lists %s", path, name)
			}
		}
		if keys := keys(r.body); !slices.Contains(keys, "_links") || slices.Contains(keys, "calshim") {
			t.Errorf("%s keys %v", path, keys)
		}
	}
}
