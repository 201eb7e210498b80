package adapter

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"calshim/internal/wpfake"
)

// BenchmarkEventArchive measures an uncached GET /events over a catalog of 10,000 events: the filter,
// sort and render path every cache miss takes.
func BenchmarkEventArchive(b *testing.B) {
	wp := wpfake.New(b)
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := 0; i < 10000; i++ {
		day := start.Add(time.Duration(i) * time.Hour).Format("2006-01-02 15:04:05")
		wp.Clone("tribe_events", 17, 100000+i, func(o wpfake.Object) {
			o["slug"] = fmt.Sprintf("bulk-%d", i)
			meta := wp.Sub(wp.Sub(o, "calshim"), "meta")
			meta["_EventStartDate"] = []any{day}
			meta["_EventEndDate"] = []any{day}
		})
	}
	h := fakeServer(b, wp)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// A distinct query string per request: every request is a cache miss.
		rec := serveGET(h, fmt.Sprintf("/wp-json/cal/events/v1/events?per_page=10&n=%d", i))
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code, rec.Body.String())
		}
	}
}
