package test

import (
	"slices"
	"testing"
)

// The read assertions of the original's own REST acceptance tests (tests/restv1 of The Events
// Calendar: SingleEventCest, SingleEventSlugCest, VenueSingleCest, OrganizerSingleCest, the venue
// and organizer archive, search, by-event and by-empty Cests), on the seeded rig. Every expectation
// was checked against the original on the same data.

// SingleEventCest and SingleEventSlugCest: IDs and slugs of other posts are 400, missing IDs 404.
func TestRestv1SingleEventErrors(t *testing.T) {
	media, draft := sid(t, "media", "stage"), sid(t, "events", "draft")
	for _, tc := range []struct {
		path   string
		status int
		code   string
	}{
		{"/events/0", 404, "rest-event-not-found"},
		{"/events/" + media, 400, "rest-invalid-event-id"},
		{"/events/" + media + "?password=x", 400, "rest-invalid-event-id"},
		{"/events/" + draft, 403, "event-not-accessible"},
		{"/events/by-slug/", 404, "rest_no_route"},
		{"/events/by-slug/non-existing-event", 400, "rest_invalid_param"},
		{"/events/by-slug/stage", 400, "rest_invalid_param"},                      // an attachment's
		{"/events/by-slug/spring-lineup-announcement", 400, "rest_invalid_param"}, // a draft has none
		{"/events/by-slug/board-meeting", 403, "event-not-accessible"},
	} {
		t.Run(tc.path, func(t *testing.T) { wantError(t, get(t, tc.path), tc.status, tc.code) })
	}
}

// SingleEventSlugCest: a slug finds its event as get_page_by_path does, whatever its letter case.
func TestRestv1SingleEventSlugLookup(t *testing.T) {
	gala := id(t, "events", "gala")
	slugs := []string{"opening-night-gala", "Opening-Night-Gala", "Opening%20Night%20Gala"}
	for _, slug := range slugs {
		r := get(t, "/events/by-slug/"+slug)
		if r.status != 200 || str(at(r.body, "id")) != sid(t, "events", "gala") {
			t.Errorf("by-slug/%s: %d %.200s, want event %d", slug, r.status, r.raw, gala)
		}
	}
	draft := get(t, "/events/by-slug/~", as("admin")) // "~" sanitizes to "": the oldest draft
	if draft.status != 200 || str(at(draft.body, "id")) != sid(t, "events", "draft") {
		t.Errorf("by-slug/~ as admin: %d %.200s", draft.status, draft.raw)
	}
}

// VenueSingleCest and OrganizerSingleCest: the keys of a single, 404 for IDs that are no number,
// 400 for IDs of no venue or organizer, 403 for a draft, which an editor reads with its json_ld.
func TestRestv1VenueAndOrganizerSingles(t *testing.T) {
	// The Cests' key lists, less the members TEC filters out when empty (this organizer has no
	// excerpt and no image), in the original's order.
	for path, want := range map[string][]string{
		"/organizers/" + sid(t, "organizers", "jazzsoc"): {"id", "author", "status", "date",
			"date_utc", "modified", "modified_utc", "url", "organizer", "description", "slug", "phone",
			"website", "email", "json_ld", "global_id", "global_id_lineage"},
		"/venues/" + sid(t, "venues", "bluenote"): {"id", "author", "status", "date", "date_utc",
			"modified", "modified_utc", "url", "venue", "description", "slug", "image", "address",
			"city", "country", "state", "zip", "phone", "website", "stateprovince", "json_ld",
			"show_map", "show_map_link", "global_id", "global_id_lineage"},
	} {
		if got := keys(get(t, path).body); !slices.Equal(got, want) {
			t.Errorf("%s keys = %v", path, got)
		}
	}
	for _, path := range []string{"/organizers/foo", "/organizers/foo%20bar", "/venues/foo-bar"} {
		wantError(t, get(t, path), 404, "rest_no_route")
	}
	wantError(t, get(t, "/organizers/999999"), 400, "rest_invalid_param")
	wantError(t, get(t, "/venues/999999"), 400, "rest_invalid_param")

	ghost := "/organizers/" + sid(t, "organizers", "ghost")
	warehouse := "/venues/" + sid(t, "venues", "warehouse")
	wantError(t, get(t, ghost), 403, "organizer-not-accessible")
	wantError(t, get(t, warehouse), 403, "venue-not-accessible")
	for _, path := range []string{ghost, warehouse} {
		r := get(t, path, as("editor"))
		if r.status != 200 || str(at(r.body, "status")) != "draft" || at(r.body, "json_ld") == nil {
			t.Errorf("%s as editor: %d %.300s", path, r.status, r.raw)
		}
	}
}

// VenueArchiveCest and OrganizerArchiveCest: drafts are listed for editors only.
func TestRestv1NonPublicLinkedPosts(t *testing.T) {
	for _, tc := range []struct{ list, group, name string }{
		{"venues", "venues", "warehouse"}, {"organizers", "organizers", "ghost"},
	} {
		draft := id(t, tc.group, tc.name)
		if got := ids(at(get(t, "/"+tc.list+"?per_page=50").body, tc.list)); slices.Contains(got, draft) {
			t.Errorf("anonymous %s list shows the draft: %v", tc.list, got)
		}
		editor := get(t, "/"+tc.list+"?per_page=50", as("editor"))
		if got := ids(at(editor.body, tc.list)); !slices.Contains(got, draft) {
			t.Errorf("editor's %s list lacks the draft: %v", tc.list, got)
		}
	}
}

// VenueArchiveSearchCest and OrganizerArchiveSearchCest: title, description and custom fields are
// searched; punctuation alone finds nothing.
func TestRestv1LinkedSearch(t *testing.T) {
	bluenote, jazzsoc := id(t, "venues", "bluenote"), id(t, "organizers", "jazzsoc")
	for _, tc := range []struct {
		path string
		list string
		want []int
	}{
		{"/venues?search=blue+note", "venues", []int{bluenote}}, // title
		{"/venues?search=legendary", "venues", []int{bluenote}}, // description
		{"/venues?search=131", "venues", []int{bluenote}},       // address
		{"/venues?search=10012", "venues", []int{bluenote}},     // zip
		{"/venues?search=%40", "venues", nil},                   // "@"
		{"/organizers?search=society", "organizers", []int{jazzsoc}},
		{"/organizers?search=%3F%3F", "organizers", nil},
	} {
		if got := ids(at(get(t, tc.path).body, tc.list)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.path, got, tc.want)
		}
	}
}

// VenueByEventArchiveCest: the venues of an event; a non-event ID is refused.
func TestRestv1VenuesByEvent(t *testing.T) {
	got := ids(at(get(t, "/venues?event="+sid(t, "events", "gala")).body, "venues"))
	if !slices.Equal(got, []int{id(t, "venues", "bluenote")}) {
		t.Errorf("venues?event=gala: %v", got)
	}
	wantError(t, get(t, "/venues?event="+sid(t, "venues", "bluenote")), 400, "rest_invalid_param")
	wantError(t, get(t, "/venues?event=999999"), 400, "rest_invalid_param")
}
