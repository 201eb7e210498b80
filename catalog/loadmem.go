package catalog

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
)

// loadBound bounds a full load's heap. The load decodes the whole catalog with the collector
// slowed down (GOGC 200) and then builds the snapshot: unbounded, the heap reached about three
// times what it kept (2.5 GB of RSS for 1.1 GB of catalog at a million events). After each page
// it sets Go's soft memory limit to loadGrowth times the heap the load will hold when every post
// is read (the heap live at the last collection, per post read by then, times the posts to read)
// plus loadRoom: the collector stays slowed down while the heap is far below that, and runs as
// often as it must near the end. The projection follows the posts' own size, whatever a site's
// posts hold. The limit before the load is put back when it ends (done).
type loadBound struct {
	total  int    // the posts the load reads
	read   int    // the posts read so far
	atGC   int    // the posts read by the last collection seen
	cycles uint64 // the collections seen
	prev   int64  // the limit before the load
	sample [2]metrics.Sample
}

const (
	// loadGrowth is what the limit allows above the projected heap: the snapshot's maps, lists and
	// index built from the posts, and garbage to collect. The load's peak is about this times the
	// catalog: at 1.4 a million events' load reached 1.6 GB. Collections near the limit cost little:
	// the posts are stored in blocks of few pointers (a collection of a million events' heap marks
	// in about 0.1 s of CPU).
	loadGrowth = 1.2
	// loadRoom is room for the pages being read and decoded (a few MB each) and a small catalog.
	loadRoom = 64 << 20
)

func newLoadBound(total int) *loadBound {
	b := &loadBound{total: total, prev: debug.SetMemoryLimit(-1)}
	b.sample[0].Name, b.sample[1].Name = "/gc/heap/live:bytes", "/gc/cycles/total:gc-cycles"
	return b
}

// page records n more posts read (with the caller's lock on the load's maps) and sets the limit
// from them.
func (b *loadBound) page(n int) {
	if b == nil {
		return
	}
	metrics.Read(b.sample[:])
	live, cycles := b.sample[0].Value.Uint64(), b.sample[1].Value.Uint64()
	if cycles != b.cycles { // a collection ran while this page was read: before it was counted
		b.cycles, b.atGC = cycles, b.read
	}
	b.read += n
	if b.atGC < bulkChunk || live == 0 { // too few posts yet to project from
		return
	}
	projected := float64(live) / float64(b.atGC) * float64(b.total)
	debug.SetMemoryLimit(min(int64(math.Min(loadGrowth*projected, math.MaxInt64/2))+loadRoom, b.prev))
}

// done puts back the limit from before the load.
func (b *loadBound) done() {
	if b != nil {
		debug.SetMemoryLimit(b.prev)
	}
}
