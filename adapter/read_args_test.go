package adapter

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"calshim/mapping"
)

// The original's answers to invalid list arguments (The Events Calendar 6.17.2 on WordPress; they
// do not depend on the data): WordPress' has_valid_params reports every failing validate_callback,
// with data.details for those that returned a WP_Error; sanitize_params (the type checks) runs only
// when none failed, in the order the query string gives the parameters.
func TestReadArgumentErrorsAsTheOriginal(t *testing.T) {
	h := newTestServer(t)
	for target, want := range map[string]string{
		"/events?strict_dates=0": `{"code":"rest_invalid_param","message":"Invalid parameter(s): strict_dates",` +
			`"data":{"status":400,"params":{"strict_dates":"Invalid parameter."},"details":[]}}`,
		"/events?featured=maybe": `{"code":"rest_invalid_param","message":"Invalid parameter(s): featured",` +
			`"data":{"status":400,"params":{"featured":"featured is not of type boolean."},"details":{"featured":` +
			`{"code":"rest_invalid_type","message":"featured is not of type boolean.","data":{"param":"featured"}}}}}`,
		"/events?ticketed=1": `{"code":"rest_invalid_param","message":"Invalid parameter(s): ticketed",` +
			`"data":{"status":400,"params":{"ticketed":"Event Tickets plugin is not activated."},"details":{"ticketed":` +
			`{"code":"event-tickets-not-active","message":"Event Tickets plugin is not activated.","data":{"status":400}}}}}`,
		"/events?featured=2&include=-3": `{"code":"rest_invalid_param","message":"Invalid parameter(s): include",` +
			`"data":{"status":400,"params":{"include":"Invalid parameter."},"details":[]}}`,
		"/events?featured=maybe&page=0": `{"code":"rest_invalid_param","message":"Invalid parameter(s): page",` +
			`"data":{"status":400,"params":{"page":"Invalid parameter."},"details":[]}}`,
		"/events?geoloc=maybe": `{"code":"rest_invalid_param","message":"Invalid parameter(s): geoloc",` +
			`"data":{"status":400,"params":{"geoloc":"geoloc is not of type boolean."},"details":{"geoloc":` +
			`{"code":"rest_invalid_type","message":"geoloc is not of type boolean.","data":{"param":"geoloc"}}}}}`,
		"/events?search=0": `{"code":"rest_invalid_param","message":"Invalid parameter(s): search",` +
			`"data":{"status":400,"params":{"search":"Invalid parameter."},"details":[]}}`,
		"/events?status=any": `{"code":"rest_invalid_param","message":"Invalid parameter(s): status",` +
			`"data":{"status":400,"params":{"status":"Invalid parameter."},"details":[]}}`,
		"/categories?order=&hide_empty=maybe": `{"code":"rest_invalid_param","message":"Invalid parameter(s): order",` +
			`"data":{"status":400,"params":{"order":"Invalid parameter."},"details":[]}}`,
		"/categories?hide_empty=maybe&per_page=x&search=0": `{"code":"rest_invalid_param",` +
			`"message":"Invalid parameter(s): per_page, search","data":{"status":400,"params":{"per_page":` +
			`"Invalid parameter.","search":"Invalid parameter."},"details":[]}}`,
		"/tags?parent=x&post=17x&hide_empty=maybe": `{"code":"rest_invalid_param",` +
			`"message":"Invalid parameter(s): post, hide_empty","data":{"status":400,"params":` +
			`{"post":"post is not of type integer.","hide_empty":"hide_empty is not of type boolean."},` +
			`"details":{"post":{"code":"rest_invalid_type","message":"post is not of type integer.","data":` +
			`{"param":"post"}},"hide_empty":{"code":"rest_invalid_type","message":"hide_empty is not of type boolean.",` +
			`"data":{"param":"hide_empty"}}}}}`,
		"/categories?page=-1&parent=-5": `{"code":"rest_invalid_param","message":"Invalid parameter(s): page",` +
			`"data":{"status":400,"params":{"page":"Invalid parameter."},"details":[]}}`,
		"/categories?parent=-500": `{"code":"rest_invalid_param","message":"Invalid parameter(s): parent",` +
			`"data":{"status":400,"params":{"parent":"Invalid parameter."},"details":[]}}`,
		"/venues?search=0&event=0": `{"code":"rest_invalid_param","message":"Invalid parameter(s): search, event",` +
			`"data":{"status":400,"params":{"search":"Invalid parameter.","event":"Invalid parameter."},"details":[]}}`,
	} {
		rec := serve(h, http.MethodGet, tribeV1+target)
		if rec.Code != http.StatusBadRequest || rec.Body.String() != want {
			t.Errorf("GET %s = %d %s\nwant 400 %s", target, rec.Code, rec.Body, want)
		}
	}
}

