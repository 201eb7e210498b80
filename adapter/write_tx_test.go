package adapter

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/zap"

	"calshim/internal/testkit/wpfake"
)

// budgetRig is writeRig with a limit of requests per write (0: the default) and the fake changed
// by before (nil: as recorded) ahead of the catalog's load.
func budgetRig(t testing.TB, limit int, before func(*wpfake.Server)) (*wpfake.Server, http.Handler, *wpfake.Writes) {
	wp := wpfake.New(t)
	if before != nil {
		before(wp)
	}
	opt := testOptions()
	opt.WriteMaxUpstream = limit
	h := NewServer(fakeCatalog(t, wp), zap.NewNop(), opt)
	w := wp.RecordWrites(map[string]string{editorAuth: fullEditorMe})
	return wp, h, w
}

// jsonList is `"key":[item(0),...,item(n-1)]`.
func jsonList(key string, n int, item func(i int) string) string {
	items := make([]string, n)
	for i := range items {
		items[i] = item(i)
	}
	return fmt.Sprintf("%q:[%s]", key, strings.Join(items, ","))
}

func named(key, prefix string) func(int) string {
	return func(i int) string { return fmt.Sprintf(`{%q:"%s %d"}`, key, prefix, i) }
}

func quoted(prefix string) func(int) string {
	return func(i int) string { return fmt.Sprintf(`"%s %d"`, prefix, i) }
}

const tooLarge = `{"code":"calshim_write_too_large","message":"This write needs more than 40 requests to WordPress. ` +
	`Send fewer new categories, tags, venues, organizers or image URLs at once.","data":{"status":400}}`

// TestFakeWriteTooLarge: event writes whose arguments name more new terms, venues and organizers than
// one write may make requests for (5,000 organizers, categories or tags; a mix of a few dozen each)
// answer 400 calshim_write_too_large before anything is sent: no wp/v2 write, no request to
// WordPress at all once the caller is known. Each of them used to make thousands.
func TestFakeWriteTooLarge(t *testing.T) {
	wp, h, w := budgetRig(t, 0, nil)
	slug := fmt.Sprint(wp.Item("tribe_events", wp.IDs("tribe_events")[0])["slug"])
	wantWrite(t, "warm-up", serve(h, http.MethodPatch, calV1+("/events/by-slug/"+slug), asUser(editorAuth), jsonBody(`{"title":"Warm"}`)), 200)
	csv := make([]string, 5000)
	for i := range csv {
		csv[i] = fmt.Sprintf("Tag %d", i)
	}
	for _, body := range []string{
		jsonList("organizer", 5000, named("organizer", "Org")),
		jsonList("categories", 5000, quoted("Cat")),
		`"tags":"` + strings.Join(csv, ",") + `"`,
		jsonList("categories", 17, quoted("Cat")) + "," + jsonList("tags", 17, quoted("Tag")) + "," +
			jsonList("organizer", 17, named("organizer", "Org")),
		`"venue":{"venue":"New Hall"},` + jsonList("organizer", 49, named("organizer", "Org")),
	} {
		for _, c := range [][2]string{
			{http.MethodPatch, "/events/by-slug/" + slug},
			{http.MethodPost, "/events"},
		} {
			name := fmt.Sprintf("%s %s %.60s", c[0], c[1], body)
			wp.ResetRequests()
			n := len(w.List())
			wantWrite(t, name, serve(h, c[0], calV1+c[1], asUser(editorAuth), jsonBody(strings.TrimSuffix(event, "}")+","+body+"}")), 400, tooLarge)
			if got := w.List()[n:]; len(got) != 0 {
				t.Errorf("%s: wp/v2 writes %v", name, got)
			}
			if got := wp.Requests(); len(got) != 0 {
				t.Errorf("%s: %d requests to WordPress: %v", name, len(got), got[:min(len(got), 5)])
			}
		}
	}
}

