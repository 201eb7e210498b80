package mapping

import (
	"slices"
	"testing"
)

var filterTerms = []*Term{{ID: 2, Name: "Music", Slug: "music"}, {ID: 3, Name: "Jazz", Slug: "jazz", Parent: 2},
	{ID: 7, Name: "free", Slug: "free"}, {ID: 9, Name: "Rock & Roll", Slug: "rock-roll"}, {ID: 11, Name: "2024", Slug: "7"}}

func TestTermExists(t *testing.T) {
	for _, tc := range []struct {
		item  string
		isInt bool
		want  bool
	}{
		{"3", true, true}, {"99", true, false}, {"0", true, false},
		{"Jazz", false, true}, {"jazz", false, true}, {"JAZZ", false, true}, {" jazz ", false, true},
		{"Rock & Roll", false, true}, {"rock & roll", false, true}, {"nope", false, false}, {"", false, false},
		{"3", false, false}, // a numeric string that did not become an integer looks for a slug or name "3"
	} {
		if got := TermExists(filterTerms, tc.item, tc.isInt); got != tc.want {
			t.Errorf("TermExists(%q, %v) = %v, want %v", tc.item, tc.isInt, got, tc.want)
		}
	}
}

func TestResolveTerm(t *testing.T) {
	for item, want := range map[string]int{"Jazz": 3, "jazz": 3, "3": 3, "Rock & Roll": 9, "7": 11, "nope": 0} {
		if got, _ := ResolveTerm(filterTerms, item); got != want {
			t.Errorf("ResolveTerm(%q) = %d, want %d", item, got, want)
		}
	}
}

func TestApplyWindow(t *testing.T) {
	w := Window{StartDate: "2026-12-01 00:00:00", EndDate: "2027-01-01 23:59:59",
		StartsAfter: "2026-12-10 23:59:59", EndsAfter: "2026-12-02 23:59:59"}
	f := &EventFilter{}
	f.ApplyWindow(w)
	if f.StartMin != "" || f.StartsAfter != w.StartsAfter || f.EndMax != w.EndDate || f.EndsAfter != w.EndsAfter {
		t.Errorf("starts_after does not replace start_date: %+v", f)
	}

	w.EndsBefore = "2027-03-01 23:59:59"
	f.ApplyWindow(w)
	if f.EndMax != "" || f.EndsBefore != w.EndsBefore {
		t.Errorf("ends_before does not replace end_date: %+v", f)
	}

	inc := &EventFilter{Include: []int{5}}
	inc.ApplyWindow(w)
	if !slices.Equal([]string{inc.StartMin, inc.EndMax, inc.StartsAfter, inc.EndsBefore}, []string{"", "", "", ""}) {
		t.Errorf("include keeps date bounds: %+v", inc)
	}
}

// An event without start or end meta is left out by any bound on that date (the meta query joins on
// the key), however early the bound.
func TestMatchDatesNeedsTheDate(t *testing.T) {
	p := &Post{Text: TextFields{Status: "publish"}.Pack()}
	for _, f := range []*EventFilter{{StartsBefore: "1970-01-01 23:59:59"}, {EndsBefore: "2030-01-01 00:00:00"}} {
		f.Statuses = []string{"publish"}
		if MatchEvent(p, f) {
			t.Errorf("event without dates matches %+v", f)
		}
	}

	if !MatchEvent(p, &EventFilter{Statuses: []string{"publish"}}) {
		t.Error("event without dates left out without a date bound")
	}
}

func TestSearchWords(t *testing.T) {
	for s, want := range map[string][]string{
		"Jazz Night":         {"jazz", "night"},
		"jazz,night+gala":    {"jazz", "night", "gala"},
		`"opening night" -x`: {"opening night", "-x"},
		"the jazz":           {"jazz"},
		"a":                  {"a"}, // nothing left: the whole search is the term
		" ":                  {" "},
		"0 jazz":             {"jazz"},
		"-brunch jazz":       {"-brunch", "jazz"},
	} {
		if got := SearchWords(s); !slices.Equal(got, want) {
			t.Errorf("SearchWords(%q) = %q, want %q", s, SearchWords(s), want)
		}
	}
}

// The search looks in the stored text: entities decoded, wptexturize's quotes undone.
func TestSearchText(t *testing.T) {
	p := &Post{Text: TextFields{Title: "Yesterday&#8217;s Lecture", Content: "<p>Rock &amp; Roll</p>"}.Pack()}
	if got := SearchText(p); got != "yesterday's lecture\n\n rock & roll " {
		t.Errorf("SearchText = %q", got)
	}
}
