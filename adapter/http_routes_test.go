package adapter

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"calshim/mapping"
)

// The table's routes below the namespaces match the paths of their own resource only, with their
// methods in registration order; the namespace index and /doc describe the original's fifteen.
func TestRoutes(t *testing.T) {
	table := routeTable()
	if got, want := len(documented(table)), 15; got != want {
		t.Fatalf("documented routes = %d, want %d", got, want)
	}

	for _, tc := range []struct {
		path    string
		route   string
		methods string
	}{
		{"", "", "GET"},
		{"/doc", "/doc", "GET"},
		{"/events", "/events", "GET POST"},
		{"/events/12", `/events/(?P<id>\d+)`, "GET DELETE POST PUT PATCH"},
		{"/events/by-slug/gala-night", `/events/by-slug/(?P<slug>[^/]+)`, "GET DELETE POST PUT PATCH"},
		{"/categories/3", `/categories/(?P<id>\d+)`, "GET POST PUT PATCH DELETE"},
		{"/events.ics", `/events\.ics`, "GET"},
		{"/events/12.ics", `/events/(?P<id>\d+)\.ics`, "GET"},
		{"/events/foo", "", ""},
		{"/events/by-slug/", "", ""},
		{"/events/1/2", "", ""},
		{"/healthz", "", ""},
	} {
		var matched []*route
		for i := range table {
			if rt := &table[i]; rt.at == inNamespaces && rt.re.MatchString(tc.path) {
				matched = append(matched, rt)
			}
		}
		switch {
		case tc.methods == "" && len(matched) > 0:
			t.Errorf("%q matches %q, want no route", tc.path, matched[0].pattern)
		case tc.methods == "":
		case len(matched) != 1 || matched[0].pattern != tc.route:
			t.Errorf("%q matches %d routes, want exactly %q", tc.path, len(matched), tc.route)
		case strings.Join(matched[0].order, " ") != tc.methods:
			t.Errorf("%q methods = %v, want %s", tc.path, matched[0].order, tc.methods)
		}
	}
}

// A write's arguments are the matched route's, which the request carries: validation does not
// depend on what wraps the response writer (the access log's trace once named the route).
func TestWriteArgsFromMatchedRoute(t *testing.T) {
	table := routeTable()
	var events *route
	for i := range table {
		if table[i].pattern == "/events" {
			events = &table[i]
		}
	}
	gc, _ := gin.CreateTestContext(httptest.NewRecorder())
	r := &request{gc: gc, route: events, method: http.MethodPost, params: Params{}}
	status, body := errorBody(checkArgs(r))
	if got := string(mapping.EncodeJSON(body)); status != http.StatusBadRequest ||
		!strings.Contains(got, `"code":"rest_missing_callback_param"`) ||
		!strings.Contains(got, "title, start_date, end_date") {
		t.Errorf("POST /events without arguments = %d %s", status, got)
	}
}
