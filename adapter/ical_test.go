package adapter

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/zap"

	"calshim/internal/wpfake"
)

// The feed lists what the JSON list lists for the same arguments, every page at once.
func TestICalFeedMatchesTheJSONList(t *testing.T) {
	h := newTestServer(t)
	queries := []string{"", "?start_date=2000-01-01&end_date=2100-01-01", "?featured=false&per_page=3"}
	for _, q := range queries {
		list := serveGET(h, "/wp-json/cal/events/v1/events"+q)
		feed := serveGET(h, "/wp-json/cal/events/v1/events.ics"+q)
		if feed.Code != http.StatusOK || feed.Header().Get("Content-Type") != icalContentType {
			t.Fatalf("events.ics%s = %d %s %.200s", q, feed.Code, feed.Header().Get("Content-Type"),
				feed.Body.String())
		}

		total, _ := strconv.Atoi(list.Header().Get("X-TEC-Total"))
		if got := strings.Count(feed.Body.String(), "BEGIN:VEVENT"); got != total {
			t.Errorf("events.ics%s has %d events, the JSON list %d", q, got, total)
		}
	}
}

// Every addressing form answers the feed; arguments are validated as on the list.
func TestICalFeedAddressesAndErrors(t *testing.T) {
	h := newTestServer(t)
	for _, target := range []string{
		"/wp-json/tribe/events/v1/events.ics",
		"/?rest_route=/cal/events/v1/events.ics",
		"/de/wp-json/cal/events/v1/events.ics",
	} {
		if rec := serveGET(h, target); rec.Code != http.StatusOK ||
			!strings.HasPrefix(rec.Body.String(), "BEGIN:VCALENDAR\r\n") {
			t.Errorf("GET %s = %d %.200s", target, rec.Code, rec.Body.String())
		}
	}

	list := serveGET(h, "/wp-json/cal/events/v1/events?start_date=nonsense&_fields=id")
	feed := serveGET(h, "/wp-json/cal/events/v1/events.ics?start_date=nonsense&_fields=id")
	if feed.Code != list.Code || feed.Body.String() != list.Body.String() || feed.Code != 400 {
		t.Errorf("invalid argument: feed %d %s, list %d %s", feed.Code, feed.Body.String(), list.Code,
			list.Body.String())
	}

	rec := serveGET(h, "/wp-json/cal/events/v1/events/999999.ics")
	if rec.Code != http.StatusNotFound {
		t.Errorf("unknown event = %d %s", rec.Code, rec.Body.String())
	}
}

// One event's feed, its ETag and 304, and the documents that must not mention the feed.
func TestICalSingleEventETagAndDocs(t *testing.T) {
	h := newTestServer(t)
	list := serveGET(h, "/wp-json/cal/events/v1/events?per_page=1")
	var body struct{ Events []struct{ ID int } }
	if err := json.Unmarshal(list.Body.Bytes(), &body); err != nil || len(body.Events) == 0 {
		t.Fatalf("list: %v %s", err, list.Body.String())
	}

	id := strconv.Itoa(body.Events[0].ID)
	rec := serveGET(h, "/wp-json/cal/events/v1/events/"+id+".ics")
	if rec.Code != http.StatusOK || strings.Count(rec.Body.String(), "BEGIN:VEVENT") != 1 ||
		!strings.Contains(rec.Body.String(), "UID:"+id+"@") {
		t.Fatalf("events/%s.ics = %d %s", id, rec.Code, rec.Body.String())
	}

	etag := rec.Header().Get("ETag")
	req := httptest.NewRequest(http.MethodGet, "/wp-json/cal/events/v1/events/"+id+".ics", nil)
	req.Header.Set("If-None-Match", etag)
	again := httptest.NewRecorder()
	h.ServeHTTP(again, req)
	if etag == "" || again.Code != http.StatusNotModified {
		t.Errorf("ETag %q, revalidation %d", etag, again.Code)
	}

	for _, doc := range []string{"/wp-json/cal/events/v1", "/wp-json/cal/events/v1/doc"} {
		if body := serveGET(h, doc).Body.String(); strings.Contains(body, ".ics") {
			t.Errorf("%s mentions the feed", doc)
		}
	}
}

// The feed stops at ICalMaxEvents, the first events in the list's order.
func TestICalFeedCap(t *testing.T) {
	opt := testOptions()
	opt.ICalMaxEvents = 2
	h := NewServer(fakeCatalog(t, wpfake.New(t)), zap.NewNop(), opt)
	feed := serveGET(h, "/wp-json/cal/events/v1/events.ics?start_date=2000-01-01&end_date=2100-01-01")
	if got := strings.Count(feed.Body.String(), "BEGIN:VEVENT"); got != 2 {
		t.Errorf("capped feed has %d events", got)
	}
}
