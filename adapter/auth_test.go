package adapter

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"calshim/internal/wpfake"
)

// meAnswers makes the fake answer /wp/v2/users/me by the Authorization header, as WordPress does:
// an application password it rejects, a header it does not try (rest_not_logged_in: anonymous), or
// the editor.
func meAnswers(wp *wpfake.Server) {
	wp.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/wp-json/wp/v2/users/me" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.Header.Get("Authorization") {
		case "Basic YWRtaW46d3Jvbmc=": // admin:wrong
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"code":"incorrect_password","message":"The provided password is an invalid application password.","data":{"status":401}}`))
		case "Basic ZWRpdG9yOnNlY3JldA==":
			_, _ = w.Write([]byte(editorMe))
		case "Basic ZWRpdG9yMTpzZWNyZXQ=": // editor1: an editor with the delete capabilities too
			_, _ = w.Write([]byte(`{"id":6,"capabilities":{"edit_tribe_events":true,"delete_tribe_events":true,
"edit_others_tribe_events":true,"delete_others_tribe_events":true,"publish_tribe_events":true}}`))
		default:
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"code":"rest_not_logged_in","message":"You are not currently logged in.","data":{"status":401}}`))
		}
		return true
	})
}

func send(h http.Handler, method, path, auth string) *httptest.ResponseRecorder {
	return sendTo(h, method, "/wp-json/tribe/events/v1"+path, auth)
}

// sendTo sends a request without body to target, with the Authorization header auth ("" = none).
func sendTo(h http.Handler, method, target, auth string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestAuthAsWordPress: the original's answers (WordPress 6.1, TEC 6.17.2) to credentials it rejects or
// does not try: a wrong application password answers 401 incorrect_password on every request, unknown
// routes and OPTIONS included; a header WordPress does not try ("Bearer x", "Basic !!!", a user with an
// empty password) is anonymous: reads answer 200, writes rest_forbidden 401.
func TestAuthAsWordPress(t *testing.T) {
	wp := wpfake.New(t)
	h := fakeServer(t, wp)
	meAnswers(wp)
	const wrong = "Basic YWRtaW46d3Jvbmc="
	for _, tc := range []struct {
		method, path, auth string
		status             int
		code               string
	}{
		{http.MethodGet, "/events?per_page=1", wrong, 401, `"code":"incorrect_password"`},
		{http.MethodGet, "/nonexist", wrong, 401, `"code":"incorrect_password"`},
		{http.MethodOptions, "/events", wrong, 401, `"code":"incorrect_password"`},
		{http.MethodDelete, "/venues/999999", wrong, 401, `"code":"incorrect_password"`},
		{http.MethodGet, "/nonexist", "", 404, `"code":"rest_no_route"`},
		{http.MethodGet, "/events?per_page=1", "Bearer xyz", 200, `"events":[`},
		{http.MethodGet, "/events?per_page=1", "Basic !!!", 200, `"events":[`},
		{http.MethodGet, "/events?per_page=1", "Basic YWRtaW46", 200, `"events":[`},
		{http.MethodDelete, "/events/999999", "Bearer xyz", 401, `"code":"rest_forbidden"`},
	} {
		rec := send(h, tc.method, tc.path, tc.auth)
		if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.code) {
			t.Errorf("%s %s (%s): %d %.200s", tc.method, tc.path, tc.auth, rec.Code, rec.Body)
		}
	}
}

// TestOptionsAllowByCaller: OPTIONS names the write methods the caller may use, as WordPress does
// (the original answers an editor "GET, DELETE, POST, PUT, PATCH" on /events/by-slug/{slug}).
func TestOptionsAllowByCaller(t *testing.T) {
	wp := wpfake.New(t)
	h := fakeServer(t, wp)
	meAnswers(wp)
	for auth, want := range map[string]string{"": "GET", "Basic ZWRpdG9yMTpzZWNyZXQ=": "GET, DELETE, POST, PUT, PATCH"} {
		rec := send(h, http.MethodOptions, "/events/by-slug/foo", auth)
		if got := rec.Header().Get("Allow"); rec.Code != http.StatusOK || got != want {
			t.Errorf("%q: %d Allow %q, want %q", auth, rec.Code, got, want)
		}
	}
}

// TestUpdateUnknownSlug: the original's answers to writes on /events/by-slug/{unknown}: updates (POST,
// PUT, PATCH) check the arguments, then the permission, then answer 404 "Event with ID 0 does not
// exist."; DELETE validates the slug first (400 rest_invalid_param).
func TestUpdateUnknownSlug(t *testing.T) {
	wp := wpfake.New(t)
	h := fakeServer(t, wp)
	meAnswers(wp)
	const editor = "Basic ZWRpdG9yMTpzZWNyZXQ="
	for _, tc := range []struct {
		method, path, auth string
		status             int
		code               string
	}{
		{http.MethodPost, "/events/by-slug/no-such-xyz", editor, 404, `{"code":"rest-event-not-found","message":"Event with ID 0 does not exist.","data":{"status":404}}`},
		{http.MethodPut, "/events/by-slug/no-such-xyz", editor, 404, `"Event with ID 0 does not exist."`},
		{http.MethodPatch, "/events/by-slug/no-such-xyz?status=bogus", editor, 400, `"params":{"status":"Invalid parameter."}`},
		{http.MethodPost, "/events/by-slug/no-such-xyz", "", 401, `"code":"rest_forbidden"`},
		{http.MethodDelete, "/events/by-slug/no-such-xyz", editor, 400, `"params":{"slug":"Invalid parameter."}`},
	} {
		rec := send(h, tc.method, tc.path, tc.auth)
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
