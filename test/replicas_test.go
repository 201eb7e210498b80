package test

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"calshim/internal/testkit/cluster"
)

// Three calshim replicas behind Debian's haproxy (internal/testkit/cluster: health checks on /readyz every
// 250 ms), under a steady read load through haproxy. One of the slowest tests.
func TestReplicasBehindHAProxy(t *testing.T) {
	c, load := startCluster(t)
	t.Run("upstream requests are feed polls only", func(t *testing.T) { checkUpstream(t, c, load) })
	t.Run("a direct edit shows on every replica", func(t *testing.T) { checkFreshness(t, c) })
	t.Run("a write is read back through haproxy", func(t *testing.T) { checkReadYourWrites(t, c) })
	t.Run("no failed read through a SIGKILL and restart", func(t *testing.T) {
		phase(t, load, func() {
			r := c.Replicas[1]
			mustDo(t, r.Kill())
			mustDo(t, c.WaitDown(1, 10*time.Second)) // haproxy noticed; reads went on meanwhile
			time.Sleep(time.Second)
			mustDo(t, r.Start())
			mustDo(t, c.WaitUp(1, 30*time.Second))
		})
	})
	t.Run("no failed read through a rolling SIGTERM restart", func(t *testing.T) {
		phase(t, load, func() {
			for i, r := range c.Replicas {
				mustDo(t, r.Term(15*time.Second))
				mustDo(t, r.Start()) // at once: the old process has exited
				mustDo(t, c.WaitUp(i, 30*time.Second))
			}
		})
	})
	t.Run("a request reaching a loading replica waits for it", func(t *testing.T) {
		checkLoadWait(t, c)
	})
}

// replicaDrain is the drain of the test's replicas: several of haproxy's 250 ms health checks.
const replicaDrain = "1500ms"