// An explicit status=any is refused for every caller, editors included: filter_post_status_list
// accepts registered statuses only.
func TestStatusAnyRefusedForEditors(t *testing.T) {
	_, h := viewerServer(t)
	for _, list := range []string{"events", "venues"} {
		rec := serve(h, http.MethodGet, tribeV1+"/"+list+"?status=any", asUser(editorAuth))
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), `"params":{"status":`) {
			t.Errorf("%s?status=any = %d %s", list, rec.Code, rec.Body)
		}
		// Every status registered on the original's site passes, WordPress' and TEC's own.
		for _, st := range []string{"publish,draft", "request-pending", "tribe-ignored,tribe-ea-draft"} {
			if rec := serve(h, http.MethodGet, tribeV1+"/"+list+"?status="+st, asUser(editorAuth)); rec.Code != http.StatusOK {
				t.Errorf("%s?status=%s = %d %s", list, st, rec.Code, rec.Body)
			}
		}
	}
	// An empty list passes for editors: WP_Query's default statuses, and build_query leaves an empty
	// member for the empty array.
	rec := serve(h, http.MethodGet, tribeV1+"/venues?status=&per_page=2", asUser(editorAuth))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `venues\/?page=1&per_page=2&"`) {
		t.Errorf("venues?status= = %d %.2000s", rec.Code, rec.Body)
	}
}

// rest_url and next_rest_url as the original builds them with add_query_arg: raw values, unless
// venue, organizer or featured is given (a second add_query_arg re-encodes the URL, drops a false
// featured and appends the extra arguments raw); empty values lose their "=".
func TestArchiveURLsAsTheOriginal(t *testing.T) {
	h := newTestServer(t)
	for target, want := range map[string][]string{
		"/events?venue=5,6": {`\/events\/?page=1&per_page=10&start_date=2026-11-21+00%3A00%3A00&` +
			`end_date=2028-11-22+23%3A59%3A59&status=publish&venue=5,6"`},
		"/events?venue[]=5&venue[]=6&featured=1": {`&status=publish&venue=5,6&featured=1"`},
		"/events?organizer=12,13":                {`+23%3A59%3A59&status=publish&organizer=12,13"`},
		"/events?featured=false&per_page=1": {`"rest_url":"http:\/\/example.com\/wp-json\/tribe\/events\/v1\/` +
			`events\/?page=1&per_page=1&start_date=2026-11-21+00%3A00%3A00&end_date=2028-11-22+23%3A59%3A59&` +
			`status=publish"`},
		"/events?geoloc=1&per_page=1": {`?page=1&per_page=1&start_date=2026-11-21 00:00:00&` +
			`end_date=2028-11-22 23:59:59&geoloc=1&geoloc_lat&geoloc_lng&status=publish"`,
			`"next_rest_url":"http:\/\/example.com\/wp-json\/tribe\/events\/v1\/events\/?per_page=1&` +
				`start_date=2026-11-21+00%3A00%3A00&end_date=2028-11-22+23%3A59%3A59&geoloc=1&geoloc_lat&` +
				`geoloc_lng&status=publish&page=2"`},
		"/events?geoloc=false&geoloc_lat=abc": {`23:59:59&status=publish"`},
		"/events?search=a%2Bb%26c&venue=5":    {`+23%3A59%3A59&search=a+b&c&status=publish&venue=5"`},
		"/venues?has_events=":                 {`venues\/?page=1&per_page=10&has_events&status=publish"`},
	} {
		body := serve(h, http.MethodGet, tribeV1+target).Body.String()
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s: no %s in\n%.3000s", target, w, body)
			}
		}
	}
}

// eventIDs lists the IDs of an event archive answer (per_page 50).
func eventIDs(t *testing.T, h http.Handler, query string) []int {
	t.Helper()
	rec := serve(h, http.MethodGet, tribeV1+"/events?per_page=50&"+query)
	var body struct{ Events []struct{ ID int } }
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("GET events?%s = %d %s", query, rec.Code, rec.Body)
	}
	ids := make([]int, len(body.Events))
	for i, e := range body.Events {
		ids[i] = e.ID
	}
	slices.Sort(ids)
	return ids
}

