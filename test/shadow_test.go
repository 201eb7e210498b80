package test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The live shadow against a v1 API answering beside calshim on the rig's WordPress: the stand-in
// test/testdata/wordpress/tec-original-standin.php, which answers like the original for the events
// list, an event and the categories (calshim's own answers, with the site's address), and can be
// made to differ, slow down or change every time by query flags that calshim ignores.

// standin installs the stand-in with calshim's current answers and returns the event ID it serves
// and the file it logs its requests to (emptied now).
func standin(t *testing.T) (id string, log string) {
	t.Helper()
	events := get(t, "/events?per_page=1")
	id = str(at(events.body, "events", 0, "id"))
	site := strings.TrimPrefix(wpEnv["WP_URL"], "http://")
	answers := map[string]any{}
	for _, path := range []string{"/events", "/events/" + id, "/categories"} {
		r := call(t, http.MethodGet, shim+"/wp-json/tribe/events/v1"+path)
		body := strings.ReplaceAll(string(r.raw), strings.TrimPrefix(shim, "http://"), site)
		answers[path] = map[string]any{"status": r.status, "total": r.header.Get("X-TEC-Total"),
			"pages": r.header.Get("X-TEC-TotalPages"), "body": body}
	}
	data, _ := json.Marshal(answers)
	wpPHP(t, "update_option( 'calshim_test_original', json_decode( base64_decode( '"+
		base64.StdEncoding.EncodeToString(data)+"' ), true ), false );")
	t.Cleanup(func() { wpPHP(t, "delete_option( 'calshim_test_original' );") })

	code, err := os.ReadFile(filepath.Join("testdata", "wordpress", "tec-original-standin.php"))
	if err != nil {
		t.Fatal(err)
	}
	installMuPlugin(t, "tec-original-standin.php", code)
	log = filepath.Join(strings.TrimSpace(string(wpPHP(t, "echo wp_upload_dir( null, false )['basedir'];"))),
		"calshim-test-original.log")
	_ = os.Remove(log)
	t.Cleanup(func() { _ = os.Remove(log) })

	if r := call(t, http.MethodGet, wpEnv["WP_URL"]+"/wp-json/tribe/events/v1/events/"+id, lenient); r.status != 200 {
		t.Fatalf("the stand-in does not answer: %d %s", r.status, r.raw)
	}
	return id, log
}

// launchShadowed starts a calshim comparing every anonymous GET with the stand-in, with the
// settings given; it answers its base URL and its operations listener's.
func launchShadowed(t *testing.T, env ...string) (base, ops string) {
	t.Helper()
	ops = "127.0.0.1:" + strconv.Itoa(freePort(t))
	base = launchOwn(t, append([]string{"CALSHIM_CATALOG_POLL_INTERVAL=1s", "CALSHIM_OPS_LISTEN=" + ops,
		"CALSHIM_SHADOW_URL=" + wpEnv["WP_URL"] + "/wp-json", "CALSHIM_SHADOW_SAMPLE_RATE=1"}, env...)...)
	return base, "http://" + ops
}

// shadowCount is a series of calshim_shadow_requests_total on the operations listener.
func shadowCount(t *testing.T, ops, route, outcome string) int {
	v := metricLine(t, ops, `calshim_shadow_requests_total{outcome="`+outcome+`",route="`+route+`"}`)
	n, _ := strconv.Atoi(v)
	return n
}

// difference is an entry of /shadow/differences.
type difference struct {
	Request     string
	Differences []struct{ Path, Original, Calshim string }
	Deliberate  map[string]string
}

// differences reads /shadow/differences.
func differences(t *testing.T, ops string) (different, deliberate []difference) {
	var out struct{ Different, Deliberate []difference }
	r := call(t, http.MethodGet, ops+"/shadow/differences")
	if err := json.Unmarshal(r.raw, &out); err != nil {
		t.Fatalf("/shadow/differences: %v: %s", err, r.raw)
	}
	return out.Different, out.Deliberate
}

