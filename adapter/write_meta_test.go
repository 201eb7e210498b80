package adapter

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"calshim/internal/testkit/wpfake"
)

// tecSchema is the meta part of OPTIONS /wp/v2/tribe_events on a WordPress where The Events Calendar
// is active: its block editor registers these keys with their own types (Tribe__Events__Editor__Meta).
const tecSchema = `{"schema":{"properties":{"meta":{"properties":{
"_EventAllDay":{"type":"boolean"},"_EventShowMap":{"type":"boolean"},"_EventShowMapLink":{"type":"boolean"},
"_EventCost":{"type":"string"},"_EventStartDate":{"type":"string"},
"_EventVenueID":{"type":"array","items":{"type":"number"}},
"_EventOrganizerID":{"type":"array","items":{"type":"number"}}}}}}}`

// eventWrites makes the fake answer the schema and record the wp/v2 event writes, answering each
// with a copy of a recorded event under a new ID.
func eventWrites(t *testing.T, wp *wpfake.Server) func() []map[string]any {
	return eventWritesWith(t, wp, nil)
}

// eventWritesWith is eventWrites with a further intercept tried first.
func eventWritesWith(t *testing.T, wp *wpfake.Server, more func(http.ResponseWriter, *http.Request) bool) func() []map[string]any {
	var mu sync.Mutex
	var bodies []map[string]any
	source := wp.IDs("tribe_events")[0]
	wp.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		switch {
		case more != nil && more(w, r):
		case answerMe(w, r):
		case r.Method == http.MethodOptions && r.URL.Path == "/wp-json/wp/v2/tribe_events":
			_, _ = w.Write([]byte(tecSchema))
		case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/wp-json/wp/v2/tribe_events"):
			var body map[string]any
			raw, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(raw, &body)
			mu.Lock()
			bodies = append(bodies, body)
			id := 990100 + len(bodies)
			mu.Unlock()
			wp.Clone("tribe_events", source, id, nil)
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"id":%d}`, id)
		default:
			return false
		}
		return true
	})
	return func() []map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return bodies
	}
}

// TestWriteMetaTypes: with the calendar plugin active, wp/v2 refuses "yes" for the boolean
// _EventAllDay ("meta._EventAllDay is not of type boolean.") and deleting a key whose stored value is
// not a boolean; writes send the declared types.
func TestWriteMetaTypes(t *testing.T) {
	wp := wpfake.New(t)
	h := fakeServer(t, wp)
	writes := eventWrites(t, wp)
	venue := wp.IDs("tribe_venue")[0]
	rec := serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(fmt.Sprintf(`{"title":"x","start_date":"2026-12-10","end_date":"2026-12-11",
		"all_day":true,"cost":"$5","venue":%d}`, venue)))

	if rec.Code != http.StatusCreated {
		t.Fatalf("got %d %s", rec.Code, rec.Body)
	}
	meta := writes()[0]["meta"].(map[string]any)
	want := map[string]any{"_EventAllDay": true, "_EventShowMap": false, "_EventShowMapLink": false,
		"_EventCost": "$5", "_EventVenueID": []any{float64(venue)}}
	for k, v := range want {
		if fmt.Sprint(meta[k]) != fmt.Sprint(v) {
			t.Errorf("%s = %#v, want %#v", k, meta[k], v)
		}
	}
	rec = serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(`{"title":"x","start_date":"2026-12-10 10:00","end_date":"2026-12-10 12:00"}`))
	// The original stores no _EventAllDay row for an event that is not all day; wp/v2 refuses to
	// delete the boolean key of a new post ("invalid stored value"), so it is left out.
	if meta, has := writes()[1]["meta"].(map[string]any)["_EventAllDay"]; rec.Code != http.StatusCreated || has {
		t.Errorf("not all day: %d, _EventAllDay %#v", rec.Code, meta)
	}
}

// TestWriteEndBeforeStart: the original keeps the UTC end given when it moves an end before the start
// to the start (POST /events with 10:00 to 08:00 New York answers utc_end_date 13:00). The active
// calendar plugin recomputes the UTC dates after a wp/v2 update that sets the wall times, so the UTC
// end is written again on its own.
func TestWriteEndBeforeStart(t *testing.T) {
	wp := wpfake.New(t)
	h := fakeServer(t, wp)
	writes := eventWrites(t, wp)
	rec := serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(`{"title":"x","start_date":"2026-12-10 10:00:00","end_date":"2026-12-10 08:00:00"}`))
	if rec.Code != http.StatusCreated || len(writes()) != 2 {
		t.Fatalf("got %d %s after %d writes", rec.Code, rec.Body, len(writes()))
	}
	first := writes()[0]["meta"].(map[string]any)
	if first["_EventEndDate"] != "2026-12-10 10:00:00" || first["_EventEndDateUTC"] != "2026-12-10 13:00:00" {
		t.Errorf("dates: %v %v", first["_EventEndDate"], first["_EventEndDateUTC"])
	}
	second := writes()[1]["meta"]
	if fmt.Sprint(second) != "map[_EventEndDateUTC:2026-12-10 13:00:00]" {
		t.Errorf("second write %v", second)
	}
}

// TestWriteEventCreateFields: what the original stores on create for fields given empty or for terms
// created meanwhile. It creates events from its arguments without the empty ones (array_filter in
// Single_Event::create): an empty website leaves no _EventURL row, so the event shows its own URL.
// A category named in the event that WordPress already has but the catalog has not seen yet
// (term_exists) is the existing one, as Tribe__Terms::translate_terms_to_ids finds it.
func TestWriteEventCreateFields(t *testing.T) {
	wp := wpfake.New(t)
	h := fakeServer(t, wp)
	writes := eventWritesWith(t, wp, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodPost || r.URL.Path != "/wp-json/wp/v2/tribe_events_cat" {
			return false
		}
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"code":"term_exists","message":"A term with the name provided already exists with this parent.",
"data":{"status":400,"term_id":6},"additional_data":[6]}`))
		return true
	})
	rec := serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(`{"title":"x","start_date":"2026-12-10 10:00","end_date":"2026-12-10 12:00",
		"website":"","categories":["Created Meanwhile"]}`))

	if rec.Code != http.StatusCreated {
		t.Fatalf("got %d %s", rec.Code, rec.Body)
	}
	body := writes()[0]
	if _, has := body["meta"].(map[string]any)["_EventURL"]; has {
		t.Errorf("empty website stored: %v", body["meta"])
	}
	if fmt.Sprint(body["tribe_events_cat"]) != "[6]" {
		t.Errorf("categories %v, want [6]", body["tribe_events_cat"])
	}
}

