package adapter

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"go.uber.org/zap"

	"calshim/internal/testkit/wpfake"
)

// Filling the response cache with many distinct large answers (feeds under made-up arguments) does
// not turn it off: a new popular answer is still stored and served as a hit, older entries are
// evicted instead, and the bytes held never exceed the budget.
func TestFullResponseCacheStillCaches(t *testing.T) {
	const budget = 256 << 10
	opt := testOptions()
	opt.CacheTTL, opt.CacheMaxEntries, opt.CacheMaxBytes = time.Minute, 10000, budget
	s, h := newServer(fakeCatalog(t, wpfake.New(t)), zap.NewNop(), opt)
	filled := 0
	for i := range 100 {
		rec := serve(h, http.MethodGet, fmt.Sprintf("/wp-json/cal/events/v1/events.ics?fill=%d", i))
		if rec.Code != 200 {
			t.Fatalf("feed %d: %d %.200s", i, rec.Code, rec.Body)
		}
		filled += rec.Body.Len()
		if held := cacheBytes(s); held > budget {
			t.Fatalf("after %d feeds the cache holds %d bytes, budget %d", i+1, held, budget)
		}
	}

	if filled < 4*budget {
		t.Fatalf("the feeds sent %d bytes, too few to fill a budget of %d", filled, budget)
	}

	const popular = "/wp-json/cal/events/v1/events?per_page=5"
	for range 3 {
		serve(h, http.MethodGet, popular)
	}

	body := serve(h, http.MethodGet, "/metrics").Body.String()
	want := `calshim_http_requests_total{cache="hit",method="GET",route="/events",status="200"} 2`
	if !containsLine(body, want) {
		t.Errorf("a full cache did not serve the new popular answer twice: no line %s", want)
	}
}

func cacheBytes(s *Server) int64 {
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	return s.cache.bytes
}

func answerOf(n int) *rendered { return &rendered{body: make([]byte, n), etag: `"x"`} }

// The least recently used entry goes first; a read makes an entry recent; replacing an entry gives
// its bytes back; the count of entries is a bound too.
func TestResponseCacheEvictsLeastRecentlyUsed(t *testing.T) {
	size := entrySize("a", answerOf(1000))
	c := newRespCache(100, int(10*size), time.Minute, time.Now)
	for i := range 10 {
		c.store(fmt.Sprint(i), answerOf(1000))
	}
	c.get("0")                   // 1 is now the least recently used
	c.store("0", answerOf(1000)) // replaced: no eviction
	c.store("x", answerOf(1000))
	if _, ok := c.get("1"); ok {
		t.Error("the least recently used entry was kept past the budget")
	}
	for _, k := range []string{"0", "2", "9", "x"} {
		if _, ok := c.get(k); !ok {
			t.Errorf("entry %s evicted", k)
		}
	}
	if c.bytes != 10*size || c.lru.Len() != 10 {
		t.Errorf("%d entries of %d bytes, want 10 of %d", c.lru.Len(), c.bytes, 10*size)
	}

	few := newRespCache(3, 0, time.Minute, time.Now)
	for i := range 5 {
		few.store(fmt.Sprint(i), answerOf(10))
	}
	if _, ok := few.get("1"); ok || few.lru.Len() != 3 {
		t.Errorf("entry bound: %d entries, the second one kept: %v", few.lru.Len(), ok)
	}
}

// An answer larger than an eighth of the budget is not kept (it would push out most of the cache);
// one just within it is.
func TestResponseCacheSkipsLargeAnswers(t *testing.T) {
	const budget = 80_000
	c := newRespCache(100, budget, time.Minute, time.Now)
	c.store("small", answerOf(1000))
	c.store("large", answerOf(budget/maxEntryShare))
	fits := budget/maxEntryShare - int(entrySize("fits", answerOf(0)))
	c.store("fits", answerOf(fits))
	if _, ok := c.get("large"); ok {
		t.Error("an answer over an eighth of the budget was kept")
	}
	if _, ok := c.get("fits"); !ok {
		t.Error("an answer of an eighth of the budget was not kept")
	}
	if _, ok := c.get("small"); !ok {
		t.Error("a large answer pushed out a small one")
	}
}

// Entries expire TTL after they were stored, however often read, and give their bytes back; an
// expired entry at the least recently used end is dropped by the next store.
func TestResponseCacheExpiry(t *testing.T) {
	now := time.Unix(1000, 0)
	c := newRespCache(100, 0, time.Minute, func() time.Time { return now })
	c.store("a", answerOf(100))
	c.store("b", answerOf(100))
	now = now.Add(59 * time.Second)
	if _, ok := c.get("a"); !ok {
		t.Fatal("entry gone before its TTL")
	}

	now = now.Add(time.Second)
	if _, ok := c.get("a"); ok {
		t.Error("entry served after its TTL")
	}
	c.store("c", answerOf(100)) // b, expired and least recently used, goes
	if c.lru.Len() != 1 || c.bytes != entrySize("c", answerOf(100)) {
		t.Errorf("%d entries, %d bytes after expiry", c.lru.Len(), c.bytes)
	}

	var off *respCache // max entries 0: no cache
	off.store("a", answerOf(1))
	if _, ok := off.get("a"); ok || newRespCache(0, 100, time.Minute, time.Now) != nil {
		t.Error("a cache of no entries keeps answers")
	}
}
