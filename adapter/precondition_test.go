package adapter

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// callIf is call with an If-Match header.
func callIf(h http.Handler, method, path, auth, body, ifMatch string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, "/wp-json/cal/events/v1"+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", auth)
	req.Header.Set("If-Match", ifMatch)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// If-Match writes run only on the current ETag; a stale or missing resource answers 412 and
// nothing reaches WordPress.
func TestConditionalWrites(t *testing.T) {
	wp, h, w := writeRig(t)
	id := wp.IDs("tribe_events")[0]
	path := fmt.Sprintf("/events/%d", id)
	read := call(h, http.MethodGet, path, editorAuth, "")
	tag := read.Header().Get("ETag")
	public := read.Header().Get("Cache-Control") == "public, max-age=0, must-revalidate"
	if read.Code != 200 || tag == "" || public {
		t.Fatalf("editor's read: %d ETag %q, %s", read.Code, tag, read.Header().Get("Cache-Control"))
	}

	for _, tc := range []struct{ path, ifMatch string }{
		{path, `"stale"`}, {path, "W/" + tag}, {"/events/999999", "*"}, {"/events/by-slug/no-such", "*"},
		{"/venues/999999", tag}, {"/categories/999999", "*"}, {"/tags/999999", "*"},
	} {
		rec := callIf(h, http.MethodPost, tc.path, editorAuth, `{"title":"x"}`, tc.ifMatch)
		wantWrite(t, tc.path+" "+tc.ifMatch, rec, http.StatusPreconditionFailed,
			`{"code":"calshim_precondition_failed","message":`, `"data":{"status":412}}`)
	}
	if got := w.List(); len(got) != 0 {
		t.Fatalf("refused conditional writes reached WordPress: %v", got)
	}

	rec := callIf(h, http.MethodPost, path, editorAuth, `{"title":"x"}`, `"other", `+tag)
	wantWrite(t, "current tag", rec, http.StatusOK)
	onlyWrite(t, "current tag", w, 0, http.MethodPost, "/wp-json/wp/v2/tribe_events/"+fmt.Sprint(id))
	if rec.Header().Get("ETag") == "" {
		t.Error("the write's answer has no ETag")
	}

	anon := serveGET(h, "/wp-json/cal/events/v1"+path)
	if anon.Header().Get("ETag") == "" {
		t.Error("anonymous read lost its ETag")
	}
}
