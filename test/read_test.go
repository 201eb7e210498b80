package test

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// seedIDs are the IDs scripts/seed.php wrote ($CALSHIM_STATE/seed-ids.json), by group and name.
var seedIDs map[string]map[string]int

// eventKeys is the event representation's key order (Post_Repository::get_event_data), list context.
var eventKeys = []string{"id", "global_id", "global_id_lineage", "author", "status", "date", "date_utc", "modified",
	"modified_utc", "url", "rest_url", "title", "description", "excerpt", "slug", "image", "all_day", "start_date",
	"start_date_details", "end_date", "end_date_details", "utc_start_date", "utc_start_date_details", "utc_end_date",
	"utc_end_date_details", "timezone", "timezone_abbr", "cost", "cost_details", "website", "show_map", "show_map_link",
	"hide_from_listings", "sticky", "featured", "categories", "tags", "venue", "organizer", "custom_fields"}

func TestEventArchiveDefault(t *testing.T) {
	r := get(t, "/events")
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.raw)
	}
	if got, want := keys(r.body), []string{"events", "rest_url", "next_rest_url", "total", "total_pages"}; !slices.Equal(got, want) {
		t.Errorf("envelope keys = %v, want %v", got, want)
	}
	total := str(at(r.body, "total"))
	if r.header.Get("X-TEC-Total") != total || r.header.Get("X-TEC-TotalPages") != str(at(r.body, "total_pages")) {
		t.Errorf("X-TEC-* headers %q/%q disagree with body %s/%s", r.header.Get("X-TEC-Total"),
			r.header.Get("X-TEC-TotalPages"), total, str(at(r.body, "total_pages")))
	}
	events := list(at(r.body, "events"))
	if len(events) != 10 {
		t.Fatalf("%d events, want 10 (default per_page)", len(events))
	}
	for _, e := range events {
		if got := keys(e); !slices.Equal(got, eventKeys) {
			t.Fatalf("event keys = %v\nwant %v", got, eventKeys)
		}
	}
	// Ordered by start, hidden and non-public events never listed.
	var prev string
	for _, e := range events {
		start := str(at(e, "start_date"))
		if start < prev {
			t.Errorf("events not ordered by start: %s after %s", start, prev)
		}
		prev = start
		if str(at(e, "status")) != "publish" || at(e, "hide_from_listings") == true {
			t.Errorf("event %s (status %s) should not be listed", str(at(e, "id")), str(at(e, "status")))
		}
	}
	restURL := str(at(r.body, "rest_url"))
	if !strings.HasPrefix(restURL, shim+"/wp-json/cal/events/v1/events/?page=1&per_page=10&start_date=") ||
		!strings.Contains(restURL, " 00:00:00&end_date=") || !strings.HasSuffix(restURL, " 23:59:59&status=publish") {
		t.Errorf("rest_url = %s", restURL)
	}
	next := str(at(r.body, "next_rest_url"))
	if !strings.Contains(next, "+00%3A00%3A00") || !strings.HasSuffix(next, "&status=publish&page=2") {
		t.Errorf("next_rest_url = %s", next)
	}
}

func TestEventArchivePaging(t *testing.T) {
	first := get(t, "/events?per_page=5")
	second := get(t, "/events?per_page=5&page=2")
	if second.status != http.StatusOK {
		t.Fatalf("page 2: %d %s", second.status, second.raw)
	}
	if a, b := ids(at(first.body, "events")), ids(at(second.body, "events")); len(b) != 5 || slices.ContainsFunc(a, func(n int) bool { return slices.Contains(b, n) }) {
		t.Errorf("pages overlap or short: %v %v", a, b)
	}
	prev := str(at(second.body, "previous_rest_url"))
	if strings.Contains(prev, "&page=") || !strings.Contains(prev, "per_page=5") {
		t.Errorf("previous_rest_url of page 2 = %s, want no page parameter", prev)
	}
	// Following next_rest_url visits every event exactly once and stays on calshim.
	seen := map[int]bool{}
	next := shim + "/wp-json/cal/events/v1/events?per_page=7"
	for n := 0; next != "" && n < 20; n++ {
		if !strings.HasPrefix(next, shim+"/wp-json/cal/events/v1/") {
			t.Fatalf("next_rest_url left calshim: %s", next)
		}
		r := call(t, http.MethodGet, strings.TrimPrefix(strings.ReplaceAll(next, " ", "%20"), shim))
		for _, n := range ids(at(r.body, "events")) {
			if seen[n] {
				t.Errorf("event %d seen twice", n)
			}
			seen[n] = true
		}
		next = str(at(r.body, "next_rest_url"))
	}
	if total, _ := strconv.Atoi(str(at(first.body, "total"))); len(seen) != total {
		t.Errorf("paging visited %d events, total says %d", len(seen), total)
	}
	wantError(t, get(t, "/events?per_page=5&page=99"), http.StatusNotFound, "event-archive-page-not-found")
}

