package mapping

// TermWrite is a v1 category or tag write that passed validation: a create (ID 0), an update of
// the fields given, or a delete. Name, Description and Slug are trimmed.
type TermWrite struct {
	Hierarchical            bool // a category, else a tag
	ID                      int
	Delete                  bool
	Name, Description, Slug Arg[string]
	Parent                  Arg[int]
}

// TermPlan is a category or tag write: one wp/v2 call on the taxonomy's REST base, unless Refusal
// stops it first. Fields is the wp/v2 body of a create or update; a delete is for good (terms have
// no trash).
type TermPlan struct {
	Base    string
	ID      int // 0 creates
	Delete  bool
	Fields  map[string]any
	Refusal *Refusal
}

// PlanTerm translates a term write as the original, which hands it to WordPress' core terms
// controller: the fields given (empty ones too) go as they are, and a parent given to a tag is
// that controller's refusal, even on a delete.
func PlanTerm(w TermWrite, types PostTypes) TermPlan {
	plan := TermPlan{Base: types.TagBase, ID: w.ID, Delete: w.Delete}
	if w.Hierarchical {
		plan.Base = types.CategoryBase
	}
	if w.Parent.OK && !w.Hierarchical {
		plan.Refusal = &Refusal{"rest_taxonomy_not_hierarchical",
			"Cannot set parent term, taxonomy is not hierarchical."}
		return plan
	}
	if w.Delete {
		return plan
	}
	plan.Fields = map[string]any{}
	for _, f := range []struct {
		key string
		arg Arg[string]
	}{{"name", w.Name}, {"description", w.Description}, {"slug", w.Slug}} {
		if f.arg.OK {
			plan.Fields[f.key] = f.arg.V
		}
	}
	if w.Parent.OK {
		plan.Fields["parent"] = w.Parent.V
	}
	return plan
}