// TestFakeWriteWithinLimit: an event with a new venue, three new organizers, new and existing
// categories and tags is written; a name given many times is created once; the wp/v2 writes are
// those of the terms, venue, organizers and event, once each.
func TestFakeWriteWithinLimit(t *testing.T) {
	wp, h, w := budgetRig(t, 0, nil)
	cat := wp.IDs("tribe_events_cat")[0]
	body := strings.TrimSuffix(event, "}") + fmt.Sprintf(`,"venue":{"venue":"Budget Hall","city":"Austin"},
		"organizer":[{"organizer":"Budget A"},{"organizer":"Budget B"},{"organizer":"Budget C"}],
		"categories":[%d,"Budget Cat","Budget Cat 2"],"tags":"budget one,budget two"}`, cat)
	rec := serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(body))
	wantWrite(t, "create", rec, 201, `"venue":{`, `"organizer":[{`)
	count := map[string]int{}
	for _, wr := range w.List() {
		count[wr.Method+" "+wr.Path]++
	}
	want := map[string]int{"POST /wp-json/wp/v2/tribe_events_cat": 2, "POST /wp-json/wp/v2/tags": 2,
		"POST /wp-json/wp/v2/tribe_venue": 1, "POST /wp-json/wp/v2/tribe_organizer": 3, "POST /wp-json/wp/v2/tribe_events": 1}
	if fmt.Sprint(count) != fmt.Sprint(want) {
		t.Errorf("wp/v2 writes %v, want %v", count, want)
	}

	n := len(w.List())
	repeated := strings.TrimSuffix(event, "}") + "," + jsonList("categories", 5000, func(int) string { return `"Again Cat"` }) + "}"
	wantWrite(t, "a name 5,000 times", serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(repeated)), 201)
	if got := w.List()[n:]; len(got) != 2 || got[0].Path != "/wp-json/wp/v2/tribe_events_cat" {
		t.Errorf("a name 5,000 times: wp/v2 writes %v, want the term's and the event's", got)
	}
}

// TestFakeWriteBackstop: a write is costed whole before its first request. With a limit of 4, an
// event creating two organizers needs 5 (a duplicate search and a save each, then the event's
// save): it is refused with 400 calshim_write_too_large and nothing is written (the organizers were
// created before, and left behind).
func TestFakeWriteBackstop(t *testing.T) {
	_, h, w := budgetRig(t, 4, nil)
	body := strings.TrimSuffix(event, "}") + `,"organizer":[{"organizer":"Stop A"},{"organizer":"Stop B"}]}`
	wantWrite(t, "create", serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(body)), 400,
		`{"code":"calshim_write_too_large","message":"This write needs more than 4 requests to WordPress.`)
	if got := w.List(); len(got) != 0 {
		t.Errorf("wp/v2 writes %v, want none", got)
	}

	// A new sticky event is saved twice, as the original does: both saves are counted first, so
	// the second is never cut.
	_, h, w = budgetRig(t, 2, nil)
	wantWrite(t, "sticky", serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(strings.TrimSuffix(event, "}")+`,"sticky":true}`)), 201)
	if got := w.List(); len(got) != 2 {
		t.Errorf("sticky: wp/v2 writes %v, want the event's two saves", got)
	}
}

// TestFakeWriteDraftsLinked: publishing an event publishes each draft organizer it links once,
// however often it is listed (each used to be published as often as it was listed); the drafts to
// publish count in the first check (limit 2: the event and two drafts are refused before anything
// is sent).
func TestFakeWriteDraftsLinked(t *testing.T) {
	toDraft := func(wp *wpfake.Server) {
		wp.Modify("tribe_organizer", 15, func(o wpfake.Object) { o["status"] = "draft" })
	}
	ids := jsonList("organizer", 200, func(i int) string { return fmt.Sprint(15 + i%2) })
	body := strings.TrimSuffix(event, "}") + "," + ids + "}"

	_, h, w := budgetRig(t, 0, toDraft)
	wantWrite(t, "publish", serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(body)), 201)
	count := map[string]int{}
	for _, wr := range w.List() {
		count[wr.Path]++
	}
	want := map[string]int{"/wp-json/wp/v2/tribe_events": 1, "/wp-json/wp/v2/tribe_organizer/15": 1,
		"/wp-json/wp/v2/tribe_organizer/16": 1}
	if fmt.Sprint(count) != fmt.Sprint(want) {
		t.Errorf("wp/v2 writes %v, want %v", count, want)
	}

	_, h, w = budgetRig(t, 2, toDraft)
	wantWrite(t, "over the limit", serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(body)), 400, `"code":"calshim_write_too_large"`)
	if got := w.List(); len(got) != 0 {
		t.Errorf("over the limit: wp/v2 writes %v", got)
	}
}

