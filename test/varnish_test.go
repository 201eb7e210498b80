package test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Varnish (Debian's varnish and varnish-modules' xkey, scripts/tools-up.sh) in front of a calshim
// of the test's own, with deploy/varnish/calshim.vcl and a five-minute s-maxage: under a read load
// through Varnish, edits made in WordPress (an event's title, then the name of the venue the event
// shows) are served by Varnish once calshim's catalog has them and its purge has reached Varnish,
// never stale after that, and most reads are hits.
func TestVarnishServesEditsFresh(t *testing.T) {
	varnishd, err := exec.LookPath("varnishd")
	if err != nil {
		t.Fatal("varnishd is missing: run scripts/tools-up.sh (make test does)")
	}
	stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
	venue, event := edgeFixture(t, stamp)

	vport := strconv.Itoa(freePort(t))
	varnish := "http://127.0.0.1:" + vport
	base, stop, err := launch(filepath.Join(t.TempDir(), "calshim.log"),
		"CALSHIM_UPSTREAM_URL="+wpEnv["CALSHIM_UPSTREAM_URL"],
		"CALSHIM_UPSTREAM_USER="+wpEnv["CALSHIM_UPSTREAM_USER"],
		"CALSHIM_UPSTREAM_APP_PASSWORD="+wpEnv["CALSHIM_UPSTREAM_APP_PASSWORD"],
		"CALSHIM_CATALOG_SNAPSHOT=none", "CALSHIM_CATALOG_POLL_INTERVAL=1s",
		"CALSHIM_EDGE_CACHE_S_MAXAGE=5m", "CALSHIM_EDGE_CACHE_KEY_HEADER=xkey",
		"CALSHIM_EDGE_CACHE_PURGE_URLS="+varnish+"/")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	dir := startVarnish(t, varnishd, vport, strings.TrimPrefix(base, "http://"))
	eventually(t, "calshim ready", func() bool { return readyz(t, base) != nil })
	eventPath, venuePath := "/wp-json/cal/events/v1/events/"+event, "/wp-json/cal/events/v1/venues/"+venue
	eventually(t, "the event through Varnish", func() bool {
		return strings.Contains(string(call(t, http.MethodGet, varnish+eventPath, lenient).raw), "Edge "+stamp)
	})

	t.Run("purges only from the ACL", func(t *testing.T) { checkPurgeACL(t, varnish) })

	load := startReads(varnish, eventPath, venuePath, "/wp-json/cal/events/v1/events?include="+event,
		"/wp-json/cal/events/v1/events?per_page=3")
	time.Sleep(2 * time.Second) // a warm cache
	before := varnishCounters(t, dir)

	listPath := "/wp-json/cal/events/v1/events?include=" + event
	renamed, moved := "Edge "+stamp+" renamed", "Edge venue "+stamp+" renamed"
	editAt := map[string]time.Time{}
	edit := func(what, path string, body map[string]any) {
		editAt[what] = time.Now()
		wp(t, http.MethodPost, path, body)
	}
	edit("event", "/wp/v2/tribe_events/"+event, map[string]any{"title": renamed})
	time.Sleep(3 * time.Second)
	edit("venue", "/wp/v2/tribe_venue/"+venue, map[string]any{"title": moved})
	time.Sleep(4 * time.Second)
	reads := load.stop()
	after := varnishCounters(t, dir)

	for _, e := range []struct{ edit, what, path, field, want string }{
		{"event", "the event's title", eventPath, "title", renamed},
		{"event", "the event's title in a list", listPath, "title", renamed},
		{"venue", "the venue's name in the event", eventPath, "venue", moved},
		{"venue", "the venue's name", venuePath, "venue", moved},
	} {
		fresh, err := freshAfter(reads, e.path, e.field, e.want, editAt[e.edit])
		if err != nil {
			t.Errorf("%s: %v", e.what, err)
			continue
		}
		t.Logf("%s: fresh through Varnish %v after the edit", e.what, fresh.Round(time.Millisecond))
		if fresh > 10*time.Second { // five minutes without the purge
			t.Errorf("%s: fresh only after %v", e.what, fresh)
		}
	}

	hits, misses := after["MAIN.cache_hit"]-before["MAIN.cache_hit"], after["MAIN.cache_miss"]-before["MAIN.cache_miss"]
	ratio := float64(hits) / float64(hits+misses)
	t.Logf("%d reads through Varnish; while editing: %d hits, %d misses, hit ratio %.4f", len(reads), hits, misses, ratio)
	if hits+misses < 100 || ratio < 0.9 {
		t.Errorf("hit ratio %.4f of %d lookups", ratio, hits+misses)
	}
}

// edgeFixture creates a venue and an event at it in WordPress, removed when the test ends.
func edgeFixture(t *testing.T, stamp string) (venue, event string) {
	day := time.Now().AddDate(0, 0, 5).Format("2006-01-02")
	v := wp(t, http.MethodPost, "/wp/v2/tribe_venue", map[string]any{"title": "Edge venue " + stamp, "status": "publish"})
	venue = strconv.Itoa(int(v["id"].(float64)))
	t.Cleanup(func() { wp(t, http.MethodDelete, "/wp/v2/tribe_venue/"+venue+"?force=true", nil) })
	e := wp(t, http.MethodPost, "/wp/v2/tribe_events", map[string]any{"title": "Edge " + stamp, "status": "publish",
		"meta": map[string]any{"_EventStartDate": day + " 10:00:00", "_EventEndDate": day + " 11:00:00",
			"_EventStartDateUTC": day + " 15:00:00", "_EventEndDateUTC": day + " 16:00:00",
			"_EventTimezone": "America/New_York", "_EventVenueID": []string{venue}}})
	event = strconv.Itoa(int(e["id"].(float64)))
	t.Cleanup(func() { wp(t, http.MethodDelete, "/wp/v2/tribe_events/"+event+"?force=true", nil) })
	return venue, event
}

