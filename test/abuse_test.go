package test

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"

	"calshim/internal/testkit/cluster"
)

// The limits of adapter/limits.go against the real WordPress, on a calshim of its own (the suite's
// shared one keeps its allowance). Client addresses are real: requests leave from different
// loopback addresses (127.0.0.50, .51, ...).
func TestAbuseLimits(t *testing.T) {
	base, proxy := launchBehindProxy(t, "CALSHIM_LIMITS_TRUSTED_PROXIES=127.0.0.1",
		// A small write allowance to see it end; the default (1200/min, burst 200) serves the suite.
		"CALSHIM_LIMITS_WRITES_PER_MINUTE=60", "CALSHIM_LIMITS_WRITES_BURST=5")

	t.Run("random credentials", func(t *testing.T) { checkRandomCredentials(t, base, proxy) })
	t.Run("a refused credential is asked once", func(t *testing.T) {
		checkRefusedOnce(t, base, proxy)
	})
	t.Run("X-Forwarded-For behind a trusted proxy", func(t *testing.T) { checkForwarded(t, base) })
	t.Run("writes", func(t *testing.T) { checkWriteLimit(t, base) })
	t.Run("unknown IDs", func(t *testing.T) { checkLookups(t, base, proxy) })
}

// launchBehindProxy starts a calshim of the test's own (no snapshot, extra env) whose requests to
// WordPress pass a counting proxy, and waits until it is ready; both stop when the test ends.
func launchBehindProxy(t *testing.T, env ...string) (string, *cluster.Proxy) {
	proxy, err := cluster.NewProxy(wpEnv["WP_URL"], 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	// The later value of a variable wins (os/exec keeps the last): WordPress through the proxy.
	base := launchOwn(t, append([]string{"CALSHIM_UPSTREAM_URL=http://" + proxy.Addr + "/wp-json"}, env...)...)
	return base, proxy
}

func randomBasic() string {
	cred := fmt.Sprintf("user%x:%x %x", rand.Uint64(), rand.Uint64(), rand.Uint64())
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(cred))
}

