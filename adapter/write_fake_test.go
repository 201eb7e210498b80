package adapter

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"calshim/internal/testkit/wpfake"
)

// writeRig is a calshim over the fake with its wp/v2 writes answered and recorded.
func writeRig(t *testing.T) (*wpfake.Server, http.Handler, *wpfake.Writes) {
	wp := wpfake.New(t)
	h := fakeServer(t, wp)
	w := wp.RecordWrites(map[string]string{
		editorAuth:     fullEditorMe,
		subscriberAuth: subscriberMe,
	})
	return wp, h, w
}

// wantWrite checks an answer's status and that its body holds each of want.
func wantWrite(t *testing.T, name string, rec *httptest.ResponseRecorder, status int, want ...string) {
	t.Helper()
	if rec.Code != status {
		t.Errorf("%s: %d, want %d: %.300s", name, rec.Code, status, rec.Body)
		return
	}
	for _, w := range want {
		if !strings.Contains(rec.Body.String(), w) {
			t.Errorf("%s: body lacks %s: %.300s", name, w, rec.Body)
		}
	}
}

// onlyWrite checks that exactly one wp/v2 write was sent since n, and returns it.
func onlyWrite(t *testing.T, name string, w *wpfake.Writes, n int, method, path string) wpfake.Write {
	t.Helper()
	got := w.List()[n:]
	if len(got) != 1 || got[0].Method != method || got[0].Path != path {
		t.Fatalf("%s: wp/v2 writes %v, want %s %s", name, got, method, path)
	}
	return got[0]
}

const event = `{"title":"x","start_date":"2031-01-01 10:00","end_date":"2031-01-01 11:00"}`

// TestFakeCreateEventRefusals: the original's answers to creates it refuses (test/write_test.go's
// TestWriteEventValidation): missing arguments are rest_missing_callback_param listing them all,
// invalid ones rest_invalid_param in the order of the route's arguments, checked before the
// permission; then anonymous is 401 and a subscriber 403 rest_forbidden. Nothing reaches wp/v2.
func TestFakeCreateEventRefusals(t *testing.T) {
	_, h, w := writeRig(t)
	for _, tc := range []struct {
		name, auth, body string
		status           int
		want             []string
	}{
		{"missing all", editorAuth, `{"description":"x"}`, 400, []string{`"code":"rest_missing_callback_param"`,
			`"message":"Missing parameter(s): title, start_date, end_date"`, `"params":["title","start_date","end_date"]`}},
		{"missing title", editorAuth, `{"start_date":"2031-01-01","end_date":"2031-01-01"}`, 400, []string{`"params":["title"]`}},
		{"invalid anonymous is 400", "", `{"title":""}`, 400, []string{`"code":"rest_missing_callback_param"`}},
		{"invalid values", editorAuth, `{"title":"","start_date":"notadate","end_date":"alsonot","website":"foo"}`, 400,
			[]string{`"code":"rest_invalid_param"`, `"message":"Invalid parameter(s): title, start_date, end_date, website"`,
				`"params":{"title":"Invalid parameter.","start_date":"Invalid parameter.","end_date":"Invalid parameter.","website":"Invalid parameter."}`}},
		{"title not a string", editorAuth, `{"title":123,"start_date":"2031-01-01","end_date":"2031-01-01"}`, 400, []string{`"params":{"title":`}},
		{"all_day not boolean", editorAuth, `{"title":"x","start_date":"2031-01-01","end_date":"2031-01-01","all_day":"maybe"}`, 400,
			[]string{`"code":"rest_invalid_param"`, `"params":{"all_day":"all_day is not of type boolean."}`}},
		{"bad timezone", editorAuth, `{"title":"x","start_date":"2031-01-01","end_date":"2031-01-01","timezone":"Mars/Olympus"}`, 400,
			[]string{`"code":"rest_invalid_param"`, `"timezone":"Invalid parameter."`}},
		{"anonymous", "", event, 401, []string{`{"code":"rest_forbidden","message":"Sorry, you are not allowed to do that.","data":{"status":401}}`}},
		{"subscriber", subscriberAuth, event, 403, []string{`{"code":"rest_forbidden","message":"Sorry, you are not allowed to do that.","data":{"status":403}}`}},
	} {
		wantWrite(t, tc.name, serve(h, http.MethodPost, calV1+"/events", asUser(tc.auth), jsonBody(tc.body)), tc.status, tc.want...)
	}
	if got := w.List(); len(got) != 0 {
		t.Errorf("refused creates wrote %v", got)
	}
}