// startVarnish runs varnishd in the foreground on 127.0.0.1:port with the shipped VCL pointed at
// backend, its working directory under the test's; it stops when the test ends.
func startVarnish(t *testing.T, varnishd, port, backend string) string {
	host, bport, _ := net.SplitHostPort(backend)
	vcl, err := os.ReadFile("../deploy/varnish/calshim.vcl")
	if err != nil {
		t.Fatal(err)
	}
	shipped := `.host = "127.0.0.1";` + "\n    .port = \"8080\";"
	if !bytes.Contains(vcl, []byte(shipped)) {
		t.Fatalf("calshim.vcl has no backend %s", shipped)
	}
	vcl = bytes.Replace(vcl, []byte(shipped), []byte(`.host = "`+host+`";`+"\n    .port = \""+bport+`";`), 1)
	dir := t.TempDir()
	file := filepath.Join(dir, "calshim.vcl")
	if err := os.WriteFile(file, vcl, 0o644); err != nil {
		t.Fatal(err)
	}

	logf, err := os.Create(filepath.Join(dir, "varnishd.log"))
	if err != nil {
		t.Fatal(err)
	}
	// -j none: no privilege separation, so the worker can read the test's directory as its user.
	cmd := exec.Command(varnishd, "-F", "-j", "none", "-n", filepath.Join(dir, "n"), "-a", "127.0.0.1:"+port,
		"-f", file, "-s", "malloc,64m", "-T", "none")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait(); logf.Close() })
	eventually(t, "varnishd listening", func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return filepath.Join(dir, "n")
}

// checkPurgeACL: a purge from an address the VCL's ACL does not name is refused; from calshim's, it
// answers how many objects it purged.
func checkPurgeACL(t *testing.T, varnish string) {
	for _, tc := range []struct {
		from   string
		status int
	}{{"127.0.0.2", http.StatusForbidden}, {"127.0.0.1", http.StatusOK}} {
		res := call(t, "PURGE", varnish+"/", header("xkey-purge", "no-such-key"), via(fromAddr(tc.from)), lenient)
		if res.err != nil {
			t.Fatal(res.err)
		}
		if res.status != tc.status || (tc.status == http.StatusOK && res.header.Get("X-Purged") != "0") {
			t.Errorf("PURGE from %s: %d, X-Purged %q", tc.from, res.status, res.header.Get("X-Purged"))
		}
	}
}

// fetched is one read through Varnish.
type fetched struct {
	path       string
	start, end time.Time
	status     int
	body       string
	header     http.Header
}

// reads is a read load: one goroutine per path, each reading it every readPause (the machine is
// shared), until stop and for at most a minute.
type reads struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	all    []fetched
}

const readPause = 2 * time.Millisecond

func startReads(base string, paths ...string) *reads {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	r := &reads{cancel: cancel}
	for _, p := range paths {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			for ctx.Err() == nil {
				f := fetched{path: p, start: time.Now()}
				// Not call: the reads stop with the context, in the middle of a request too.
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+p, nil)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					continue
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				f.end, f.status, f.body, f.header = time.Now(), res.StatusCode, string(b), res.Header
				r.mu.Lock()
				r.all = append(r.all, f)
				r.mu.Unlock()
				time.Sleep(readPause)
			}
		}()
	}
	return r
}

func (r *reads) stop() []fetched {
	r.cancel()
	r.wg.Wait()
	return r.all
}

// freshAfter returns how long after at the first read of path showed want in field (an event's
// venue: its "venue" member), and an error when none did, when any read that began after that one
// ended was stale, or when a read failed or showed calshim's keys to the client.
func freshAfter(all []fetched, path, field, want string, at time.Time) (time.Duration, error) {
	var first *fetched
	for i, f := range all {
		if f.path != path {
			continue
		}
		if f.status != http.StatusOK || f.header.Get("xkey") != "" || f.header.Get("Surrogate-Key") != "" {
			return 0, fmt.Errorf("read %d: %d %v", i, f.status, f.header)
		}
		if f.start.After(at) && shows(f.body, field, want) && (first == nil || f.end.Before(first.end)) {
			first = &all[i]
		}
	}
	if first == nil {
		return 0, fmt.Errorf("no read showed %q", want)
	}

	for _, f := range all {
		if f.path == path && f.start.After(first.end) && !shows(f.body, field, want) {
			return 0, fmt.Errorf("stale after it was fresh: a read at %v shows %.200s", f.start.Sub(at), f.body)
		}
	}
	return first.end.Sub(at), nil
}

// shows reports whether an answer's field (or its venue's name) reads want.
func shows(body, field, want string) bool {
	var o map[string]any
	if json.Unmarshal([]byte(body), &o) != nil {
		return false
	}
	if l, ok := o["events"].([]any); ok && len(l) == 1 { // a list of the one event
		o, _ = l[0].(map[string]any)
	}
	if v, ok := o[field].(map[string]any); ok {
		return v["venue"] == want
	}
	return o[field] == want
}

// varnishCounters reads varnishstat's counters of the instance in dir.
func varnishCounters(t *testing.T, dir string) map[string]int64 {
	out, err := exec.Command("varnishstat", "-n", dir, "-1").Output()
	if err != nil {
		t.Fatalf("varnishstat: %v", err)
	}
	counters := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 {
			counters[f[0]], _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	return counters
}
