package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
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
	noCgroup := []string{filepath.Join(t.TempDir(), "memory.max")}
	defer func(files []string) { cgroupMemoryFiles = files }(cgroupMemoryFiles)
	cgroupMemoryFiles = noCgroup
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
	if got, want := run(0), int64(cfg.ResponseCache.MaxBytes+cfg.ResponseCache.EventBytes+cfg.Limits.MemoryBudget+memoryHeadroom); got != want {
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

// In a container whose memory limit is below the catalogs' limit, the soft limit is cgroupShare of
// the container's; a container without one (v2's "max") leaves the catalogs' limit alone.
func TestLimitMemoryCgroup(t *testing.T) {
	defer debug.SetMemoryLimit(math.MaxInt64)
	defer func(files []string) { cgroupMemoryFiles = files }(cgroupMemoryFiles)
	file := filepath.Join(t.TempDir(), "memory.max")
	cgroupMemoryFiles = []string{file}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := config.Default()
	auto := int64(cfg.ResponseCache.MaxBytes + cfg.ResponseCache.EventBytes + cfg.Limits.MemoryBudget +
		memoryHeadroom)
	container := int64(64 << 20)

	for content, want := range map[string]int64{
		"67108864\n":     int64(cgroupShare * float64(container)),
		"max\n":          auto,
		"68719476736\n":  auto, // 64 GiB: above the catalogs' limit
		"not a number\n": auto,
	} {
		if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		limitMemory(ctx, cfg, map[string]*catalog.Catalog{}, zap.NewNop())
		if got := debug.SetMemoryLimit(-1); got != want {
			t.Errorf("memory.max %q: limit %d, want %d", content, got, want)
		}
	}
}

// The container's ceiling holds while the catalogs load, in the automatic mode only.
func TestCapLoad(t *testing.T) {
	defer debug.SetMemoryLimit(math.MaxInt64)
	defer func(files []string) { cgroupMemoryFiles = files }(cgroupMemoryFiles)
	file := filepath.Join(t.TempDir(), "memory.max")
	cgroupMemoryFiles = []string{file}
	if err := os.WriteFile(file, []byte("67108864\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	capLoad(cfg)
	container := float64(64 << 20)
	if got, want := debug.SetMemoryLimit(-1), int64(cgroupShare*container); got != want {
		t.Errorf("automatic mode: limit during the load %d, want %d", got, want)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	cfg.MemoryLimit = -1
	capLoad(cfg)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory_limit -1: limit during the load %d, want none", got)
	}
}

// cgroupLimit reads v2's file, else v1's; v1's figure for no limit and v2's "max" are none.
func TestCgroupLimit(t *testing.T) {
	dir := t.TempDir()
	v2, v1 := filepath.Join(dir, "memory.max"), filepath.Join(dir, "memory.limit_in_bytes")
	if got := cgroupLimit([]string{v2, v1}); got != 0 {
		t.Errorf("no files: %d", got)
	}
	for _, step := range []struct { // in order: v2's file, once written, hides v1's
		file, content string
		want          int64
	}{
		{v1, "9223372036854771712\n", 0},
		{v1, "402653184\n", 402653184},
		{v2, "max\n", 0},
		{v2, "1073741824\n", 1 << 30},
	} {
		if err := os.WriteFile(step.file, []byte(step.content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := cgroupLimit([]string{v2, v1}); got != step.want {
			t.Errorf("%s %q: %d, want %d", filepath.Base(step.file), step.content, got, step.want)
		}
	}
}
