package main

import (
	"context"
	"math"
	"runtime/debug"
	"testing"

	"go.uber.org/zap"

	"calshim/catalog"
	"calshim/config"
)

// TestLimitMemory: memory_limit 0 sets the limit from the catalogs (none here: the caches' budgets
// plus the headroom), a positive value sets itself, -1 and GOMEMLIMIT leave the limit alone.
func TestLimitMemory(t *testing.T) {
	defer debug.SetMemoryLimit(math.MaxInt64)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // limitMemory sets the limit, then returns instead of following the catalogs
	run := func(limit int) int64 {
		cfg := config.Default()
		cfg.MemoryLimit = limit
		limitMemory(ctx, cfg, map[string]*catalog.Catalog{}, zap.NewNop())
		return debug.SetMemoryLimit(-1)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	cfg := config.Default()
	if got, want := run(0), int64(cfg.ResponseCache.MaxBytes+cfg.ResponseCache.EventBytes+memoryHeadroom); got != want {
		t.Errorf("auto: limit %d, want %d", got, want)
	}
	if got := run(512 << 20); got != 512<<20 {
		t.Errorf("memory_limit 512 MiB: limit %d", got)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	if got := run(-1); got != math.MaxInt64 {
		t.Errorf("memory_limit -1: limit %d", got)
	}

	t.Setenv("GOMEMLIMIT", "1GiB") // the runtime read it at start; limitMemory must not replace it
	debug.SetMemoryLimit(1 << 30)
	if got := run(0); got != 1<<30 {
		t.Errorf("GOMEMLIMIT's limit was replaced by %d", got)
	}
}