// Pairs of queries the original answers with the same events.
func TestEventFiltersAsTheOriginal(t *testing.T) {
	h := newTestServer(t)
	for _, tc := range []struct{ query, same string }{
		// parse_terms_query: by sanitized slug, then by ID, so a name finds its term.
		{"categories=Jazz", "categories=3"},
		{"categories[]=Jazz&categories[]=5", "categories=3,5"},
		{"tags=Free", "tags=7"},
		// start_date and starts_after share one meta query clause, as do end_date and ends_before;
		// the relative bound replaces the other.
		{"start_date=2026-12-15&starts_after=2026-12-01", "starts_after=2026-12-01"},
		{"start_date=2026-12-01&end_date=2027-01-01&starts_after=2026-12-10&ends_before=2027-03-01",
			"starts_after=2026-12-10&ends_before=2027-03-01"},
	} {
		got, want := eventIDs(t, h, tc.query), eventIDs(t, h, tc.same)
		if !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("%s gave %v, %s gave %v", tc.query, got, tc.same, want)
		}
	}
}

// include ignores every date filter, as the interface says (the original keeps its default window:
// a deliberate difference, in docs/compatibility.md).
func TestIncludeIgnoresDates(t *testing.T) {
	h := newTestServer(t)
	past := eventIDs(t, h, "start_date=2000-01-01&end_date=2026-11-01")
	if len(past) == 0 {
		t.Fatal("no past event in the data set")
	}
	got := eventIDs(t, h, "include="+itoa(past[0])+"&starts_after=2030-01-01")
	if !slices.Equal(got, past[:1]) {
		t.Errorf("include of a past event gave %v, want %v", got, past[:1])
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// termIDs lists the IDs of a category or tag archive answer, in order, and its total.
func termIDs(t *testing.T, h http.Handler, target string) ([]int, int) {
	t.Helper()
	rec := serve(h, http.MethodGet, tribeV1+target)
	var body map[string]json.RawMessage
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("GET %s = %d %s", target, rec.Code, rec.Body)
	}
	var total int
	_ = json.Unmarshal(body["total"], &total)
	var terms []struct{ ID int }
	key := strings.TrimPrefix(strings.SplitN(target, "?", 2)[0], "/")
	_ = json.Unmarshal(body[key], &terms)
	ids := make([]int, len(terms))
	for i, tm := range terms {
		ids[i] = tm.ID
	}
	return ids, total
}

// Term lists read include and exclude as WP_Term_Query does (absint of each item, a list that joins
// to "0" counts as absent, include wins over exclude), and orderby=none leaves the terms by ID.
func TestTermListsAsTheOriginal(t *testing.T) {
	h := newTestServer(t)
	all, total := termIDs(t, h, "/categories?orderby=id")
	for _, tc := range []struct {
		target string
		want   []int
	}{
		{"/categories?include=jazz&orderby=id", all},
		{"/categories?include=Jazz&orderby=id", all},
		{"/categories?include=music,3", []int{3}},
		{"/categories?include[]=3&include[]=jazz", []int{3}},
		{"/categories?exclude=jazz&orderby=id", all},
		{"/categories?include=3&exclude=3", []int{3}},
		{"/categories?orderby=none&order=desc", all},
		{"/categories?slug=Jazz", []int{3}},
	} {
		got, n := termIDs(t, h, tc.target)
		if !slices.Equal(got, tc.want) || n != len(tc.want) {
			t.Errorf("GET %s = %v (total %d), want %v", tc.target, got, n, tc.want)
		}
	}
	if total != len(all) || !slices.IsSorted(all) {
		t.Errorf("categories by id: %v, total %d", all, total)
	}
}

// Writes go through the same pipeline: type failures carry data.details, a JSON null fails its type
// check, and the body's parameters come before the query string's (the original's answers).
func TestWriteArgumentErrorsAsTheOriginal(t *testing.T) {
	h := newTestServer(t)
	for _, tc := range []struct{ target, body, want string }{
		{"/events", `{"title":"x","start_date":"2030-01-01","end_date":"2030-01-02","all_day":null,"featured":"x"}`,
			`{"code":"rest_invalid_param","message":"Invalid parameter(s): all_day, featured","data":{"status":400,` +
				`"params":{"all_day":"all_day is not of type boolean.","featured":"featured is not of type boolean."},` +
				`"details":{"all_day":{"code":"rest_invalid_type","message":"all_day is not of type boolean.",` +
				`"data":{"param":"all_day"}},"featured":{"code":"rest_invalid_type",` +
				`"message":"featured is not of type boolean.","data":{"param":"featured"}}}}}`},
		{"/events?featured=3", `{"title":"x","start_date":"2030-01-01","end_date":"2030-01-02","all_day":"maybe"}`,
			`"message":"Invalid parameter(s): all_day, featured"`},
		{"/events", `{"title":"","start_date":"2030-01-01","end_date":"2030-01-02","all_day":"maybe"}`,
			`{"code":"rest_invalid_param","message":"Invalid parameter(s): title","data":{"status":400,` +
				`"params":{"title":"Invalid parameter."},"details":[]}}`},
	} {
		rec := serve(h, http.MethodPost, tribeV1+tc.target, jsonBody(tc.body))
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("POST %s %s = %d %s\nwant %s", tc.target, tc.body, rec.Code, rec.Body, tc.want)
		}
	}
}