// TestFakeUnlinkNotCut: trashing a venue unlinks it from its published events (one page of them,
// as the original) whatever the limit: the site's page size bounds those saves, not the request.
func TestFakeUnlinkNotCut(t *testing.T) {
	wp, h, _ := budgetRig(t, 2, nil)
	me := strings.Replace(fullEditorMe, `"upload_files":true`, `"upload_files":true,"delete_tribe_venues":true,`+
		`"delete_others_tribe_venues":true,"delete_published_tribe_venues":true`, 1)
	w := wp.RecordWrites(map[string]string{editorAuth: me})
	wantWrite(t, "trash venue 5", serve(h, http.MethodDelete, calV1+"/venues/5", asUser(editorAuth), jsonBody("")), 200, `"id":5,`)
	if got := w.List(); len(got) != 8 || got[0].Method != http.MethodDelete {
		t.Errorf("wp/v2 writes %v, want the trash and seven unlinks", got)
	}
}

// FuzzWriteBody: whatever an editor's JSON body, an event create or update by slug answers without
// a 5xx, and the wp/v2 writes and duplicate searches it makes stay within the limit (10 here).
// Bodies naming URLs are skipped: an image URL would be downloaded from the network.
func FuzzWriteBody(f *testing.F) {
	for _, s := range []string{event, `{"title":"y","categories":"a,b,a","tags":["t",7,"t"]}`,
		`{"organizer":[{"organizer":"A"},{"organizer":"a"},{"organizer":"A"},13,{"id":12}]}`,
		`{"venue":{"venue":"V","city":"X"},"organizer":{"a":{"organizer":"B"},"b":""},"status":"publish"}`,
		`{"organizer":[` + strings.Repeat(`{"organizer":"N"},`, 30) + `16],"featured":true,"sticky":1}`,
		`{"categories":{"x":"C1","y":"C2"},"tags":"` + strings.Repeat("t,", 40) + `"}`,
		`{"title":"x", "organizer":[1,2`} {
		f.Add(s)
	}

	wp, h, w := budgetRig(f, 10, nil)
	slug := fmt.Sprint(wp.Item("tribe_events", wp.IDs("tribe_events")[0])["slug"])
	f.Fuzz(func(t *testing.T, body string) {
		if namesURL(body) {
			t.Skip()
		}
		for _, c := range [][2]string{{http.MethodPost, "/events"}, {http.MethodPatch, "/events/by-slug/" + slug}} {
			wp.ResetRequests()
			n := len(w.List())
			rec := serve(h, c[0], calV1+c[1], asUser(editorAuth), jsonBody(body))
			searches := 0
			for _, r := range wp.Requests() {
				if r.Query.Has("search") {
					searches++
				}
			}
			if rec.Code >= 500 || len(w.List())-n+searches > 10 {
				t.Fatalf("%s %s = %d (%d writes, %d searches) %.300s", c[0], c[1], rec.Code,
					len(w.List())-n, searches, rec.Body)
			}
		}
	})
}

// namesURL reports whether a JSON body holds a string that could be read as a URL.
func namesURL(body string) bool {
	var v any
	if json.Unmarshal([]byte(body), &v) != nil {
		return false
	}
	b, _ := json.Marshal(v) // strings re-encoded: escapes such as \u0068ttp are undone
	return strings.Contains(strings.ToLower(string(b)), "http") || strings.Contains(string(b), "//")
}
