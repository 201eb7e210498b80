// Package shadow compares calshim's answers with the original's (The Events Calendar's REST API v1
// on the same site): the live shadow of sampled anonymous GETs (live.go), the replay of access logs
// (`calshim shadow replay`, accesslog.go) and the development harness (scripts/compare) share its
// comparison: status, the headers a client reads, the JSON body in order, the deliberate
// differences of docs/compatibility.md granted by name (deliberate.go), noise cancelled.
//
// It sits under adapter, which calls it once per answered request, and imports nothing of calshim's:
// product code, where internal/ holds test kits (jsontest, wpfake) beside it.
package shadow

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Outcome is what the comparison of one request concluded.
type Outcome string

// The outcomes, the values of the metrics' outcome label.
const (
	Same      Outcome = "same"       // the same answer
	Intended  Outcome = "deliberate" // differences, each one a deliberate difference (by name)
	Different Outcome = "different"  // a difference nothing explains
	Noise     Outcome = "noise"      // differences the original makes with itself, or gone a moment later
	Failed    Outcome = "error"      // no usable answer from the original (transport error, 5xx)
	Skipped   Outcome = "skipped"    // sampled but not compared (budget, breaker, queue full, calshim busy)
)

// Outcomes lists every outcome, in the order reports show them.
var Outcomes = []Outcome{Same, Intended, Different, Noise, Failed, Skipped}

// Query is one request as both sides take it.
type Query struct {
	Route  string // template with its method, the deliberate table's key: "GET /events/{id}"
	Target string // calshim's request URI as the client sent it ("/?rest_route=/cal/events/v1/events&page=2")
	Path   string // below the namespace: "/events/17"
	Query  string // the query without rest_route, as the original gets it
	NS     string // the namespace the client used on calshim ("cal/events/v1" or the original's)
	Origin string // scheme://host the client addressed calshim at (the live shadow asks itself there)
	ID     string // the client's request ID, which calshim's own request of the comparison carries
	// Sent is calshim's answer as the client got it (the live shadow keeps the bytes it sent): the
	// first comparison uses it instead of asking Calshim again; nil: Calshim is asked.
	Sent *Answer
}

// Side answers a query: calshim (in-process or over HTTP) or the original.
type Side interface {
	Ask(ctx context.Context, q Query) *Answer
}

// Result is one comparison.
type Result struct {
	Query    Query
	Outcome  Outcome
	Diffs    []Diff   // what differs (Different), what was cancelled (Noise)
	Granted  []string // names of the deliberate differences seen, once each
	Original *Answer  // the answers last compared
	Calshim  *Answer
	Reason   string // why Skipped or Failed
	// Asked counts the requests made of the original.
	Asked int
}

// Comparer compares the two sides' answers to a query.
type Comparer struct {
	Calshim, Original Side
	Table             Table
	// Fresh is the freshness bound: how long calshim may lag a change made in WordPress (a poll
	// interval and a margin). A difference still there after asking the original twice is checked
	// once more after it; gone then, it was a change on its way (Noise). 0: no re-check.
	Fresh time.Duration
	// Budget, when set, is called before each request to the original beyond the first; false
	// leaves the comparison where it stands (the live shadow's rate budget).
	Budget func(ctx context.Context) bool
}

// Check asks both sides and compares; norm rewrites calshim's answer into the original's terms.
func (c *Comparer) Check(ctx context.Context, q Query, norm *Normalizer) *Result {
	res := &Result{Query: q}
	call := Call{Route: q.Route, Role: "anon"}
	call.Query, _ = url.ParseQuery(q.Query)

	orig, cal := c.Original.Ask(ctx, q), q.Sent
	if cal == nil {
		cal = c.Calshim.Ask(ctx, q)
	}
	res.Asked++
	res.Original, res.Calshim = orig, cal
	if failed(orig) {
		res.Outcome, res.Reason = Failed, "original: "+StatusLabel(orig)
		return res
	}
	if cal.Err != "" || cal.Status == 429 || cal.Status == 503 {
		res.Outcome, res.Reason = Skipped, "calshim: "+StatusLabel(cal)
		return res
	}

	kept, names := c.Table.Grant(call, Compare(orig, cal, norm))
	c.conclude(res, kept, names)
	if res.Outcome != Different {
		return res
	}

	// Diffy's secondary: what the original answers differently to the same request is noise.
	if c.Budget != nil && !c.Budget(ctx) {
		return res
	}
	again := c.Original.Ask(ctx, q)
	res.Asked++
	if failed(again) {
		return res
	}
	unstable := Compare(orig, again, &Normalizer{})
	if kept = cancel(kept, unstable); len(kept) == 0 {
		res.Outcome = Noise
		return res
	}
	res.Diffs = kept

	return c.recheck(ctx, res, call, norm, unstable)
}

// recheck asks both sides again after the freshness bound: a difference that is gone then was a
// change calshim had not seen yet.
func (c *Comparer) recheck(ctx context.Context, res *Result, call Call, norm *Normalizer,
	unstable []Diff) *Result {
	if c.Fresh <= 0 || (c.Budget != nil && !c.Budget(ctx)) {
		return res
	}

	select {
	case <-ctx.Done():
		return res
	case <-time.After(c.Fresh):
	}

	orig, cal := c.Original.Ask(ctx, res.Query), c.Calshim.Ask(ctx, res.Query)
	res.Asked++
	if failed(orig) || cal.Err != "" {
		return res
	}

	kept, names := c.Table.Grant(call, Compare(orig, cal, norm))
	kept = cancel(kept, unstable)
	before := res.Diffs
	res.Original, res.Calshim = orig, cal
	c.conclude(res, kept, names)
	if res.Outcome != Different {
		res.Outcome, res.Diffs = Noise, before
	}

	return res
}

// conclude sets the outcome of one comparison from the differences left and the names granted.
func (c *Comparer) conclude(res *Result, kept []Diff, names []string) {
	res.Granted = res.Granted[:0]
	noise := false
	names = slices.Clone(names)
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		if d := c.Table.ByName(n); d != nil && d.Noise {
			noise = true
			continue
		}
		res.Granted = append(res.Granted, n)
	}

	switch {
	case len(kept) > 0:
		res.Outcome, res.Diffs = Different, kept
	case len(res.Granted) > 0:
		res.Outcome = Intended
	case noise:
		res.Outcome = Noise
	default:
		res.Outcome = Same
	}
}

// failed reports an answer of the original that cannot be compared: none at all, or a server
// error (PHP failing is the original's trouble, and the breaker's signal).
func failed(a *Answer) bool {
	return a.Err != "" || a.Status >= 500
}

// cancel drops the differences at a path where the original differed from itself (or below it);
// a status of its own that changed cancels everything.
func cancel(diffs, unstable []Diff) []Diff {
	var kept []Diff
	for _, d := range diffs {
		if !covered(d.Path, unstable) {
			kept = append(kept, d)
		}
	}

	return kept
}

func covered(path string, unstable []Diff) bool {
	for _, u := range unstable {
		if u.Path == "$status" || u.Path == "$" || u.Path == path ||
			strings.HasPrefix(path, u.Path+".") || strings.HasPrefix(path, u.Path+"[") {
			return true
		}
	}

	return false
}
