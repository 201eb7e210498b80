package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"calshim/adapter/shadow"
)

// Result is one request with what differed.
type Result struct {
	Req        *Request
	Diffs      []shadow.Diff
	Deliberate []string
	StatusA    string
	StatusB    string
	Transient  bool // differed once, agreed when asked again
}

// Cluster gathers the requests showing the same difference: same route, generalised path and kind.
type Cluster struct {
	Route   string `json:"route"`
	Path    string `json:"path"`
	Kind    string `json:"kind"`
	Count   int    `json:"count"`
	First   int    `json:"first"` // how often it was the request's first difference
	Example string `json:"example"`
	ExPath  string `json:"example_path"`
	A       string `json:"original"`
	B       string `json:"calshim"`
}

// RouteStat counts a route's requests and those that differed.
type RouteStat struct {
	Route      string `json:"route"`
	Requests   int    `json:"requests"`
	Differing  int    `json:"differing"`
	Deliberate int    `json:"deliberate_only"`
}

// Report is the whole outcome of a run, as saved with -json.
type Report struct {
	Title      string         `json:"title"`
	Seed       uint64         `json:"seed"`
	World      string         `json:"world"`
	Requests   int            `json:"requests"`
	Differing  int            `json:"differing"`
	Transient  int            `json:"transient"`
	Routes     []RouteStat    `json:"routes"`
	Clusters   []*Cluster     `json:"clusters"`
	Deliberate map[string]int `json:"deliberate"`
	Samples    []Sample       `json:"differing_requests"`
}

// Sample is one differing request with its differences (the JSON report keeps them all, capped).
type Sample struct {
	Request string        `json:"request"`
	Diffs   []shadow.Diff `json:"diffs"`
}

// clusterKey is the identity of a cluster.
func clusterKey(route string, d shadow.Diff) string {
	return route + "\x00" + d.GPath + "\x00" + d.Kind
}

func buildReport(title string, seed uint64, world string, results []*Result) *Report {
	rep := &Report{Title: title, Seed: seed, World: world, Requests: len(results),
		Deliberate: map[string]int{}}

	routes := map[string]*RouteStat{}
	clusters := map[string]*Cluster{}
	for _, res := range results {
		addResult(rep, routes, clusters, res)
	}

	for _, k := range sortedKeys(routes) {
		rep.Routes = append(rep.Routes, *routes[k])
	}
	for _, c := range clusters {
		rep.Clusters = append(rep.Clusters, c)
	}
	sort.Slice(rep.Clusters, func(i, j int) bool {
		a, b := rep.Clusters[i], rep.Clusters[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return clusterKey(a.Route, shadow.Diff{GPath: a.Path, Kind: a.Kind}) <
			clusterKey(b.Route, shadow.Diff{GPath: b.Path, Kind: b.Kind})
	})

	return rep
}

func addResult(rep *Report, routes map[string]*RouteStat, clusters map[string]*Cluster,
	res *Result) {
	rs := routes[res.Req.Route]
	if rs == nil {
		rs = &RouteStat{Route: res.Req.Route}
		routes[res.Req.Route] = rs
	}
	rs.Requests++

	for _, name := range uniq(res.Deliberate) {
		rep.Deliberate[name]++
	}
	if res.Transient {
		rep.Transient++
	}

	if len(res.Diffs) == 0 {
		if len(res.Deliberate) > 0 {
			rs.Deliberate++
		}
		return
	}

	rs.Differing++
	rep.Differing++
	if len(rep.Samples) < 5000 {
		rep.Samples = append(rep.Samples, Sample{Request: res.Req.Label(), Diffs: res.Diffs})
	}

	seen := map[string]bool{}
	for i, d := range res.Diffs {
		key := clusterKey(res.Req.Route, d)
		if seen[key] {
			continue
		}
		seen[key] = true
		addToCluster(clusters, key, res.Req, d, i == 0)
	}
}

func addToCluster(clusters map[string]*Cluster, key string, r *Request, d shadow.Diff, first bool) {
	c := clusters[key]
	if c == nil {
		c = &Cluster{Route: r.Route, Path: d.GPath, Kind: d.Kind}
		clusters[key] = c
	}

	c.Count++
	if first {
		c.First++
	}

	label := r.Label()
	shorter := len(label) < len(c.Example) || (len(label) == len(c.Example) && label < c.Example)
	if c.Example == "" || shorter {
		c.Example, c.ExPath, c.A, c.B = label, d.Path, d.A, d.B
	}
}

func uniq(l []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range l {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}

	return out
}

// printText writes the human report: totals per route, deliberate counts, then the clusters.
func (rep *Report) printText(w io.Writer, top int, table []*shadow.Deliberate) {
	fmt.Fprintf(w, "== %s (seed %d)\n", rep.Title, rep.Seed)
	fmt.Fprintf(w, "world: %s\n", rep.World)
	fmt.Fprintf(w, "requests %d, differing %d (%.1f%%); transient (differed once, then agreed) %d\n\n",
		rep.Requests, rep.Differing, pct(rep.Differing, rep.Requests), rep.Transient)

	fmt.Fprintf(w, "%-34s %8s %9s %13s\n", "route", "requests", "differing", "deliberate-only")
	for _, rs := range rep.Routes {
		fmt.Fprintf(w, "%-34s %8d %9d %13d\n", rs.Route, rs.Requests, rs.Differing, rs.Deliberate)
	}

	fmt.Fprintf(w, "\ndeliberate differences seen (requests):\n")
	for _, d := range table {
		if n := rep.Deliberate[d.Name]; n > 0 {
			fmt.Fprintf(w, "  %-22s %5d  %s\n", d.Name, n, d.Reason)
		}
	}

	fmt.Fprintf(w, "\nclusters (%d): count [first] route | path | kind\n", len(rep.Clusters))
	for i, c := range rep.Clusters {
		if top > 0 && i >= top {
			fmt.Fprintf(w, "... %d more clusters (see the JSON report)\n", len(rep.Clusters)-top)
			break
		}
		fmt.Fprintf(w, "%4d [%d] %s | %s | %s\n", c.Count, c.First, c.Route, c.Path, c.Kind)
		fmt.Fprintf(w, "     e.g. %s\n", c.Example)
		if c.ExPath != c.Path {
			fmt.Fprintf(w, "     at   %s\n", c.ExPath)
		}
		fmt.Fprintf(w, "     original: %s\n     calshim:  %s\n", oneLine(c.A), oneLine(c.B))
	}
}

func oneLine(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\n", `\n`), "\r", `\r`)
}

func pct(a, b int) float64 {
	if b == 0 {
		return 0
	}

	return 100 * float64(a) / float64(b)
}

func (rep *Report) saveJSON(path string) error {
	data, err := json.MarshalIndent(rep, "", " ")
	if err != nil {
		return err
	}

	return os.WriteFile(path, data, 0o644)
}
