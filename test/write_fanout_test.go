package test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"
)

// One write costs WordPress a bounded number of requests (adapter/write_tx.go), on a calshim of
// its own behind a counting proxy (no polls: what the proxy counts is what the writes cause). An
// update by slug naming 5,000 new organizers, categories or tags answers 400
// calshim_write_too_large without one request to WordPress (each used to create them all, two
// requests per organizer); the same body cut short answers rest_invalid_json; an event with a new
// venue, three new organizers, new categories and tags is still written.
func TestWriteFanOut(t *testing.T) {
	base, proxy := launchBehindProxy(t, "CALSHIM_CATALOG_POLL_INTERVAL=1h")
	nonce := fmt.Sprintf("%x", rand.Uint32())
	created := call(t, http.MethodPost, v1+"/events", to(base), as("editor"), jsonBody(fmt.Sprintf(
		`{"title":"Fan-out %s","start_date":"2031-03-01 10:00","end_date":"2031-03-01 11:00"}`, nonce)), via(fanOutClient), lenient)
	if created.status != http.StatusCreated {
		t.Fatalf("create: %d %.300s", created.status, created.raw)
	}
	path := "/events/by-slug/" + str(at(created.body, "slug"))

	names := func(key, format string) string {
		items := make([]string, 5000)
		for i := range items {
			items[i] = fmt.Sprintf(format, nonce, i)
		}
		return fmt.Sprintf(`{%q:[%s]}`, key, strings.Join(items, ","))
	}
	ids := make([]string, 5000)
	for i := range ids {
		ids[i] = fmt.Sprint(i + 1)
	}
	organizers := names("organizer", `{"organizer":"Fan-out %s %d"}`)
	for _, tc := range []struct{ name, body, code string }{
		{"5,000 new organizers", organizers, "calshim_write_too_large"},
		{"5,000 new categories", names("categories", `"Fan-out %s %d"`), "calshim_write_too_large"},
		{"5,000 new tags", names("tags", `"fan-out %s %d"`), "calshim_write_too_large"},
		{"5,000 organizer IDs", `{"organizer":[` + strings.Join(ids, ",") + `]}`, "rest_invalid_param"},
		{"5,000 new organizers cut short", organizers[:len(organizers)/2], "rest_invalid_json"},
		// WordPress answers rest_invalid_json to a byte that is not UTF-8 (json_error_code 5);
		// whatever calshim answers, it does not create the organizers.
		{"5,000 new organizers, a byte not UTF-8", strings.Replace(organizers, "Fan-out", "Fan\xff-out", 1), ""},
	} {
		_, before := proxy.Counts()
		start := time.Now()
		res := call(t, http.MethodPatch, v1+path, to(base), as("editor"), jsonBody(tc.body), via(fanOutClient), lenient)
		_, after := proxy.Counts()
		t.Logf("%s (%d bytes): %d %s in %v, %d requests to WordPress", tc.name, len(tc.body), res.status,
			str(at(res.body, "code")), time.Since(start).Round(time.Millisecond), after-before)
		code := str(at(res.body, "code"))
		if res.status != http.StatusBadRequest || (tc.code != "" && code != tc.code) || after-before > 0 {
			t.Errorf("%s: %d %.200s, %d requests to WordPress; want 400 %s and none", tc.name, res.status,
				res.raw, after-before, tc.code)
		}
	}

	_, before := proxy.Counts()
	res := call(t, http.MethodPatch, v1+path, to(base), as("editor"), jsonBody(fmt.Sprintf(`{"venue":{"venue":"Fan-out Hall %[1]s"},
		"organizer":[{"organizer":"Fan-out A %[1]s"},{"organizer":"Fan-out B %[1]s"},{"organizer":"Fan-out C %[1]s"}],
		"categories":["Fan-out Cat %[1]s","Fan-out Cat 2 %[1]s"],"tags":"fan-out one %[1]s,fan-out two %[1]s"}`, nonce)), via(fanOutClient), lenient)
	_, after := proxy.Counts()
	t.Logf("venue, 3 organizers, 2 categories, 2 tags, all new: %d in %d requests to WordPress", res.status, after-before)
	if res.status != http.StatusOK || len(list(at(res.body, "organizer"))) != 3 ||
		len(list(at(res.body, "categories"))) != 2 || len(list(at(res.body, "tags"))) != 2 {
		t.Errorf("normal write: %d %.300s", res.status, res.raw)
	}
}

// fanOutClient waits for a write at most its timeout: an answer that does not come within it is a
// failure, reported as status 0.
var fanOutClient = &http.Client{Timeout: 20 * time.Second}
