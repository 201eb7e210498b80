package test

import (
	"fmt"
	"net/http"
	"testing"
)

// Expensive reads against the real WordPress: with one unit per post and a burst of 10 (the rig
// holds more events than that, so a feed takes the whole burst), a client's second uncached feed
// answers 429 calshim_rate_limited with Retry-After, while its cheap reads and another client's
// feed are still answered.
func TestExpensiveReadsLimited(t *testing.T) {
	base := launchOwn(t, "CALSHIM_LIMITS_EXPENSIVE_UNIT=1", "CALSHIM_LIMITS_EXPENSIVE_PER_MINUTE=1",
		"CALSHIM_LIMITS_EXPENSIVE_BURST=10")
	feed := base + "/wp-json/cal/events/v1/events.ics?n="
	a, b := fromAddr("127.0.0.70"), fromAddr("127.0.0.71")
	if r := call(t, http.MethodGet, feed+"1", via(a), lenient); r.status != http.StatusOK {
		t.Fatalf("first feed: %d %.200s", r.status, r.raw)
	}

	r := call(t, http.MethodGet, feed+"2", via(a), lenient)
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" ||
		!jsonHas(string(r.raw), `{"code":"calshim_rate_limited","message":"Too many expensive requests`,
			`","data":{"status":429}}`) {
		t.Errorf("second feed: %d %s (Retry-After %q)", r.status, string(r.raw), r.header.Get("Retry-After"))
	}

	if r := call(t, http.MethodGet, base+"/wp-json/cal/events/v1/doc", via(a), lenient); r.status != http.StatusOK {
		t.Errorf("a cheap read of the limited client: %d %.200s", r.status, r.raw)
	}

	if r := call(t, http.MethodGet, feed+"2", via(b), lenient); r.status != http.StatusOK {
		t.Errorf("another client's feed: %d %.200s", r.status, r.raw)
	}

	if v := metricLine(t, base, `calshim_rate_limited_total{limit="expensive"}`); v == "" || v == "0" {
		t.Errorf("calshim_rate_limited_total{limit=\"expensive\"} = %q", v)
	}
}

// A response cache filled with many distinct answers (made-up arguments) still stores a new
// popular answer and serves it as a hit: the least recently used entries go instead.
func TestFullResponseCacheStillHits(t *testing.T) {
	base := launchOwn(t, "CALSHIM_RESPONSE_CACHE_MAX_BYTES=400000")
	c := fromAddr("127.0.0.72")
	for i := range 100 {
		url := fmt.Sprintf("%s/wp-json/cal/events/v1/events?per_page=10&fill=%d", base, i)
		if r := call(t, http.MethodGet, url, via(c), lenient); r.status != http.StatusOK {
			t.Fatalf("fill %d: %d %.200s", i, r.status, r.raw)
		}
	}

	// Two requests in a row hit unless the catalog changed between them (others write to the rig).
	const hits = `calshim_http_requests_total{cache="hit",method="GET",route="/events",status="200"}`
	for range 10 {
		call(t, http.MethodGet, base+"/wp-json/cal/events/v1/events?per_page=3", via(c), lenient)
		call(t, http.MethodGet, base+"/wp-json/cal/events/v1/events?per_page=3", via(c), lenient)
		if metricLine(t, base, hits) != "" {
			return
		}
	}
	t.Errorf("a full cache never served the popular answer from memory: no %s", hits)
}
