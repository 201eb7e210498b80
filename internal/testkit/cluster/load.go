package cluster

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Load sends a steady stream of GETs through the load balancer and counts answers: any answer but
// 200 (or a request that fails on the network) is a failed read.
type Load struct {
	ok, failed atomic.Int64
	mu         sync.Mutex
	failures   []string // the first few, for the report
	stop       chan struct{}
	wg         sync.WaitGroup
}

// StartLoad starts workers reading the paths below base in turn, each pausing between requests.
func StartLoad(base string, paths []string, workers int, pause time.Duration) *Load {
	l := &Load{stop: make(chan struct{})}
	client := &http.Client{Timeout: 20 * time.Second,
		Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	for w := range workers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for i := w; ; i++ {
				select {
				case <-l.stop:
					return
				case <-time.After(pause):
				}
				l.read(client, base+paths[i%len(paths)])
			}
		}()
	}

	return l
}

func (l *Load) read(client *http.Client, url string) {
	res, err := client.Get(url)
	if err == nil {
		body, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if res.StatusCode == http.StatusOK {
			l.ok.Add(1)
			return
		}
		err = fmt.Errorf("%d %.120s", res.StatusCode, body)
	}

	l.failed.Add(1)
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.failures) < 10 {
		l.failures = append(l.failures, time.Now().Format("15:04:05.000")+" "+url+": "+err.Error())
	}
}

// Counts returns the reads answered 200 and the failed ones so far.
func (l *Load) Counts() (ok, failed int64) { return l.ok.Load(), l.failed.Load() }

// Failures returns the first failed reads, described.
func (l *Load) Failures() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.failures...)
}

// Stop ends the load and waits for the requests under way.
func (l *Load) Stop() {
	close(l.stop)
	l.wg.Wait()
}