// A venue or organizer search without a word finds nothing, as in the original (which then reports
// its unfiltered totals; calshim counts the matches, a deliberate difference in docs/compatibility.md).
func TestLinkedSearchWithoutWords(t *testing.T) {
	h := newTestServer(t)
	for _, target := range []string{"/venues?search=%40", "/organizers?search=%20"} {
		body := serve(h, http.MethodGet, tribeV1+target).Body.String()
		if !strings.Contains(body, `":[],"rest_url"`) || !strings.Contains(body, `"total":0,`) {
			t.Errorf("GET %s = %.300s", target, body)
		}
	}
}

// add_query_arg removes "=" before "&" or the end of the built query, even inside a raw value.
func TestArchiveURLDropsEqualsBeforeAmpersand(t *testing.T) {
	body := serve(newTestServer(t), http.MethodGet, tribeV1+"/events?search=%26").Body.String()
	if !strings.Contains(body, `23:59:59&search&&status=publish"`) {
		t.Errorf("rest_url of search=&: %.2000s", body)
	}
}

// Writes name invalid arguments in the original's declaration order (author and date before title).
func TestWriteErrorsInDeclarationOrder(t *testing.T) {
	h := newTestServer(t)
	for target, want := range map[string]string{
		"/events": `"message":"Invalid parameter(s): author, date, title, description, slug, excerpt, status, ` +
			`timezone, website, venue"`,
		"/venues":     `"message":"Invalid parameter(s): author, date, venue, status, city, website, image"`,
		"/organizers": `"message":"Invalid parameter(s): author, date, organizer, status, phone, website, image"`,
	} {
		body := map[string]string{
			"/events": `title=&author=0&date=garbage&status=nope&start_date=x&end_date=y&website=bad&` +
				`venue=abc&timezone=Nowhere&description=&slug=&excerpt=`,
			"/venues": `venue=&author=0&date=garbage&status=nope&website=bad&description=&city[]=x&` +
				`image=99999`,
			"/organizers": `organizer=&author=0&date=garbage&status=nope&website=bad&email=&phone[]=1&` +
				`image=99999`,
		}[target]
		rec := serve(h, http.MethodPost, tribeV1+target, withBody("application/x-www-form-urlencoded", body))
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), want) {
			t.Errorf("POST %s = %d %s\nwant %s", target, rec.Code, rec.Body, want)
		}
	}
}

// Over several statuses the original's venues and organizers of one date come by status, then by
// ascending ID (the admin's list: draft 11, then 5, 6, ... 10; over one status: 10, 9, ... 5).
func TestMultiStatusOrder(t *testing.T) {
	d := "2026-11-23 14:39:49"
	post := func(id int, date, status string) *mapping.Post {
		return &mapping.Post{ID: id, Text: mapping.TextFields{Date: date, Status: status}.Pack()}
	}
	l := []*mapping.Post{post(10, d, "publish"), post(11, d, "draft"), post(5, d, "publish"),
		post(60, "2026-11-24 09:00:00", "publish")}
	slices.SortStableFunc(l, mapping.ByPostDate(true))
	var got []int
	for _, p := range l {
		got = append(got, p.ID)
	}
	if !slices.Equal(got, []int{60, 11, 5, 10}) {
		t.Errorf("order %v", got)
	}
}

// A category item that passes validation but names no term (-5: term_exists finds term 5 by its
// absolute value, parse_terms_query then looks up -5 and finds nothing) filters on no term: the
// original lists no event.
func TestCategoryOfNoTermListsNothing(t *testing.T) {
	h := newTestServer(t)
	for _, q := range []string{"categories=-5", "categories=-3&tags=-7"} {
		rec := serve(h, http.MethodGet, tribeV1+"/events?"+q)
		if rec.Code != http.StatusOK || rec.Header().Get("X-TEC-Total") != "0" {
			t.Errorf("%s = %d, %s events", q, rec.Code, rec.Header().Get("X-TEC-Total"))
		}
	}
}
