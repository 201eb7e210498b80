package adapter

import (
	"calshim/internal/testkit/wpfake"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The adapter tests' one way to send a request, and the credentials they send.

// calV1 is the v1 namespace's path; tribeV1 is the original's, which calshim answers too.
const (
	calV1   = "/wp-json/cal/events/v1"
	tribeV1 = "/wp-json/tribe/events/v1"
)

// Credentials (Basic user:password) and what the fake's users/me (wpfake.Me) answers for them.
const (
	adminAuth      = "Basic YWRtaW46c2VjcmV0"         // admin:secret
	editorAuth     = "Basic ZWRpdG9yOnNlY3JldA=="     // editor:secret
	deleterAuth    = "Basic ZWRpdG9yMTpzZWNyZXQ="     // editor1:secret, who may delete events too
	subscriberAuth = "Basic c3Vic2NyaWJlcjpzZWNyZXQ=" // subscriber:secret
	wrongAuth      = "Basic YWRtaW46d3Jvbmc="         // admin:wrong, a password WordPress refuses
)

// reqOption sets something on a request before it is served.
type reqOption func(*http.Request)

// serve sends one request to h and returns the answer. The target's query string is kept as
// given, whatever its bytes; X-Request-ID is fixed (it is echoed) so that answers to the same
// request compare equal.
func serve(h http.Handler, method, target string, opts ...reqOption) *httptest.ResponseRecorder {
	path, query, _ := strings.Cut(target, "?")
	req := httptest.NewRequest(method, path, nil)
	req.URL.RawQuery = query
	req.RequestURI = target // as the request line had it
	req.Header.Set("X-Request-ID", "test")
	for _, o := range opts {
		o(req)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// asUser sends the Authorization header auth ("" none: anonymous).
func asUser(auth string) reqOption {
	return func(r *http.Request) {
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
	}
}

// jsonBody sends body as JSON ("" none).
func jsonBody(body string) reqOption { return withBody("application/json", body) }

// withBody sends body as contentType ("" none).
func withBody(contentType, body string) reqOption {
	return func(r *http.Request) {
		if body != "" {
			r.Header.Set("Content-Type", contentType)
			r.Body = io.NopCloser(strings.NewReader(body))
			r.ContentLength = int64(len(body))
		}
	}
}

// fromAddr sends from the client address remote ("ip:port").
func fromAddr(remote string) reqOption { return func(r *http.Request) { r.RemoteAddr = remote } }

// withHeader sets a header.
func withHeader(name, value string) reqOption {
	return func(r *http.Request) { r.Header.Set(name, value) }
}

// What WordPress' users/me (context=edit) answers for each credential: the capabilities that
// matter.
// adminMe is /wp/v2/users/me?context=edit for an administrator (the capabilities that matter).
const adminMe = `{"id":1,"capabilities":{"read":true,"read_private_posts":true,
"edit_tribe_events":true,"edit_others_tribe_events":true,"edit_published_tribe_events":true,
"edit_private_tribe_events":true,"read_private_tribe_events":true,
"edit_tribe_venues":true,"edit_others_tribe_venues":true,"edit_published_tribe_venues":true,
"edit_private_tribe_venues":true,"read_private_tribe_venues":true,
"edit_tribe_organizers":true,"edit_others_tribe_organizers":true,
"edit_published_tribe_organizers":true,
"edit_private_tribe_organizers":true,"read_private_tribe_organizers":true}}`

// editorMe is what /wp/v2/users/me?context=edit answers for an editor (the capabilities that matter).
const editorMe = `{"id":6,"capabilities":{"edit_tribe_events":true,"publish_tribe_events":true,"edit_others_tribe_events":true,
"edit_published_tribe_events":true,"edit_tribe_venues":true,"publish_tribe_venues":true,"upload_files":true}}`

// fullEditorMe may write events, venues, organizers and terms, and delete events.
const fullEditorMe = `{"id":6,"capabilities":{"edit_tribe_events":true,"publish_tribe_events":true,"edit_others_tribe_events":true,
"edit_published_tribe_events":true,"delete_tribe_events":true,"delete_others_tribe_events":true,"delete_published_tribe_events":true,
"edit_tribe_venues":true,"edit_others_tribe_venues":true,"edit_published_tribe_venues":true,"publish_tribe_venues":true,
"edit_tribe_organizers":true,"edit_others_tribe_organizers":true,"edit_published_tribe_organizers":true,"publish_tribe_organizers":true,
"manage_categories":true,"upload_files":true}}`

// deleterMe is an editor who may delete events too.
const deleterMe = `{"id":6,"capabilities":{"edit_tribe_events":true,"delete_tribe_events":true,
"edit_others_tribe_events":true,"delete_others_tribe_events":true,"publish_tribe_events":true}}`

const subscriberMe = `{"id":9,"capabilities":{"read":true}}`

// venueEditorMe is an editor who may edit others' published venues.
const venueEditorMe = `{"id":6,"capabilities":{"edit_tribe_venues":true,"edit_others_tribe_venues":true,
"edit_published_tribe_venues":true,"publish_tribe_venues":true}}`

// wrongPasswordMe is WordPress' refusal of an application password.
const wrongPasswordMe = `{"code":"incorrect_password","message":"The provided password is an invalid application password.",
"data":{"status":401}}`

// answerMe is the fake's users/me (wpfake.Me) for the tests' credentials; any other header is not
// logged in. Tests that record writes give wpfake.RecordWrites their own table.
var answerMe = wpfake.Me(map[string]string{wrongAuth: wrongPasswordMe, adminAuth: adminMe,
	editorAuth: editorMe, deleterAuth: deleterMe, subscriberAuth: subscriberMe})

// answerVenueEditor answers users/me for editorAuth as an editor of venues alone.
var answerVenueEditor = wpfake.Me(map[string]string{editorAuth: venueEditorMe})

// viewerServer is fakeServer over a fake whose users/me answers the tests' credentials (answerMe).
func viewerServer(tb testing.TB) (*wpfake.Server, http.Handler) {
	wp := wpfake.New(tb)
	wp.SetIntercept(answerMe)
	return wp, fakeServer(tb, wp)
}
