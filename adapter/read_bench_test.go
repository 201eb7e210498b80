package adapter

import (
	stdjson "encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"calshim/internal/testkit/wpfake"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// benchSizes are the catalog sizes every read benchmark runs over: a list's cost should follow the
// page it returns, not these.
var benchSizes = []int{1000, 10000, 100000}

// benchServers caches one server per catalog size across benchmarks (building 100,000 events takes
// seconds).
var benchServers sync.Map

// benchServer is a server over the recorded data set plus n synthetic events spread over the year
// around recordingNow, with venues, organizers, categories, tags and featured flags like the rig's
// SEED_EVENTS generator.
func benchServer(b *testing.B, n int) http.Handler {
	b.Helper()
	if h, ok := benchServers.Load(n); ok {
		return h.(http.Handler)
	}

	wp := wpfake.New(b)
	proto := wp.Item("tribe_events", 17)
	objs := make([]wpfake.Object, 0, n)
	for i := range n {
		objs = append(objs, benchEvent(wp, proto, i))
	}

	wp.AddMany("tribe_events", objs)
	opt := testOptions()
	// the defaults of config.Default
	opt.CacheTTL, opt.CacheMaxEntries, opt.CacheMaxBytes = time.Minute, 10000, 32<<20
	opt.EventCacheBytes = 16 << 20
	h := NewServer(fakeCatalog(b, wp), benchLogger(), opt)
	benchServers.Store(n, h)
	runtime.GC() // the load's garbage is not the reads' cost
	return h
}

// benchLogger writes JSON access logs as production does, to nowhere.
func benchLogger() *zap.Logger {
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	return zap.New(zapcore.NewCore(enc, zapcore.AddSync(io.Discard), zapcore.InfoLevel))
}

// benchEvent is synthetic event i, a copy of proto (decoded afresh so no map is shared).
func benchEvent(wp *wpfake.Server, proto wpfake.Object, i int) wpfake.Object {
	o := wpfake.Object{}
	for k, v := range proto {
		o[k] = v
	}

	day := recordingNow.AddDate(0, 0, (i*7919)%730-365).Add(time.Duration(i%12) * time.Hour)
	o["id"] = num(100000 + i)
	o["slug"] = fmt.Sprintf("bench-%d", i)
	o["title"] = wpfake.Object{"rendered": fmt.Sprintf("Bench Event %05d", i)}
	o["tribe_events_cat"] = []any{num(2 + i%5)}
	o["tags"] = []any{num(7 + i%6)}
	o["calshim"] = benchMeta(wp, proto, i, day)
	return o
}

func num(n int) any { return stdjson.Number(strconv.Itoa(n)) }

// benchMeta is the plugin's calshim field of event i: proto's, with dates, venue, organizers and
// the featured flag of its own.
func benchMeta(wp *wpfake.Server, proto wpfake.Object, i int, day time.Time) wpfake.Object {
	src := wp.Sub(proto, "calshim")
	c := wpfake.Object{}
	for k, v := range src {
		c[k] = v
	}

	meta := wpfake.Object{}
	for k, v := range wp.Sub(src, "meta") {
		meta[k] = v
	}

	meta["_EventStartDate"] = []any{day.Format("2006-01-02 15:04:05")}
	meta["_EventEndDate"] = []any{day.Add(2 * time.Hour).Format("2006-01-02 15:04:05")}
	meta["_EventVenueID"] = []any{strconv.Itoa(5 + i%3)}
	meta["_EventOrganizerID"] = []any{strconv.Itoa(12 + i%4)}
	delete(meta, "_tribe_featured")
	if i%23 == 0 {
		meta["_tribe_featured"] = []any{"1"}
	}

	c["meta"] = meta
	return c
}

// benchGET serves target b.N times; uncached adds a distinct argument per request so that every
// request misses the response cache.
func benchGET(b *testing.B, h http.Handler, target string, uncached bool) {
	b.Helper()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := target
		if uncached {
			t += "&nocache=" + strconv.Itoa(i)
		}

		rec := serve(h, http.MethodGet, t)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code, rec.Body.String())
		}
	}
}

// BenchmarkRead measures reads over catalogs of each size: uncached lists (unfiltered, date window,
// each filter, search, a deep page), the warm (cached) list, and single events by ID and by slug.
func BenchmarkRead(b *testing.B) {
	const ev = "/wp-json/cal/events/v1/events"
	cases := []struct {
		name, target string
		uncached     bool
	}{
		{"list", ev + "?per_page=10", true},
		{"warm", ev + "?per_page=10", false},
		{"window", ev + "?start_date=2027-01-01&end_date=2027-02-01", true},
		{"category", ev + "?categories=3", true},
		{"tag", ev + "?tags=7", true},
		{"venue", ev + "?venue=6", true},
		{"organizer", ev + "?organizer=13", true},
		{"featured", ev + "?featured=1", true},
		{"status", ev + "?status=publish", true},
		{"search", ev + "?search=event+042", true},
		{"deep", ev + "?per_page=50&page=5", true},
		{"id", ev + "/100042?x=1", true},
		{"slug", ev + "/by-slug/bench-42?x=1", true},
	}
	for _, n := range benchSizes {
		for _, tc := range cases {
			b.Run(fmt.Sprintf("%s/%d", tc.name, n), func(b *testing.B) {
				benchGET(b, benchServer(b, n), tc.target, tc.uncached)
			})
		}
	}
}
