package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"calshim/internal/wpfake"
)

// published returns the IDs of published, listed events of the fake.
func publishedEvents(h http.Handler) []int {
	rec := serveGET(h,
		"/wp-json/cal/events/v1/events?start_date=2000-01-01&end_date=2100-01-01&per_page=50")
	var body struct{ Events []struct{ ID int } }
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	var ids []int
	for _, e := range body.Events {
		ids = append(ids, e.ID)
	}
	return ids
}

// A sync call answers what changed since the token: the created event in the list, the trashed one
// in deleted, a new token; tokens calshim cannot answer are 410.
func TestSyncTokenAnswersChanges(t *testing.T) {
	_, h, _ := writeRig(t)
	ids := publishedEvents(h)
	first := serveGET(h, "/wp-json/cal/events/v1/events")
	token := first.Header().Get(syncHeader)
	if token == "" || len(ids) < 2 {
		t.Fatalf("no token (%q) or too few events %v", token, ids)
	}

	created := call(h, http.MethodPost, "/events", editorAuth, event)
	var made struct{ ID int }
	if err := json.Unmarshal(created.Body.Bytes(), &made); err != nil || created.Code != 201 {
		t.Fatalf("create: %d %s", created.Code, created.Body.String())
	}
	trash := call(h, http.MethodDelete, fmt.Sprintf("/events/%d", ids[1]), editorAuth, "")
	wantWrite(t, "trash", trash, 200)
	rec := serveGET(h, "/wp-json/cal/events/v1/events?sync_token="+token)
	var body struct {
		Events  []struct{ ID int }
		Deleted []int
		Total   int
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != 200 {
		t.Fatalf("sync: %d %s", rec.Code, rec.Body.String())
	}
	if len(body.Events) != 1 || body.Events[0].ID != made.ID ||
		!slices.Equal(body.Deleted, []int{ids[1]}) || body.Total != 1 {
		t.Errorf("sync answered %s", rec.Body.String())
	}
	next := rec.Header().Get(syncHeader)
	if next == "" || next == token {
		t.Errorf("new token %q (old %q)", next, token)
	}

	rec = serveGET(h, "/wp-json/cal/events/v1/events?sync_token="+next)
	if !strings.HasPrefix(rec.Body.String(), `{"events":[],"deleted":[],`) {
		t.Errorf("nothing changed since: %s", rec.Body.String())
	}

	for _, bad := range []string{"nonsense", "b3RoZXIuMQ", token + "x"} {
		rec := serveGET(h, "/wp-json/cal/events/v1/venues?sync_token="+bad)
		if rec.Code != http.StatusGone ||
			!strings.Contains(rec.Body.String(), `"calshim_sync_token_expired"`) {
			t.Errorf("token %q: %d %s", bad, rec.Code, rec.Body.String())
		}
	}
}

// The token header is on every list, but never inside an `_envelope` body, which stays as it was.
func TestSyncTokenHeaderOnLists(t *testing.T) {
	h := newTestServer(t)
	for _, l := range []string{"events", "venues", "organizers"} {
		rec := serveGET(h, "/wp-json/cal/events/v1/"+l)
		if rec.Header().Get(syncHeader) == "" ||
			!strings.HasSuffix(rec.Header().Get("Access-Control-Expose-Headers"), ", "+syncHeader) {
			t.Errorf("%s: no %s, or not exposed: %v", l, syncHeader, rec.Header())
		}
		if body := serveGET(h, "/wp-json/cal/events/v1/"+l+"?_envelope").Body.String(); strings.Contains(
			body, syncHeader) {
			t.Errorf("%s?_envelope: %s", l, body)
		}
	}
	if serveGET(h, "/wp-json/cal/events/v1/categories").Header().Get(syncHeader) != "" {
		t.Error("categories carry a sync token")
	}
}

// A venue renamed out of a search is reported deleted: the journal keeps no text of the state it
// had, so the search is not tested on it.
func TestSyncTokenSearchLeft(t *testing.T) {
	wp := wpfake.New(t)
	cat := fakeCatalog(t, wp)
	h := NewServer(cat, zap.NewNop(), testOptions())
	venue := wp.IDs("tribe_venue")[0]
	rename := func(title string) {
		wp.Advance(time.Minute)
		wp.Modify("tribe_venue", venue, func(o wpfake.Object) { wp.Sub(o, "calshim")["title"] = title })
		if err := cat.Poll(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	rename("Quuxtown Hall")
	first := serveGET(h, "/wp-json/cal/events/v1/venues?search=quuxtown")
	if !strings.Contains(first.Body.String(), fmt.Sprintf(`"id":%d,`, venue)) {
		t.Fatalf("the search does not find the venue: %s", first.Body.String())
	}

	rename("Elsewhere Hall")
	rec := serveGET(h, "/wp-json/cal/events/v1/venues?search=quuxtown&sync_token="+
		first.Header().Get(syncHeader))
	if want := fmt.Sprintf(`{"venues":[],"deleted":[%d],`, venue); !strings.HasPrefix(rec.Body.String(), want) {
		t.Errorf("sync answered %d %s, want %s…", rec.Code, rec.Body.String(), want)
	}
}
