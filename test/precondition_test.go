package test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"testing"
)

// Two writers race on one event with the ETag they both read: exactly one write reaches
// WordPress, the other answers 412; a tag made stale by an edit in WordPress is refused, as is a
// missing event.
func TestConditionalWritesRace(t *testing.T) {
	r := send(t, "admin", http.MethodPost, "/events", newEvent("Precondition Race"))
	wantStatus(t, r, http.StatusCreated)
	id := str(at(r.body, "id"))
	wpDeleteLater(t, "/wp/v2/tribe_events/"+id)

	for round := 0; round < 3; round++ {
		tag := get(t, "/events/"+id, as("admin")).header.Get("ETag")
		if tag == "" {
			t.Fatal("the admin's read carries no ETag")
		}
		statuses, winner := race(t, id, tag, round)
		if statuses[http.StatusOK] != 1 || statuses[http.StatusPreconditionFailed] != 1 {
			t.Fatalf("round %d: statuses %v, want one 200 and one 412", round, statuses)
		}
		got := wp(t, http.MethodGet, "/wp/v2/tribe_events/"+id+"?context=edit", nil)
		if title := got["title"].(map[string]any)["raw"]; title != winner {
			t.Errorf("round %d: WordPress has %v, the winner wrote %q", round, title, winner)
		}
	}

	stale := get(t, "/events/"+id, as("admin")).header.Get("ETag")
	wp(t, http.MethodPost, "/wp/v2/tribe_events/"+id, map[string]any{"title": "Edited in WordPress"})
	eventually(t, "edit", func() bool {
		return get(t, "/events/"+id, as("admin")).header.Get("ETag") != stale
	})
	wantError(t, call(t, http.MethodPost, v1+"/events/"+id, as("admin"), jsonBody(`{"title":"lost update"}`), header("If-Match", stale)),
		http.StatusPreconditionFailed, "calshim_precondition_failed")
	wantError(t, call(t, http.MethodDelete, v1+"/events/"+id, as("admin"), jsonBody(""), header("If-Match", stale)),
		http.StatusPreconditionFailed, "calshim_precondition_failed")
	got := wp(t, http.MethodGet, "/wp/v2/tribe_events/"+id+"?context=edit", nil)
	if got["title"].(map[string]any)["raw"] != "Edited in WordPress" || got["status"] != "publish" {
		t.Errorf("a refused write reached WordPress: %v %v", got["title"], got["status"])
	}
	wantError(t, call(t, http.MethodPost, v1+"/events/99999999", as("admin"), jsonBody(`{"title":"x"}`), header("If-Match", "*")),
		http.StatusPreconditionFailed, "calshim_precondition_failed")
}

// race sends two conditional updates at once, as the administrator and the editor, and returns
// the statuses and the title of the one that succeeded.
func race(t *testing.T, id, tag string, round int) (map[int]int, string) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	replies := make([]reply, 2)
	titles := []string{"Race admin " + strconv.Itoa(round), "Race editor " + strconv.Itoa(round)}
	for i, role := range []string{"admin", "editor"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			replies[i] = call(t, http.MethodPost, v1+"/events/"+id, as(role), jsonBody(`{"title":"`+titles[i]+`"}`), header("If-Match", tag))
		}()
	}
	close(start)
	wg.Wait()

	statuses, winner := map[int]int{}, ""
	for i, r := range replies {
		statuses[r.status]++
		if r.status == http.StatusOK {
			winner = titles[i]
		}
	}
	return statuses, winner
}

// Venues, organizers, categories and tags carry an ETag for a logged-in reader too, and refuse a
// write with a stale one before WordPress sees it.
func TestConditionalWritesOtherResources(t *testing.T) {
	for _, path := range []string{"/venues/" + sid(t, "venues", "bluenote"),
		"/organizers/" + sid(t, "organizers", "jazzsoc"), "/categories/" + sid(t, "categories", "music"),
		"/tags/" + sid(t, "tags", "free")} {
		r := get(t, path, as("admin"))
		if r.status != http.StatusOK || r.header.Get("ETag") == "" {
			t.Errorf("%s: %d, ETag %q", path, r.status, r.header.Get("ETag"))
		}
		wantError(t, call(t, http.MethodPost, v1+path, as("admin"), jsonBody(`{"description":"x"}`), header("If-Match", `"stale"`)),
			http.StatusPreconditionFailed, "calshim_precondition_failed")
	}
}

// WordPress judges If-Match, not a catalog that has not polled yet: a calshim polling once an hour
// answers `If-Match: *` on an event it holds trashed, restored in WordPress since its last poll
// (the model test met it on a replica a second behind), by writing it, not with 412; an event
// WordPress does not hold is still refused with 412 once the catalog has read the feed.
func TestConditionalWriteAheadOfCatalog(t *testing.T) {
	base := launchOwn(t, "CALSHIM_CATALOG_POLL_INTERVAL=1h")
	event, _ := json.Marshal(newEvent("Precondition Behind"))
	r := call(t, http.MethodPost, base+v1+"/events", as("admin"), jsonBody(string(event)))
	wantStatus(t, r, http.StatusCreated)
	id := str(at(r.body, "id"))
	wpDeleteLater(t, "/wp/v2/tribe_events/"+id)
	wantStatus(t, call(t, http.MethodDelete, base+v1+"/events/"+id, as("admin"), jsonBody("")), http.StatusOK)
	wpPHP(t, "wp_untrash_post( "+id+" );")

	r = call(t, http.MethodPost, base+v1+"/events/"+id, as("editor"), jsonBody(`{"title":"Written after the restore"}`),
		header("If-Match", "*"), lenient)
	got := wp(t, http.MethodGet, "/wp/v2/tribe_events/"+id+"?context=edit", nil)
	if r.status != http.StatusOK || got["title"].(map[string]any)["raw"] != "Written after the restore" {
		t.Errorf("If-Match: * on a restored event: %d %.200s; WordPress has %v", r.status, r.raw, got["title"])
	}

	wantError(t, call(t, http.MethodPost, base+v1+"/events/999999", as("editor"), jsonBody(`{"title":"none"}`),
		header("If-Match", "*"), lenient), http.StatusPreconditionFailed, "calshim_precondition_failed")
}
