package test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Write tests create what they need far in the future (outside the archives' default window) and
// trash it again, so the read tests' expectations stay true whatever the order.

func TestWriteEventLifecycle(t *testing.T) {
	body := newEvent("Write Test Full Event")
	body["description"] = "<p>Created by the write test.</p>"
	body["timezone"] = "Europe/London"
	body["cost"] = "20$"
	body["featured"] = true
	body["show_map"] = true
	body["categories"] = []any{"Music", "Write Test Category"}
	body["tags"] = []any{"free"}
	body["venue"] = map[string]any{"venue": "Write Test Hall", "city": "Leeds", "country": "United Kingdom"}
	body["organizer"] = []any{map[string]any{"organizer": "Write Test Org", "email": "wt@example.com"}, sid(t, "organizers", "jazzsoc")}
	r := send(t, "admin", http.MethodPost, "/events", body)
	wantStatus(t, r, http.StatusCreated)
	if got := keys(r.body); !slices.Equal(got, eventKeys) {
		t.Errorf("keys = %v", got)
	}
	id := str(at(r.body, "id"))
	for path, want := range map[string]string{
		"title": "Write Test Full Event", "timezone": "Europe/London", "timezone_abbr": "GMT",
		"utc_start_date": "2031-03-10 10:00:00", "cost": "20$", "featured": "true", "show_map": "true",
		"show_map_link": "false", "status": "publish",
	} {
		if got := str(at(r.body, path)); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if got := str(at(r.body, "cost_details", "currency_position")); got != "postfix" {
		t.Errorf("currency_position = %q", got)
	}
	if got := str(at(r.body, "tags", 0, "id")); got != sid(t, "tags", "free") {
		t.Errorf("existing tag by name: got tag %s (the original's bug creates a tag named after the ID)", got)
	}
	if len(list(at(r.body, "categories"))) != 2 || str(at(r.body, "venue", "venue")) != "Write Test Hall" {
		t.Errorf("categories/venue not linked: %s", r.raw)
	}
	if got := ids(at(r.body, "organizer")); len(got) != 2 || strconv.Itoa(got[1]) != sid(t, "organizers", "jazzsoc") {
		t.Errorf("organizers = %v", got)
	}
	venueID := str(at(r.body, "venue", "id"))

	// Read-your-writes: the same replica shows it at once, to anonymous readers too.
	g := get(t, "/events/"+id)
	wantStatus(t, g, http.StatusOK)
	if at(g.body, "json_ld") == nil {
		t.Error("single GET has no json_ld")
	}

	// Only the fields given change.
	u := send(t, "admin", http.MethodPatch, "/events/"+id, map[string]any{"title": "Write Test Renamed"})
	wantStatus(t, u, http.StatusOK)
	if str(at(u.body, "title")) != "Write Test Renamed" || str(at(u.body, "featured")) != "true" || str(at(u.body, "cost")) != "20$" ||
		len(list(at(u.body, "organizer"))) != 2 || str(at(u.body, "timezone")) != "Europe/London" {
		t.Errorf("partial update changed other fields: %s", u.raw)
	}
	// A form body, all_day normalisation, a relative date.
	f := call(t, http.MethodPut, v1+"/events/"+id, as("admin"), formBody("all_day=1&start_date=2031-03-11&end_date=2031-03-12&organizer=&hide_from_listings=false"))
	wantStatus(t, f, http.StatusOK)
	if str(at(f.body, "start_date")) != "2031-03-11 00:00:00" || str(at(f.body, "end_date")) != "2031-03-12 23:59:59" ||
		str(at(f.body, "all_day")) != "true" || len(list(at(f.body, "organizer"))) != 0 {
		t.Errorf("form update: %s", f.raw)
	}

	d := send(t, "admin", http.MethodDelete, "/events/"+id, nil)
	wantStatus(t, d, http.StatusOK)
	if str(at(d.body, "status")) != "trash" || !strings.Contains(str(at(d.body, "slug")), "__trashed") {
		t.Errorf("trashed event: status %q slug %q", str(at(d.body, "status")), str(at(d.body, "slug")))
	}
	wantError(t, send(t, "admin", http.MethodDelete, "/events/"+id, nil), http.StatusGone, "event-is-in-trash")
	wantError(t, get(t, "/events/"+id), http.StatusForbidden, "event-no-longer-available")
	wantStatus(t, send(t, "admin", http.MethodDelete, "/venues/"+venueID, nil), http.StatusOK)
}

func TestWriteEventValidation(t *testing.T) {
	ev := sid(t, "events", "gala")
	tests := []struct {
		name, role, method, path string
		body                     any
		status                   int
		code                     string
	}{
		{"missing title", "admin", "POST", "/events", map[string]any{"start_date": "2031-01-01", "end_date": "2031-01-01"}, 400, "rest_missing_callback_param"},
		{"bad dates", "admin", "POST", "/events", map[string]any{"title": "x", "start_date": "notadate", "end_date": "alsonot"}, 400, "rest_invalid_param"},
		{"empty title", "admin", "POST", "/events", map[string]any{"title": "", "start_date": "2031-01-01", "end_date": "2031-01-01"}, 400, "rest_invalid_param"},
		{"title not a string", "admin", "POST", "/events", map[string]any{"title": 123, "start_date": "2031-01-01", "end_date": "2031-01-01"}, 400, "rest_invalid_param"},
		{"all_day not boolean", "admin", "POST", "/events", map[string]any{"title": "x", "start_date": "2031-01-01", "end_date": "2031-01-01", "all_day": "maybe"}, 400, "rest_invalid_param"},
		{"bad website", "admin", "POST", "/events", map[string]any{"title": "x", "start_date": "2031-01-01", "end_date": "2031-01-01", "website": "foo"}, 400, "rest_invalid_param"},
		{"bad timezone", "admin", "POST", "/events", map[string]any{"title": "x", "start_date": "2031-01-01", "end_date": "2031-01-01", "timezone": "Mars/Olympus"}, 400, "rest_invalid_param"},
		{"image not an attachment", "admin", "POST", "/events", map[string]any{"title": "x", "start_date": "2031-01-01", "end_date": "2031-01-01", "image": ev}, 400, "rest_invalid_param"},
		{"image URL unreachable", "admin", "POST", "/events", map[string]any{"title": "x", "start_date": "2031-01-01", "end_date": "2031-01-01", "image": "http://127.0.0.1:1/none.png"}, 400, "rest_invalid_param"},
		{"image URL by contributor", "contributor", "POST", "/events", map[string]any{"title": "x", "start_date": "2031-01-01", "end_date": "2031-01-01", "image": "https://example.com/a.png"}, 400, "rest_invalid_param"},
		{"venue not a venue", "admin", "POST", "/events", map[string]any{"title": "x", "start_date": "2031-01-01", "end_date": "2031-01-01", "venue": ev}, 400, "rest_invalid_param"},
		{"unknown author", "admin", "POST", "/events", map[string]any{"title": "x", "start_date": "2031-01-01", "end_date": "2031-01-01", "author": 999999}, 400, "rest_invalid_param"},
		{"invalid anonymous is 400", "", "POST", "/events", map[string]any{"title": ""}, 400, "rest_missing_callback_param"},
		{"anonymous", "", "POST", "/events", newEvent("x"), 401, "rest_forbidden"},
		{"subscriber", "subscriber", "POST", "/events", newEvent("x"), 403, "rest_forbidden"},
		{"collection PUT", "admin", "PUT", "/events", newEvent("x"), 404, "rest_no_route"},
		{"update missing", "admin", "PUT", "/events/999999", map[string]any{"title": "x"}, 404, "rest-event-not-found"},
		{"update missing anonymous", "", "PUT", "/events/999999", map[string]any{"title": "x"}, 401, "rest_forbidden"},
		{"update non-event", "admin", "PUT", "/events/" + sid(t, "venues", "bluenote"), map[string]any{"title": "x"}, 400, "rest-invalid-event-id"},
		// The original's update by slug does not validate the slug: an unknown one is the event with ID 0.
		{"update unknown slug", "admin", "PUT", "/events/by-slug/no-such-event", map[string]any{"title": "x"}, 404, "rest-event-not-found"},
		{"delete anonymous", "", "DELETE", "/events/" + ev, nil, 401, "rest_forbidden"},
		{"delete missing", "admin", "DELETE", "/events/999999", nil, 404, "rest-event-not-found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, send(t, tc.role, tc.method, tc.path, tc.body), tc.status, tc.code)
		})
	}
	r := call(t, "POST", "/wp-json/cal/events/v1/events", as("admin"), jsonBody(`{"title": "x", `))
	wantError(t, r, http.StatusBadRequest, "rest_invalid_json")
}

// TestWritePermissions is the permission matrix of the original's routes (each route's
// permission_callback: edit_tribe_events and friends) and the cases of its tests/restv1/AuthorizationCest.
func TestWritePermissions(t *testing.T) {
	created := map[string]reply{}
	for role, want := range map[string]struct {
		status int
		state  string
	}{"": {401, ""}, "subscriber": {403, ""}, "contributor": {201, "pending"}, "author": {201, "publish"}, "editor": {201, "publish"}, "admin": {201, "publish"}} {
		body := newEvent("Permission Test " + role)
		body["status"] = "publish"
		r := send(t, role, http.MethodPost, "/events", body)
		if r.status != want.status || (want.state != "" && str(at(r.body, "status")) != want.state) {
			t.Errorf("%q create: %d %s, want %d %s", role, r.status, str(at(r.body, "status")), want.status, want.state)
		}
		created[role] = r
	}
	adminEvent := str(at(created["admin"].body, "id"))
	ownPending := str(at(created["contributor"].body, "id"))
	wantError(t, send(t, "contributor", http.MethodPut, "/events/"+adminEvent, map[string]any{"title": "x"}), 403, "rest_forbidden")
	wantError(t, send(t, "author", http.MethodDelete, "/events/"+adminEvent, nil), 403, "rest_forbidden")
	wantStatus(t, send(t, "contributor", http.MethodPut, "/events/"+ownPending, map[string]any{"title": "Own pending"}), 200)
	wantStatus(t, send(t, "editor", http.MethodPut, "/events/"+adminEvent, map[string]any{"title": "Edited by editor"}), 200)
	wantStatus(t, send(t, "contributor", http.MethodDelete, "/events/"+ownPending, nil), 200)
	for _, role := range []string{"author", "editor", "admin"} {
		wantStatus(t, send(t, "admin", http.MethodDelete, "/events/"+str(at(created[role].body, "id")), nil), 200)
	}
	// Terms: categories need publish_tribe_events, tags manage_categories.
	for _, tc := range []struct{ role, path string }{{"subscriber", "/categories"}, {"contributor", "/categories"}, {"author", "/tags"}} {
		wantError(t, send(t, tc.role, http.MethodPost, tc.path, map[string]any{"name": "Denied"}), 403, "rest_forbidden")
	}
	wantError(t, send(t, "", http.MethodPost, "/tags", map[string]any{"name": "Denied"}), 401, "rest_forbidden")
	// Allow lists what the caller may do.
	if got := send(t, "editor", http.MethodGet, "/events", nil).header.Get("Allow"); got != "GET, POST" {
		t.Errorf("editor Allow = %q", got)
	}
	if got := get(t, "/events").header.Get("Allow"); got != "GET" {
		t.Errorf("anonymous Allow = %q", got)
	}
}

func TestWriteVenuesAndOrganizers(t *testing.T) {
	v := send(t, "admin", http.MethodPost, "/venues", map[string]any{"venue": "Write Test Venue", "city": "Austin", "state": "TX",
		"country": "United States", "show_map": "true", "show_map_link": "false", "description": "<p>A test venue.</p>"})
	wantStatus(t, v, http.StatusCreated)
	id := str(at(v.body, "id"))
	if str(at(v.body, "stateprovince")) != "TX" || str(at(v.body, "show_map_link")) != "false" {
		t.Errorf("venue: %s", v.raw)
	}
	dup := send(t, "admin", http.MethodPost, "/venues", map[string]any{"venue": "write test venue"})
	if dup.status != http.StatusCreated || str(at(dup.body, "id")) != id {
		t.Errorf("duplicate venue: %d id %s, want 201 id %s", dup.status, str(at(dup.body, "id")), id)
	}
	wantError(t, send(t, "admin", http.MethodPost, "/venues", map[string]any{"city": "Nowhere"}), 400, "rest_missing_callback_param")
	wantError(t, send(t, "admin", http.MethodPost, "/venues", map[string]any{"venue": "x", "show_map": true}), 400, "rest_invalid_param")
	u := send(t, "admin", http.MethodPut, "/venues/"+id, map[string]any{"city": "Dallas", "zip": ""})
	wantStatus(t, u, http.StatusOK)
	if str(at(u.body, "city")) != "Dallas" || str(at(u.body, "state")) != "TX" || str(at(u.body, "venue")) != "Write Test Venue" {
		t.Errorf("venue update: %s", u.raw)
	}
	wantError(t, send(t, "", http.MethodDelete, "/venues/999999", nil), 400, "rest_invalid_param")
	wantError(t, send(t, "", http.MethodDelete, "/venues/"+id, nil), 401, "rest_forbidden")
	wantStatus(t, send(t, "admin", http.MethodDelete, "/venues/by-slug/write-test-venue", nil), 200)
	wantError(t, send(t, "admin", http.MethodDelete, "/venues/"+id, nil), 410, "venue-is-in-trash")

	o := send(t, "editor", http.MethodPost, "/organizers", map[string]any{"organizer": "Write Test Organizer", "email": "o@example.com", "phone": "123"})
	wantStatus(t, o, http.StatusCreated)
	oid := str(at(o.body, "id"))
	wantError(t, send(t, "admin", http.MethodPost, "/organizers", map[string]any{"email": "x@example.com"}), 400, "rest_missing_callback_param")
	p := send(t, "editor", http.MethodPatch, "/organizers/"+oid, map[string]any{"organizer": "Write Test Organizer 2"})
	if p.status != 200 || str(at(p.body, "email")) != "o@example.com" {
		t.Errorf("organizer update dropped email: %s", p.raw)
	}
	wantError(t, send(t, "subscriber", http.MethodDelete, "/organizers/"+oid, nil), 403, "rest_forbidden")
	wantStatus(t, send(t, "editor", http.MethodDelete, "/organizers/"+oid, nil), 200)
	wantError(t, send(t, "editor", http.MethodDelete, "/organizers/"+oid, nil), 410, "organizer-is-in-trash")
}

func TestWriteTerms(t *testing.T) {
	for _, k := range []struct{ path, dupMsg string }{{"/categories", "with this parent"}, {"/tags", "in this taxonomy"}} {
		c := send(t, "editor", http.MethodPost, k.path, map[string]any{"name": "Write Test Term", "description": "made by the test"})
		wantStatus(t, c, http.StatusCreated)
		id := str(at(c.body, "id"))
		if !strings.HasSuffix(c.header.Get("Location"), "/wp-json/wp/v2/"+map[string]string{"/categories": "tribe_events_cat", "/tags": "tags"}[k.path]+"/"+id) ||
			at(c.body, "_links") == nil {
			t.Errorf("%s create: Location %q, body %s", k.path, c.header.Get("Location"), c.raw)
		}
		d := send(t, "editor", http.MethodPost, k.path, map[string]any{"name": "Write Test Term"})
		if d.status != 400 || str(at(d.body, "code")) != "term_exists" || !slices.Equal(keys(d.body), []string{"code", "message", "data", "additional_data"}) ||
			!strings.Contains(str(at(d.body, "message")), k.dupMsg) || str(at(d.body, "data", "term_id")) != id {
			t.Errorf("term_exists: %s", d.raw)
		}
		wantError(t, send(t, "editor", http.MethodPost, k.path, map[string]any{"description": "no name"}), 400, "rest_missing_callback_param")
		wantError(t, send(t, "editor", http.MethodPost, k.path+"/"+id, map[string]any{"name": ""}), 400, "rest_invalid_param")
		u := send(t, "editor", http.MethodPut, k.path+"/"+id, map[string]any{"description": "updated"})
		if u.status != 200 || str(at(u.body, "description")) != "updated" || str(at(u.body, "name")) != "Write Test Term" {
			t.Errorf("%s update: %s", k.path, u.raw)
		}
		del := send(t, "editor", http.MethodDelete, k.path+"/"+id, nil)
		if del.status != 200 || str(at(del.body, "id")) != id || at(del.body, "_links") != nil {
			t.Errorf("%s delete: %s", k.path, del.raw)
		}
		wantError(t, get(t, k.path+"/"+id), 400, "rest_invalid_param")
		wantError(t, send(t, "subscriber", http.MethodDelete, k.path+"/"+id, nil), 400, "rest_invalid_param")
	}
	wantError(t, send(t, "admin", http.MethodPost, "/tags", map[string]any{"name": "Child Tag", "parent": 7}), 400, "rest_taxonomy_not_hierarchical")
	wantError(t, send(t, "admin", http.MethodPost, "/categories", map[string]any{"name": "Orphan", "parent": 2389}), 400, "rest_invalid_param")
}

func TestWriteEventImage(t *testing.T) {
	media := sid(t, "media", "stage")
	var m struct {
		SourceURL string `json:"source_url"`
	}
	if err := json.Unmarshal(call(t, http.MethodGet, wpEnv["WP_URL"]+"/wp-json/wp/v2/media/"+media).raw, &m); err != nil || m.SourceURL == "" {
		t.Fatalf("media %s: %v", media, err)
	}
	for name, image := range map[string]string{"by ID": media, "by URL of an attachment": m.SourceURL} {
		body := newEvent("Write Test Image " + name)
		body["image"] = image
		body["sticky"] = true
		r := send(t, "editor", http.MethodPost, "/events", body)
		wantStatus(t, r, http.StatusCreated)
		if got := str(at(r.body, "image", "id")); got != media || str(at(r.body, "sticky")) != "true" {
			t.Errorf("%s: image.id %q sticky %s", name, got, str(at(r.body, "sticky")))
		}
		wantStatus(t, send(t, "editor", http.MethodDelete, "/events/"+str(at(r.body, "id")), nil), http.StatusOK)
	}
}

func TestWriteLinkedErrors(t *testing.T) {
	bluenote, moscone := sid(t, "venues", "bluenote"), sid(t, "venues", "moscone")
	for _, tc := range []struct {
		name string
		body map[string]any
		code string
	}{
		{"venue CSV", map[string]any{"venue": bluenote + "," + moscone}, "could-not-create-venue"},
		{"venue list", map[string]any{"venue": []any{bluenote, moscone}}, "could-not-create-venue"},
		{"unwrapped organizer object", map[string]any{"organizer": map[string]any{"organizer": "Lonely Org"}}, "could-not-create-organizer"},
		{"organizer CSV", map[string]any{"organizer": sid(t, "organizers", "jazzsoc") + "," + sid(t, "organizers", "techcon")}, "could-not-create-organizer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := newEvent("Linked Error " + tc.name)
			for k, v := range tc.body {
				body[k] = v
			}
			wantError(t, send(t, "admin", http.MethodPost, "/events", body), http.StatusBadRequest, tc.code)
		})
	}
	// Renaming a term to a slug another term has: WordPress' own error, passed through (500, as the original).
	tag := send(t, "admin", http.MethodPost, "/tags", map[string]any{"name": "Write Test Slug Clash"})
	wantStatus(t, tag, http.StatusCreated)
	r := send(t, "admin", http.MethodPut, "/tags/"+str(at(tag.body, "id")), map[string]any{"slug": "free"})
	if r.status != http.StatusInternalServerError || str(at(r.body, "code")) != "duplicate_term_slug" ||
		!strings.Contains(string(r.raw), `"data":null`) {
		t.Errorf("duplicate slug: %d %s", r.status, r.raw)
	}
	wantStatus(t, send(t, "admin", http.MethodDelete, "/tags/"+str(at(tag.body, "id")), nil), http.StatusOK)
	wantError(t, get(t, "/venues/"+sid(t, "venues", "warehouse")), http.StatusForbidden, "venue-not-accessible")
	wantError(t, get(t, "/organizers/"+sid(t, "organizers", "ghost")), http.StatusForbidden, "organizer-not-accessible")
	wantStatus(t, send(t, "editor", http.MethodGet, "/organizers/"+sid(t, "organizers", "ghost"), nil), http.StatusOK)
}

