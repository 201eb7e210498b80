package test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// termKind is what the category and tag Cests vary.
type termKind struct {
	cest, collection, tax, wpBase string
	hierarchical                  bool
}

var termKinds = []termKind{
	{cest: "Category", collection: "categories", tax: "tribe_events_cat", wpBase: "tribe_events_cat", hierarchical: true},
	{cest: "Tag", collection: "tags", tax: "post_tag", wpBase: "tags"},
}

// v1URL is the address calshim gives a v1 path in its answers.
func v1URL(path string) string { return shim + "/wp-json/cal/events/v1" + path }

// wantTerm asserts the Cests' $expected term: the given values, meta [], the v1 links (up to the
// parent for categories) and the term's link as WordPress makes it.
func (k termKind) wantTerm(t *testing.T, res reply, want map[string]string, link string) {
	t.Helper()
	id := str(at(res.body, "id"))
	want = merge(want, map[string]string{"taxonomy": k.tax, "url": link,
		"urls.self": v1URL("/" + k.collection + "/" + id), "urls.collection": v1URL("/" + k.collection)})
	if k.hierarchical {
		want["urls.up"] = v1URL("/" + k.collection + "/" + want["parent"])
	} else {
		delete(want, "parent")
	}
	wantFields(t, res, want)
	if m := at(res.body, "meta"); m == nil || len(list(m)) != 0 {
		t.Errorf("meta = %v, want []", m)
	}
}

// wpLink is the term's link as WordPress gives it (get_term_link).
func (k termKind) wpLink(t *testing.T, id string) string {
	return str(wp(t, http.MethodGet, "/wp/v2/"+k.wpBase+"/"+id, nil)["link"])
}

// badTermParams are should_return_bad_request_if_passing_bad_request_parameters' examples; the
// parent ones are the category Cests' only. The Cests' missing parent is 2389, here 999999.
func (k termKind) badTermParams() [][2]string {
	bad := [][2]string{{"name", ""}, {"description", ""}, {"slug", ""}}
	if k.hierarchical {
		bad = append(bad, [2]string{"parent", ""}, [2]string{"parent", "999999"}, [2]string{"parent", "foo"})
	}
	return bad
}

// who is how the Cests' method names call a role: the subscriber is "user".
func who(role string) string {
	if role == "subscriber" {
		return "user"
	}
	return role
}

var fooTerm = map[string]any{"name": "foo", "description": "Term description", "slug": "foo-bar"}

// CategoryInsertionCest, CategoryUpdateCest, CategoryDeletionCest and the three Tag Cests, every
// method. Their fixtures are written in one go; the Cests of one taxonomy then run in a row, as they
// use the same names (deletion first, then insertion, whose term then goes, then update); the two
// taxonomies side by side.
func termCests(t *testing.T) {
	r := newRig(t)
	var examples []example
	for _, k := range termKinds {
		examples = append(examples, example{k.cest, func(t *testing.T) {
			f := k.fixtures(t, r)
			t.Run(k.cest+"DeletionCest", func(t *testing.T) { k.deletion(t, f) })
			t.Run(k.cest+"InsertionCest", func(t *testing.T) { k.insertion(t, r, f) })
			t.Run(k.cest+"UpdateCest", func(t *testing.T) { k.update(t, f) })
		}})
	}
	runTogether(t, examples)
}

// termSet is one taxonomy's fixtures: the categories' 'foo-parent', the deletion Cest's 'foo'
// (with a count of 3) and a term to keep, and one 'old-foo' per update example.
type termSet struct {
	parent     map[string]any    // {"parent": ID} for categories, else empty
	wantParent map[string]string // the same as the answer shows it
	foo, kept  string
	oldFoo     []string
}

func (k termKind) fixtures(t *testing.T, r *rig) termSet {
	fs := []termFixture{{tax: k.tax, name: "foo-parent"}, {tax: k.tax, name: "foo", args: map[string]any{"count": 3,
		"description": "Term description", "slug": "foo-bar"}}, {tax: k.tax, name: "foo-kept"}}
	if k.hierarchical {
		fs[1].args["parent"] = "@0" // the first fixture's ID
	}
	for i := range len(k.badTermParams()) + 2 {
		fs = append(fs, termFixture{tax: k.tax, name: "old-foo-" + strconv.Itoa(i)})
	}
	ids := r.haveTerms(t, fs...)
	set := termSet{parent: map[string]any{}, wantParent: map[string]string{}, foo: ids[1], kept: ids[2], oldFoo: ids[3:]}
	if k.hierarchical {
		set.parent["parent"], set.wantParent["parent"] = ids[0], ids[0]
	}
	return set
}

