package test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestAuthenticatedReads checks that reads show what the original shows each caller: drafts and
// other statuses to those who may edit them, nothing more to anonymous callers, and that the two never
// share a cached answer.
func TestAuthenticatedReads(t *testing.T) {
	draft, private := sid(t, "events", "draft"), sid(t, "events", "board")
	wantError(t, get(t, "/events/"+draft), http.StatusForbidden, "event-not-accessible")
	wantStatus(t, send(t, "editor", http.MethodGet, "/events/"+draft, nil), http.StatusOK)
	wantError(t, send(t, "subscriber", http.MethodGet, "/events/"+draft, nil), http.StatusForbidden, "event-not-accessible")
	wantStatus(t, send(t, "editor", http.MethodGet, "/events/"+private, nil), http.StatusOK)
	wantError(t, send(t, "contributor", http.MethodGet, "/events/"+private, nil), http.StatusForbidden, "event-not-accessible")

	// Default status: publish for anonymous callers, any for editors; the same URL, never one cache entry.
	anon := get(t, "/events?per_page=50&start_date=2020-01-01&end_date=2030-01-01")
	editor := send(t, "editor", http.MethodGet, "/events?per_page=50&start_date=2020-01-01&end_date=2030-01-01", nil)
	anon2 := get(t, "/events?per_page=50&start_date=2020-01-01&end_date=2030-01-01")
	if slices.Contains(ids(at(anon.body, "events")), id(t, "events", "draft")) || slices.Contains(ids(at(anon2.body, "events")), id(t, "events", "draft")) {
		t.Error("anonymous list shows a draft")
	}
	if !slices.Contains(ids(at(editor.body, "events")), id(t, "events", "draft")) {
		t.Error("editor list lacks the draft")
	}
	if !strings.Contains(str(at(editor.body, "rest_url")), "status=any") {
		t.Errorf("editor rest_url = %s", str(at(editor.body, "rest_url")))
	}
	wantError(t, get(t, "/events?status=draft"), http.StatusBadRequest, "rest_invalid_param")
	drafts := send(t, "editor", http.MethodGet, "/events?status=draft&start_date=2020-01-01&end_date=2030-01-01", nil)
	wantStatus(t, drafts, http.StatusOK)
	if got := ids(at(drafts.body, "events")); !slices.Equal(got, []int{id(t, "events", "draft")}) {
		t.Errorf("status=draft = %v", got)
	}
	wantError(t, send(t, "editor", http.MethodGet, "/events?status=nonsense", nil), http.StatusBadRequest, "rest_invalid_param")

	// Password-protected: editors with context=edit need no password; nobody else does without it.
	donor := sid(t, "events", "donor")
	wantError(t, send(t, "editor", http.MethodGet, "/events/"+donor, nil), http.StatusForbidden, "event-password-protected")
	wantStatus(t, send(t, "editor", http.MethodGet, "/events/"+donor+"?context=edit", nil), http.StatusOK)
	wantError(t, send(t, "subscriber", http.MethodGet, "/events/"+donor+"?context=edit", nil), http.StatusForbidden, "event-password-protected")
	wantStatus(t, get(t, "/events/"+donor+"?password=letmein"), http.StatusOK)

	// Venues: the draft venue for editors only.
	venues := send(t, "editor", http.MethodGet, "/venues?per_page=50", nil)
	if str(at(venues.body, "total")) == str(at(get(t, "/venues?per_page=50").body, "total")) {
		t.Error("editor and anonymous venue totals agree: the draft venue is missing for the editor")
	}

	// Credentials WordPress rejects are refused, reads included.
	bad := call(t, http.MethodGet, "/wp-json/cal/events/v1/events", header("Authorization", "Basic "+"bm9ib2R5Om5vcGU="))
	if bad.status != http.StatusUnauthorized {
		t.Errorf("bad credentials: %d %s", bad.status, bad.raw)
	}
}