func TestWriteBySlug(t *testing.T) {
	c := send(t, "admin", http.MethodPost, "/events", newEvent("Write Test By Slug"))
	wantStatus(t, c, http.StatusCreated)
	slug := str(at(c.body, "slug"))
	u := send(t, "admin", http.MethodPatch, "/events/by-slug/"+slug, map[string]any{"excerpt": "Via the slug."})
	if u.status != 200 || str(at(u.body, "excerpt")) != "<p>Via the slug.</p>" {
		t.Errorf("by-slug update: %d %s", u.status, u.raw)
	}
	// The CMS checks the object: a contributor cannot edit the admin's event through its slug either.
	wantError(t, send(t, "contributor", http.MethodPatch, "/events/by-slug/"+slug, map[string]any{"title": "x"}), 403, "rest_forbidden")
	wantStatus(t, send(t, "admin", http.MethodDelete, "/events/by-slug/"+slug, nil), http.StatusOK)
	wantError(t, send(t, "admin", http.MethodDelete, "/events/by-slug/"+slug, nil), http.StatusBadRequest, "rest_invalid_param")
}

// TestWritePublishesLinkedDrafts: publishing an event publishes its draft venue, as TEC does.
func TestWritePublishesLinkedDrafts(t *testing.T) {
	v := send(t, "editor", http.MethodPost, "/venues", map[string]any{"venue": "Write Test Draft Venue", "status": "draft"})
	wantStatus(t, v, http.StatusCreated)
	if str(at(v.body, "status")) != "draft" {
		t.Fatalf("venue status %s", str(at(v.body, "status")))
	}
	body := newEvent("Write Test Publishing")
	body["venue"] = str(at(v.body, "id"))
	e := send(t, "editor", http.MethodPost, "/events", body)
	wantStatus(t, e, http.StatusCreated)
	if got := str(at(e.body, "venue", "status")); got != "publish" {
		t.Errorf("linked venue status = %s, want publish", got)
	}
	wantStatus(t, send(t, "editor", http.MethodDelete, "/events/"+str(at(e.body, "id")), nil), http.StatusOK)
	wantStatus(t, send(t, "editor", http.MethodDelete, "/venues/"+str(at(v.body, "id")), nil), http.StatusOK)
}