// 1,000 requests with random credentials from one address cost WordPress at most the burst (20)
// plus one check a second; the others answer 429 calshim_rate_limited with Retry-After. A client on
// another address, with a real credential or a new one, is not affected.
func checkRandomCredentials(t *testing.T, base string, proxy *cluster.Proxy) {
	attacker := fromAddr("127.0.0.50")
	url := base + "/wp-json/cal/events/v1/events?per_page=1"
	before := proxy.CredentialChecks()
	start := time.Now()
	statuses := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 125 {
				r := call(t, http.MethodGet, url, via(attacker), lenient, header("Authorization", randomBasic()))
				mu.Lock()
				statuses[r.status]++
				mu.Unlock()
				if r.status == http.StatusTooManyRequests && (r.header.Get("Retry-After") == "" ||
					!jsonHas(string(r.raw), `{"code":"calshim_rate_limited","message":"`, `","data":{"status":429}}`)) {
					t.Errorf("429 answer: Retry-After %q, %s", r.header.Get("Retry-After"), string(r.raw))
				}
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	checks := proxy.CredentialChecks() - before
	allowed := 20 + int64(took.Seconds()) + 1
	t.Logf("1,000 random credentials in %v: %d upstream credential checks (allowed %d), answers %v",
		took.Round(time.Millisecond), checks, allowed, statuses)
	if checks > allowed || statuses[http.StatusTooManyRequests] < 1000-int(allowed) {
		t.Errorf("%d upstream checks, answers %v", checks, statuses)
	}

	legit := fromAddr("127.0.0.51")
	if r := call(t, http.MethodGet, url, via(legit), lenient, as("editor")); r.status != http.StatusOK {
		t.Errorf("the editor from another address: %d %.200s", r.status, r.raw)
	}
	r := call(t, http.MethodGet, url, via(legit), lenient, header("Authorization", randomBasic()))
	if r.status != http.StatusUnauthorized {
		t.Errorf("a new credential from another address: %d %.200s (want WordPress' 401)", r.status, r.raw)
	}
}

func jsonHas(body, prefix, suffix string) bool {
	return len(body) > len(prefix)+len(suffix) && body[:len(prefix)] == prefix &&
		body[len(body)-len(suffix):] == suffix
}

// A wrong application password is refused by WordPress once; repeated, it gets the same answer
// from memory.
func checkRefusedOnce(t *testing.T, base string, proxy *cluster.Proxy) {
	c := fromAddr("127.0.0.53")
	wrong := "Basic " +
		base64.StdEncoding.EncodeToString([]byte(wpEnv["WP_EDITOR_USER"]+":wrong password"))
	before := proxy.CredentialChecks()
	url := base + "/wp-json/cal/events/v1/events?per_page=1"
	r0 := call(t, http.MethodGet, url, via(c), lenient, header("Authorization", wrong))
	for range 50 {
		r := call(t, http.MethodGet, url, via(c), lenient, header("Authorization", wrong))
		if r.status != r0.status || string(r.raw) != string(r0.raw) {
			t.Fatalf("repeated refusal %d %s differs from the first %d %s", r.status, r.raw, r0.status, r0.raw)
		}
	}
	if n := proxy.CredentialChecks() - before; n != 1 || r0.status != http.StatusUnauthorized {
		t.Errorf("51 requests with a wrong password: %d upstream checks, first answer %d %s", n,
			r0.status, r0.raw)
	}
}

// Behind a trusted proxy (127.0.0.1 here) the client is the address X-Forwarded-For names; from any
// other address the header is not believed.
func checkForwarded(t *testing.T, base string) {
	proxied := fromAddr("127.0.0.1")
	url := base + "/wp-json/cal/events/v1/events?per_page=1"
	limited := func(c *http.Client, xff string) bool {
		for range 40 {
			r := call(t, http.MethodGet, url, via(c), lenient, header("Authorization", randomBasic()), header("X-Forwarded-For", xff))
			if r.status == 429 {
				return true
			}
		}
		return false
	}
	if !limited(proxied, "198.51.100.1") {
		t.Fatal("40 new credentials for 198.51.100.1 were not limited")
	}
	if r := call(t, http.MethodGet, url, via(proxied), lenient, header("Authorization", randomBasic()), header("X-Forwarded-For", "198.51.100.2")); r.status != http.StatusUnauthorized {
		t.Errorf("another forwarded client: %d %.200s", r.status, r.raw)
	}
	// From an address that is not a trusted proxy, a different X-Forwarded-For on every request does
	// not make each one a new client.
	untrusted := fromAddr("127.0.0.56")
	for i := range 40 {
		xff := fmt.Sprintf("198.51.100.%d", 10+i)
		r := call(t, http.MethodGet, url, via(untrusted), lenient, header("Authorization", randomBasic()), header("X-Forwarded-For", xff))
		if r.status == 429 {
			return
		}
	}
	t.Error("an untrusted sender's X-Forwarded-For was believed: 40 new credentials not limited")
}

// Writes are limited per client (here 60/min, burst 5): the sixth write in a row answers 429;
// another address still writes.
func checkWriteLimit(t *testing.T, base string) {
	del := func(ip string) int {
		return call(t, http.MethodDelete, base+v1+"/events/999999", via(fromAddr(ip))).status
	}
	var got []int
	for range 6 {
		got = append(got, del("127.0.0.54"))
	}
	if fmt.Sprint(got) != "[401 401 401 401 401 429]" {
		t.Errorf("six anonymous deletes: %v", got)
	}
	if status := del("127.0.0.55"); status != http.StatusUnauthorized {
		t.Errorf("a delete from another address: %d", status)
	}
}

// Single reads of IDs the catalog does not hold cost WordPress one look-up each, within the
// allowance (default burst 60, 120 a minute): 300 random IDs from one address cost at most the
// burst plus two a second.
func checkLookups(t *testing.T, base string, proxy *cluster.Proxy) {
	c := fromAddr("127.0.0.57")
	before := proxy.Lookups()
	start := time.Now()
	statuses := map[int]int{}
	for range 300 {
		id := 10_000_000 + rand.IntN(1e9)
		r := call(t, http.MethodGet, fmt.Sprintf("%s/wp-json/cal/events/v1/events/%d", base, id), via(c), lenient)
		statuses[r.status]++
	}
	took := time.Since(start)
	lookups := proxy.Lookups() - before
	allowed := 60 + 2*int64(took.Seconds()) + 2
	t.Logf("300 unknown IDs in %v: %d look-ups (allowed %d), answers %v", took.Round(time.Millisecond),
		lookups, allowed, statuses)
	if lookups > allowed || statuses[http.StatusTooManyRequests] == 0 ||
		statuses[http.StatusNotFound] == 0 {
		t.Errorf("%d look-ups, answers %v", lookups, statuses)
	}
	other := fromAddr("127.0.0.58")
	r := call(t, http.MethodGet, base+"/wp-json/cal/events/v1/events/999999999", via(other), lenient)
	if r.status != http.StatusNotFound {
		t.Errorf("an unknown ID from another address: %d", r.status)
	}
}