// TestFakeCreateEvent: an editor's create is one wp/v2 POST carrying the title, content, status and
// the event's meta (wall and UTC dates in the site's zone, duration, cost), answered 201 with the event.
func TestFakeCreateEvent(t *testing.T) {
	_, h, w := writeRig(t)
	rec := serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(
		`{"title":"Fake Gala","description":"<p>d</p>","start_date":"2031-01-01 10:00","end_date":"2031-01-01 11:00","cost":"5"}`))

	wantWrite(t, "create", rec, 201, `"id":990501,`, `"status":"publish"`)
	body := onlyWrite(t, "create", w, 0, http.MethodPost, "/wp-json/wp/v2/tribe_events").Body
	if body["title"] != "Fake Gala" || body["content"] != "<p>d</p>" || body["status"] != "publish" {
		t.Errorf("post fields: %v", body)
	}
	meta, _ := body["meta"].(map[string]any)
	for k, v := range map[string]string{"_EventStartDate": "2031-01-01 10:00:00", "_EventEndDate": "2031-01-01 11:00:00",
		"_EventStartDateUTC": "2031-01-01 15:00:00", "_EventEndDateUTC": "2031-01-01 16:00:00", "_EventDuration": "3600",
		"_EventTimezone": "America/New_York", "_EventCost": "[5]"} {
		if got := fmt.Sprint(meta[k]); got != v {
			t.Errorf("meta %s = %q, want %q", k, got, v)
		}
	}
}

// TestFakeUpdateEvent: updates by ID and by slug send only the fields given (test/write_test.go: "Only
// the fields given change"); an unknown slug is the event with ID 0 (TestWriteBySlugAsOriginal) and
// sends nothing.
func TestFakeUpdateEvent(t *testing.T) {
	wp, h, w := writeRig(t)
	ids := wp.IDs("tribe_events")
	byID, bySlug := ids[0], ids[1]
	slug := fmt.Sprint(wp.Item("tribe_events", bySlug)["slug"])

	wantWrite(t, "by ID", serve(h, http.MethodPost, calV1+fmt.Sprintf("/events/%d", byID), asUser(editorAuth), jsonBody(`{"title":"Renamed"}`)),
		200, fmt.Sprintf(`"id":%d,`, byID))
	got := onlyWrite(t, "by ID", w, 0, http.MethodPost, fmt.Sprintf("/wp-json/wp/v2/tribe_events/%d", byID)).Body
	if fmt.Sprint(got) != "map[meta:map[] title:Renamed]" {
		t.Errorf("by ID sent %v", got)
	}

	n := len(w.List())
	wantWrite(t, "by slug", serve(h, http.MethodPatch, calV1+("/events/by-slug/"+slug), asUser(editorAuth), jsonBody(`{"description":"d2"}`)),
		200, fmt.Sprintf(`"id":%d,`, bySlug))
	got = onlyWrite(t, "by slug", w, n, http.MethodPost, fmt.Sprintf("/wp-json/wp/v2/tribe_events/%d", bySlug)).Body
	if fmt.Sprint(got) != "map[content:d2 meta:map[]]" {
		t.Errorf("by slug sent %v", got)
	}

	n = len(w.List())
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch} {
		wantWrite(t, m+" unknown slug", serve(h, m, calV1+"/events/by-slug/no-such-event", asUser(editorAuth), jsonBody(`{"title":"x"}`)), 404,
			`{"code":"rest-event-not-found","message":"Event with ID 0 does not exist.","data":{"status":404}}`)
	}
	wantWrite(t, "update missing", serve(h, http.MethodPut, calV1+"/events/999999", asUser(editorAuth), jsonBody(`{"title":"x"}`)), 404, `"code":"rest-event-not-found"`)
	wantWrite(t, "update missing anonymous", serve(h, http.MethodPut, calV1+"/events/999999", asUser(""), jsonBody(`{"title":"x"}`)), 401, `"code":"rest_forbidden"`)
	wantWrite(t, "update non-event", serve(h, http.MethodPut, calV1+fmt.Sprintf("/events/%d", wp.IDs("tribe_venue")[0]), asUser(editorAuth), jsonBody(`{"title":"x"}`)),
		400, `"code":"rest-invalid-event-id"`)
	if got := w.List()[n:]; len(got) != 0 {
		t.Errorf("refused updates wrote %v", got)
	}
}

