package test

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"calshim/internal/testkit/cluster"
)

// If-Match is enforced by WordPress, where the write lands: two calshim replicas, each asked by a
// writer holding the ETag both just read, let exactly one write through, every round; WordPress
// holds the winner's title.
func TestConditionalWritesAcrossReplicas(t *testing.T) {
	rs := replicasOf(startReplicas(t, 2, "CALSHIM_SHUTDOWN_DRAIN=0s"))

	created := call(t, http.MethodPost, v1+"/events", rs[0].on, as("admin"), jsonBody(`{"title":"Replica race",`+
		`"start_date":"2031-05-01 10:00:00","end_date":"2031-05-01 11:00:00"}`))
	if created.status != http.StatusCreated {
		t.Fatalf("create: %d %.300s", created.status, created.raw)
	}
	id := str(at(created.body, "id"))
	wpDeleteLater(t, "/wp/v2/tribe_events/"+id)

	seq, doubles := created.header.Get("X-Calshim-Seq"), 0
	for round := range 20 {
		tags, reads := [2]string{}, [2]string{}
		for i, r := range rs {
			read := call(t, http.MethodGet, v1+"/events/"+id, r.on, as("admin"), jsonBody(""), header("X-Calshim-Min-Seq", seq))
			tags[i], reads[i] = read.header.Get("ETag"), fmt.Sprintf("%d %.200s", read.status, read.raw)
		}
		if tags[0] == "" || tags[0] != tags[1] {
			t.Fatalf("round %d: the replicas' ETags %q, want one tag; they answered %q", round, tags, reads)
		}

		replies, titles := raceReplicas(t, rs, id, tags[0], round)
		statuses, winner := map[int]int{}, -1
		for i, r := range replies {
			statuses[r.status]++
			if r.status == http.StatusOK {
				winner, seq = i, r.header.Get("X-Calshim-Seq")
			}
		}
		if statuses[http.StatusOK] == 2 {
			doubles++
		}
		if statuses[http.StatusOK] != 1 || statuses[http.StatusPreconditionFailed] != 1 {
			t.Errorf("round %d: statuses %v, want one 200 and one 412", round, statuses)
			continue
		}
		if loser := replies[1-winner]; str(at(loser.body, "code")) != "calshim_precondition_failed" {
			t.Errorf("round %d: the loser answered %s", round, loser.raw)
		}
		got := wp(t, http.MethodGet, "/wp/v2/tribe_events/"+id+"?context=edit", nil)
		if title := got["title"].(map[string]any)["raw"]; title != titles[winner] {
			t.Errorf("round %d: WordPress has %v, the winner wrote %q", round, title, titles[winner])
		}
	}
	t.Logf("20 rounds: %d with two 200s", doubles)
	checkConditionalDelete(t, rs, id, seq)
}

// A delete with If-Match through one replica is refused with the tag read before a write through
// the other one, and done with the tag read after it.
func checkConditionalDelete(t *testing.T, rs []replicaAt, id, seq string) {
	stale := call(t, http.MethodGet, v1+"/events/"+id, rs[1].on, as("admin"), jsonBody(""), header("X-Calshim-Min-Seq", seq)).
		header.Get("ETag")
	moved := call(t, http.MethodPost, v1+"/events/"+id, rs[0].on, as("admin"), jsonBody(`{"title":"moved on"}`))
	if r := call(t, http.MethodDelete, v1+"/events/"+id, rs[1].on, as("admin"), jsonBody(""), header("If-Match", stale)); r.status != 412 {
		t.Errorf("a delete with a stale ETag: %d %.300s", r.status, r.raw)
	}
	current := call(t, http.MethodGet, v1+"/events/"+id, rs[1].on, as("admin"), jsonBody(""), header("X-Calshim-Min-Seq", moved.header.Get("X-Calshim-Seq"))).header.Get("ETag")
	if r := call(t, http.MethodDelete, v1+"/events/"+id, rs[1].on, as("admin"), jsonBody(""), header("If-Match", current)); r.status != 200 {
		t.Errorf("a delete with the current ETag: %d %.300s", r.status, r.raw)
	}
}