// TestWriteKeepsCost: with the calendar plugin active, every wp/v2 write of an event stores its cost
// again, from the request's _EventCost or else from the formatted cost ("$5 - $10" became "5 – 10"
// after an update of the description alone); updates that leave the cost send the stored one.
func TestWriteKeepsCost(t *testing.T) {
	wp := wpfake.New(t)
	h := fakeServer(t, wp)
	var sent map[string]any
	wp.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		switch {
		case answerMe(w, r):
		case r.Method == http.MethodOptions:
			_, _ = w.Write([]byte(tecSchema))
		case r.Method == http.MethodPost && r.URL.Path == "/wp-json/wp/v2/tribe_events/17":
			raw, _ := io.ReadAll(r.Body)
			_ = json.Unmarshal(raw, &sent)
			_, _ = w.Write([]byte(`{"id":17}`))
		default:
			return false
		}
		return true
	})
	rec := serve(h, http.MethodPost, calV1+"/events/17", asUser(editorAuth), jsonBody(`{"description":"x"}`))
	if rec.Code != http.StatusOK {
		t.Fatalf("got %d %.200s", rec.Code, rec.Body)
	}
	if fmt.Sprint(sent["meta"]) != "map[_EventCost:$25]" {
		t.Errorf("meta sent %v", sent["meta"])
	}
}

// TestWriteCostObject: a cost given as an object is its members, as PHP casts it (the original
// answered {"cost":{"a":1}} with cost "$1").
func TestWriteCostObject(t *testing.T) {
	wp := wpfake.New(t)
	h := fakeServer(t, wp)
	writes := eventWrites(t, wp)
	rec := serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(`{"title":"x","start_date":"2026-12-10 10:00","end_date":"2026-12-10 12:00","cost":{"a":1}}`))
	if rec.Code != http.StatusCreated {
		t.Fatalf("got %d %.200s", rec.Code, rec.Body)
	}
	if got := fmt.Sprint(writes()[0]["meta"].(map[string]any)["_EventCost"]); got != "1" {
		t.Errorf("_EventCost %s", got)
	}
}

// TestWriteTermsObject: categories or tags given as an object are its members, as PHP casts it (the
// original linked category 6 for {"categories":{"a":6}}).
func TestWriteTermsObject(t *testing.T) {
	wp := wpfake.New(t)
	h := fakeServer(t, wp)
	writes := eventWrites(t, wp)
	rec := serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(`{"title":"x","start_date":"2026-12-10 10:00","end_date":"2026-12-10 12:00","categories":{"a":6}}`))
	if rec.Code != http.StatusCreated {
		t.Fatalf("got %d %.200s", rec.Code, rec.Body)
	}
	if got := fmt.Sprint(writes()[0]["tribe_events_cat"]); got != "[6]" {
		t.Errorf("categories %s", got)
	}
}

// TestStickyCreateSavesTwice: a new sticky event is saved, then made sticky again by a second save,
// as the original's saveEventMeta does with wp_update_post: WordPress then stores the time of that
// save as its modified date, not the post date given. An event that is not sticky is saved once.
func TestStickyCreateSavesTwice(t *testing.T) {
	for _, tc := range []struct {
		sticky string
		saves  int
	}{{"true", 2}, {"false", 1}} {
		wp := wpfake.New(t)
		writes := eventWrites(t, wp)
		rec := serve(fakeServer(t, wp), http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(`{"title":"Sticky","start_date":"2027-01-01 10:00",`+
			`"end_date":"2027-01-01 11:00","date":"2026-10-01 09:00:00","sticky":`+tc.sticky+`}`))

		if rec.Code != http.StatusCreated {
			t.Fatalf("sticky %s: %d %.300s", tc.sticky, rec.Code, rec.Body)
		}
		w := writes()
		if len(w) != tc.saves {
			t.Fatalf("sticky %s: %d saves, want %d: %v", tc.sticky, len(w), tc.saves, w)
		}
		if tc.saves == 2 && fmt.Sprint(w[1]["menu_order"]) != "-1" {
			t.Errorf("second save %v, want menu_order -1", w[1])
		}
	}
}
