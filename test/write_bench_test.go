package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestWriteThroughput measures event creation through calshim against the same creation straight on
// wp/v2 (with the meta calshim writes), with a few concurrent clients for a fixed time each. It only
// runs with CALSHIM_BENCH=1 (it fills the rig with events: `make test` reseeds it).
//
//	CALSHIM_BENCH=1 go test -count=1 -run TestWriteThroughput -v ./test/
func TestWriteThroughput(t *testing.T) {
	if os.Getenv("CALSHIM_BENCH") == "" {
		t.Skip("set CALSHIM_BENCH=1 to run")
	}
	const clients, duration = 4, 10 * time.Second
	auth := as("editor")
	shimCreate := func(i int) (int, error) {
		b, _ := json.Marshal(map[string]any{"title": fmt.Sprintf("Bench %d", i), "start_date": "2032-01-01 10:00:00", "end_date": "2032-01-01 11:00:00"})
		return post(shim+"/wp-json/cal/events/v1/events", b, auth)
	}
	wpCreate := func(i int) (int, error) {
		b, _ := json.Marshal(map[string]any{"title": fmt.Sprintf("Bench WP %d", i), "status": "publish", "meta": map[string]any{
			"_EventStartDate": "2032-01-01 10:00:00", "_EventEndDate": "2032-01-01 11:00:00", "_EventStartDateUTC": "2032-01-01 15:00:00",
			"_EventEndDateUTC": "2032-01-01 16:00:00", "_EventTimezone": "America/New_York", "_EventTimezoneAbbr": "EST",
			"_EventDuration": "3600", "_EventShowMap": "", "_EventShowMapLink": ""}})
		return post(wpEnv["WP_URL"]+"/wp-json/wp/v2/tribe_events", b, auth)
	}
	for _, run := range []struct {
		name   string
		create func(int) (int, error)
	}{{"wp/v2 direct", wpCreate}, {"calshim", shimCreate}} {
		var ok, failed atomic.Int64
		var wg sync.WaitGroup
		deadline := time.Now().Add(duration)
		for c := 0; c < clients; c++ {
			wg.Add(1)
			go func(c int) {
				defer wg.Done()
				for i := 0; time.Now().Before(deadline); i++ {
					if status, err := run.create(c*100000 + i); err != nil || status != http.StatusCreated {
						failed.Add(1)
						continue
					}
					ok.Add(1)
				}
			}(c)
		}
		wg.Wait()
		t.Logf("%-13s %d clients, %v: %d created (%.1f/s), %d failed", run.name, clients, duration, ok.Load(),
			float64(ok.Load())/duration.Seconds(), failed.Load())
	}
}

func post(url string, body []byte, header []string) (int, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(header[0], header[1])
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	var sink json.RawMessage
	_ = json.NewDecoder(res.Body).Decode(&sink)
	return res.StatusCode, nil
}