// startReplicas starts n calshims with the reader's credential and 1 s polls (and env) behind
// haproxy; they stop when the test ends.
func startReplicas(t *testing.T, n int, env ...string) *cluster.Cluster {
	t.Helper()
	c, err := cluster.Start(cluster.Config{Bin: shimBin, Dir: t.TempDir(), WPURL: wpEnv["WP_URL"], Replicas: n,
		Env: append([]string{
			"CALSHIM_UPSTREAM_USER=" + wpEnv["CALSHIM_UPSTREAM_USER"],
			"CALSHIM_UPSTREAM_APP_PASSWORD=" + wpEnv["CALSHIM_UPSTREAM_APP_PASSWORD"],
			"CALSHIM_CATALOG_POLL_INTERVAL=1s",
		}, env...)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func startCluster(t *testing.T) (*cluster.Cluster, *cluster.Load) {
	t.Helper()
	c := startReplicas(t, 3, "CALSHIM_SHUTDOWN_DRAIN="+replicaDrain, "CALSHIM_LIMITS_TRUSTED_PROXIES=127.0.0.1")

	ids := eventIDs(t, 3)
	paths := []string{"/wp-json/cal/events/v1/events?per_page=5", "/wp-json/cal/events/v1/venues",
		"/wp-json/cal/events/v1/categories", "/wp-json/cal/events/v1/events?page=2"}
	for _, id := range ids {
		paths = append(paths, "/wp-json/cal/events/v1/events/"+id)
	}

	load := cluster.StartLoad(c.LB, paths, 4, 5*time.Millisecond)
	t.Cleanup(load.Stop)
	t.Cleanup(func() {
		if t.Failed() {
			for _, r := range c.Replicas {
				b, _ := os.ReadFile(r.Log)
				t.Logf("--- %s (last 2000 bytes)\n%s", r.Log, b[max(0, len(b)-2000):])
			}
		}
	})
	return c, load
}

// eventIDs returns the IDs of the first n events of the default list.
func eventIDs(t *testing.T, n int) []string {
	t.Helper()
	var ids []string
	for _, e := range list(at(get(t, fmt.Sprintf("/events?per_page=%d", n)).body, "events")) {
		ids = append(ids, str(at(e, "id")))
	}
	if len(ids) != n {
		t.Fatalf("events: %v", ids)
	}
	return ids
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// phase runs step under the read load and checks that no read failed meanwhile (and that reads
// did go on).
func phase(t *testing.T, load *cluster.Load, step func()) {
	t.Helper()
	ok0, failed0 := load.Counts()
	start := time.Now()
	step()
	time.Sleep(500 * time.Millisecond) // the reads right after the step count too
	ok, failed := load.Counts()
	t.Logf("%d reads in %v, %d failed", ok-ok0+failed-failed0,
		time.Since(start).Round(time.Millisecond), failed-failed0)
	if failed != failed0 {
		t.Errorf("%d failed reads; first ones: %q", failed-failed0, load.Failures())
	}
	if ok-ok0 < 50 {
		t.Errorf("only %d reads during the step: the load stalled", ok-ok0)
	}
}

// Under read load each replica sends WordPress its feed polls (one a second) and nothing else:
// upstream requests grow with the replicas only by the polling.
func checkUpstream(t *testing.T, c *cluster.Cluster, load *cluster.Load) {
	const window = 8 * time.Second
	before := make([][2]int64, len(c.Replicas))
	for i, r := range c.Replicas {
		before[i][0], before[i][1] = r.Proxy().Counts()
	}
	ok0, _ := load.Counts()
	time.Sleep(window)
	ok, _ := load.Counts()
	for i, r := range c.Replicas {
		feed, other := r.Proxy().Counts()
		feed, other = feed-before[i][0], other-before[i][1]
		perMinute := float64(feed+other) * float64(time.Minute) / float64(window)
		t.Logf("replica %d: %d feed polls, %d other upstream requests in %v (%.0f/min) while haproxy "+
			"served %d reads", i, feed, other, window, perMinute, ok-ok0)
		if other != 0 || feed > int64(window/time.Second)+2 {
			t.Errorf("replica %d: %d feed polls and %d other requests in %v; last ones: %q", i, feed,
				other, window, r.Proxy().Others())
		}
	}
}

// freshnessBound is how soon a direct edit must show on every replica: the 1 s poll plus room for a
// loaded machine.
const freshnessBound = 5 * time.Second

// An edit made in WordPress shows on every replica within the freshness bound.
func checkFreshness(t *testing.T, c *cluster.Cluster) {
	id := eventIDs(t, 1)[0]
	title := "Edited behind calshim " + strconv.FormatInt(time.Now().UnixNano(), 36)
	old := str(at(get(t, "/events/"+id).body, "title"))
	wp(t, http.MethodPost, "/wp/v2/tribe_events/"+id, map[string]any{"title": title})
	defer wp(t, http.MethodPost, "/wp/v2/tribe_events/"+id, map[string]any{"title": old})

	start := time.Now()
	for _, r := range c.Replicas {
		for str(at(call(t, http.MethodGet, r.URL+v1+"/events/"+id).body, "title")) != title {
			if time.Since(start) > freshnessBound {
				t.Fatalf("replica %d: the edit not shown after %v", r.Index, freshnessBound)
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Logf("replica %d shows the edit %v after WordPress answered", r.Index,
			time.Since(start).Round(time.Millisecond))
	}
}

// A write through one replica answers X-Calshim-Seq; sent back as X-Calshim-Min-Seq, every read
// through haproxy (round robin: every replica in turn) shows the write at once.
func checkReadYourWrites(t *testing.T, c *cluster.Cluster) {
	created := send(t, "editor", http.MethodPost, "/events", newEvent("Written through replica 0"), to(c.Replicas[0].URL))
	wantStatus(t, created, http.StatusCreated)
	id := str(at(created.body, "id"))
	seq := created.header.Get("X-Calshim-Seq")
	defer send(t, "editor", http.MethodDelete, "/events/"+id, nil)
	if n, err := strconv.ParseInt(seq, 10, 64); err != nil || n <= 0 {
		t.Fatalf("the write answered X-Calshim-Seq %q", seq)
	}

	for i := range 2 * len(c.Replicas) {
		start := time.Now()
		r := call(t, http.MethodGet, c.LB+v1+"/events/"+id, header("X-Calshim-Min-Seq", seq))
		if r.status != http.StatusOK || str(at(r.body, "title")) != "Written through replica 0" {
			t.Fatalf("read %d through haproxy: %d %.200s", i, r.status, r.raw)
		}
		if got, _ := strconv.ParseInt(r.header.Get("X-Calshim-Seq"), 10, 64); got < mustInt(t, seq) {
			t.Errorf("read %d answered X-Calshim-Seq %q, below %s", i, r.header.Get("X-Calshim-Seq"), seq)
		}
		t.Logf("read %d: 200 after %v", i, time.Since(start).Round(time.Millisecond))
	}
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A replica started without its snapshot answers the first request sent as soon as it listens,
// after its load, instead of 503.
func checkLoadWait(t *testing.T, c *cluster.Cluster) {
	r := c.Replicas[2]
	mustDo(t, r.Term(15*time.Second))
	mustDo(t, os.Remove(r.Snapshot))
	mustDo(t, r.Start())
	start := time.Now()
	ready := r.Ready()
	res := call(t, http.MethodGet, r.URL+v1+"/events?per_page=1")
	t.Logf("first request: %d after %v (ready when it was sent: %v)", res.status,
		time.Since(start).Round(time.Millisecond), ready)
	if res.status != http.StatusOK {
		t.Errorf("first request to a loading replica: %d %.200s", res.status, res.raw)
	}
	mustDo(t, c.WaitUp(2, 30*time.Second))
}