// raceReplicas sends one conditional update to each replica at once (the administrator through
// the first, the editor through the second) and returns the replies and the titles written.
func raceReplicas(t *testing.T, rs []replicaAt, id, tag string, round int) ([2]reply, [2]string) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	replies := [2]reply{}
	titles := [2]string{"Replica 0 round " + strconv.Itoa(round), "Replica 1 round " + strconv.Itoa(round)}
	for i, role := range []string{"admin", "editor"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			replies[i] = call(t, http.MethodPost, v1+"/events/"+id, rs[i].on, as(role), jsonBody(`{"title":"`+titles[i]+`"}`), header("If-Match", tag))
		}()
	}
	close(start)
	wg.Wait()
	return replies, titles
}

// A change made in WordPress between a caller's read and its conditional write, before calshim
// has seen it (this calshim does not poll during the test), fails the write: WordPress compares.
func TestConditionalWriteAfterDirectEdit(t *testing.T) {
	base, stop, err := launch(filepath.Join(t.TempDir(), "calshim.log"),
		"CALSHIM_UPSTREAM_URL="+wpEnv["CALSHIM_UPSTREAM_URL"],
		"CALSHIM_UPSTREAM_USER="+wpEnv["CALSHIM_UPSTREAM_USER"],
		"CALSHIM_UPSTREAM_APP_PASSWORD="+wpEnv["CALSHIM_UPSTREAM_APP_PASSWORD"],
		"CALSHIM_CATALOG_POLL_INTERVAL=1h")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	own := replicaAt{base: base}

	created := call(t, http.MethodPost, v1+"/events", own.on, as("admin"), jsonBody(`{"title":"Edited behind",`+
		`"start_date":"2031-06-01 10:00:00","end_date":"2031-06-01 11:00:00"}`))
	if created.status != http.StatusCreated {
		t.Fatalf("create: %d %.300s", created.status, created.raw)
	}
	id := str(at(created.body, "id"))
	wpDeleteLater(t, "/wp/v2/tribe_events/"+id)

	for _, method := range []string{http.MethodPost, http.MethodDelete} {
		tag := call(t, http.MethodGet, v1+"/events/"+id, own.on, as("admin"), jsonBody("")).header.Get("ETag")
		title := "Edited in WordPress before " + method
		wp(t, http.MethodPost, "/wp/v2/tribe_events/"+id, map[string]any{"title": title})
		r := call(t, method, v1+"/events/"+id, own.on, as("admin"), jsonBody(`{"title":"lost update"}`), header("If-Match", tag))
		if r.status != http.StatusPreconditionFailed || str(at(r.body, "code")) != "calshim_precondition_failed" {
			t.Errorf("%s after a direct edit: %d %.300s", method, r.status, r.raw)
		}
		got := wp(t, http.MethodGet, "/wp/v2/tribe_events/"+id+"?context=edit", nil)
		if got["title"].(map[string]any)["raw"] != title || got["status"] != "publish" {
			t.Errorf("%s: a refused write reached WordPress: %v %v", method, got["title"], got["status"])
		}
	}
}

// replicaAt is where a request goes: a calshim's base URL, and the Host it is sent with (replicas
// behind a balancer all see the balancer's, and their links show it).
type replicaAt struct{ base, host string }

// replicasOf addresses each replica of c directly, with haproxy's Host.
func replicasOf(c *cluster.Cluster) []replicaAt {
	var out []replicaAt
	for _, r := range c.Replicas {
		out = append(out, replicaAt{r.URL, strings.TrimPrefix(c.LB, "http://")})
	}
	return out
}

// on sends the request to the replica (its address, with the balancer's Host) within a timeout, and
// lenient: the tests send from several goroutines at once.
func (rp replicaAt) on(o *outgoing) {
	to(rp.base)(o)
	o.req.Host, o.client, o.lenient = rp.host, replicaClient, true
}

var replicaClient = &http.Client{Timeout: 30 * time.Second}
