package main

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"calshim/catalog"
	"calshim/config"
)

// Go's collector lets the heap grow to twice what is live before it collects: with a large catalog
// and the response caches full, RSS under uncached traffic approached twice what calshim holds. A
// soft memory limit just above what it holds makes the collector run earlier, for a little more CPU
// in GC at that traffic (README, Performance, gives the measured figures).
const (
	// memoryHeadroom is what the limit leaves above the catalogs and the budgets (the caches', the
	// requests' limits.memory_budget): what requests allocate besides (small answers, headers) and
	// while a collection runs.
	memoryHeadroom = 48 << 20
	// catalogGrowth is the margin on the catalogs' size scaled by post count: the limit is scaled
	// only once a minute, and a poll's new snapshot holds the blocks and shards it rebuilt beside
	// the old ones until readers let go of them (a poll patches: a few blocks and shards, not a
	// copy of the catalog). 1.25 left RSS at 1.46-1.55 GB after loading a million events, above the
	// 1.5 GB asked.
	catalogGrowth = 1.1
	// memoryLimitEvery is how often the limit follows the catalogs' post count.
	memoryLimitEvery = time.Minute
	// cgroupShare is the part of the container's memory limit the soft limit may reach: the kernel
	// counts there what Go's limit does not (the snapshot file's page cache, memory outside Go's
	// heap), and a container over its limit is killed.
	cgroupShare = 0.9
)

// cgroupMemoryFiles hold the container's memory limit: cgroup v2's, then v1's.
var cgroupMemoryFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// limitMemory sets Go's soft memory limit once the catalogs are loaded and keeps it following
// their size until ctx ends: cfg.MemoryLimit bytes when positive; none when -1 or when GOMEMLIMIT
// set one; else catalogGrowth times the heap live after the load (measured now, then every minute,
// per post times the catalogs' post count) plus the response caches' budgets plus memoryHeadroom,
// never above cgroupShare of the container's memory limit when it has one.
func limitMemory(ctx context.Context, cfg config.Config, catalogs map[string]*catalog.Catalog,
	log *zap.Logger) {
	switch {
	case os.Getenv("GOMEMLIMIT") != "": // the runtime applied it
		log.Info("memory limit", zap.Int64("bytes", debug.SetMemoryLimit(-1)), zap.String("from", "GOMEMLIMIT"))
		return
	case cfg.MemoryLimit == -1:
		return
	case cfg.MemoryLimit > 0:
		debug.SetMemoryLimit(int64(cfg.MemoryLimit))
		log.Info("memory limit", zap.Int("bytes", cfg.MemoryLimit), zap.String("from", "memory_limit"))
		return
	}

	runtime.GC() // what is live now is the catalogs (the load's garbage is gone)
	posts := postCount(catalogs)
	perPost := float64(heapLive()) / float64(max(posts, 1))
	// The requests' memory budget bounds what requests in flight hold (adapter's http_request.go).
	budgets := int64(cfg.ResponseCache.MaxBytes + cfg.ResponseCache.EventBytes + cfg.Limits.MemoryBudget)
	ceiling := int64(cgroupShare * float64(cgroupLimit(cgroupMemoryFiles)))
	limit := func(posts int) int64 {
		l := int64(catalogGrowth*perPost*float64(posts)) + budgets + memoryHeadroom
		if ceiling > 0 {
			return min(l, ceiling)
		}
		return l
	}

	debug.SetMemoryLimit(limit(posts))
	log.Info("memory limit", zap.Int64("bytes", limit(posts)), zap.String("from", "catalog size"),
		zap.Int("posts", posts), zap.Float64("bytes_per_post", perPost), zap.Int64("ceiling", ceiling))
	t := time.NewTicker(memoryLimitEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			// The heap per post is measured again: what the catalogs hold besides their posts (the
			// sync journal's earlier states, up to sync.max_bytes) does not follow the post count.
			// A catch-up that removed 100,000 of 1.1 million posts left the journal holding their
			// states and the heap live at the limit scaled down by the count, the collector running
			// back to back.
			posts := postCount(catalogs)
			perPost = float64(heapLive()) / float64(max(posts, 1))
			debug.SetMemoryLimit(limit(posts))
		}
	}
}

// capLoad sets cgroupShare of the container's memory limit as the soft limit while the catalogs
// load, in the automatic mode (limitMemory replaces it once they are loaded), so that a cold load
// collects before the kernel kills the container.
func capLoad(cfg config.Config) {
	if os.Getenv("GOMEMLIMIT") != "" || cfg.MemoryLimit != 0 {
		return
	}
	if ceiling := int64(cgroupShare * float64(cgroupLimit(cgroupMemoryFiles))); ceiling > 0 {
		debug.SetMemoryLimit(ceiling)
	}
}

// postCount is the number of posts the catalogs hold.
func postCount(catalogs map[string]*catalog.Catalog) int {
	n := 0
	for _, c := range catalogs {
		if s := c.Snapshot(); s != nil {
			n += len(s.Events) + len(s.Venues) + len(s.Organizers)
		}
	}
	return n
}

// heapLive is the heap marked live by the last collection.
func heapLive() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// cgroupLimit is the container's memory limit in bytes, read from the first of files that exists; 0
// when there is none: no file, cgroup v2's "max", or v1's figure for none (near the largest int64).
func cgroupLimit(files []string) int64 {
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n <= 0 || n >= 1<<62 {
			return 0
		}
		return n
	}
	return 0
}