func (k termKind) insertion(t *testing.T, r *rig, f termSet) {
	post := func(t *testing.T, role string, params map[string]any) reply {
		res := sendCest(t, role, http.MethodPost, "/"+k.collection, params)
		if res.status == http.StatusCreated {
			n, _ := strconv.Atoi(str(at(res.body, "id")))
			r.addTerm(k.tax, n)
		}
		return res
	}
	for _, bad := range k.badTermParams() {
		t.Run("should_return_bad_request_if_passing_bad_request_parameters/"+bad[0]+"="+bad[1], func(t *testing.T) {
			wantStatus(t, post(t, "editor", merge(fooTerm, map[string]any{bad[0]: bad[1]})), 400)
		})
	}
	for _, role := range []string{"subscriber", "contributor"} {
		t.Run("should_return_403_if_"+who(role)+"_cannot_insert_terms", func(t *testing.T) {
			wantStatus(t, post(t, role, fooTerm), 403)
		})
	}
	t.Run("should_allow_inserting_an_event_"+strings.ToLower(k.cest), func(t *testing.T) {
		res := post(t, "editor", merge(fooTerm, f.parent))
		wantStatus(t, res, http.StatusCreated)
		id := str(at(res.body, "id"))
		k.wantTerm(t, res, merge(f.wantParent, map[string]string{"name": "foo", "count": "0",
			"description": "Term description", "slug": "foo-bar"}), k.wpLink(t, id))
		wantStatus(t, send(t, "editor", http.MethodDelete, "/"+k.collection+"/"+id, nil), http.StatusOK) // for the update
	})
}

func (k termKind) update(t *testing.T, f termSet) {
	put := func(t *testing.T, role string, i int, params map[string]any) reply {
		return sendCest(t, role, http.MethodPost, "/"+k.collection+"/"+f.oldFoo[i], params)
	}
	for i, b := range k.badTermParams() {
		t.Run("should_return_bad_request_if_passing_bad_request_parameters/"+b[0]+"="+b[1], func(t *testing.T) {
			wantStatus(t, put(t, "editor", i+2, merge(fooTerm, map[string]any{b[0]: b[1]})), 400)
		})
	}
	for _, role := range []string{"subscriber", "contributor"} {
		t.Run("should_return_403_if_"+who(role)+"_cannot_update_terms", func(t *testing.T) {
			wantStatus(t, put(t, role, 1, fooTerm), 403)
		})
	}
	t.Run("should_allow_updating_an_event_"+strings.ToLower(k.cest), func(t *testing.T) {
		res := put(t, "editor", 0, merge(fooTerm, f.parent))
		wantStatus(t, res, http.StatusOK)
		k.wantTerm(t, res, merge(f.wantParent, map[string]string{"id": f.oldFoo[0], "name": "foo", "count": "0",
			"description": "Term description", "slug": "foo-bar"}), k.wpLink(t, f.oldFoo[0]))
	})
}

func (k termKind) deletion(t *testing.T, f termSet) {
	link := k.wpLink(t, f.foo)
	for _, role := range []string{"subscriber", "contributor"} {
		t.Run("should_return_403_if_"+who(role)+"_cannot_delete_event_"+strings.ToLower(k.cest), func(t *testing.T) {
			wantStatus(t, sendCest(t, role, http.MethodDelete, "/"+k.collection+"/"+f.kept, nil), 403)
		})
	}
	// The Cests' bad IDs are 23 and "23", a term that does not exist; here 999999.
	t.Run("should_return_bad_request_if_term_id_parameter_is_bad", func(t *testing.T) {
		wantStatus(t, sendCest(t, "subscriber", http.MethodDelete, "/"+k.collection+"/999999", nil), 400)
	})
	t.Run("should_allow_deleting_an_event_"+strings.ToLower(k.cest), func(t *testing.T) {
		res := sendCest(t, "editor", http.MethodDelete, "/"+k.collection+"/"+f.foo, nil)
		wantStatus(t, res, http.StatusOK)
		k.wantTerm(t, res, merge(f.wantParent, map[string]string{"id": f.foo, "name": "foo", "count": "3",
			"description": "Term description", "slug": "foo-bar"}), link)
	})
}
