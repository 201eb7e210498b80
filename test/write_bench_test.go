package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
)

// BenchmarkWriteThroughput measures event creation through calshim against the same creation
// straight on wp/v2 (with the meta calshim writes), from several concurrent clients; every creation
// must succeed. It fills the rig with events (`make test` reseeds it):
//
//	go test -run '^$' -bench WriteThroughput -benchtime 10s ./test/
func BenchmarkWriteThroughput(b *testing.B) {
	// create posts body as the editor, from the benchmark's goroutines.
	create := func(target string, body []byte) (int, error) {
		r := call(b, http.MethodPost, target, as("editor"), jsonBody(string(body)), lenient)
		return r.status, r.err
	}
	shimCreate := func(i int64) (int, error) {
		body, _ := json.Marshal(map[string]any{"title": fmt.Sprintf("Bench %d", i), "start_date": "2032-01-01 10:00:00",
			"end_date": "2032-01-01 11:00:00"})
		return create(v1+"/events", body)
	}
	wpCreate := func(i int64) (int, error) {
		body, _ := json.Marshal(map[string]any{"title": fmt.Sprintf("Bench WP %d", i), "status": "publish", "meta": map[string]any{
			"_EventStartDate": "2032-01-01 10:00:00", "_EventEndDate": "2032-01-01 11:00:00", "_EventStartDateUTC": "2032-01-01 15:00:00",
			"_EventEndDateUTC": "2032-01-01 16:00:00", "_EventTimezone": "America/New_York", "_EventTimezoneAbbr": "EST",
			"_EventDuration": "3600", "_EventShowMap": "", "_EventShowMapLink": ""}})
		return create(wpEnv["WP_URL"]+"/wp-json/wp/v2/tribe_events", body)
	}
	for _, run := range []struct {
		name   string
		create func(int64) (int, error)
	}{{"wp-v2-direct", wpCreate}, {"calshim", shimCreate}} {
		b.Run(run.name, func(b *testing.B) {
			var next, created atomic.Int64
			b.SetParallelism(2) // clients per GOMAXPROCS: WordPress, not the client, is the bottleneck
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					i := next.Add(1)
					if status, err := run.create(i); err != nil || status != http.StatusCreated {
						b.Errorf("creation %d: status %d, %v", i, status, err)
						continue
					}
					created.Add(1)
				}
			})
			if created.Load() != int64(b.N) {
				b.Errorf("%d of %d creations succeeded", created.Load(), b.N)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "creations/s")
		})
	}
}