func TestEventArchiveValidation(t *testing.T) {
	for _, tc := range []struct{ query, param string }{
		{"page=0", "page"}, {"page=abc", "page"}, {"per_page=-1", "per_page"}, {"start_date=not%20a%20date", "start_date"},
		{"end_date=", "end_date"}, {"search=", "search"}, {"categories=no-such-cat", "categories"}, {"tags=999999", "tags"},
		{"venue=" + "17", "venue"}, {"organizer=abc", "organizer"}, {"featured=maybe", "featured"}, {"status=draft", "status"},
		{"include=1,x", "include"}, {"post_parent=5", "post_parent"}, {"ticketed=true", "ticketed"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			r := get(t, "/events?"+tc.query)
			wantError(t, r, http.StatusBadRequest, "rest_invalid_param")
			if at(r.body, "data", "params", tc.param) == nil {
				t.Errorf("data.params lacks %s: %s", tc.param, r.raw)
			}
			if got, want := str(at(r.body, "message")), "Invalid parameter(s): "+tc.param; got != want {
				t.Errorf("message = %q, want %q", got, want)
			}
		})
	}
	r := get(t, "/events?page=0&per_page=x")
	if got := keys(at(r.body, "data", "params")); !slices.Equal(got, []string{"page", "per_page"}) {
		t.Errorf("params = %v, want page, per_page in declaration order", got)
	}
}

func TestEventArchiveFilters(t *testing.T) {
	each := func(t *testing.T, query string, ok func(e any) bool) []int {
		t.Helper()
		r := get(t, "/events?per_page=50&"+query)
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", query, r.status, r.raw)
		}
		events := list(at(r.body, "events"))
		if len(events) == 0 {
			t.Fatalf("%s: no events", query)
		}
		for _, e := range events {
			if at(e, "all_day") == nil {
				continue // password-protected: blanked, so its links and flags cannot be checked
			}
			if !ok(e) {
				t.Errorf("%s: event %s does not match", query, str(at(e, "id")))
			}
		}
		return ids(at(r.body, "events"))
	}
	t.Run("window", func(t *testing.T) {
		// The seed is relative to the day it runs: a window from 5 to 70 days ahead always holds events.
		from, to := time.Now().UTC().AddDate(0, 0, 5).Format(time.DateOnly), time.Now().UTC().AddDate(0, 0, 70).Format(time.DateOnly)
		each(t, "start_date="+from+"&end_date="+to, func(e any) bool {
			return str(at(e, "start_date")) >= from+" 00:00:00" && str(at(e, "end_date")) <= to+" 23:59:59"
		})
	})
	t.Run("starts_after drops the default window", func(t *testing.T) {
		r := get(t, "/events?starts_after=2026-12-22")
		if u := str(at(r.body, "rest_url")); strings.Contains(u, "start_date=") || !strings.Contains(u, "starts_after=2026-12-22 23:59:59") {
			t.Errorf("rest_url = %s", u)
		}
	})
	t.Run("search", func(t *testing.T) {
		each(t, "search=jazz", func(e any) bool {
			return strings.Contains(strings.ToLower(str(at(e, "title"))+str(at(e, "description"))+str(at(e, "excerpt"))), "jazz")
		})
	})
	t.Run("category includes children", func(t *testing.T) {
		got := each(t, "categories=music", func(e any) bool {
			for _, c := range list(at(e, "categories")) {
				if s := str(at(c, "slug")); s == "music" || s == "jazz" {
					return true
				}
			}
			return false
		})
		byID := each(t, "categories="+sid(t, "categories", "music"), func(any) bool { return true })
		if !slices.Equal(got, byID) {
			t.Errorf("by slug %v != by ID %v", got, byID)
		}
	})
	t.Run("tags any of", func(t *testing.T) {
		free := each(t, "tags=free", func(any) bool { return true })
		outdoor := each(t, "tags=outdoor", func(any) bool { return true })
		both := each(t, "tags=free,outdoor", func(any) bool { return true })
		for _, n := range append(free, outdoor...) {
			if !slices.Contains(both, n) {
				t.Errorf("tags=free,outdoor lacks %d", n)
			}
		}
	})
	t.Run("venue", func(t *testing.T) {
		each(t, "venue="+sid(t, "venues", "bluenote"), func(e any) bool {
			return str(at(e, "venue", "id")) == sid(t, "venues", "bluenote")
		})
		r := get(t, "/events?venue="+sid(t, "venues", "bluenote"))
		if u := str(at(r.body, "rest_url")); !strings.Contains(u, "+00%3A00%3A00") || !strings.HasSuffix(u, "&venue="+sid(t, "venues", "bluenote")) {
			t.Errorf("rest_url with venue should be encoded: %s", u)
		}
	})
	t.Run("organizer", func(t *testing.T) {
		each(t, "organizer="+sid(t, "organizers", "jazzsoc"), func(e any) bool {
			for _, o := range list(at(e, "organizer")) {
				if str(at(o, "id")) == sid(t, "organizers", "jazzsoc") {
					return true
				}
			}
			return false
		})
	})
	t.Run("featured", func(t *testing.T) {
		each(t, "featured=true", func(e any) bool { return at(e, "featured") == true })
		each(t, "featured=false", func(e any) bool { return at(e, "featured") == false })
	})
	t.Run("include", func(t *testing.T) {
		want := []int{id(t, "events", "gala"), id(t, "events", "brunch"), id(t, "events", "carols")}
		got := each(t, "include="+strconv.Itoa(want[0])+","+strconv.Itoa(want[1])+","+strconv.Itoa(want[2]), func(any) bool { return true })
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("include gave %v, want %v", got, want)
		}
	})
	t.Run("hidden never listed", func(t *testing.T) {
		r := get(t, "/events?include="+sid(t, "events", "rehearsal"))
		if n := len(list(at(r.body, "events"))); n != 0 {
			t.Errorf("hidden event listed")
		}
	})
}