// TestFakeDeleteEvent: DELETE trashes through wp/v2 (never force) and answers the trashed event; a
// second DELETE is 410 event-is-in-trash; WordPress refusing the trash (403) is the original's
// rest_forbidden 403; anonymous is 401 before anything is sent.
func TestFakeDeleteEvent(t *testing.T) {
	wp, h, w := writeRig(t)
	ids := wp.IDs("tribe_events")
	ev, other := ids[0], ids[1]
	wantWrite(t, "anonymous", serve(h, http.MethodDelete, calV1+fmt.Sprintf("/events/%d", ev), asUser(""), jsonBody("")), 401, `"code":"rest_forbidden"`)
	wantWrite(t, "missing", serve(h, http.MethodDelete, calV1+"/events/999999", asUser(editorAuth), jsonBody("")), 404, `"code":"rest-event-not-found"`)
	if got := w.List(); len(got) != 0 {
		t.Fatalf("refused deletes wrote %v", got)
	}
	wantWrite(t, "trash", serve(h, http.MethodDelete, calV1+fmt.Sprintf("/events/%d", ev), asUser(editorAuth), jsonBody("")), 200,
		fmt.Sprintf(`"id":%d,`, ev), `"status":"trash"`)
	if d := onlyWrite(t, "trash", w, 0, http.MethodDelete, fmt.Sprintf("/wp-json/wp/v2/tribe_events/%d", ev)); d.Query.Has("force") {
		t.Errorf("trash sent force: %v", d.Query)
	}
	n := len(w.List())
	wantWrite(t, "again", serve(h, http.MethodDelete, calV1+fmt.Sprintf("/events/%d", ev), asUser(editorAuth), jsonBody("")), 410, `"code":"event-is-in-trash"`)
	if got := w.List()[n:]; len(got) != 0 {
		t.Errorf("delete of a trashed event wrote %v", got)
	}

	path := fmt.Sprintf("/wp-json/wp/v2/tribe_events/%d", other)
	w.Refuse(http.MethodDelete, path, 403, "rest_cannot_delete", "Sorry, you are not allowed to delete this post.")
	wantWrite(t, "refused", serve(h, http.MethodDelete, calV1+fmt.Sprintf("/events/%d", other), asUser(editorAuth), jsonBody("")), 403,
		`{"code":"rest_forbidden","message":"Sorry, you are not allowed to do that.","data":{"status":403}}`)
	onlyWrite(t, "refused", w, n, http.MethodDelete, path)
	if st := fmt.Sprint(wp.Item("tribe_events", other)["status"]); st == "trash" {
		t.Errorf("refused trash trashed it")
	}
}

