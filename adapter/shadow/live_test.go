package shadow

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

func TestBreaker(t *testing.T) {
	now := time.Unix(0, 0)
	b := newBreaker(3, time.Second, 10*time.Second, func() time.Time { return now })

	b.record(10*time.Millisecond, false)
	b.record(2*time.Second, true) // slow counts as failing
	if !b.allow() || !b.closed() {
		t.Fatal("open after 2 failures, limit 3")
	}
	b.record(10*time.Millisecond, true) // a good answer resets the count
	for range 3 {
		b.record(0, false)
	}
	if b.allow() || b.closed() {
		t.Fatal("closed after 3 failures in a row")
	}

	now = now.Add(9 * time.Second)
	if b.allow() {
		t.Fatal("lets a request go within the cooldown")
	}
	now = now.Add(2 * time.Second)
	if !b.allow() || b.allow() {
		t.Fatal("after the cooldown: want exactly one trying request")
	}
	b.record(0, false) // the try fails: open again at once
	if b.allow() {
		t.Fatal("a failed try left the breaker letting requests go")
	}

	now = now.Add(11 * time.Second)
	if !b.allow() {
		t.Fatal("no try after the second cooldown")
	}
	b.record(time.Millisecond, true)
	if first, second := b.allow(), b.allow(); !first || !second || !b.closed() {
		t.Fatal("a good try did not close the breaker")
	}

	// A try that never reports (dropped) lets another go after a cooldown.
	for range 3 {
		b.record(0, false)
	}
	now = now.Add(11 * time.Second)
	if !b.allow() || b.allow() {
		t.Fatal("want one try")
	}
	now = now.Add(11 * time.Second)
	if !b.allow() {
		t.Fatal("a lost try blocked the breaker for good")
	}
}

