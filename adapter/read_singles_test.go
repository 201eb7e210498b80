package adapter

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"calshim/internal/testkit/wpfake"
)

// Expected answers below are the original's (The Events Calendar 6.17.2) on the same data.

type wantAnswer struct {
	target string
	status int
	want   string // a fragment of the body
}

func checkAnswers(t *testing.T, get func(string) *httptest.ResponseRecorder, cases []wantAnswer) {
	t.Helper()
	for _, tc := range cases {
		rec := get(tc.target)
		if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("GET %s = %d %.300s\nwant %d with %s", tc.target, rec.Code, rec.Body.String(),
				tc.status, tc.want)
		}
	}
}

// An ID of a post that is no event is 400 rest-invalid-event-id (an attachment too, which the
// catalog does not keep); an ID of no post at all is 404.
func TestSingleEventOfAnotherPostType(t *testing.T) {
	h := newTestServer(t)
	invalid := `{"code":"rest-invalid-event-id","message":"The specified ID is not a valid event.",` +
		`"data":{"status":400}}`
	checkAnswers(t, func(u string) *httptest.ResponseRecorder { return serve(h, http.MethodGet, u) }, []wantAnswer{
		{calV1 + "/events/4", 400, invalid},
		{calV1 + "/events/4?password=x", 400, invalid},
		{calV1 + "/events/5", 400, invalid},
		{calV1 + "/events/12", 400, invalid},
		{calV1 + "/events/999999", 404, `"message":"Event with ID 999999 does not exist."`},
		{calV1 + "/venues/4", 400, `"params":{"id":"Invalid parameter."}`},
		{calV1 + "/organizers/999999", 400, `"params":{"id":"Invalid parameter."}`},
	})
}

// By-slug routes look the slug up as get_page_by_path does.
func TestSingleBySlugAsGetPageByPath(t *testing.T) {
	wp := wpfake.New(t)
	wp.Modify("tribe_events", 18, func(o wpfake.Object) {
		wp.Sub(o, "calshim")["parent"] = json.Number("17")
	})
	h := fakeServer(t, wp)
	invalidSlug := `"params":{"slug":"Invalid parameter."}`
	checkAnswers(t, func(u string) *httptest.ResponseRecorder { return serve(h, http.MethodGet, u) }, []wantAnswer{
		{calV1 + "/events/by-slug/Opening-Night-Gala", 200, `{"id":17,`},
		{calV1 + "/events/by-slug/Opening%20Night%20Gala", 200, `{"id":17,`},
		{calV1 + "/events/by-slug/opening+night+gala", 200, `{"id":17,`},
		{calV1 + "/events/by-slug/opening-night-gala.", 200, `{"id":17,`},
		{calV1 + "/events/by-slug/opening-night-gala%2521", 400, invalidSlug},
		{calV1 + "/events/by-slug/0", 400, invalidSlug},
		{calV1 + "/events/by-slug/jazz-brunch", 400, invalidSlug}, // has a parent
		{calV1 + "/events/by-slug/~", 403, `"code":"event-not-accessible"`},
		{calV1 + "/venues/by-slug/Blue-Note-Jazz-Club", 200, `{"id":5,`},
		{calV1 + "/organizers/by-slug/0", 400, invalidSlug},
	})

	wp.SetIntercept(answerMe)
	checkAnswers(t, func(u string) *httptest.ResponseRecorder { return serve(h, http.MethodGet, u, asUser(adminAuth)) }, []wantAnswer{
		{calV1 + "/events/by-slug/~", 200, `{"id":39,`}, // the oldest event without a slug
	})
}

// Logged-in users who may read a draft or private post get its json_ld; an event with a plain
// permalink gets tribe_get_event_link's url.
func TestJSONLDOfNonPublishedPosts(t *testing.T) {
	_, h := viewerServer(t)
	checkAnswers(t, func(u string) *httptest.ResponseRecorder { return serve(h, http.MethodGet, u, asUser(adminAuth)) }, []wantAnswer{
		{calV1 + "/events/39", 200,
			`"url":"http:\/\/127.0.0.1:8881\/?post_type=tribe_events&p=39%2F\/","eventAttendanceMode"`},
		{calV1 + "/events/57", 200,
			`"json_ld":{"@context":"http:\/\/schema.org","@type":"Event","name":"Private: Board Meeting"`},
		{calV1 + "/venues/11", 200, `"json_ld":{"@type":"Place"`},
		{calV1 + "/organizers/16", 200, `"json_ld":{"@type":"Person"`},
	})
}

