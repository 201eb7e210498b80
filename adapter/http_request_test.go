package adapter

import (
	"errors"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"

	"calshim/internal/testkit/wpfake"
)

// The request envelope by input channel: the path, the query, each header a client may send (the
// ones calshim reads and any other), crossed with size and count. Every refusal comes before any
// work: its cost is measured in bytes allocated, which must not follow what was sent.

// envelopeHeaders are headers calshim reads, and one it does not.
var envelopeHeaders = []string{"Authorization", "Cookie", "X-WP-Nonce", "X-Forwarded-Proto",
	"X-Forwarded-For", "X-Forwarded-Host", "X-HTTP-Method-Override", "Accept-Encoding",
	"If-None-Match", "Origin", "X-Request-ID", "X-Calshim-Min-Seq", "X-Unknown"}

func TestEnvelopeRefusesLongLinesAndHeaders(t *testing.T) {
	h := newTestServer(t)
	events := calV1 + "/events"
	type tc struct {
		name   string
		target string
		opts   []reqOption
		status int
	}
	cases := []tc{
		{"path at 8 KiB", calV1 + "/events/by-slug/" + strings.Repeat("a", 8<<10), nil, 414},
		{"query at 8 KiB", events + "?_fields=" + strings.Repeat("a,", 4<<10), nil, 414},
		{"path within", calV1 + "/events/by-slug/" + strings.Repeat("a", 7<<10), nil, 400},
		{"many headers of 4 KiB", events, manyHeaders(9, 4<<10), 431},
		{"headers within", events, manyHeaders(6, 4<<10), 200},
	}
	for _, name := range envelopeHeaders {
		cases = append(cases,
			tc{name + " past 8 KiB", events, []reqOption{withHeader(name, strings.Repeat("a", 8<<10))}, 431},
			tc{name + " repeated past 32 KiB", events, []reqOption{addHeaders(name, 6, 6<<10)}, 431})
	}
	serve(h, http.MethodGet, events) // what a first request sets up is not the refusals'
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var rec *http.Response
			allocated := bytesAllocated(func() { rec = serve(h, http.MethodGet, c.target, c.opts...).Result() })
			if rec.StatusCode != c.status {
				t.Fatalf("status %d, want %d", rec.StatusCode, c.status)
			}
			if c.status > 400 && allocated > 256<<10 {
				t.Errorf("the refusal allocated %d bytes", allocated)
			}
		})
	}
}

// TestEnvelopeRefusesLargeBodiesUnread: a declared length past the limit is refused before a byte
// is read, whatever the body kind; a chunked one is cut at the limit.
func TestEnvelopeRefusesLargeBodiesUnread(t *testing.T) {
	h := newTestServer(t)
	serve(h, http.MethodGet, calV1+"/events")
	for _, ct := range []string{"application/json", "application/x-www-form-urlencoded",
		"multipart/form-data; boundary=B", "text/plain"} {
		var status int
		allocated := bytesAllocated(func() {
			status = serve(h, http.MethodPost, calV1+"/events", func(r *http.Request) {
				r.Header.Set("Content-Type", ct)
				r.Body = io.NopCloser(unreadable{})
				r.ContentLength = 64 << 20
			}).Code
		})
		if status != http.StatusRequestEntityTooLarge || allocated > 256<<10 {
			t.Errorf("%s: %d, %d bytes allocated; want 413 unread", ct, status, allocated)
		}

		status = serve(h, http.MethodPost, calV1+"/events", func(r *http.Request) {
			r.Header.Set("Content-Type", ct)
			r.Body = io.NopCloser(io.LimitReader(zeros{}, 4<<20))
			r.ContentLength = -1 // chunked
		}).Code
		if status != http.StatusRequestEntityTooLarge {
			t.Errorf("%s chunked past the limit: %d, want 413", ct, status)
		}
	}
}

