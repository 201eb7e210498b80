package adapter

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"calshim/internal/testkit/wpfake"
)

// The truth of a write's answer, by input class: every write route (create, update and delete of
// events, venues, organizers, categories and tags) crossed with every way WordPress can fail one of
// the wp/v2 writes it makes (the answer lost before or after the write is made, an answer later than
// calshim's upstream timeout, a proxy's 502, a refusal, a create refused after WordPress inserted
// it), at a step of the write drawn at random, once or for every attempt calshim makes. The
// property:
//
//   - an error answered ⇒ WordPress holds what it held before (every object of the five
//     collections, its status and its version), unless the answer is 504 calshim_write_unknown,
//     which says the write may have been made, and which only a fault lasting every attempt gives;
//   - a success answered ⇒ the write is in WordPress (a new object, a new version, the trash).

// faultUpstreamTimeout is calshim's upstream timeout in these tests: below wpfake.SlowFor, so a
// Late answer comes after calshim has given up on it.
const faultUpstreamTimeout = 100 * time.Millisecond

// faultRoute is one write route and what its success must have written.
type faultRoute struct {
	name, method, path, body string
	base                     string // the collection written
	// target is the object an update or delete writes (0: a create, whose answer names it).
	target int
	del    bool
}

// faultRoutes are the write routes over the recorded fixtures; n makes the names unique.
func faultRoutes(wp *wpfake.Server, n int) []faultRoute {
	ev, venue, org := wp.IDs("tribe_events")[0], wp.IDs("tribe_venue")[0], wp.IDs("tribe_organizer")[0]
	cat, tag := wp.IDs("tribe_events_cat")[0], wp.IDs("tags")[0]
	eventBody := fmt.Sprintf(`{"title":"Fault %d","start_date":"2031-01-01 10:00","end_date":"2031-01-01 11:00",`+
		`"venue":{"venue":"Fault hall %d"},"organizer":[{"organizer":"Fault org %d"}],"tags":["fault-tag-%d"]}`, n, n, n, n)
	return []faultRoute{
		{"event create", http.MethodPost, "/events", eventBody, "tribe_events", 0, false},
		{"event update", http.MethodPatch, fmt.Sprintf("/events/%d", ev),
			fmt.Sprintf(`{"title":"y","venue":{"venue":"Fault hall %d"}}`, n), "tribe_events", ev, false},
		{"event delete", http.MethodDelete, fmt.Sprintf("/events/%d", ev), "", "tribe_events", ev, true},
		{"venue create", http.MethodPost, "/venues", fmt.Sprintf(`{"venue":"Fault venue %d"}`, n), "tribe_venue", 0, false},
		{"venue update", http.MethodPut, fmt.Sprintf("/venues/%d", venue), `{"city":"x"}`, "tribe_venue", venue, false},
		{"venue delete", http.MethodDelete, fmt.Sprintf("/venues/%d", venue), "", "tribe_venue", venue, true},
		{"organizer create", http.MethodPost, "/organizers", fmt.Sprintf(`{"organizer":"Fault org %d"}`, n),
			"tribe_organizer", 0, false},
		{"organizer update", http.MethodPost, fmt.Sprintf("/organizers/%d", org), `{"phone":"1"}`, "tribe_organizer", org, false},
		{"organizer delete", http.MethodDelete, fmt.Sprintf("/organizers/%d", org), "", "tribe_organizer", org, true},
		{"category create", http.MethodPost, "/categories", fmt.Sprintf(`{"name":"Fault cat %d"}`, n), "tribe_events_cat", 0, false},
		{"category update", http.MethodPost, fmt.Sprintf("/categories/%d", cat), `{"description":"d"}`, "tribe_events_cat", cat, false},
		{"category delete", http.MethodDelete, fmt.Sprintf("/categories/%d", cat), "", "tribe_events_cat", cat, true},
		{"tag create", http.MethodPost, "/tags", fmt.Sprintf(`{"name":"Fault tag %d"}`, n), "tags", 0, false},
		{"tag update", http.MethodPost, fmt.Sprintf("/tags/%d", tag), `{"description":"d"}`, "tags", tag, false},
		{"tag delete", http.MethodDelete, fmt.Sprintf("/tags/%d", tag), "", "tags", tag, true},
	}
}

var faultKinds = map[wpfake.Fault]string{wpfake.LostBefore: "lost before", wpfake.LostAfter: "lost after",
	wpfake.Late: "late", wpfake.BadGateway: "502", wpfake.Refused: "refused", wpfake.RefusedAfter: "refused after insert"}

// faultMe is an editor who may make every write of the routes.
var faultMe = strings.Replace(fullEditorMe, `"upload_files":true`, `"upload_files":true,`+
	`"delete_tribe_venues":true,"delete_others_tribe_venues":true,"delete_published_tribe_venues":true,`+
	`"delete_tribe_organizers":true,"delete_others_tribe_organizers":true,"delete_published_tribe_organizers":true`, 1)

