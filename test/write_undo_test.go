package test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"
)

// TestWriteFailureLeavesNoOrphan: WordPress refuses an event's save (an author that does not
// exist: WordPress' rest_invalid_author, found only when the event is saved) after calshim created
// the tag, venue and organizers the event names. The answer is the original's 400 rest_invalid_param,
// and nothing the write created remains in WordPress, in any status, trash included (counted as the
// administrator through wp/v2). A contributor naming another author is refused by WordPress'
// permission check of the save instead (403 rest_forbidden), and undoes with its own rights.
func TestWriteFailureLeavesNoOrphan(t *testing.T) {
	for role, want := range map[string]struct {
		status int
		code   string
	}{"admin": {http.StatusBadRequest, "rest_invalid_param"}, "contributor": {http.StatusForbidden, "rest_forbidden"}} {
		name := fmt.Sprintf("Orphan check %s %d", role, time.Now().UnixNano())
		body := map[string]any{"title": name, "start_date": "2031-03-01 10:00", "end_date": "2031-03-01 11:00",
			"author": 999999, "venue": map[string]any{"venue": name + " venue"},
			"organizer": []any{map[string]any{"organizer": name + " org A"}, map[string]any{"organizer": name + " org B"}}}
		if role == "admin" { // a contributor may not create tags: the original refuses that up front
			body["tags"] = []any{name + " tag"}
		}
		wantError(t, send(t, role, http.MethodPost, "/events", body), want.status, want.code)

		for _, base := range []string{"tribe_events", "tribe_venue", "tribe_organizer", "tags"} {
			q := url.Values{"search": {name}, "context": {"edit"}, "per_page": {"100"}}
			if base != "tags" {
				q.Set("status", "publish,future,draft,pending,private,trash")
			} else {
				q.Set("hide_empty", "false")
			}
			r := call(t, http.MethodGet, wpJSON("/wp/v2/"+base+"?"+q.Encode()), as("admin"), lenient)
			if r.status != http.StatusOK {
				t.Fatalf("%s: wp/v2 %s answered %d: %.200s", role, base, r.status, r.raw)
			}
			for _, it := range list(r.body) {
				t.Errorf("%s: the failed write left %s %s in WordPress", role, base, str(at(it, "id")))
				call(t, http.MethodDelete, wpJSON("/wp/v2/"+base+"/"+str(at(it, "id"))+"?force=true"), as("admin"), lenient)
			}
		}
	}
}
