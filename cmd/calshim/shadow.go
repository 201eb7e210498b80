package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"calshim/adapter/shadow"
	"calshim/config"
)

// shadowOptions are the live shadow's settings as the adapter takes them.
func shadowOptions(s config.Shadow) shadow.Options {
	return shadow.Options{URL: s.URL, SampleRate: s.SampleRate, MaxConcurrent: s.MaxConcurrent, Rate: s.Rate,
		Timeout: s.Timeout, RecheckAfter: s.RecheckAfter, BreakerFailures: s.BreakerFailures,
		BreakerSlow: s.BreakerSlow, BreakerCooldown: s.BreakerCooldown, Differences: s.Differences,
		DiffBytes: s.DifferencesBytes}
}

// errDifferent is replay's answer when a difference nothing explains was found (exit status 1).
var errDifferent = errors.New("calshim answered differently from the original")

// replay is one `calshim shadow replay` run.
type replay struct {
	logPath, calshim, original, restRoot string
	rate                                 float64
	concurrency, examples, max           int
	timeout, recheck                     time.Duration
}

// runShadow runs `calshim shadow replay`: the GETs of an access log of the v1 API, replayed against
// calshim and the original at a bounded rate, and a report by route and outcome.
func runShadow(args []string, out, errOut io.Writer) error {
	if len(args) == 0 || args[0] != "replay" {
		return errors.New("usage: calshim shadow replay -log access.log -calshim URL -original URL [-rate N]")
	}
	fs := flag.NewFlagSet("calshim shadow replay", flag.ContinueOnError)
	fs.SetOutput(errOut)
	r := &replay{}
	fs.StringVar(&r.logPath, "log", "", "access log in the combined format of nginx or Apache (- for stdin)")
	fs.StringVar(&r.calshim, "calshim", "http://127.0.0.1:8080",
		"calshim's base URL: each logged request URI is sent there")
	fs.StringVar(&r.original, "original", "", "the original's REST root, e.g. http://site/wp-json")
	fs.StringVar(&r.restRoot, "rest-root", "/wp-json", "the REST root's path in the logged URIs")
	fs.Float64Var(&r.rate, "rate", 5, "requests per second on the original (each comparison makes one or more)")
	fs.IntVar(&r.concurrency, "c", 4, "comparisons at once")
	fs.IntVar(&r.examples, "examples", 3, "examples shown per route and differing path")
	fs.IntVar(&r.max, "max", 0, "replay at most this many requests (0: all)")
	fs.DurationVar(&r.timeout, "timeout", 10*time.Second, "timeout of one request")
	fs.DurationVar(&r.recheck, "recheck-after", 3*time.Second,
		"a difference is checked again after this long (calshim's freshness bound); 0: never")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if r.logPath == "" || r.original == "" || r.rate <= 0 || r.concurrency < 1 {
		return errors.New("calshim shadow replay: -log and -original are required, -rate and -c positive")
	}

	rep, err := r.run(out)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(out, rep.text()); err != nil {
		return err
	}
	if rep.counts[shadow.Different] > 0 {
		return errDifferent
	}
	return nil
}

// queries reads the log's replayable requests: anonymous GETs of the v1 routes.
func (r *replay) queries() ([]shadow.Query, int, error) {
	in := io.Reader(os.Stdin)
	if r.logPath != "-" {
		f, err := os.Open(r.logPath)
		if err != nil {
			return nil, 0, err
		}
		defer func() { _ = f.Close() }()
		in = f
	}

	var qs []shadow.Query
	lines := 0
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() && (r.max == 0 || len(qs) < r.max) {
		lines++
		l, ok := shadow.ParseLogLine(sc.Text())
		if !ok || l.Method != "GET" || l.User != "" {
			continue
		}
		if q, ok := shadow.QueryOf(l.Target, r.restRoot); ok {
			qs = append(qs, q)
		}
	}
	return qs, lines, sc.Err()
}

func (r *replay) run(out io.Writer) (*report, error) {
	qs, lines, err := r.queries()
	if err != nil {
		return nil, err
	}
	cal, err := url.Parse(r.calshim)
	if err != nil {
		return nil, err
	}
	orig, err := url.Parse(r.original)
	if err != nil {
		return nil, err
	}

	budget := rate.NewLimiter(rate.Limit(r.rate), 1)
	client := shadow.NewClient(r.timeout, r.concurrency)
	cmp := &shadow.Comparer{Calshim: &shadow.Site{Base: r.calshim, Client: client},
		Original: &shadow.Original{Root: r.original, Client: client}, Table: shadow.Reads, Fresh: r.recheck,
		Budget: func(ctx context.Context) bool { return budget.Wait(ctx) == nil }}
	calBase, origBase := cal.Scheme+"://"+cal.Host, orig.Scheme+"://"+orig.Host

	rep := newReport(len(qs), lines, r.examples)
	bar := newProgress(out, len(qs))
	work := make(chan shadow.Query)
	var wg sync.WaitGroup
	for range r.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := range work {
				norm := shadow.NewNormalizer(calBase+r.restRoot, strings.TrimRight(r.original, "/"), q.NS).
					Then(calBase, origBase)
				rep.add(cmp.Check(context.Background(), q, norm))
				bar.step()
			}
		}()
	}
	for _, q := range qs {
		if err := budget.Wait(context.Background()); err != nil {
			return nil, err
		}
		work <- q
	}
	close(work)
	wg.Wait()
	bar.done()
	return rep, nil
}