// requested lists the stand-in's logged requests that contain marker.
func requested(t *testing.T, log, marker string) []string {
	b, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for line := range strings.Lines(string(b)) {
		if strings.Contains(line, marker) {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

func TestShadowLive(t *testing.T) {
	id, log := standin(t)
	base, ops := launchShadowed(t, "CALSHIM_SHADOW_RATE=100", "CALSHIM_SHADOW_RECHECK_AFTER=1s")
	v1At := base + v1
	// The budget's bucket holds one request: requests 50 ms apart all go (the burst test is
	// TestShadowRateBudget).
	call := func(t testing.TB, method, target string, opts ...reqOption) reply {
		t.Helper()
		defer time.Sleep(50 * time.Millisecond)
		return call(t, method, target, opts...)
	}

	t.Run("the differences are on the operations listener only", func(t *testing.T) {
		if r := call(t, http.MethodGet, base+"/shadow/differences", lenient); r.status != http.StatusNotFound {
			t.Fatalf("the public listener answers /shadow/differences: %d", r.status)
		}
	})

	t.Run("same answers", func(t *testing.T) {
		for _, path := range []string{"/events", "/events/" + id, "/categories"} {
			call(t, http.MethodGet, v1At+path)
		}
		for _, route := range []string{"GET /events", "GET /events/{id}", "GET /categories"} {
			eventually(t, route+" compared the same", func() bool { return shadowCount(t, ops, route, "same") >= 1 })
		}
		if different, _ := differences(t, ops); len(different) > 0 {
			t.Fatalf("differences where the stand-in answers as calshim: %+v", different)
		}
	})

	t.Run("a planted difference is reported with its path", func(t *testing.T) {
		// One at a time: a difference takes two more requests of the budget (asked again, re-checked).
		for _, c := range []struct{ target, path string }{
			{"/events/" + id + "?plant=title", "$.title"},
			{"/categories?plant=slug", "$.categories[0].slug"},
			{"/events?plant=total", "header:X-Tec-Total"},
		} {
			call(t, http.MethodGet, v1At+c.target)
			var different []difference
			eventually(t, c.target+" reported at "+c.path, func() bool {
				different, _ = differences(t, ops)
				return len(different) > 0 && strings.HasSuffix(different[0].Request, c.target) &&
					len(different[0].Differences) == 1 && different[0].Differences[0].Path == c.path
			})
		}
		if n := shadowCount(t, ops, "GET /events/{id}", "different"); n != 1 {
			t.Errorf("GET /events/{id} different: %d, want 1", n)
		}
	})

	t.Run("a deliberate difference is granted by name", func(t *testing.T) {
		// The plain permalink form: calshim's URLs keep it, the original always links pretty.
		call(t, http.MethodGet, base+"/?rest_route=/cal/events/v1/events/"+id)
		var deliberate []difference
		defer func() {
			if t.Failed() {
				t.Logf("deliberate: %+v\n%s", deliberate, call(t, http.MethodGet, ops+"/metrics", lenient).raw)
			}
		}()
		eventually(t, "granted as url-form", func() bool {
			_, deliberate = differences(t, ops)
			return len(deliberate) > 0 && deliberate[0].Deliberate["url-form"] != "" &&
				strings.Contains(deliberate[0].Request, "rest_route")
		})
		if n := shadowCount(t, ops, "GET /events/{id}", "deliberate"); n != 1 {
			t.Errorf("GET /events/{id} deliberate: %d, want 1", n)
		}
	})

	t.Run("the original's own noise is cancelled", func(t *testing.T) {
		call(t, http.MethodGet, v1At+"/events/"+id+"?noise=description")
		eventually(t, "noise", func() bool { return shadowCount(t, ops, "GET /events/{id}", "noise") == 1 })
	})

	t.Run("never a write or a request with credentials", func(t *testing.T) {
		marker := fmt.Sprintf("m%d", rand.Int64())
		call(t, http.MethodGet, v1At+"/events/"+id+"?who="+marker, as("editor"))
		call(t, http.MethodGet, v1At+"/events/"+id+"?who="+marker, header("Cookie", "wordpress_logged_in_x=y"))
		call(t, http.MethodGet, v1At+"/events/"+id+"?who="+marker, header("X-WP-Nonce", "abc"))
		call(t, http.MethodGet, v1At+"/events/"+id+"?who="+marker+"&_wpnonce=abc", lenient)
		call(t, http.MethodPost, v1At+"/events?who="+marker, jsonBody(`{"title":"x"}`), lenient)
		call(t, http.MethodGet, v1At+"/events?who="+marker+"&_method=POST", lenient)
		call(t, http.MethodGet, v1At+"/events?who="+marker, header("X-HTTP-Method-Override", "DELETE"), lenient)
		// An anonymous GET after them, which the shadow sends: once it is there, the others would be.
		control := marker + "-anonymous"
		call(t, http.MethodGet, v1At+"/events/"+id+"?who="+control)
		eventually(t, "the anonymous GET shadowed", func() bool { return len(requested(t, log, control)) == 1 })
		time.Sleep(500 * time.Millisecond)
		for _, line := range requested(t, log, "who="+marker) {
			if !strings.Contains(line, control) || strings.Contains(line, " auth ") || strings.Contains(line, "cookie") {
				t.Fatalf("the original got a request it must never get: %s", line)
			}
		}
	})
}

// The original's request rate stays within shadow.rate, whatever the client sends, counted at the
// stand-in; what the budget does not allow is skipped and counted.
func TestShadowRateBudget(t *testing.T) {
	_, log := standin(t)
	const budget = 4.0
	base, ops := launchShadowed(t, "CALSHIM_SHADOW_RATE=4", "CALSHIM_SHADOW_MAX_CONCURRENT=8")
	marker := fmt.Sprintf("b%d", rand.Int64())

	start := time.Now()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				call(t, http.MethodGet, fmt.Sprintf("%s%s/categories?who=%s&n=%d", base, v1, marker, w*100+i))
				time.Sleep(25 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	sent := time.Since(start)
	time.Sleep(time.Second)

	var times []float64
	for _, line := range requested(t, log, marker) {
		ts, _ := strconv.ParseFloat(strings.Fields(line)[0], 64)
		times = append(times, ts)
	}
	slices.Sort(times)
	if len(times) < 3 {
		t.Fatalf("the stand-in got %d requests: the shadow did not run", len(times))
	}
	span := times[len(times)-1] - times[0]
	// The token bucket (burst 1) allows 1 + rate × span; one more for the arrival jitter.
	if limit := 2 + budget*span; float64(len(times)) > limit {
		t.Fatalf("the original got %d requests in %.2f s, budget %.0f/s allows %.1f", len(times), span, budget, limit)
	}
	skipped := metricLine(t, ops, `calshim_shadow_skipped_total{reason="budget"}`)
	if n, _ := strconv.Atoi(skipped); n < 100 {
		t.Fatalf("skipped for the budget: %q, want most of the 160 requests", skipped)
	}
	t.Logf("160 requests in %.2f s at the client; the original got %d in %.2f s (budget %.0f/s)",
		sent.Seconds(), len(times), span, budget)
}

// The client's latency does not grow by the original's: with the stand-in answering after 300 ms,
// calshim with the shadow comparing every request answers as fast as calshim without it.
func TestShadowClientLatency(t *testing.T) {
	id, _ := standin(t)
	base, ops := launchShadowed(t, "CALSHIM_SHADOW_RATE=50", "CALSHIM_SHADOW_MAX_CONCURRENT=4")
	const delay = 300 * time.Millisecond
	target := v1 + "/events/" + id + "?delay=" + strconv.Itoa(int(delay/time.Millisecond))

	client := &http.Client{Timeout: 10 * time.Second}
	took := func(u string) time.Duration {
		start := time.Now()
		res, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = res.Body.Read(make([]byte, 1))
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d", u, res.StatusCode)
		}
		return time.Since(start)
	}
	var on, off []time.Duration
	for i := range 200 { // alternated, so both see the same machine
		q := "&n=" + strconv.Itoa(i)
		on = append(on, took(base+target+q))
		off = append(off, took(shim+target+q))
	}
	pct := func(l []time.Duration, p int) time.Duration {
		slices.Sort(l)
		return l[len(l)*p/100]
	}
	if shadowCount(t, ops, "GET /events/{id}", "same") == 0 {
		eventually(t, "a comparison done", func() bool { return shadowCount(t, ops, "GET /events/{id}", "same") > 0 })
	}
	m1, m0, p1, p0 := pct(on, 50), pct(off, 50), pct(on, 90), pct(off, 90)
	t.Logf("client latency with the shadow / without: median %s / %s (ratio %.2f), p90 %s / %s (ratio %.2f); "+
		"the original answers after %s", m1, m0, float64(m1)/float64(m0), p1, p0, float64(p1)/float64(p0), delay)
	if m1 > 2*m0+2*time.Millisecond || p1 > delay/3 {
		t.Fatalf("the shadow delays the client: median %s against %s, p90 %s (the original takes %s)", m1, m0, p1, delay)
	}
}

// calshim shadow replay reads an access log of the original's API and compares its GETs: exit 0
// when only deliberate differences show (named), 1 with a planted one, reported with its path;
// writes, authenticated requests and other APIs in the log are left out.
func TestShadowReplay(t *testing.T) {
	id, log := standin(t)
	marker := fmt.Sprintf("r%d", rand.Int64())
	line := func(user, method, target string) string {
		return fmt.Sprintf("203.0.113.9 - %s [28/Nov/2026:10:00:01 +0000] \"%s %s HTTP/1.1\" 200 512 \"-\" \"curl/8\"\n",
			user, method, target)
	}
	clean := line("-", "GET", "/wp-json/tribe/events/v1/events?who="+marker) +
		line("-", "GET", "/wp-json/tribe/events/v1/events/"+id+"?who="+marker) +
		line("-", "GET", "/?rest_route=/tribe/events/v1/categories&who="+marker) +
		line("-", "POST", "/wp-json/tribe/events/v1/events?who="+marker+"-write") +
		line("editor", "GET", "/wp-json/tribe/events/v1/events?who="+marker+"-auth") +
		line("-", "GET", "/wp-json/wp/v2/posts?who="+marker+"-other") +
		"not a log line\n"
	replay := func(logText string) (string, int) {
		path := filepath.Join(t.TempDir(), "access.log")
		if err := os.WriteFile(path, []byte(logText), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(shimBin, "shadow", "replay", "-log", path, "-calshim", shim,
			"-original", wpEnv["WP_URL"]+"/wp-json", "-rate", "20", "-recheck-after", "0s")
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}

	out, code := replay(clean)
	// The ?rest_route= request: calshim's URLs keep that form, the original's are pretty.
	if code != 0 || !strings.Contains(out, "replayed 3 requests (of 7 log lines)") ||
		!regexp.MustCompile(`same\s+2\b`).MatchString(out) || !regexp.MustCompile(`url-form\s+1\b`).MatchString(out) {
		t.Fatalf("exit %d, want 0, 2 requests the same and 1 granted as url-form:\n%s", code, out)
	}
	if got := requested(t, log, marker); len(got) != 3 {
		t.Fatalf("the original got %d requests, want the 3 anonymous GETs of its API: %q", len(got), got)
	}

	out, code = replay(clean + line("-", "GET", "/wp-json/tribe/events/v1/events/"+id+"?plant=title"))
	if code != 1 || !strings.Contains(out, "GET /events/{id} $.title value") ||
		!regexp.MustCompile(`different\s+1\b`).MatchString(out) {
		t.Fatalf("exit %d, want 1 and the planted $.title reported:\n%s", code, out)
	}
	t.Logf("the report:\n%s", out)
}
