// Command compare is calshim's differential harness: it sends the same seeded random requests to
// the original plugin (tribe/events/v1 on WordPress) and to calshim, and reports every difference
// of status, X-TEC-* headers and body (values, JSON types, key order), clustered by route, JSON
// path and kind. With -writes it replays a write sequence on both instead. A development tool: see
// scripts/compare-original.sh; never part of make test or CI.
package main

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"calshim/adapter/shadow"
)

type options struct {
	seed        uint64
	n           int
	calshim     string
	original    string
	routes      string
	jsonOut     string
	textOut     string
	verbose     bool
	env         string
	concurrency int
	timeout     time.Duration
	top         int
	writes      bool
	reseed      string
	seedIDs     string
	sweepOnly   bool
	merge       string
	accessLog   string
}

func parseFlags() *options {
	o := &options{}
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the random requests")
	flag.IntVar(&o.n, "n", 2000, "number of random GET requests")
	flag.StringVar(&o.calshim, "calshim", "http://127.0.0.1:8090", "calshim's base URL")
	flag.StringVar(&o.original, "original", "http://127.0.0.1:8881",
		"the original's WordPress base URL")
	flag.StringVar(&o.routes, "routes", "",
		"regexp on route templates (e.g. '^GET /events') to restrict to")
	flag.StringVar(&o.jsonOut, "json", "", "write the full report as JSON to this file")
	flag.StringVar(&o.textOut, "report", "", "also write the text report to this file (all clusters)")
	flag.BoolVar(&o.verbose, "v", false, "print every differing request with its differences")
	flag.StringVar(&o.env, "env", "/tmp/calshim-wp/wp.env", "the rig's wp.env (application passwords)")
	flag.IntVar(&o.concurrency, "c", 4, "requests in flight")
	flag.DurationVar(&o.timeout, "timeout", 30*time.Second, "timeout per request")
	flag.IntVar(&o.top, "top", 60, "clusters printed on stdout (0: all)")
	flag.BoolVar(&o.writes, "writes", false, "run the write sequence instead of random GETs")
	flag.StringVar(&o.reseed, "reseed", "",
		"shell command that reseeds the rig between the two write runs")
	flag.StringVar(&o.seedIDs, "seed-ids", "/tmp/calshim-wp/seed-ids.json",
		"the seed's IDs (wp-seed.sh)")
	flag.StringVar(&o.merge, "merge", "",
		"comma-separated JSON reports to add up and print (no requests)")
	flag.StringVar(&o.accessLog, "access-log", "",
		"write the random GETs to this file as an nginx access log of the original's API (for calshim "+
			"shadow replay) instead of sending them")
	flag.BoolVar(&o.sweepOnly, "sweep", false,
		"only delete what write sequences left (Harness* posts, terms)")
	flag.Parse()

	return o
}

func main() {
	o := parseFlags()

	if o.merge != "" {
		rep, err := mergeReports(strings.Split(o.merge, ","))
		if err == nil {
			err = emit(o, rep, append(append([]*shadow.Deliberate{}, shadow.Reads...), writeDeliberates...))
		}
		if err != nil {
			fail(err)
		}
		return
	}

	creds, err := loadCreds(o.env)
	if err != nil {
		fail(err)
	}

	orig := newSite("original", o.original, creds, o.timeout, func(*Request) string { return "tribe" })
	cal := newSite("calshim", o.calshim, creds, o.timeout, func(r *Request) string { return r.NS })

	if o.sweepOnly {
		fmt.Printf("swept %d\n", sweep(orig))
		return
	}

	if o.writes {
		err = runWrites(o, orig, cal)
	} else {
		err = runReads(o, orig, cal)
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "compare:", err)
	os.Exit(1)
}

func runReads(o *options, orig, cal *Site) error {
	world, err := discover(orig)
	if err != nil {
		return err
	}
	if len(world.Events) == 0 {
		return fmt.Errorf("the original lists no events: is it active and the rig seeded?")
	}

	filter := func(string) bool { return true }
	if o.routes != "" {
		re, err := regexp.Compile(o.routes)
		if err != nil {
			return err
		}
		filter = re.MatchString
	}

	gen := newGen(o.seed, world)
	reqs := make([]*Request, o.n)
	for i := range reqs {
		reqs[i] = gen.Next(filter)
	}

	if o.accessLog != "" {
		return writeAccessLog(o.accessLog, reqs)
	}

	start := time.Now()
	results := sendAll(o, orig, cal, reqs)
	took := time.Since(start).Round(time.Second)
	fmt.Fprintf(os.Stderr, "compare: %d requests in %s\n", len(reqs), took)

	rep := buildReport("random GETs", o.seed, world.Summary(), results)

	return emit(o, rep, shadow.Reads)
}