// ids lists the "id" of each item of a list answer.
func ids(t *testing.T, body []byte, key string) []int {
	t.Helper()
	var answer map[string]json.RawMessage
	var list []struct {
		ID int `json:"id"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if err := json.Unmarshal(answer[key], &list); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var out []int
	for _, item := range list {
		out = append(out, item.ID)
	}
	return out
}

// Venue search is find_like's: punctuation alone finds nothing; "0" is refused.
func TestVenueSearchAsFindLike(t *testing.T) {
	h := newTestServer(t)
	for search, want := range map[string][]int{
		"@":         nil,
		"_":         nil,
		"%C3%A9":    nil,
		"jazz+club": {5},
		"JAZZ":      {5},
		"jazz,club": {5},
		"note-jazz": nil,
		"0+jazz":    {5},
	} {
		rec := serve(h, http.MethodGet, calV1+"/venues?search="+search)
		if got := ids(t, rec.Body.Bytes(), "venues"); !slices.Equal(got, want) {
			t.Errorf("search=%s: %v, want %v", search, got, want)
		}
	}
	for _, list := range []string{"/venues", "/organizers"} {
		rec := serve(h, http.MethodGet, tribeV1+list+"?search=0")
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"params":{"search":"Invalid parameter."}`) {
			t.Errorf("%s?search=0: %d %s", list, rec.Code, rec.Body)
		}
	}
}

// addVenue clones venue 5 as a new venue.
func addVenue(wp *wpfake.Server, id int, slug string) {
	wp.Clone("tribe_venue", 5, id, func(o wpfake.Object) { o["slug"] = slug })
}

// linkEvent clones event 17 as a new event at venue, with the given status and start.
func linkEvent(wp *wpfake.Server, id, venue int, status, start string) {
	wp.Clone("tribe_events", 17, id, func(o wpfake.Object) {
		o["status"], o["slug"] = status, ""
		meta := wp.Sub(o, "calshim")["meta"].(wpfake.Object)
		meta["_EventVenueID"] = []any{strconv.Itoa(venue)}
		meta["_EventStartDate"] = []any{start}
		meta["_EventEndDate"] = []any{start[:11] + "23:00:00"}
	})
}

// Venues "with upcoming events" count the upcoming events in the statuses the caller's list shows
// (VenueByUpcomingArchiveCest): a visitor only published ones, an administrator private, draft and
// pending ones too; only the first page of upcoming events counts.
func TestVenuesWithUpcomingEventsDependOnTheCaller(t *testing.T) {
	wp := wpfake.New(t)
	addVenue(wp, 990001, "private-events-hall")
	addVenue(wp, 990002, "draft-events-hall")
	addVenue(wp, 990003, "far-future-hall")
	linkEvent(wp, 990101, 990001, "private", "2026-11-23 10:00:00")
	linkEvent(wp, 990102, 990002, "draft", "2026-11-23 11:00:00")
	linkEvent(wp, 990103, 990003, "publish", "2030-01-01 10:00:00")
	h := fakeServer(t, wp)

	list := calV1 + "/venues?only_with_upcoming=true&per_page=50"
	anonymous := ids(t, serve(h, http.MethodGet, list).Body.Bytes(), "venues")
	wp.SetIntercept(answerMe)
	admin := ids(t, serve(h, http.MethodGet, list, asUser(adminAuth)).Body.Bytes(), "venues")
	for _, tc := range []struct {
		venue            int
		anonymous, admin bool
	}{{990001, false, true}, {990002, false, true}, {990003, false, false}} {
		inAnonymous, inAdmin := slices.Contains(anonymous, tc.venue), slices.Contains(admin, tc.venue)
		if inAnonymous != tc.anonymous || inAdmin != tc.admin {
			t.Errorf("venue %d: anonymous %v, admin %v", tc.venue, anonymous, admin)
		}
	}
}

// An administrator's venue list ("any" status) puts same-date ties in status, then ID order; a
// visitor's (published only) newest ID first.
func TestVenueListTieOrder(t *testing.T) {
	wp := wpfake.New(t)
	h := fakeServer(t, wp)
	anonymous := ids(t, serve(h, http.MethodGet, calV1+"/venues?per_page=50").Body.Bytes(), "venues")
	if want := []int{20134, 10, 9, 8, 7, 6, 5}; !slices.Equal(anonymous, want) {
		t.Errorf("anonymous: %v, want %v", anonymous, want)
	}
	wp.SetIntercept(answerMe)
	admin := ids(t, serve(h, http.MethodGet, calV1+"/venues?per_page=50", asUser(adminAuth)).Body.Bytes(), "venues")
	if want := []int{11, 5, 6, 7, 8, 9, 10, 20134}; !slices.Equal(admin, want) {
		t.Errorf("admin: %v, want %v", admin, want)
	}
}

