package adapter

import (
	"slices"

	gocache "github.com/patrickmn/go-cache"
)

// store keeps a rendered anonymous answer in the response cache while the cache holds fewer than
// CacheMaxEntries entries and, when CacheMaxBytes is set, fewer bytes than that: beyond either
// bound new answers are served but not stored (distinct URLs cannot grow memory without bound).
// Expired entries count until the cache's cleanup (every TTL) evicts them.
func (s *Server) store(key string, out *rendered) {
	size := entrySize(key, out)
	if s.cache.ItemCount() >= s.opt.CacheMaxEntries ||
		(s.opt.CacheMaxBytes > 0 && s.cacheBytes.Load()+size > int64(s.opt.CacheMaxBytes)) {
		return
	}

	// An expired entry under the same key is replaced: evicted first, so that its bytes are
	// subtracted (gocache replaces without telling). A concurrent store of the same answer may win
	// the Add; then this one is not counted.
	s.cache.Delete(key)
	kept := *out
	kept.body, kept.release = slices.Clone(out.body), nil // out's body goes back to its pool once sent
	if s.cache.Add(key, &kept, gocache.DefaultExpiration) == nil {
		s.cacheBytes.Add(size)
	}
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
