package adapter

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"calshim/internal/testkit/wpfake"
)

// published returns the IDs of published, listed events of the fake.
func publishedEvents(h http.Handler) []int {
	rec := serve(h, http.MethodGet,
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
	first := serve(h, http.MethodGet, "/wp-json/cal/events/v1/events")
	token := first.Header().Get(syncHeader)
	if token == "" || len(ids) < 2 {
		t.Fatalf("no token (%q) or too few events %v", token, ids)
	}

	created := serve(h, http.MethodPost, calV1+"/events", asUser(editorAuth), jsonBody(event))
	var made struct{ ID int }
	if err := json.Unmarshal(created.Body.Bytes(), &made); err != nil || created.Code != 201 {
		t.Fatalf("create: %d %s", created.Code, created.Body.String())
	}
	trash := serve(h, http.MethodDelete, calV1+fmt.Sprintf("/events/%d", ids[1]), asUser(editorAuth), jsonBody(""))
	wantWrite(t, "trash", trash, 200)
	rec := serve(h, http.MethodGet, "/wp-json/cal/events/v1/events?sync_token="+token)
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

	rec = serve(h, http.MethodGet, "/wp-json/cal/events/v1/events?sync_token="+next)
	if !strings.HasPrefix(rec.Body.String(), `{"events":[],"deleted":[],`) {
		t.Errorf("nothing changed since: %s", rec.Body.String())
	}

	for _, bad := range []string{"nonsense", "b3RoZXIuMQ", token + "x"} {
		rec := serve(h, http.MethodGet, "/wp-json/cal/events/v1/venues?sync_token="+bad)
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
		rec := serve(h, http.MethodGet, "/wp-json/cal/events/v1/"+l)
		if rec.Header().Get(syncHeader) == "" ||
			!strings.HasSuffix(rec.Header().Get("Access-Control-Expose-Headers"), ", "+syncHeader) {
			t.Errorf("%s: no %s, or not exposed: %v", l, syncHeader, rec.Header())
		}
		if body := serve(h, http.MethodGet, "/wp-json/cal/events/v1/"+l+"?_envelope").Body.String(); strings.Contains(
			body, syncHeader) {
			t.Errorf("%s?_envelope: %s", l, body)
		}
	}
	if serve(h, http.MethodGet, "/wp-json/cal/events/v1/categories").Header().Get(syncHeader) != "" {
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
	first := serve(h, http.MethodGet, "/wp-json/cal/events/v1/venues?search=quuxtown")
	if !strings.Contains(first.Body.String(), fmt.Sprintf(`"id":%d,`, venue)) {
		t.Fatalf("the search does not find the venue: %s", first.Body.String())
	}

	rename("Elsewhere Hall")
	rec := serve(h, http.MethodGet, "/wp-json/cal/events/v1/venues?search=quuxtown&sync_token="+
		first.Header().Get(syncHeader))

	if want := fmt.Sprintf(`{"venues":[],"deleted":[%d],`, venue); !strings.HasPrefix(rec.Body.String(), want) {
		t.Errorf("sync answered %d %s, want %s…", rec.Code, rec.Body.String(), want)
	}
}

// A token holds the position and the query's hash; anything else calshim did not make.
func TestSyncTokenEncoding(t *testing.T) {
	p := syncPoint{ident: "3f0c8a1e-5b7d-4c2a-9e61-0d4f6b8a2c19", pos: 1234, query: strings.Repeat("ab", syncQueryLen/2)}
	tok := syncTokenOf(p)
	if got, ok := parseSyncToken(tok); !ok || got != p {
		t.Errorf("%q read back as %+v %v", tok, got, ok)
	}
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	q := p.query
	for _, bad := range []string{"", "!", tok + "x", enc("f3ab19c07e114236.12"), enc("1.L.12." + q),
		enc("2..12." + q), enc("2.L.-1." + q), enc("2.L.x." + q), enc("2.L.12.abc"), enc("2.L.12." + q + ".x")} {
		if got, ok := parseSyncToken(bad); ok {
			t.Errorf("%q read as %+v", bad, got)
		}
	}
}

// A token answers only the list and filters it was taken from, and only its own catalog's
// position; one ahead of the catalog (taken on a replica further along) answers no change and
// itself.
func TestSyncTokenChecks(t *testing.T) {
	h := newTestServer(t)
	const list = "/wp-json/cal/events/v1/events?search=a&featured=false"
	tok := serve(h, http.MethodGet, list).Header().Get(syncHeader)
	p, ok := parseSyncToken(tok)
	if !ok {
		t.Fatalf("token %q", tok)
	}

	ahead := syncTokenOf(syncPoint{ident: p.ident, pos: p.pos + 5, query: p.query})
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/wp-json/cal/events/v1/events?featured=false&search=a&per_page=3&page=1&sync_token=" + tok, 200},
		{"/wp-json/cal/events/v1/events?search=b&featured=false&sync_token=" + tok, 410},
		{"/wp-json/cal/events/v1/venues?search=a&featured=false&sync_token=" + tok, 410},
		{list + "&sync_token=" + syncTokenOf(syncPoint{ident: "other", pos: p.pos, query: p.query}), 410},
		{list + "&sync_token=" + syncTokenOf(syncPoint{ident: p.ident, pos: p.pos, query: strings.Repeat("0", syncQueryLen)}), 410},
		{list + "&sync_token=" + ahead, 200},
	} {
		rec := serve(h, http.MethodGet, c.path)
		if rec.Code != c.status {
			t.Errorf("%s: %d %s", c.path, rec.Code, rec.Body.String())
		}
	}

	rec := serve(h, http.MethodGet, list+"&sync_token="+ahead)
	if !strings.HasPrefix(rec.Body.String(), `{"events":[],"deleted":[],`) || rec.Header().Get(syncHeader) != ahead {
		t.Errorf("a token ahead: %s, next token %q", rec.Body.String(), rec.Header().Get(syncHeader))
	}
}

// parseSyncToken reads any text without panicking, and what it reads is a token it reads back.
func FuzzSyncToken(f *testing.F) {
	f.Add(syncTokenOf(syncPoint{ident: "L", pos: 7, query: strings.Repeat("0", syncQueryLen)}))
	f.Add("bm9wZS4x")
	f.Add("")
	f.Fuzz(func(t *testing.T, tok string) {
		p, ok := parseSyncToken(tok)
		if !ok {
			return
		}
		if again, ok := parseSyncToken(syncTokenOf(p)); !ok || again != p {
			t.Errorf("%q: %+v read back as %+v", tok, p, again)
		}
	})
}