// TestMemoryBudgetBoundsConcurrentBodies: bodies decoded at once hold at most the budget: past it
// requests answer 503 with Retry-After instead of growing. 12 anonymous JSON bodies of 1 MiB of
// numbers (each 57 MiB decoded) against a budget of 64 MiB: the heap in use never passes budget
// plus one body's garbage, and some are refused.
func TestMemoryBudgetBoundsConcurrentBodies(t *testing.T) {
	opt := testOptions()
	_, h := newServer(fakeCatalog(t, wpfake.New(t)), zap.NewNop(), opt)
	body := `{"title":"x","a":[` + strings.Repeat("0,", (1<<20)/2-16) + `0]}`
	var base runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&base)
	stop := make(chan struct{})
	peak := make(chan uint64)
	go watchHeap(stop, peak)

	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := serve(h, http.MethodPost, calV1+"/events", jsonBody(body))
			mu.Lock()
			statuses[rec.Code]++
			mu.Unlock()
			if rec.Code == http.StatusServiceUnavailable && rec.Header().Get("Retry-After") == "" {
				t.Error("503 without Retry-After")
			}
		}()
	}
	wg.Wait()
	close(stop)
	grown := int64(<-peak) - int64(base.HeapInuse)
	t.Logf("statuses %v, heap grew %d MiB at most", statuses, grown>>20)
	if statuses[http.StatusServiceUnavailable] == 0 {
		t.Error("no request was refused for the budget")
	}
	if limit := int64(DefaultMemoryBudget + 64<<20); grown > limit {
		t.Errorf("heap in use grew by %d MiB, past the budget's %d MiB", grown>>20, limit>>20)
	}
}

// watchHeap reports the largest HeapInuse seen until stop closes.
func watchHeap(stop <-chan struct{}, peak chan<- uint64) {
	var most uint64
	var m runtime.MemStats
	for {
		runtime.ReadMemStats(&m)
		most = max(most, m.HeapInuse)
		select {
		case <-stop:
			peak <- most
			return
		default:
			runtime.Gosched()
		}
	}
}

// manyHeaders sets n distinct headers of size bytes each.
func manyHeaders(n, size int) []reqOption {
	var out []reqOption
	for i := range n {
		out = append(out, withHeader("X-Filler-"+string(rune('a'+i)), strings.Repeat("v", size)))
	}
	return out
}

// addHeaders sends name n times, each value size bytes.
func addHeaders(name string, n, size int) reqOption {
	return func(r *http.Request) {
		for range n {
			r.Header.Add(name, strings.Repeat("v", size))
		}
	}
}

// bytesAllocated is what f allocates on the heap.
func bytesAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

type unreadable struct{}

func (unreadable) Read([]byte) (int, error) { return 0, errors.New("the body was read") }

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

// TestFieldsWorkingSetBounded: a `_fields` selection (a query's, or a write body's of up to 1 MiB)
// holds what it charges the budget, by shape: one dotted name of a million parts stops at 16
// levels; many distinct names charge at least what they allocate; a name repeated walks what it
// made.
func TestFieldsWorkingSetBounded(t *testing.T) {
	var wide, flat []string
	for i := 0; len(wide)*8 < 1<<20; i++ {
		wide = append(wide, strconv.Itoa(i)+".a")
		flat = append(flat, strconv.Itoa(i))
	}
	for _, c := range []struct {
		name   string
		fields any
		most   uint64 // bytes it may allocate beyond what it charges
	}{
		{"one deep name", strings.Repeat("a.", 1<<19) + "a", 64 << 10},
		{"a name repeated", strings.Repeat("a.b.c,", 1<<17), 64 << 10},
		{"distinct dotted names", strings.Join(wide, ","), 64 << 10},
		{"distinct names", strings.Join(flat, ","), 64 << 10},
		{"a list of dotted names", toAny(wide), 4 << 20}, // the list's own copy of its items
	} {
		var charged int64
		allocated := bytesAllocated(func() {
			_, _ = parseFields(Params{"_fields": c.fields}, func(n int64) error { charged += n; return nil })
		})
		if allocated > uint64(charged)+c.most {
			t.Errorf("%s: %d bytes allocated, %d charged", c.name, allocated, charged)
		}
	}
}

func toAny(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}