// TestFakeLinkedWrites: venue and organizer creates send the title, slug and meta given (201); their
// updates send only the meta given (200); a create without a name is rest_missing_callback_param.
func TestFakeLinkedWrites(t *testing.T) {
	wp, h, w := writeRig(t)
	venue, organizer := wp.IDs("tribe_venue")[0], wp.IDs("tribe_organizer")[0]
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		wpMethod, wpPath, sent   string
	}{
		{"venue create", http.MethodPost, "/venues", `{"venue":"Fake Hall","city":"Austin","state":"TX","country":"United States"}`, 201,
			http.MethodPost, "/wp-json/wp/v2/tribe_venue", "map[meta:map[_EventShowMap:1 _EventShowMapLink:1 _VenueCity:Austin " +
				"_VenueCountry:United States _VenueShowMap:1 _VenueShowMapLink:1 _VenueState:TX _VenueStateProvince:TX] slug:Fake Hall status:publish title:Fake Hall]"},
		{"venue update", http.MethodPut, fmt.Sprintf("/venues/%d", venue), `{"city":"Dallas"}`, 200,
			http.MethodPost, fmt.Sprintf("/wp-json/wp/v2/tribe_venue/%d", venue), "map[meta:map[_VenueCity:Dallas]]"},
		{"organizer create", http.MethodPost, "/organizers", `{"organizer":"Fake Org","email":"o@example.com"}`, 201,
			http.MethodPost, "/wp-json/wp/v2/tribe_organizer", "map[meta:map[_OrganizerEmail:o@example.com] slug:Fake Org status:publish title:Fake Org]"},
		{"organizer update", http.MethodPatch, fmt.Sprintf("/organizers/%d", organizer), `{"phone":"123"}`, 200,
			http.MethodPost, fmt.Sprintf("/wp-json/wp/v2/tribe_organizer/%d", organizer), "map[meta:map[_OrganizerPhone:123]]"},
	} {
		n := len(w.List())
		wantWrite(t, tc.name, serve(h, tc.method, calV1+tc.path, asUser(editorAuth), jsonBody(tc.body)), tc.status, `"id":`)
		if got := fmt.Sprint(onlyWrite(t, tc.name, w, n, tc.wpMethod, tc.wpPath).Body); got != tc.sent {
			t.Errorf("%s sent\n %s\nwant %s", tc.name, got, tc.sent)
		}
	}
	n := len(w.List())
	wantWrite(t, "venue without name", serve(h, http.MethodPost, calV1+"/venues", asUser(editorAuth), jsonBody(`{"city":"Nowhere"}`)), 400, `"code":"rest_missing_callback_param"`)
	wantWrite(t, "organizer without name", serve(h, http.MethodPost, calV1+"/organizers", asUser(editorAuth), jsonBody(`{"email":"x@example.com"}`)), 400, `"code":"rest_missing_callback_param"`)
	wantWrite(t, "venue show_map boolean", serve(h, http.MethodPost, calV1+"/venues", asUser(editorAuth), jsonBody(`{"venue":"x","show_map":true}`)), 400, `"code":"rest_invalid_param"`)
	if got := w.List()[n:]; len(got) != 0 {
		t.Errorf("refused linked writes wrote %v", got)
	}
}

