package test

import (
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"
)

// syncEvent creates a published event directly in WordPress on a day of May 2034 (no other test's
// dates) and deletes it at the end of the test.
func syncEvent(t *testing.T, title string, day int) int {
	t.Helper()
	return eventOn(t, title, "2034-05-"+strconv.Itoa(10+day))
}

// eventOn creates a published event directly in WordPress on day d (YYYY-MM-DD) and deletes it at
// the end of the test.
func eventOn(t *testing.T, title, d string) int {
	t.Helper()
	ev := wp(t, http.MethodPost, "/wp/v2/tribe_events", map[string]any{"title": title,
		"status": "publish",
		"meta": map[string]any{"_EventStartDate": d + " 10:00:00", "_EventEndDate": d + " 11:00:00",
			"_EventStartDateUTC": d + " 14:00:00", "_EventEndDateUTC": d + " 15:00:00",
			"_EventTimezone": "America/New_York"}})
	id := int(ev["id"].(float64))
	wpDeleteLater(t, "/wp/v2/tribe_events/"+strconv.Itoa(id))
	return id
}

// syncAnswer is what one sync call listed.
type syncAnswer struct {
	events, deleted []int
	token           string
}

// syncOf reads a sync call's answer.
func syncOf(r reply) syncAnswer {
	a := syncAnswer{events: ids(at(r.body, "events")), token: r.header.Get("X-Calshim-Sync-Token")}
	for _, d := range list(at(r.body, "deleted")) {
		n, _ := strconv.Atoi(str(d))
		a.deleted = append(a.deleted, n)
	}
	slices.Sort(a.events)
	slices.Sort(a.deleted)
	return a
}

// Create, edit, trash, delete and unpublish directly in WordPress: one sync call then returns
// exactly those, as each caller may see them, and a new token that has nothing new.
func TestSyncTokenAgainstWordPress(t *testing.T) {
	const query = "?start_date=2034-05-01&end_date=2034-05-31"
	edited, trashed := syncEvent(t, "Sync Edited", 1), syncEvent(t, "Sync Trashed", 2)
	deleted, unpublished := syncEvent(t, "Sync Deleted", 3), syncEvent(t, "Sync Unpublished", 4)
	eventually(t, "fixtures", func() bool {
		return len(list(at(get(t, "/events"+query).body, "events"))) == 4
	})
	token := get(t, "/events"+query).header.Get("X-Calshim-Sync-Token")
	if token == "" {
		t.Fatal("the list carries no X-Calshim-Sync-Token")
	}

	created := syncEvent(t, "Sync Created", 5)
	wp(t, http.MethodPost, "/wp/v2/tribe_events/"+strconv.Itoa(edited),
		map[string]any{"title": "Sync Edited, again"})
	wp(t, http.MethodDelete, "/wp/v2/tribe_events/"+strconv.Itoa(trashed), nil)
	wp(t, http.MethodDelete, "/wp/v2/tribe_events/"+strconv.Itoa(deleted)+"?force=true", nil)
	wp(t, http.MethodPost, "/wp/v2/tribe_events/"+strconv.Itoa(unpublished),
		map[string]any{"status": "draft"})

	want := map[string]syncAnswer{
		"":      {events: sorted(created, edited), deleted: sorted(trashed, deleted, unpublished)},
		"admin": {events: sorted(created, edited, unpublished), deleted: sorted(trashed, deleted)},
	}
	var got syncAnswer
	var r reply
	eventually(t, "all five changes", func() bool {
		r = get(t, "/events"+query+"&sync_token="+token)
		got = syncOf(r)
		return slices.Equal(got.events, want[""].events) && slices.Equal(got.deleted, want[""].deleted)
	})
	if r.status != http.StatusOK || got.token == "" || got.token == token {
		t.Errorf("sync: %d, token %q", r.status, got.token)
	}
	titles := []string{str(at(r.body, "events", 0, "title")), str(at(r.body, "events", 1, "title"))}
	if !slices.Contains(titles, "Sync Edited, again") {
		t.Errorf("edited title not shown: %s", r.raw)
	}

	admin := syncOf(get(t, "/events"+query+"&sync_token="+token, as("admin")))
	wantAdmin := want["admin"]
	if !slices.Equal(admin.events, wantAdmin.events) ||
		!slices.Equal(admin.deleted, wantAdmin.deleted) {
		t.Errorf("admin sync %v, want %v", admin, want["admin"])
	}

	r = get(t, "/events"+query+"&sync_token="+got.token)
	if again := syncOf(r); len(again.events)+len(again.deleted) != 0 {
		t.Errorf("nothing changed since the new token: %s", r.raw)
	}

	for _, bad := range []string{"bm9wZS4x", token + "AA", "!"} {
		wantError(t, get(t, "/events"+query+"&sync_token="+bad), http.StatusGone, "calshim_sync_token_expired")
	}
}

// Venues and organizers lists sync too: a venue trashed in WordPress is reported deleted.
func TestSyncTokenVenues(t *testing.T) {
	v := wp(t, http.MethodPost, "/wp/v2/tribe_venue",
		map[string]any{"title": "Sync Venue", "status": "publish"})
	id := int(v["id"].(float64))
	wpDeleteLater(t, "/wp/v2/tribe_venue/"+strconv.Itoa(id))
	eventually(t, "venue", func() bool {
		return get(t, "/venues/"+strconv.Itoa(id)).status == http.StatusOK
	})
	token := get(t, "/venues?search=Sync+Venue").header.Get("X-Calshim-Sync-Token")
	wp(t, http.MethodDelete, "/wp/v2/tribe_venue/"+strconv.Itoa(id), nil)
	start := time.Now()
	eventually(t, "venue trashed", func() bool {
		r := get(t, "/venues?search=Sync+Venue&sync_token="+token)
		return len(list(at(r.body, "venues"))) == 0 && str(at(r.body, "deleted", 0)) == strconv.Itoa(id)
	})
	t.Logf("venue trash seen by sync after %v", time.Since(start).Round(time.Millisecond))
}