// report gathers the outcomes by route, the deliberate differences by name and examples.
type report struct {
	mu       sync.Mutex
	total    int
	lines    int
	max      int // examples per cluster
	counts   map[shadow.Outcome]int
	routes   map[string]map[shadow.Outcome]int
	granted  map[string]int
	clusters map[string]*cluster // route | path | kind of a difference, or route | outcome
}

type cluster struct {
	route, path, kind string
	count             int
	examples          []string
}

func newReport(total, lines, examples int) *report {
	return &report{total: total, lines: lines, max: examples, counts: map[shadow.Outcome]int{},
		routes: map[string]map[shadow.Outcome]int{}, granted: map[string]int{}, clusters: map[string]*cluster{}}
}

func (rep *report) add(res *shadow.Result) {
	rep.mu.Lock()
	defer rep.mu.Unlock()

	rep.counts[res.Outcome]++
	if rep.routes[res.Query.Route] == nil {
		rep.routes[res.Query.Route] = map[shadow.Outcome]int{}
	}
	rep.routes[res.Query.Route][res.Outcome]++
	for _, n := range res.Granted {
		rep.granted[n]++
	}

	switch res.Outcome {
	case shadow.Different:
		seen := map[string]bool{}
		for _, d := range res.Diffs {
			if !seen[d.GPath+d.Kind] {
				seen[d.GPath+d.Kind] = true
				rep.example(res.Query.Route, d.GPath, d.Kind, fmt.Sprintf("%s\n        at %s: original %s | calshim %s",
					res.Query.Target, d.Path, oneLine(d.A), oneLine(d.B)))
			}
		}
	case shadow.Failed, shadow.Skipped, shadow.Noise:
		detail := res.Reason
		switch {
		case res.Outcome == shadow.Noise && len(res.Diffs) > 0:
			detail = "at " + res.Diffs[0].Path
		case res.Outcome == shadow.Noise:
			detail = "a date-time computed from now"
		}
		rep.example(res.Query.Route, "", string(res.Outcome), res.Query.Target+"  ("+detail+")")
	}
}

func (rep *report) example(route, path, kind, text string) {
	key := route + "|" + path + "|" + kind
	c := rep.clusters[key]
	if c == nil {
		c = &cluster{route: route, path: path, kind: kind}
		rep.clusters[key] = c
	}
	c.count++
	if len(c.examples) < rep.max {
		c.examples = append(c.examples, text)
	}
}

// text is the report: totals by outcome, outcomes by route, deliberate differences by name, then
// the examples (differences first, most frequent first).
func (rep *report) text() string {
	w := &strings.Builder{}
	fmt.Fprintf(w, "replayed %d requests (of %d log lines)\n", rep.total, rep.lines)
	for _, o := range shadow.Outcomes {
		fmt.Fprintf(w, "  %-10s %6d\n", o, rep.counts[o])
	}

	fmt.Fprintf(w, "\n%-32s", "route")
	for _, o := range shadow.Outcomes {
		fmt.Fprintf(w, " %10s", o)
	}
	w.WriteString("\n")
	for _, route := range slices.Sorted(maps.Keys(rep.routes)) {
		fmt.Fprintf(w, "%-32s", route)
		for _, o := range shadow.Outcomes {
			fmt.Fprintf(w, " %10d", rep.routes[route][o])
		}
		w.WriteString("\n")
	}

	if len(rep.granted) > 0 {
		fmt.Fprintf(w, "\ndeliberate differences (docs/compatibility.md), in requests:\n")
		for _, n := range slices.Sorted(maps.Keys(rep.granted)) {
			reason := ""
			if d := shadow.Reads.ByName(n); d != nil {
				reason = d.Reason
			}
			fmt.Fprintf(w, "  %-22s %6d  %s\n", n, rep.granted[n], reason)
		}
	}

	rep.examples(w)
	return w.String()
}

func (rep *report) examples(w *strings.Builder) {
	clusters := slices.Collect(maps.Values(rep.clusters))
	difference := func(c *cluster) bool { return c.path != "" }
	sort.Slice(clusters, func(i, j int) bool {
		a, b := clusters[i], clusters[j]
		if difference(a) != difference(b) {
			return difference(a)
		}
		if a.count != b.count {
			return a.count > b.count
		}
		return a.route+a.path+a.kind < b.route+b.path+b.kind
	})
	if len(clusters) > 0 {
		fmt.Fprintf(w, "\nexamples (count, route, JSON path and kind of difference, or outcome):\n")
	}
	for _, c := range clusters {
		fmt.Fprintf(w, "%6d %s %s %s\n", c.count, c.route, c.path, c.kind)
		for _, e := range c.examples {
			fmt.Fprintf(w, "       e.g. %s\n", e)
		}
	}
}

func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}

// progress draws a bar on a terminal (nothing otherwise).
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	total int
	n     int
	on    bool
	start time.Time
}

func newProgress(w io.Writer, total int) *progress {
	f, ok := w.(*os.File)
	on := false
	if ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			on = true
		}
	}
	return &progress{w: w, total: total, on: on && total > 0, start: time.Now()}
}

func (p *progress) step() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if !p.on {
		return
	}
	const width = 40
	filled := width * p.n / p.total
	rate := float64(p.n) / max(time.Since(p.start).Seconds(), 0.001)
	// A bar that cannot be drawn is no reason to stop comparing.
	_, _ = fmt.Fprintf(p.w, "\r[%s%s] %d/%d  %.1f/s ", strings.Repeat("#", filled),
		strings.Repeat(".", width-filled), p.n, p.total, rate)
}

func (p *progress) done() {
	if p.on {
		_, _ = fmt.Fprintln(p.w)
	}
}