// faultRig is a calshim over a fresh fake whose writes may fail, with a short upstream timeout.
func faultRig(t *testing.T) (*wpfake.Server, http.Handler, *wpfake.Writes) {
	wp := wpfake.New(t)
	w := wp.RecordWrites(map[string]string{editorAuth: faultMe})
	cat := fakeCatalog(t, wp)
	cat.Client().SetTimeout(faultUpstreamTimeout) // loaded with the longer one
	return wp, NewServer(cat, zap.NewNop(), testOptions()), w
}

// faultState is what the fake holds: per collection, each object's status and version.
func faultState(wp *wpfake.Server) map[string]string {
	out := map[string]string{}
	for _, base := range []string{"tribe_events", "tribe_venue", "tribe_organizer", "tribe_events_cat", "tags", "media"} {
		for _, id := range wp.IDs(base) {
			o := wp.Item(base, id)
			field, _ := o["calshim"].(map[string]any)
			out[fmt.Sprintf("%s/%d", base, id)] = fmt.Sprintf("%v %v", o["status"], field["version"])
		}
	}
	return out
}

func TestFakeWriteFaultsAnswerTheTruth(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 27))
	routes := faultRoutes(wpfake.New(t), 0)
	for ri := range routes {
		// The writes the route makes when nothing fails: the faults fall on one of them.
		wp, h, w := faultRig(t)
		r := faultRoutes(wp, 0)[ri]
		rec := serve(h, r.method, calV1+r.path, asUser(editorAuth), jsonBody(r.body))
		if rec.Code >= 300 {
			t.Fatalf("%s without a fault: %d %.300s", r.name, rec.Code, rec.Body)
		}
		writes := len(w.List())
		for fault, kind := range faultKinds {
			for _, lasting := range []bool{false, true} {
				if lasting && (fault == wpfake.Refused || fault == wpfake.RefusedAfter) {
					continue // a refusal is not asked again (refusing the undo too, it would keep what it refuses)
				}
				at := rng.IntN(writes)
				name := fmt.Sprintf("%s, %s at write %d of %d", r.name, kind, at+1, writes)
				if lasting {
					name += ", every attempt"
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					checkFault(t, ri, fault, at, lasting)
				})
			}
		}
	}
}

// checkFault runs route ri of a fresh rig with fault on its write at (and, lasting, on every
// attempt after it), and checks the property.
func checkFault(t *testing.T, ri int, fault wpfake.Fault, at int, lasting bool) {
	wp, h, w := faultRig(t)
	r := faultRoutes(wp, 1)[ri]
	w.SetFault(func(n int) wpfake.Fault {
		if n == at || lasting && n > at && n < at+4 {
			return fault
		}
		return wpfake.NoFault
	})
	before, sent := faultState(wp), len(w.List())
	rec := serve(h, r.method, calV1+r.path, asUser(editorAuth), jsonBody(r.body))
	w.SetFault(nil)
	if fault == wpfake.Late {
		time.Sleep(wpfake.SlowFor) // a late answer's write has been made by now
	}
	after := faultState(wp)

	var answer struct {
		ID   int    `json:"id"`
		Code string `json:"code"`
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &answer)
	switch {
	case rec.Code == http.StatusGatewayTimeout && answer.Code == "calshim_write_unknown":
		if !lasting && fault != wpfake.Late {
			t.Errorf("504 unknown for a fault of one attempt: %.300s", rec.Body)
		}
		// An unknown outcome keeps what came before it: the write may have made an object that
		// links it.
		for _, wr := range w.List()[sent:] {
			if wr.Method == http.MethodDelete && !r.del {
				t.Errorf("answered 504 unknown, but deleted %s", wr.Path)
			}
		}
	case rec.Code >= 500 && fault == wpfake.Refused:
		t.Errorf("WordPress' 400 answered %d: %.300s", rec.Code, rec.Body)
	case rec.Code >= 300:
		if !maps.Equal(before, after) {
			t.Errorf("answered %d %.200s, but WordPress changed: %s", rec.Code, rec.Body, stateDiff(before, after))
		}
	case r.target == 0:
		if _, ok := after[fmt.Sprintf("%s/%d", r.base, answer.ID)]; !ok || before[fmt.Sprintf("%s/%d", r.base, answer.ID)] != "" {
			t.Errorf("answered %d with id %d, which WordPress did not create", rec.Code, answer.ID)
		}
	default:
		key := fmt.Sprintf("%s/%d", r.base, r.target)
		term := r.base == "tribe_events_cat" || r.base == "tags" // deleted for good; posts go to the trash
		switch {
		case r.del && !term && !strings.HasPrefix(after[key], "trash "):
			t.Errorf("answered %d, but %s is %q", rec.Code, key, after[key])
		case r.del && term && after[key] != "":
			t.Errorf("answered %d, but %s is still there", rec.Code, key)
		case !r.del && after[key] == before[key]:
			t.Errorf("answered %d, but %s was not written", rec.Code, key)
		}
	}
}

// stateDiff names the objects whose state differs.
func stateDiff(before, after map[string]string) string {
	var out []string
	for k, v := range after {
		if before[k] != v {
			out = append(out, fmt.Sprintf("%s %q -> %q", k, before[k], v))
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			out = append(out, k+" gone")
		}
	}
	return strings.Join(out, "; ")
}
