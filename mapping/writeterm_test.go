package mapping

import (
	"reflect"
	"testing"
)

// TestPlanTerm: the term writes of the original's Category and Tag Insertion, Update and Deletion
// Cests (test/restv1_term_writes_test.go sends them to the real WordPress), on the plan alone.
func TestPlanTerm(t *testing.T) {
	types := PostTypes{CategoryBase: "tribe_events_cat", TagBase: "tags"}
	foo := TermWrite{Name: text("foo"), Description: text("Term description"), Slug: text("foo-bar")}
	with := func(w TermWrite, edit func(*TermWrite)) TermWrite { edit(&w); return w }
	fooFields := map[string]any{"name": "foo", "description": "Term description", "slug": "foo-bar"}
	notHierarchical := &Refusal{"rest_taxonomy_not_hierarchical",
		"Cannot set parent term, taxonomy is not hierarchical."}
	for _, c := range []struct {
		name string
		w    TermWrite
		want TermPlan
	}{
		{"category insertion with its parent",
			with(foo, func(w *TermWrite) { w.Hierarchical, w.Parent = true, Arg[int]{V: 5, OK: true} }),
			TermPlan{Base: "tribe_events_cat", Fields: map[string]any{"name": "foo",
				"description": "Term description", "slug": "foo-bar", "parent": 5}}},
		{"tag insertion", foo, TermPlan{Base: "tags", Fields: fooFields}},
		{"tag update", with(foo, func(w *TermWrite) { w.ID = 8 }),
			TermPlan{Base: "tags", ID: 8, Fields: fooFields}},
		{"update of one field", TermWrite{Hierarchical: true, ID: 8, Slug: text("")},
			TermPlan{Base: "tribe_events_cat", ID: 8, Fields: map[string]any{"slug": ""}}},
		{"category deletion", TermWrite{Hierarchical: true, ID: 8, Delete: true},
			TermPlan{Base: "tribe_events_cat", ID: 8, Delete: true}},
		{"tag with a parent", with(foo, func(w *TermWrite) { w.Parent = Arg[int]{V: 5, OK: true} }),
			TermPlan{Base: "tags", Refusal: notHierarchical}},
		{"tag deletion with a parent", TermWrite{ID: 8, Delete: true, Parent: Arg[int]{OK: true}},
			TermPlan{Base: "tags", ID: 8, Delete: true, Refusal: notHierarchical}},
	} {
		if got := PlanTerm(c.w, types); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}
