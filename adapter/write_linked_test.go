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

// postWrite is one wp/v2 write the fake received.
type postWrite struct {
	Path string
	Body map[string]any
}

// linkedWrites makes the fake answer as a venue editor and record the wp/v2 writes of a post type,
// answering each with a copy of a recorded post under a new ID (or the post written, for updates).
func linkedWrites(t *testing.T, wp *wpfake.Server, base string) func() []postWrite {
	var mu sync.Mutex
	var writes []postWrite
	source := wp.IDs(base)[0]
	prefix := "/wp-json/wp/v2/" + base
	wp.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		if answerVenueEditor(w, r) {
			return true
		}
		if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, prefix) {
			return false
		}
		var body map[string]any
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &body)
		mu.Lock()
		writes = append(writes, postWrite{r.URL.Path, body})
		id := 990200 + len(writes)
		mu.Unlock()
		if r.URL.Path == prefix {
			wp.Clone(base, source, id, nil)
		} else {
			_, _ = fmt.Sscanf(strings.TrimPrefix(r.URL.Path, prefix+"/"), "%d", &id)
		}
		fmt.Fprintf(w, `{"id":%d}`, id)
		return true
	})
	return func() []postWrite {
		mu.Lock()
		defer mu.Unlock()
		return writes
	}
}

// TestVenueDuplicateCreate: creating a venue named like an existing one (any letter case; same
// description when one is given) answers the existing one, with the meta given saved onto it as the
// original's Tribe__Events__Venue::create then save_meta do: the phone given, the map flags on unless
// given off, the state/province from what is given (none: empty); title and content untouched. The
// original, asked for "wtest dup" with phone 999 after "wtest dup" with phone 555, state IL and
// show_map_link false, answered the first venue with phone 999, show_map_link true and no
// stateprovince.
func TestVenueDuplicateCreate(t *testing.T) {
	wp := wpfake.New(t)
	h := fakeServer(t, wp)
	writes := linkedWrites(t, wp, "tribe_venue")
	rec := serve(h, http.MethodPost, calV1+"/venues", asUser(editorAuth), jsonBody(`{"venue":"BLUE NOTE JAZZ CLUB","description":"Legendary Greenwich Village jazz club.","phone":"999"}`))
	if rec.Code != http.StatusCreated || !strings.Contains(rec.Body.String(), `"id":5,`) {
		t.Fatalf("got %d %.300s", rec.Code, rec.Body)
	}
	w := writes()
	if len(w) != 1 || w[0].Path != "/wp-json/wp/v2/tribe_venue/5" {
		t.Fatalf("writes %v", w)
	}
	want := `map[meta:map[_EventShowMap:1 _EventShowMapLink:1 _VenuePhone:999 _VenueShowMap:1 ` +
		`_VenueShowMapLink:1 _VenueStateProvince:]]`
	if got := fmt.Sprint(w[0].Body); got != want {
		t.Errorf("duplicate write\n got %s\nwant %s", got, want)
	}
	rec = serve(h, http.MethodPost, calV1+"/venues", asUser(editorAuth), jsonBody(`{"venue":"Blue Note Jazz Club","description":"Another club."}`))
	if rec.Code != http.StatusCreated || strings.Contains(rec.Body.String(), `"id":5,`) {
		t.Errorf("other description: %d %.200s", rec.Code, rec.Body)
	}
	if w := writes(); len(w) != 2 || w[1].Path != "/wp-json/wp/v2/tribe_venue" || w[1].Body["slug"] != "Blue Note Jazz Club" {
		t.Errorf("new venue write %v", w)
	}
}

// TestEventVenueListOfOne: a venue given as a list, even of one ID or one {id}, is creation data
// without a name for the original (Linked_Post_Base::insert): 400 could-not-create-venue, nothing
// written. The original answered so to "venue":[5], "venue":[{"id":5}] and venue[]=5.
func TestEventVenueListOfOne(t *testing.T) {
	wp := wpfake.New(t)
	h := fakeServer(t, wp)
	writes := eventWrites(t, wp)
	venue := wp.IDs("tribe_venue")[0]
	for _, v := range []string{fmt.Sprintf(`[%d]`, venue), fmt.Sprintf(`[{"id":%d}]`, venue)} {
		rec := serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(`{"title":"x","start_date":"2026-12-10 10:00","end_date":"2026-12-10 12:00","venue":`+v+`}`))
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), `"code":"could-not-create-venue"`) {
			t.Errorf("%s: %d %.200s", v, rec.Code, rec.Body)
		}
	}
	if len(writes()) != 0 {
		t.Errorf("written: %v", writes())
	}
}

// TestEventOrganizerEntries: the original's answers for organizers given with empty members: its
// validator drops empty members first (array_filter) and its insert skips them, and it takes an
// unwrapped object as a list of entries. {"organizer":""}, {"id":""} and ["","0"] link nothing (201,
// organizer []); {"organizer":"x"} is an entry "x" that names no organizer (could-not-create-organizer);
// a venue {"venue":""} or {"id":""} is creation data without a name (could-not-create-venue).
func TestEventOrganizerEntries(t *testing.T) {
	wp := wpfake.New(t)
	h := fakeServer(t, wp)
	writes := eventWrites(t, wp)
	for _, tc := range []struct {
		link   string
		status int
		code   string
	}{
		{`"organizer":{"organizer":""}`, 201, ""},
		{`"organizer":{"id":""}`, 201, ""},
		{`"organizer":["","0"]`, 201, ""},
		{`"organizer":{"organizer":"x"}`, 400, "could-not-create-organizer"},
		{`"venue":{"venue":""}`, 400, "could-not-create-venue"},
		{`"venue":{"id":""}`, 400, "could-not-create-venue"},
	} {
		n := len(writes())
		rec := serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(`{"title":"x","start_date":"2026-12-10 10:00","end_date":"2026-12-10 12:00",`+tc.link+`}`))
		if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.code) {
			t.Errorf("%s: %d %.200s", tc.link, rec.Code, rec.Body)
			continue
		}
		if tc.status == 201 {
			meta := writes()[n]["meta"].(map[string]any)
			if fmt.Sprint(meta["_EventOrganizerID"]) != "[]" {
				t.Errorf("%s: organizers %v", tc.link, meta["_EventOrganizerID"])
			}
		}
	}
}

// TestVenueDuplicateCreatedElsewhere: a venue created in WordPress since the catalog's last poll is
// found too, as the original's duplicate check asks the database.
func TestVenueDuplicateCreatedElsewhere(t *testing.T) {
	wp := wpfake.New(t)
	h := fakeServer(t, wp)
	writes := linkedWrites(t, wp, "tribe_venue")
	wp.Clone("tribe_venue", wp.IDs("tribe_venue")[0], 990300, func(o wpfake.Object) {
		o["title"] = map[string]any{"rendered": "Late Hall"}
		wp.Sub(o, "calshim")["title"] = "Late Hall"
	})
	rec := serve(h, http.MethodPost, calV1+"/venues", asUser(editorAuth), jsonBody(`{"venue":"Late Hall","phone":"1"}`))
	if rec.Code != http.StatusCreated || !strings.Contains(rec.Body.String(), `"id":990300,`) {
		t.Fatalf("got %d %.300s", rec.Code, rec.Body)
	}
	if w := writes(); len(w) != 1 || w[0].Path != "/wp-json/wp/v2/tribe_venue/990300" {
		t.Errorf("writes %v", w)
	}
}