// TestWriteMethodOverride: WordPress' _method parameter and X-HTTP-Method-Override header.
func TestWriteMethodOverride(t *testing.T) {
	c := send(t, "admin", http.MethodPost, "/events", newEvent("Write Test Override"))
	wantStatus(t, c, http.StatusCreated)
	id := str(at(c.body, "id"))
	u := call(t, http.MethodPost, "/wp-json/cal/events/v1/events/"+id, as("admin"),
		header("X-HTTP-Method-Override", "PATCH"), jsonBody(`{"title":"Overridden"}`))
	if u.status != http.StatusOK || str(at(u.body, "title")) != "Overridden" {
		t.Errorf("header override: %d %s", u.status, u.raw)
	}
	d := send(t, "admin", http.MethodPost, "/events/"+id+"?_method=DELETE", nil)
	if d.status != http.StatusOK || str(at(d.body, "status")) != "trash" {
		t.Errorf("_method=DELETE: %d %s", d.status, d.raw)
	}
}

// TestWriteImageDownload: an image URL that is no attachment yet is downloaded and uploaded as the
// caller; a URL that does not answer with an image is refused.
func TestWriteImageDownload(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
		"\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".png") {
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(png)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html></html>"))
	}))
	defer srv.Close()
	body := newEvent("Write Test Downloaded Image")
	body["image"] = srv.URL + "/write-test-dot.png"
	r := send(t, "editor", http.MethodPost, "/events", body)
	wantStatus(t, r, http.StatusCreated)
	if at(r.body, "image", "id") == nil || !strings.Contains(str(at(r.body, "image", "url")), "write-test-dot") {
		t.Errorf("image not uploaded: %s", r.raw)
	}
	wantStatus(t, send(t, "editor", http.MethodDelete, "/events/"+str(at(r.body, "id")), nil), http.StatusOK)
	body["image"] = srv.URL + "/page.html"
	wantError(t, send(t, "editor", http.MethodPost, "/events", body), http.StatusBadRequest, "rest_invalid_param")
}

// TestWriteVenueTrashUnlinks: trashing a venue removes it from the published events that use it.
func TestWriteVenueTrashUnlinks(t *testing.T) {
	body := newEvent("Write Test Unlink")
	body["venue"] = map[string]any{"venue": "Write Test Unlink Hall"}
	e := send(t, "admin", http.MethodPost, "/events", body)
	wantStatus(t, e, http.StatusCreated)
	wantStatus(t, send(t, "admin", http.MethodDelete, "/venues/"+str(at(e.body, "venue", "id")), nil), http.StatusOK)
	g := get(t, "/events/"+str(at(e.body, "id")))
	if v := at(g.body, "venue"); v == nil || len(list(v)) != 0 || keys(v) != nil {
		t.Errorf("venue after trashing it: %s", g.raw)
	}
	wantStatus(t, send(t, "admin", http.MethodDelete, "/events/"+str(at(e.body, "id")), nil), http.StatusOK)
}
