package adapter

import (
	"net/http"
	"strings"
	"testing"
)

// TestAuthAsWordPress: the original's answers (WordPress 6.1, TEC 6.17.2) to credentials it rejects or
// does not try: a wrong application password answers 401 incorrect_password on every request, unknown
// routes and OPTIONS included; a header WordPress does not try ("Bearer x", "Basic !!!", a user with an
// empty password) is anonymous: reads answer 200, writes rest_forbidden 401.
func TestAuthAsWordPress(t *testing.T) {
	_, h := viewerServer(t)
	for _, tc := range []struct {
		method, path, auth string
		status             int
		code               string
	}{
		{http.MethodGet, "/events?per_page=1", wrongAuth, 401, `"code":"incorrect_password"`},
		{http.MethodGet, "/nonexist", wrongAuth, 401, `"code":"incorrect_password"`},
		{http.MethodOptions, "/events", wrongAuth, 401, `"code":"incorrect_password"`},
		{http.MethodDelete, "/venues/999999", wrongAuth, 401, `"code":"incorrect_password"`},
		{http.MethodGet, "/nonexist", "", 404, `"code":"rest_no_route"`},
		{http.MethodGet, "/events?per_page=1", "Bearer xyz", 200, `"events":[`},
		{http.MethodGet, "/events?per_page=1", "Basic !!!", 200, `"events":[`},
		{http.MethodGet, "/events?per_page=1", "Basic YWRtaW46", 200, `"events":[`},
		{http.MethodDelete, "/events/999999", "Bearer xyz", 401, `"code":"rest_forbidden"`},
	} {
		rec := serve(h, tc.method, tribeV1+tc.path, asUser(tc.auth))
		if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.code) {
			t.Errorf("%s %s (%s): %d %.200s", tc.method, tc.path, tc.auth, rec.Code, rec.Body)
		}
	}
}

// TestOptionsAllowByCaller: OPTIONS names the write methods the caller may use, as WordPress does
// (the original answers an editor "GET, DELETE, POST, PUT, PATCH" on /events/by-slug/{slug}).
func TestOptionsAllowByCaller(t *testing.T) {
	_, h := viewerServer(t)
	for auth, want := range map[string]string{"": "GET", deleterAuth: "GET, DELETE, POST, PUT, PATCH"} {
		rec := serve(h, http.MethodOptions, tribeV1+"/events/by-slug/foo", asUser(auth))
		if got := rec.Header().Get("Allow"); rec.Code != http.StatusOK || got != want {
			t.Errorf("%q: %d Allow %q, want %q", auth, rec.Code, got, want)
		}
	}
}

// TestUpdateUnknownSlug: the original's answers to writes on /events/by-slug/{unknown}: updates (POST,
// PUT, PATCH) check the arguments, then the permission, then answer 404 "Event with ID 0 does not
// exist."; DELETE validates the slug first (400 rest_invalid_param).
func TestUpdateUnknownSlug(t *testing.T) {
	_, h := viewerServer(t)
	for _, tc := range []struct {
		method, path, auth string
		status             int
		code               string
	}{
		{http.MethodPost, "/events/by-slug/no-such-xyz", deleterAuth, 404, `{"code":"rest-event-not-found","message":"Event with ID 0 does not exist.","data":{"status":404}}`},
		{http.MethodPut, "/events/by-slug/no-such-xyz", deleterAuth, 404, `"Event with ID 0 does not exist."`},
		{http.MethodPatch, "/events/by-slug/no-such-xyz?status=bogus", deleterAuth, 400, `"params":{"status":"Invalid parameter."}`},
		{http.MethodPost, "/events/by-slug/no-such-xyz", "", 401, `"code":"rest_forbidden"`},
		{http.MethodDelete, "/events/by-slug/no-such-xyz", deleterAuth, 400, `"params":{"slug":"Invalid parameter."}`},
	} {
		rec := serve(h, tc.method, tribeV1+tc.path, asUser(tc.auth))
		if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.code) {
			t.Errorf("%s %s: %d %.300s", tc.method, tc.path, rec.Code, rec.Body)
		}
	}
}

// The plugin's reader role reads every status through wp/v2 on GET and HEAD only
// (Calshim_Bridge::grant_read_caps), which users/me does not list: calshim grants the same.
func TestReaderRoleReadsLikeTheOriginal(t *testing.T) {
	reader := &viewer{ID: 2, Caps: map[string]bool{"read": true, readAllCap: true}}
	if got := reader.forMethod(http.MethodGet); !got.can("edit_tribe_events") || !got.can("read_private_tribe_venues") {
		t.Errorf("GET: %v", got.Caps)
	}
	if reader.can("edit_tribe_events") {
		t.Error("the cached viewer was changed")
	}
	if got := reader.forMethod(http.MethodPost); got.can("edit_tribe_events") {
		t.Error("POST: a write must not get the read grant")
	}
	editor := &viewer{ID: 6, Caps: map[string]bool{"read": true}}
	if got := editor.forMethod(http.MethodGet); got.can("edit_tribe_events") {
		t.Error("a user without calshim_read_all got the grant")
	}
}
