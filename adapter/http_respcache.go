package adapter

import (
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// respCache keeps rendered anonymous GET answers within a number of entries and of bytes, evicting
// the least recently used: a flood of distinct or large answers pushes out older entries instead of
// filling the cache and turning it off for everyone until they expire. Entries expire TTL after
// they were stored (the clock-dependent default date window); an expired entry is dropped when
// read, or when it reaches the least recently used end, and holds at most its bytes until then.
// One mutex guards the list and the byte count together, so the bound holds at every moment; a hit
// takes it too, as it moves the entry to the front.
type respCache struct {
	mu       sync.Mutex
	lru      *simplelru.LRU[string, *cached]
	bytes    int64 // what the entries hold (entrySize)
	maxBytes int64 // 0: entries alone bound the cache
	ttl      time.Duration
	now      func() time.Time
}

// cached is one entry: a copy of the answer, its size and when it expires.
type cached struct {
	out     *rendered
	size    int64
	expires time.Time
}

// maxEntryShare: an answer larger than this share of the byte budget is not kept, so that one
// large feed cannot push out most of the cache at once.
const maxEntryShare = 8

// newRespCache returns a cache of at most entries entries and maxBytes bytes (0: no byte bound),
// or nil (no cache) when entries is 0.
func newRespCache(entries, maxBytes int, ttl time.Duration, now func() time.Time) *respCache {
	if entries <= 0 {
		return nil
	}

	c := &respCache{maxBytes: int64(maxBytes), ttl: ttl, now: now}
	c.lru, _ = simplelru.NewLRU(entries, func(_ string, e *cached) { c.bytes -= e.size })
	return c
}

// get returns the answer stored under key, unless expired.
func (c *respCache) get(key string) (*rendered, bool) {
	if c == nil {
		return nil, false
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.lru.Get(key)
	if !ok {
		return nil, false
	}
	if !c.now().Before(e.expires) {
		c.lru.Remove(key)
		return nil, false
	}

	return e.out, true
}

// store keeps a copy of out under key, evicting expired and then least recently used entries
// until it fits.
func (c *respCache) store(key string, out *rendered) {
	size := entrySize(key, out)
	if c == nil || (c.maxBytes > 0 && size > c.maxBytes/maxEntryShare) {
		return
	}

	kept := *out
	kept.body, kept.release = slices.Clone(out.body), nil // out's body goes back to its pool once sent
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	c.lru.Remove(key) // an entry replaced in place would not give its bytes back
	for {
		_, oldest, ok := c.lru.GetOldest()
		if !ok || (now.Before(oldest.expires) && (c.maxBytes == 0 || c.bytes+size <= c.maxBytes)) {
			break
		}
		c.lru.RemoveOldest()
	}

	c.lru.Add(key, &cached{out: &kept, size: size, expires: now.Add(c.ttl)})
	c.bytes += size
}

// entrySize is what a cache entry holds, roughly: key, body and headers, plus the bookkeeping of
// the entry and of the header map.
func entrySize(key string, out *rendered) int64 {
	n := len(key) + len(out.body) + len(out.etag) + 512
	for k, v := range out.fixed {
		n += len(k) + 48
		for _, s := range v {
			n += len(s) + 16
		}
	}

	return int64(n)
}

// usage answers how many entries the cache holds and their bytes (0, 0 for no cache).
func (c *respCache) usage() (entries int, bytes int64) {
	if c == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.bytes
}
