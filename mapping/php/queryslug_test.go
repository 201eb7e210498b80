package php

import "testing"

// Expected values are the original's answers (get_page_by_path through WP_Query's name argument).

func TestQuerySlug(t *testing.T) {
	for raw, want := range map[string]string{
		"opening-night-gala":    "opening-night-gala",
		"Opening-Night-Gala":    "opening-night-gala",
		"Opening Night Gala":    "opening-night-gala",
		"opening+night+gala":    "opening-night-gala",
		"opening-night-gala.":   "opening-night-gala",
		"opening-night-gala%21": "opening-night-gala%21",
		"opening_night_gala":    "opening_night_gala",
		"~":                     "",
		"...":                   "",
		"Café":                  "caf%c3%a9",
	} {
		got, single := QuerySlug(raw)
		if got != want || !single {
			t.Errorf("QuerySlug(%q) = %q, %v; want %q", raw, got, single, want)
		}
	}
	if _, single := QuerySlug("a%2Fb"); single {
		t.Error("an encoded slash makes a path of two parts")
	}
}
