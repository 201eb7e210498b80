package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// mergeReports adds up saved JSON reports (e.g. one per seed) into one: route totals, clusters (the
// shortest example wins) and deliberate counts.
func mergeReports(paths []string) (*Report, error) {
	out := &Report{Title: "merged: " + strings.Join(paths, ", "), Deliberate: map[string]int{}}
	routes := map[string]*RouteStat{}
	clusters := map[string]*Cluster{}

	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}

		var rep Report
		if err := json.Unmarshal(data, &rep); err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}

		mergeOne(out, &rep, routes, clusters)
	}

	for _, k := range sortedKeys(routes) {
		out.Routes = append(out.Routes, *routes[k])
	}
	for _, c := range clusters {
		out.Clusters = append(out.Clusters, c)
	}
	sort.Slice(out.Clusters, func(i, j int) bool {
		a, b := out.Clusters[i], out.Clusters[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Route+a.Path+a.Kind < b.Route+b.Path+b.Kind
	})

	return out, nil
}

func mergeOne(out, rep *Report, routes map[string]*RouteStat, clusters map[string]*Cluster) {
	out.Requests += rep.Requests
	out.Differing += rep.Differing
	out.Transient += rep.Transient
	out.World = rep.World
	for k, v := range rep.Deliberate {
		out.Deliberate[k] += v
	}

	for _, rs := range rep.Routes {
		t := routes[rs.Route]
		if t == nil {
			t = &RouteStat{Route: rs.Route}
			routes[rs.Route] = t
		}
		t.Requests += rs.Requests
		t.Differing += rs.Differing
		t.Deliberate += rs.Deliberate
	}

	for _, c := range rep.Clusters {
		key := c.Route + "\x00" + c.Path + "\x00" + c.Kind
		t := clusters[key]
		if t == nil {
			cp := *c
			clusters[key] = &cp
			continue
		}
		t.Count += c.Count
		t.First += c.First
		if len(c.Example) < len(t.Example) {
			t.Example, t.ExPath, t.A, t.B = c.Example, c.ExPath, c.A, c.B
		}
	}
}
