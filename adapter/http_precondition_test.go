package adapter

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"calshim/internal/testkit/wpfake"
)

// versionRig is writeRig with the plugin's version on an event and a category, before the catalog
// loads them.
func versionRig(t *testing.T) (*wpfake.Server, http.Handler, *wpfake.Writes, int, int) {
	wp := wpfake.New(t)
	event, category := wp.IDs("tribe_events")[0], wp.IDs("tribe_events_cat")[0]
	for base, id := range map[string]int{"tribe_events": event, "tribe_events_cat": category} {
		wp.Update(base, id, func(o wpfake.Object) { wp.Sub(o, "calshim")["version"] = "00000000000000aa" })
	}
	h := fakeServer(t, wp)
	w := wp.RecordWrites(map[string]string{editorAuth: fullEditorMe})
	return wp, h, w, event, category
}

// A logged-in read's ETag carries the stored version; If-Match sends the versions its tags name
// with the write of that object, and WordPress' 412 (here the fake's, as the plugin answers)
// becomes the v1 412. Tags that name no version, and resources this catalog lacks, are refused
// before anything reaches WordPress.
func TestConditionalWrites(t *testing.T) {
	_, h, w, id, _ := versionRig(t)
	path := fmt.Sprintf("/events/%d", id)
	read := serve(h, http.MethodGet, calV1+path, asUser(editorAuth), jsonBody(""))
	tag := read.Header().Get("ETag")
	public := read.Header().Get("Cache-Control") == "public, max-age=0, must-revalidate"
	if read.Code != 200 || !strings.HasSuffix(tag, `-00000000000000aa"`) || public {
		t.Fatalf("editor's read: %d ETag %q, %s", read.Code, tag, read.Header().Get("Cache-Control"))
	}

	anon := serve(h, http.MethodGet, "/wp-json/cal/events/v1"+path).Header().Get("ETag")
	for _, tc := range []struct{ path, ifMatch string }{
		{path, `"stale"`}, {path, "W/" + tag}, {path, anon}, {"/events/999999", "*"},
		{"/events/by-slug/no-such", "*"}, {"/venues/999999", tag}, {"/categories/999999", "*"}, {"/tags/999999", "*"},
	} {
		rec := serve(h, http.MethodPost, calV1+tc.path, asUser(editorAuth), jsonBody(`{"title":"x"}`), withHeader("If-Match", tc.ifMatch))
		wantWrite(t, tc.path+" "+tc.ifMatch, rec, http.StatusPreconditionFailed,
			`{"code":"calshim_precondition_failed","message":`, `"data":{"status":412}}`)
	}
	if got := w.List(); len(got) != 0 {
		t.Fatalf("refused conditional writes reached WordPress: %v", got)
	}

	rec := serve(h, http.MethodPost, calV1+path, asUser(editorAuth), jsonBody(`{"title":"x"}`), withHeader("If-Match", `"other", `+tag))
	wantWrite(t, "current tag", rec, http.StatusOK)
	sent := onlyWrite(t, "current tag", w, 0, http.MethodPost, "/wp-json/wp/v2/tribe_events/"+fmt.Sprint(id))
	if want := fmt.Sprintf("post:%d:00000000000000aa", id); sent.IfVersion != want {
		t.Errorf("X-Calshim-If-Version %q, want %q", sent.IfVersion, want)
	}
	next := rec.Header().Get("ETag")
	if next == "" || next == tag || next != serve(h, http.MethodGet, calV1+path, asUser(editorAuth), jsonBody("")).Header().Get("ETag") {
		t.Errorf("the write's answer has ETag %q (read before: %q)", next, tag)
	}

	for _, method := range []string{http.MethodPost, http.MethodDelete} {
		rec = serve(h, method, calV1+path, asUser(editorAuth), jsonBody(`{"title":"y"}`), withHeader("If-Match", tag))
		wantWrite(t, method+" with the tag the write made stale", rec, http.StatusPreconditionFailed,
			`{"code":"calshim_precondition_failed","message":"The resource has changed`)
	}
	rec = serve(h, http.MethodDelete, calV1+path, asUser(editorAuth), jsonBody(""), withHeader("If-Match", next))
	wantWrite(t, "delete with the current tag", rec, http.StatusOK, `"status":"trash"`)
	if got := w.List(); len(got) != 4 || got[3].Method != http.MethodDelete || got[3].IfVersion == "" {
		t.Errorf("writes %v, want the delete last with the precondition", got)
	}
}

// A term's write sends the term's version.
func TestConditionalTermWrite(t *testing.T) {
	_, h, w, _, id := versionRig(t)
	path := fmt.Sprintf("/categories/%d", id)
	tag := serve(h, http.MethodGet, calV1+path, asUser(editorAuth), jsonBody("")).Header().Get("ETag")
	rec := serve(h, http.MethodPost, calV1+path, asUser(editorAuth), jsonBody(`{"description":"x"}`), withHeader("If-Match", tag))
	wantWrite(t, "category", rec, http.StatusOK)
	sent := onlyWrite(t, "category", w, 0, http.MethodPost, fmt.Sprintf("/wp-json/wp/v2/tribe_events_cat/%d", id))
	if want := fmt.Sprintf("term:%d:00000000000000aa", id); sent.IfVersion != want {
		t.Errorf("X-Calshim-If-Version %q, want %q", sent.IfVersion, want)
	}
}

func TestIfVersions(t *testing.T) {
	for in, want := range map[string]string{
		`"abc-00ff"`:                  "00ff",
		`"a-1", "b-2" , "c-1", *`:     "1 2 *",
		`W/"abc-00ff", "stale", "x-"`: "",
		`"abc-00FF", "abc-0\n", "-z"`: "z",
		`"abc-00ff`:                   "",
		strings.Repeat(`"a-`+strings.Repeat("b", 65)+`",`, 3): "",
	} {
		if got := strings.Join(ifVersions(in), " "); got != want {
			t.Errorf("ifVersions(%q) = %q, want %q", in, got, want)
		}
	}
	var many []string
	for i := range 100 {
		many = append(many, fmt.Sprintf(`"t-%x"`, i))
	}
	if got := ifVersions(strings.Join(many, ",")); len(got) != maxIfVersions {
		t.Errorf("%d versions from 100 tags, want %d", len(got), maxIfVersions)
	}
}

// FuzzIfVersions: whatever If-Match says, what goes to WordPress is a bounded list of header-safe
// versions.
func FuzzIfVersions(f *testing.F) {
	for _, s := range []string{`"abc-00ff"`, `*`, `"a-1", W/"b-2"`, `""`, `"-"`, `,,,`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := ifVersions(s)
		if len(got) > maxIfVersions {
			t.Fatalf("%d versions", len(got))
		}
		for _, v := range got {
			if v != "*" && !isVersion(v) {
				t.Fatalf("version %q", v)
			}
		}
	})
}
