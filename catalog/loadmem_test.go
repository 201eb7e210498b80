package catalog

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

// A load's bound projects the heap per post read by the last collection onto the posts to read,
// never above the limit before the load, and puts that limit back when the load ends.
func TestLoadBoundProjects(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	for _, prev := range []int64{math.MaxInt64, 96 << 20} {
		debug.SetMemoryLimit(prev)
		b := newLoadBound(20 * bulkChunk)
		held := make([][]byte, 0, 2)
		for range 3 { // pages of about 16 MB each, a collection between them
			held = append(held, make([]byte, 16<<20))
			runtime.GC()
			b.page(bulkChunk)
		}
		live := heapLiveNow()
		limit := debug.SetMemoryLimit(-1)
		// live per post read at the last collection (2 pages' worth), times 20 pages, times loadGrowth.
		want := min(int64(loadGrowth*float64(live)/2*20)+loadRoom, prev)
		if limit > want+want/4 || limit < want-want/4 {
			t.Errorf("limit before %d: %d during the load, want about %d (heap live %d)", prev, limit, want, live)
		}
		b.done()
		if got := debug.SetMemoryLimit(-1); got != prev {
			t.Errorf("limit after the load %d, want %d", got, prev)
		}
		runtime.KeepAlive(held)
	}
	var none *loadBound // a load through wp/v2 has none
	none.page(5)
	none.done()
}

func heapLiveNow() uint64 {
	b := newLoadBound(0)
	b.page(0)
	return b.sample[0].Value.Uint64()
}
