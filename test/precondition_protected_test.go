package test

import (
	"net/http"
	"testing"
)

// If-Match on a password-protected event works as on any post (it always answered 412): a fresh tag
// read with the password, with and without the password on the write, and If-Match: *; a stale tag
// is still refused.
func TestConditionalWriteProtectedEvent(t *testing.T) {
	r := send(t, "admin", http.MethodPost, "/events", newEvent("Precondition Protected"))
	wantStatus(t, r, http.StatusCreated)
	id := str(at(r.body, "id"))
	wpDeleteLater(t, "/wp/v2/tribe_events/"+id)
	wp(t, http.MethodPost, "/wp/v2/tribe_events/"+id, map[string]any{"password": "sesame"})
	eventually(t, "protected", func() bool {
		return get(t, "/events/"+id).status == http.StatusForbidden
	})

	fresh := func() string {
		tag := get(t, "/events/"+id+"?password=sesame", as("editor")).header.Get("ETag")
		if tag == "" {
			t.Fatal("the editor's read with the password carries no ETag")
		}
		return tag
	}
	star := func() string { return "*" }
	for _, c := range []struct {
		name    string
		ifMatch func() string
		body    string
	}{
		{"a fresh tag", fresh, `{"title":"Protected 1"}`},
		{"a fresh tag and the password", fresh, `{"title":"Protected 2","password":"sesame"}`},
		{"*", star, `{"title":"Protected 3"}`},
	} {
		r := call(t, http.MethodPost, v1+"/events/"+id, as("editor"), jsonBody(c.body), header("If-Match", c.ifMatch()))
		if r.status != http.StatusOK {
			t.Errorf("%s: %d %s", c.name, r.status, r.raw)
		}
	}

	stale := fresh()
	wp(t, http.MethodPost, "/wp/v2/tribe_events/"+id, map[string]any{"title": "Edited in WordPress"})
	wantError(t, call(t, http.MethodPost, v1+"/events/"+id, as("editor"), jsonBody(`{"title":"lost"}`),
		header("If-Match", stale)), http.StatusPreconditionFailed, "calshim_precondition_failed")
}
