package main

import (
	"maps"
	"runtime"
	"runtime/debug"
	"slices"

	"github.com/prometheus/client_golang/prometheus"

	"calshim/catalog"
)

// This file holds the metrics only the command knows: the build, and the catalogs by language.
// The adapter registers the HTTP and response cache metrics on the same registry, cmsclient the
// upstream requests'.

// buildInfo is calshim_build_info: 1, labelled with what this binary is.
func buildInfo() prometheus.Collector {
	revision := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				revision = s.Value
			}
		}
	}
	g := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "calshim", Name: "build_info",
		Help:        "Always 1; the labels say which calshim runs.",
		ConstLabels: prometheus.Labels{"version": buildVersion(), "goversion": runtime.Version(), "revision": revision}})
	g.Set(1)
	return g
}

// catalogMetrics describes each language's catalog; the languages are the configured ones, so the
// series are fixed at start. Without a multilingual CMS the one catalog is the default language's.
type catalogMetrics struct {
	catalogs map[string]*catalog.Catalog
	items    *prometheus.Desc
	sequence *prometheus.Desc
	failures *prometheus.CounterVec
}

func newCatalogMetrics(catalogs map[string]*catalog.Catalog) *catalogMetrics {
	m := &catalogMetrics{catalogs: catalogs,
		items: prometheus.NewDesc("calshim_catalog_items", "What each language's catalog holds, by kind.",
			[]string{"lang", "kind"}, nil),
		sequence: prometheus.NewDesc("calshim_catalog_sequence",
			"Sequence of the plugin's change log each language's catalog reflects (0 when polling wp/v2).",
			[]string{"lang"}, nil),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "calshim",
			Name: "catalog_poll_failures_total", Help: "Polls of WordPress that failed, by language."},
			[]string{"lang"}),
	}
	for lang := range catalogs {
		m.failures.WithLabelValues(lang) // every series from the start, at 0
	}
	return m
}

func (m *catalogMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.items
	ch <- m.sequence
	m.failures.Describe(ch)
}

func (m *catalogMetrics) Collect(ch chan<- prometheus.Metric) {
	for _, lang := range slices.Sorted(maps.Keys(m.catalogs)) {
		c := m.catalogs[lang]
		ch <- prometheus.MustNewConstMetric(m.sequence, prometheus.GaugeValue, float64(c.Health().Sync.Seq), lang)
		snap := c.Snapshot()
		if snap == nil {
			continue
		}
		for _, k := range []struct {
			kind string
			n    int
		}{{"events", len(snap.Events)}, {"venues", len(snap.Venues)}, {"organizers", len(snap.Organizers)},
			{"categories", len(snap.Categories)}, {"tags", len(snap.Tags)}} {
			ch <- prometheus.MustNewConstMetric(m.items, prometheus.GaugeValue, float64(k.n), lang, k.kind)
		}
	}
	m.failures.Collect(ch)
}