func TestEventArchivePasswordBlanked(t *testing.T) {
	r := get(t, "/events?include="+sid(t, "events", "donor"))
	e := at(r.body, "events", 0)
	if e == nil {
		t.Fatalf("protected event not listed: %s", r.raw)
	}
	if str(at(e, "title")) != "Private Donor Dinner" || str(at(e, "description")) != "" || at(e, "image") != false ||
		at(e, "all_day") != nil || len(list(at(e, "venue"))) != 0 || str(at(e, "cost")) != "" {
		t.Errorf("protected event not blanked: %s", r.raw)
	}
}

func TestSingleEvent(t *testing.T) {
	r := get(t, "/events/"+sid(t, "events", "gala"))
	if r.status != http.StatusOK {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	if got, want := keys(r.body), append(slices.Clone(eventKeys), "json_ld"); !slices.Equal(got, want) {
		t.Errorf("keys = %v", got)
	}
	if str(at(r.body, "venue", "venue")) != "Blue Note Jazz Club" || at(r.body, "venue", "json_ld") == nil {
		t.Errorf("venue = %v", at(r.body, "venue"))
	}
	if str(at(r.body, "rest_url")) != shim+"/wp-json/cal/events/v1/events/"+sid(t, "events", "gala") {
		t.Errorf("rest_url = %s", str(at(r.body, "rest_url")))
	}
	if str(at(r.body, "cost")) != "$25" || str(at(r.body, "start_date_details", "hour")) != "19" {
		t.Errorf("cost %q, start hour %q", str(at(r.body, "cost")), str(at(r.body, "start_date_details", "hour")))
	}
	bySlug := get(t, "/events/by-slug/opening-night-gala")
	if string(bySlug.raw) != string(r.raw) {
		t.Errorf("by-slug differs from by-ID")
	}
	if !strings.Contains(string(r.raw), `"url":"http:\/\/`) {
		t.Errorf("slashes not escaped as WordPress does")
	}
	for _, tc := range []struct {
		path   string
		status int
		code   string
	}{
		{"/events/" + sid(t, "events", "draft"), 403, "event-not-accessible"},
		{"/events/" + sid(t, "events", "pending"), 403, "event-not-accessible"},
		{"/events/" + sid(t, "events", "board"), 403, "event-not-accessible"},
		{"/events/" + sid(t, "events", "cancelled"), 403, "event-no-longer-available"},
		{"/events/" + sid(t, "events", "donor"), 403, "event-password-protected"},
		{"/events/" + sid(t, "events", "donor") + "?password=wrong", 403, "event-password-protected"},
		{"/events/" + sid(t, "venues", "bluenote"), 400, "rest-invalid-event-id"},
		{"/events/999999", 404, "rest-event-not-found"},
		{"/events/0", 404, "rest-event-not-found"},
		{"/events/abc", 404, "rest_no_route"},
		{"/events/by-slug/", 404, "rest_no_route"},
		{"/events/by-slug/no-such-event", 400, "rest_invalid_param"},
	} {
		t.Run(tc.path, func(t *testing.T) { wantError(t, get(t, tc.path), tc.status, tc.code) })
	}
	if r := get(t, "/events/999999"); str(at(r.body, "message")) != "Event with ID 999999 does not exist." {
		t.Errorf("message = %s", str(at(r.body, "message")))
	}
	if r := get(t, "/events/"+sid(t, "events", "donor")+"?password=letmein"); r.status != 200 || str(at(r.body, "cost")) != "$250" {
		t.Errorf("right password: %d %s", r.status, r.raw)
	}
}

func TestVenuesAndOrganizers(t *testing.T) {
	r := get(t, "/venues")
	if r.status != 200 || len(list(at(r.body, "venues"))) == 0 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	if u := str(at(r.body, "rest_url")); u != shim+"/wp-json/cal/events/v1/venues/?page=1&per_page=10&status=publish" {
		t.Errorf("rest_url = %s", u)
	}
	for _, v := range list(at(r.body, "venues")) {
		if at(v, "status") != "publish" {
			t.Errorf("venue %s listed with status %v", str(at(v, "id")), at(v, "status"))
		}
		k := keys(v)
		if k[0] != "id" || !slices.Equal(k[len(k)-4:], []string{"show_map", "show_map_link", "global_id", "global_id_lineage"}) {
			t.Errorf("venue keys = %v", k)
		}
	}
	if got := ids(at(get(t, "/venues?event="+sid(t, "events", "gala")).body, "venues")); !slices.Equal(got, []int{id(t, "venues", "bluenote")}) {
		t.Errorf("venues?event=gala = %v", got)
	}
	if got := ids(at(get(t, "/venues?search=jazz").body, "venues")); !slices.Contains(got, id(t, "venues", "bluenote")) {
		t.Errorf("venues?search=jazz = %v", got)
	}
	v := get(t, "/venues/"+sid(t, "venues", "bluenote"))
	if str(at(v.body, "venue")) != "Blue Note Jazz Club" || at(v.body, "json_ld") == nil {
		t.Errorf("single venue: %s", v.raw)
	}
	if bySlug := get(t, "/venues/by-slug/blue-note-jazz-club"); string(bySlug.raw) != string(v.raw) {
		t.Errorf("venue by slug differs")
	}
	o := get(t, "/organizers/"+sid(t, "organizers", "jazzsoc"))
	if str(at(o.body, "organizer")) != "Jazz Society of New York" {
		t.Errorf("single organizer: %s", o.raw)
	}
	if got := len(list(at(get(t, "/organizers?event="+sid(t, "events", "winterfest")).body, "organizers"))); got != 2 {
		t.Errorf("organizers?event=winterfest: %d, want 2", got)
	}
	wantError(t, get(t, "/venues/999999"), 400, "rest_invalid_param")
	wantError(t, get(t, "/venues/"+sid(t, "events", "gala")), 400, "rest_invalid_param")
	wantError(t, get(t, "/venues/by-slug/nope"), 400, "rest_invalid_param")
	wantError(t, get(t, "/venues?per_page=2&page=99"), 404, "venue-archive-page-not-found")
	wantError(t, get(t, "/organizers?per_page=2&page=99"), 404, "organizer-archive-page-not-found")
	wantError(t, get(t, "/organizers/"+sid(t, "organizers", "ghost")), 403, "organizer-not-accessible")
	wantError(t, get(t, "/venues/foo-bar"), 404, "rest_no_route")
}

func TestTerms(t *testing.T) {
	r := get(t, "/categories")
	if got := keys(r.body); !slices.Equal(got, []string{"rest_url", "total", "total_pages", "categories"}) {
		t.Errorf("keys = %v", got)
	}
	names := []string{}
	for _, c := range list(at(r.body, "categories")) {
		names = append(names, strings.ToLower(str(at(c, "name"))))
		if n, _ := strconv.Atoi(str(at(c, "count"))); n == 0 {
			t.Errorf("empty category listed with hide_empty default")
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("categories not sorted by name: %v", names)
	}
	p := get(t, "/categories?per_page=2")
	if str(at(p.body, "next_rest_url")) != shim+"/wp-json/cal/events/v1/categories/?page=2" {
		t.Errorf("next_rest_url = %s", str(at(p.body, "next_rest_url")))
	}
	if got := ids(at(get(t, "/categories?parent="+sid(t, "categories", "music")).body, "categories")); !slices.Equal(got, []int{id(t, "categories", "jazz")}) {
		t.Errorf("parent=music: %v", got)
	}
	if got := ids(at(get(t, "/categories?search=mus").body, "categories")); !slices.Equal(got, []int{id(t, "categories", "music")}) {
		t.Errorf("search=mus: %v", got)
	}
	if got := ids(at(get(t, "/tags?post="+sid(t, "events", "gala")).body, "tags")); !slices.Equal(got, []int{id(t, "tags", "networking")}) {
		t.Errorf("tags?post=gala: %v", got)
	}
	c := get(t, "/categories/"+sid(t, "categories", "jazz"))
	if str(at(c.body, "urls", "up")) != shim+"/wp-json/cal/events/v1/categories/"+sid(t, "categories", "music") || at(c.body, "_links") == nil {
		t.Errorf("single category: %s", c.raw)
	}
	if past := get(t, "/tags?page=50"); past.status != 200 || len(list(at(past.body, "tags"))) != 0 {
		t.Errorf("term page past the end: %d %s", past.status, past.raw)
	}
	wantError(t, get(t, "/categories/999999"), 400, "rest_invalid_param")
	wantError(t, get(t, "/tags/"+sid(t, "categories", "music")), 400, "rest_invalid_param")
	wantError(t, get(t, "/categories?parent=0"), 400, "rest_invalid_param")
	wantError(t, get(t, "/tags?order="), 400, "rest_invalid_param")
	wantError(t, get(t, "/categories/foo"), 404, "rest_no_route")
}

func TestIndexDocAndUnknownRoutes(t *testing.T) {
	idx := get(t, "")
	if str(at(idx.body, "namespace")) != "cal/events/v1" || at(idx.body, "routes", "/cal/events/v1/events/(?P<id>\\d+)") == nil {
		t.Errorf("index: %s", idx.raw[:min(400, len(idx.raw))])
	}
	if got := str(at(idx.body, "_links", "up", 0, "href")); got != shim+"/wp-json/" {
		t.Errorf("index up link = %s", got)
	}
	doc := get(t, "/doc")
	if got := str(at(doc.body, "servers", 0, "url")); got != shim+"/wp-json/cal/events/v1/" {
		t.Errorf("doc server = %s", got)
	}
	if got := keys(doc.body); !slices.Equal(got, []string{"openapi", "info", "components", "servers", "paths"}) {
		t.Errorf("doc keys = %v", got)
	}
	wantError(t, get(t, "/nope"), 404, "rest_no_route")
	wantError(t, call(t, http.MethodGet, "/wp-json/other/v1/events"), 404, "rest_no_route")
	wantError(t, call(t, http.MethodPut, "/wp-json/cal/events/v1/events"), 404, "rest_no_route")
	if h := call(t, http.MethodHead, "/wp-json/cal/events/v1/events"); h.status != 200 || len(h.raw) != 0 || h.header.Get("X-TEC-Total") == "" {
		t.Errorf("HEAD: %d, %d bytes, headers %v", h.status, len(h.raw), h.header)
	}
	env := get(t, "/events?_envelope=1&per_page=2")
	if env.status != 200 || str(at(env.body, "status")) != "200" || at(env.body, "headers", "X-TEC-Total") == nil {
		t.Errorf("_envelope: %s", env.raw[:min(300, len(env.raw))])
	}
}