func TestNamespaceParameterOfTheIndex(t *testing.T) {
	h := newTestServer(t)
	notFound := `{"code":"rest_invalid_namespace",` +
		`"message":"The specified namespace could not be found.","data":{"status":404}}`
	checkAnswers(t, func(u string) *httptest.ResponseRecorder { return serve(h, http.MethodGet, u) }, []wantAnswer{
		{"/wp-json/tribe/events/v1/?namespace=foo", 404, notFound},
		{"/wp-json/tribe/events/v1/?namespace=", 404, notFound},
		{"/wp-json/tribe/events/v1/?namespace=TRIBE/events/v1", 404, notFound},
		{"/wp-json/tribe/events/v1/?namespace[]=x", 404, notFound},
		{"/wp-json/tribe/events/v1/?namespace=tribe/events/v1", 200, `{"namespace":"tribe\/events\/v1",`},
	})
}

// _fields selects members as rest_filter_response_fields does.
func TestFieldsSelection(t *testing.T) {
	h := newTestServer(t)
	for target, want := range map[string]string{
		"/events/17?_fields=id,title":                 `{"id":17,"title":"Opening Night Gala"}`,
		"/events/17?_fields=venue.id,venue.venue":     `{"venue":{"id":5,"venue":"Blue Note Jazz Club"}}`,
		"/events/17?_fields=venue,venue.id,title":     `{"venue":{"id":5,`,
		"/events/17?_fields=venue.nope":               `{"venue":[]}`,
		"/events/17?_fields[]=id&_fields[]=slug":      `{"id":17,"slug":"opening-night-gala"}`,
		"/events/17?_fields=image.sizes.medium.width": `{"image":{"sizes":{"medium":{"width":300}}}}`,
		"/events?_fields=total":                       `{"total":`,
		"/events?_fields=events.id,total_pages":       `{"events":[],"total_pages":`,
		"/events?_fields=events.1.id":                 `{"events":{"1":{"id":`,
		"/events?_fields=events.0.id":                 `{"events":[{"id":`,
		"/events?_fields=nope":                        `[]`,
		"/?_fields=namespace":                         `{"namespace":"cal\/events\/v1","_links":{"up":`,
	} {
		rec := serve(h, http.MethodGet, calV1+target)
		body := rec.Body.String()
		if rec.Code != 200 || !strings.HasPrefix(body, want) {
			t.Errorf("GET %s = %d %.200s\nwant prefix %s", target, rec.Code, body, want)
		}
	}
	rec := serve(h, http.MethodGet, calV1+"/events/17?_fields=venue,venue.id,title")
	if strings.Contains(rec.Body.String(), `"title"`) {
		t.Errorf("a dotted field under a kept member stops the list: %.200s", rec.Body)
	}
	rec = serve(h, http.MethodGet, calV1+"/events/17?_fields=json_ld.name")
	if !strings.Contains(rec.Body.String(), `"@type":"Event"`) {
		t.Errorf("json_ld is kept whole: %.200s", rec.Body)
	}
}

// A revision's ID is a post too (get_post finds it): 400.
func TestSingleEventOfARevision(t *testing.T) {
	wp := wpfake.New(t)
	h := fakeServer(t, wp)
	wp.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/calshim/v1/posts/990500") {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":990500,"type":"revision"}`))
		return true
	})
	checkAnswers(t, func(u string) *httptest.ResponseRecorder { return serve(h, http.MethodGet, u) }, []wantAnswer{
		{calV1 + "/events/990500", 400, `"code":"rest-invalid-event-id"`},
		{calV1 + "/events/990501", 404, `"code":"rest-event-not-found"`},
	})
}

// The original validates password (Tribe__Validator__Base::is_string) before it looks the ID up: an
// empty one is refused even for an ID that is not an event.
func TestEventPasswordValidatedFirst(t *testing.T) {
	h := newTestServer(t)
	for _, target := range []string{"/events/17?password=", "/events/4?password="} {
		rec := serve(h, http.MethodGet, calV1+target)
		want := `{"code":"rest_invalid_param","message":"Invalid parameter(s): password","data":{"status":400,` +
			`"params":{"password":"Invalid parameter."},"details":[]}}`
		if rec.Code != 400 || rec.Body.String() != want {
			t.Errorf("GET %s = %d %s", target, rec.Code, rec.Body)
		}
	}
}

// Terms answer by context as the core terms controller filters them: embed drops count, description,
// parent and meta; an unknown context leaves nothing (an empty list in PHP), _links aside.
func TestTermContext(t *testing.T) {
	h := newTestServer(t)
	rec := serve(h, http.MethodGet, calV1+"/categories/5?context=embed")
	if body := rec.Body.String(); strings.Contains(body, `"count"`) || !strings.Contains(body, `"urls"`) {
		t.Errorf("embed: %s", body)
	}
	rec = serve(h, http.MethodGet, calV1+"/categories/5?context=bogus")
	if body := rec.Body.String(); !strings.HasPrefix(body, `{"_links":`) {
		t.Errorf("bogus single: %.200s", body)
	}
	rec = serve(h, http.MethodGet, calV1+"/categories?per_page=1&context=bogus")
	if body := rec.Body.String(); !strings.Contains(body, `"categories":[[]]`) {
		t.Errorf("bogus list: %.300s", body)
	}
}