// TestFakeTermWrites: category and tag creates are 201 with a Location naming the wp/v2 term and the
// body with _links (test/write_test.go's TestWriteTerms); updates send only the fields given; deletes
// are wp/v2 DELETE with force (terms have no trash) and answer the term without _links.
func TestFakeTermWrites(t *testing.T) {
	wp, h, w := writeRig(t)
	for _, k := range []struct{ path, base string }{{"/categories", "tribe_events_cat"}, {"/tags", "tags"}} {
		n := len(w.List())
		rec := serve(h, http.MethodPost, calV1+k.path, asUser(editorAuth), jsonBody(`{"name":"Fake Term","description":"made here"}`))
		wantWrite(t, k.path+" create", rec, 201, `"name":"Fake Term"`, `"_links":`)
		sent := onlyWrite(t, k.path+" create", w, n, http.MethodPost, "/wp-json/wp/v2/"+k.base)
		if fmt.Sprint(sent.Body) != "map[description:made here name:Fake Term]" {
			t.Errorf("%s create sent %v", k.path, sent.Body)
		}
		created := wp.IDs(k.base)[len(wp.IDs(k.base))-1]
		if loc := rec.Header().Get("Location"); !strings.HasSuffix(loc, fmt.Sprintf("/wp-json/wp/v2/%s/%d", k.base, created)) {
			t.Errorf("%s Location %q", k.path, loc)
		}

		n = len(w.List())
		wantWrite(t, k.path+" missing name", serve(h, http.MethodPost, calV1+k.path, asUser(editorAuth), jsonBody(`{"description":"no name"}`)), 400, `"code":"rest_missing_callback_param"`)
		wantWrite(t, k.path+" empty name", serve(h, http.MethodPost, calV1+fmt.Sprintf("%s/%d", k.path, created), asUser(editorAuth), jsonBody(`{"name":""}`)), 400, `"code":"rest_invalid_param"`)
		wantWrite(t, k.path+" anonymous", serve(h, http.MethodPost, calV1+k.path, asUser(""), jsonBody(`{"name":"Denied"}`)), 401, `"code":"rest_forbidden"`)
		wantWrite(t, k.path+" subscriber", serve(h, http.MethodPost, calV1+k.path, asUser(subscriberAuth), jsonBody(`{"name":"Denied"}`)), 403, `"code":"rest_forbidden"`)
		if got := w.List()[n:]; len(got) != 0 {
			t.Errorf("%s refused writes wrote %v", k.path, got)
		}

		wantWrite(t, k.path+" update", serve(h, http.MethodPut, calV1+fmt.Sprintf("%s/%d", k.path, created), asUser(editorAuth), jsonBody(`{"description":"updated"}`)),
			200, fmt.Sprintf(`"id":%d,`, created))
		sent = onlyWrite(t, k.path+" update", w, n, http.MethodPost, fmt.Sprintf("/wp-json/wp/v2/%s/%d", k.base, created))
		if fmt.Sprint(sent.Body) != "map[description:updated]" {
			t.Errorf("%s update sent %v", k.path, sent.Body)
		}

		n = len(w.List())
		del := serve(h, http.MethodDelete, calV1+fmt.Sprintf("%s/%d", k.path, created), asUser(editorAuth), jsonBody(""))
		wantWrite(t, k.path+" delete", del, 200, fmt.Sprintf(`"id":%d,`, created))
		if strings.Contains(del.Body.String(), `"_links"`) {
			t.Errorf("%s delete answered _links: %.300s", k.path, del.Body)
		}
		if d := onlyWrite(t, k.path+" delete", w, n, http.MethodDelete, fmt.Sprintf("/wp-json/wp/v2/%s/%d", k.base, created)); d.Query.Get("force") != "true" {
			t.Errorf("%s delete without force: %v", k.path, d.Query)
		}
		wantWrite(t, k.path+" gone", serve(h, http.MethodGet, fmt.Sprintf("/wp-json/cal/events/v1%s/%d", k.path, created)), 400, `"code":"rest_invalid_param"`)
	}
}