// original is a stand-in for the original counting its requests; answer decides what it says.
func original(t *testing.T, answer func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		answer(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func liveFor(t *testing.T, url string, cal Side, mod func(*Options)) (*Live, *prometheus.Registry) {
	reg := prometheus.NewRegistry()
	opt := Options{URL: url + "/wp-json", SampleRate: 1, MaxConcurrent: 2, Rate: 1000, Timeout: time.Second,
		BreakerFailures: 3, BreakerSlow: time.Second, BreakerCooldown: time.Minute, Differences: 10,
		DiffBytes: 1 << 20, Calshim: cal, Registry: reg}
	if mod != nil {
		mod(&opt)
	}
	return New(opt), reg
}

func outcomes(reg *prometheus.Registry, o Outcome) float64 {
	return counted(reg, "calshim_shadow_requests_total", "outcome", string(o))
}

// counted adds up a counter's series whose label has the value given (label "": all of them).
func counted(reg *prometheus.Registry, name, label, value string) float64 {
	mfs, _ := reg.Gather()
	total := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			match := label == ""
			for _, l := range m.GetLabel() {
				match = match || l.GetName() == label && l.GetValue() == value
			}
			if match {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var listQuery = Query{Route: "GET /events", Target: "/wp-json/tribe/events/v1/events", Path: "/events",
	NS: Namespace, Origin: "http://cal"}

// The budget holds over a burst of offers, the further requests of comparisons that differ
// included: the original gets at most 1 + rate × elapsed requests.
func TestLiveRateBudget(t *testing.T) {
	srv, n := original(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(`{"a":1}`)) })
	l, reg := liveFor(t, srv.URL, fixed(answer(200, `{"a":2}`)), func(o *Options) { o.Rate = 20 })

	start := time.Now()
	for time.Since(start) < 1500*time.Millisecond {
		l.Offer(listQuery, "http://cal/wp-json")
		time.Sleep(time.Millisecond)
	}
	waitFor(t, "the comparisons", func() bool { return outcomes(reg, Different) > 0 && len(l.jobs) == 0 })
	time.Sleep(200 * time.Millisecond) // the last comparisons' further requests
	elapsed := time.Since(start).Seconds()
	if got, limit := float64(n.Load()), 1+20*elapsed; got > limit || got < 10 {
		t.Fatalf("the original got %v requests in %.2fs, budget %v", got, elapsed, limit)
	}
	if outcomes(reg, Skipped) == 0 {
		t.Fatal("nothing skipped over the budget")
	}
	if v := counted(reg, "calshim_shadow_original_requests_total", "", ""); v != float64(n.Load()) {
		t.Fatalf("shadow_original_requests_total %v, the original counted %d", v, n.Load())
	}
}

// Offer never waits, whatever the original does: past the workers and the queue, it skips.
func TestLiveOfferNeverBlocks(t *testing.T) {
	release := make(chan struct{})
	srv, _ := original(t, func(w http.ResponseWriter, _ *http.Request) { <-release })
	defer close(release)
	l, reg := liveFor(t, srv.URL, fixed(answer(200, `{}`)), nil)

	start := time.Now()
	for range 1000 {
		l.Offer(listQuery, "http://cal/wp-json")
	}
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Fatalf("1000 offers took %s with the original hanging", took)
	}
	if got := outcomes(reg, Skipped); got < 1000-2*2 {
		t.Fatalf("%v skipped, want all but the workers' and the queue's", got)
	}
}

// A failing original opens the breaker: the shadow stops asking it.
func TestLiveBreakerStopsRequests(t *testing.T) {
	srv, n := original(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) })
	l, reg := liveFor(t, srv.URL, fixed(answer(200, `{}`)), nil)
	for range 50 {
		l.Offer(listQuery, "http://cal/wp-json")
		time.Sleep(2 * time.Millisecond)
	}
	waitFor(t, "the comparisons", func() bool { return len(l.jobs) == 0 })
	time.Sleep(50 * time.Millisecond)
	if got := n.Load(); got > 3+2 { // the failures that open it, and what was in flight
		t.Fatalf("the failing original got %d requests, want the breaker to stop them after 3", got)
	}
	if outcomes(reg, Failed) < 3 || counted(reg, "calshim_shadow_skipped_total", "reason", "breaker") == 0 {
		t.Fatal("failures or breaker skips not counted")
	}
}

// The kept differences stay within their count and byte bounds, newest first, with the paths
// and the deliberate differences by name.
func TestLiveDifferencesBounded(t *testing.T) {
	r := newRecent(3, 12000)
	big := strings.Repeat("x", 3000)
	for i := range 5 {
		r.add(&Result{Query: Query{Route: "GET /events", Target: "/e?password=secret&n=" + string(rune('a'+i))},
			Outcome: Different, Diffs: []Diff{newDiff("$.title", "value", "A", "B")},
			Original: answer(200, `{"title":"A"}`), Calshim: answer(200, `{"title":"B"}`)}, Reads)
	}
	for range 3 { // each one over a third of the bytes
		r.add(&Result{Query: Query{Route: "GET /events"}, Outcome: Intended, Granted: []string{"tags-any"},
			Original: answer(200, big+big), Calshim: answer(200, big)}, Reads)
	}

	rec := httptest.NewRecorder()
	r.serve(rec, nil)
	var got struct {
		Different, Deliberate []Entry
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Different) != 3 || !strings.Contains(got.Different[0].Request, "n=e") ||
		got.Different[0].Diffs[0].Path != "$.title" || strings.Contains(rec.Body.String(), "secret") {
		t.Fatalf("different: %+v", got.Different)
	}
	if len(got.Deliberate) != 1 || got.Deliberate[0].Deliberate["tags-any"] == "" {
		t.Fatalf("deliberate: %+v", got.Deliberate)
	}
	if r.bytes > 12000 || got.Deliberate[0].Original.Clipped != 2*3000-clipBody {
		t.Fatalf("%d bytes kept, bound 12000; clipped %d", r.bytes, got.Deliberate[0].Original.Clipped)
	}
}