// sendAll sends every request to both sites, o.concurrency at a time; results keep the requests'
// order.
func sendAll(o *options, orig, cal *Site, reqs []*Request) []*Result {
	results := make([]*Result, len(reqs))
	calHost, origHost := hostOf(cal.Base), hostOf(orig.Base)

	var wg sync.WaitGroup
	var mu sync.Mutex
	next, done := 0, 0
	for w := 0; w < o.concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= len(reqs) {
					return
				}

				results[i] = compareOne(reqs[i], orig, cal, shadow.NewNormalizer(calHost, origHost, nsPath(reqs[i].NS)),
					shadow.Reads)

				mu.Lock()
				done++
				progress(o, done, len(reqs), results[i])
				mu.Unlock()
			}
		}()
	}
	wg.Wait()

	return results
}

// compareOne sends r to both sites and compares. A difference is checked once more after a
// pause: others share the rig, and calshim sees a change up to a poll interval after WordPress
// does. If the second pair agrees, the request counts as transient, not as a difference.
func compareOne(r *Request, orig, cal *Site, norm *shadow.Normalizer, table []*shadow.Deliberate) *Result {
	res := compareOnce(r, orig, cal, norm, table)
	if len(res.Diffs) == 0 {
		return res
	}

	time.Sleep(1500 * time.Millisecond)
	again := compareOnce(r, orig, cal, norm, table)
	if len(again.Diffs) == 0 {
		again.Transient = true
	}

	return again
}

func compareOnce(r *Request, orig, cal *Site, norm *shadow.Normalizer, table []*shadow.Deliberate) *Result {
	a := orig.Do(r)
	b := cal.Do(r)

	diffs := shadow.Compare(a, b, norm)
	kept, names := filterDeliberate(r, diffs, table)

	return &Result{Req: r, Diffs: kept, Deliberate: names, StatusA: shadow.StatusLabel(a),
		StatusB: shadow.StatusLabel(b)}
}

func progress(o *options, done, total int, res *Result) {
	if o.verbose && len(res.Diffs) > 0 {
		fmt.Fprintf(os.Stderr, "DIFF %s (%s | %s)\n", res.Req.Label(), res.StatusA, res.StatusB)
		for _, d := range res.Diffs {
			fmt.Fprintf(os.Stderr, "   %s %s: %s | %s\n", d.Kind, d.Path, oneLine(d.A), oneLine(d.B))
		}
	}

	if done%250 == 0 || done == total {
		fmt.Fprintf(os.Stderr, "compare: %d/%d\n", done, total)
	}
}

// emit prints the report (top clusters) and writes the files asked for (all clusters).
func emit(o *options, rep *Report, table []*shadow.Deliberate) error {
	rep.printText(os.Stdout, o.top, table)

	if o.textOut != "" {
		var b strings.Builder
		rep.printText(&b, 0, table)
		if err := os.WriteFile(o.textOut, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}

	if o.jsonOut != "" {
		return rep.saveJSON(o.jsonOut)
	}

	return nil
}

// writeAccessLog writes the requests as the original's site would have logged them (combined format,
// anonymous: a log holds no credentials), one second apart.
func writeAccessLog(path string, reqs []*Request) error {
	var b strings.Builder
	at := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	for i, r := range reqs {
		fmt.Fprintf(&b, "203.0.113.%d - - [%s] \"GET %s HTTP/1.1\" 200 512 \"-\" \"compare/%s\"\n", i%250+1,
			at.Add(time.Duration(i)*time.Second).Format("02/Jan/2006:15:04:05 -0700"), r.URL("", "tribe"), r.Role)
	}

	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// filterDeliberate splits diffs into the reported ones and the names of the deliberate ones.
func filterDeliberate(r *Request, diffs []shadow.Diff, table []*shadow.Deliberate) ([]shadow.Diff, []string) {
	q, _ := url.ParseQuery(r.Query)
	return shadow.Table(table).Grant(shadow.Call{Route: r.Route, Role: r.Role, Query: q}, diffs)
}