// TestFakeWritesUpstreamDown: every kind of write while WordPress does not answer (connections
// dropped once the request is sent, or a 502 from a proxy) is asked again with its key a few times,
// then answered 504 calshim_write_unknown (it may have been made); a write that fails on a read
// before it sends anything (the meta schema of the post type), or on a refused connection, is a
// prompt 503 calshim_upstream_unavailable: nothing was written. Never a hang or a 500.
func TestFakeWritesUpstreamDown(t *testing.T) {
	wp, h, _ := writeRig(t)
	ev, venue := wp.IDs("tribe_events")[0], wp.IDs("tribe_venue")[0]
	cat := wp.IDs("tribe_events_cat")[0]
	// Warm-up: the viewer is resolved and cached while WordPress is up.
	wantWrite(t, "warm-up", serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(`{}`)), 400)
	wp.SetIntercept(nil)
	for _, down := range []int{wpfake.Drop, http.StatusBadGateway, refusing} {
		if down == refusing {
			wp.Close()
		} else {
			wp.SetDown(down)
		}
		for _, c := range []struct {
			method, path, body string
			readFirst          bool // the write reads the type's meta schema before it sends anything
		}{
			{http.MethodPost, "/events", event, true},
			{http.MethodPatch, fmt.Sprintf("/events/%d", ev), `{"title":"y"}`, true},
			{http.MethodDelete, fmt.Sprintf("/events/%d", ev), "", false},
			{http.MethodPost, "/venues", `{"venue":"Down Hall"}`, true},
			{http.MethodPut, fmt.Sprintf("/venues/%d", venue), `{"city":"x"}`, true},
			{http.MethodPost, "/categories", `{"name":"Down"}`, false},
			{http.MethodDelete, fmt.Sprintf("/categories/%d", cat), "", false},
		} {
			want, code, within := 504, "calshim_write_unknown", 3*time.Second
			if down == refusing || c.readFirst {
				want, code, within = 503, "calshim_upstream_unavailable", time.Second
			}
			start := time.Now()
			rec := serve(h, c.method, calV1+c.path, asUser(editorAuth), jsonBody(c.body))
			wantWrite(t, fmt.Sprintf("down %d: %s %s", down, c.method, c.path), rec, want, `"code":"`+code+`"`)
			if d := time.Since(start); d > within {
				t.Errorf("down %d: %s %s took %v", down, c.method, c.path, d)
			}
		}
	}
}

// refusing stands for a WordPress that refuses connections (closed).
const refusing = 0

// TestFakeFailedSaveLeavesNothing: WordPress failing the event's save after the write created its
// tag, venue and organizers answers WordPress' error, and deletes for good, newest first, what the
// write created (terms have no trash); so does a failure of a creation half-way.
func TestFakeFailedSaveLeavesNothing(t *testing.T) {
	_, h, w := writeRig(t)
	body := `{"title":"x","start_date":"2031-01-01 10:00","end_date":"2031-01-01 11:00","venue":{"venue":"New Hall"},` +
		`"organizer":[{"organizer":"New Org A"},{"organizer":"New Org B"}],"tags":["brand-new-tag-x"]}`
	const failure = `{"code":"db_insert_error","message":"Could not insert post into the database.","data":{"status":500}}`
	w.Refuse(http.MethodPost, "/wp-json/wp/v2/tribe_events", 500, "db_insert_error", "Could not insert post into the database.")
	wantWrite(t, "failed save", serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(body)), 500, failure)
	if n := undone(t, w.List()); n != 4 {
		t.Errorf("%d creations undone, want a tag, a venue and two organizers", n)
	}

	n := len(w.List())
	w.Refuse(http.MethodPost, "/wp-json/wp/v2/tribe_organizer", 500, "db_insert_error", "Could not insert post into the database.")
	wantWrite(t, "failed creation", serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(body)), 500, failure)
	if n := undone(t, w.List()[n:]); n != 2 {
		t.Errorf("%d creations undone, want the tag and the venue made before the organizer failed", n)
	}
}

// undone checks that writes deleted for good, newest first, every object they created (the fake
// numbers them in order; the last POST, the event's or the failing creation's, was refused), and
// returns how many.
func undone(t *testing.T, writes []wpfake.Write) int {
	t.Helper()
	var creates, deletes []string
	last := 1 << 30
	for _, wr := range writes {
		base, id, _ := strings.Cut(strings.TrimPrefix(wr.Path, "/wp-json/wp/v2/"), "/")
		switch {
		case wr.Method == http.MethodPost && id == "":
			creates = append([]string{base}, creates...)
		case wr.Method == http.MethodDelete:
			if n, _ := strconv.Atoi(id); wr.Query.Get("force") != "true" || n >= last {
				t.Errorf("%s: not a deletion for good, newest first", wr)
			} else {
				last = n
			}
			deletes = append(deletes, base)
		}
	}
	if fmt.Sprint(deletes) != fmt.Sprint(creates[1:]) {
		t.Errorf("undone %v, want %v", deletes, creates[1:])
	}
	return len(deletes)
}
