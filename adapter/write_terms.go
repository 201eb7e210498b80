package adapter

import (
	"context"
	"net/http"
	"strconv"

	"calshim/cmsclient"
	"calshim/mapping"
)

// base is the wp/v2 REST base of the taxonomy.
func (k termKind) base(r *request) string {
	if k.hierarchical {
		return r.snap.Types().CategoryBase
	}
	return r.snap.Types().TagBase
}

// mayManage is the original's permission for term writes (Term_Single_Base::can_manage_terms):
// edit_tribe_events and the taxonomy's manage capability (publish_tribe_events for categories,
// manage_categories for tags).
func (k termKind) mayManage(v *viewer) bool {
	if k.hierarchical {
		return v.canAll("edit_tribe_events", "publish_tribe_events")
	}
	return v.canAll("edit_tribe_events", "manage_categories")
}

// create answers POST /categories and /tags: 201, the term with core's _links, and a Location
// header pointing at the core route, as the original (which delegates to the core terms
// controller).
func (k termKind) create(s *Server, r *request) (*response, error) {
	if err := checkArgs(r); err != nil {
		return nil, err
	}

	if err := k.permitted(r); err != nil {
		return nil, err
	}

	t := s.begin(r)
	id, err := t.createTerm(k, k.body(r))
	if err := t.done(err); err != nil {
		return nil, err
	}

	res, err := k.termResponse(r, id, http.StatusCreated)
	if err == nil {
		location := cmsclient.TermURL(r.snap.Site.Home+"/wp-json", k.base(r), id)
		res.headers = []header{{"Location", location}}
	}

	return res, err
}

// update answers POST/PUT/PATCH /categories/{id} and /tags/{id}.
func (k termKind) update(s *Server, r *request) (*response, error) {
	term, err := k.forWrite(r, true)
	if err != nil {
		return nil, err
	}

	t := s.begin(r)
	t.terms = true
	save := func(
		ctx context.Context, c *cmsclient.Client, cr cmsclient.Credentials,
	) (*cmsclient.Response, error) {
		return c.SaveTermAs(ctx, cr, k.base(r), term.ID, k.body(r))
	}

	err = t.send(save, nil)
	if err := t.done(err); err != nil {
		return nil, err
	}

	return k.termResponse(r, term.ID, http.StatusOK)
}

// remove answers DELETE /categories/{id} and /tags/{id}: always a permanent delete; the answer is
// the term as it was, without _links.
func (k termKind) remove(s *Server, r *request) (*response, error) {
	term, err := k.forWrite(r, false)
	if err != nil {
		return nil, err
	}

	before := r.ctx(true).ArchiveTerm(term)
	t := s.begin(r)
	t.terms = true
	del := func(
		ctx context.Context, c *cmsclient.Client, cr cmsclient.Credentials,
	) (*cmsclient.Response, error) {
		return c.DeleteTermAs(ctx, cr, k.base(r), term.ID)
	}

	err = t.send(del, nil)
	if err := t.done(err); err != nil {
		return nil, err
	}

	return &response{status: http.StatusOK, body: before}, nil
}

// forWrite validates the term ID (400 before permission, as the original), the arguments of an
// update (withArgs), then the permission.
func (k termKind) forWrite(r *request, withArgs bool) (*mapping.Term, error) {
	id, _ := strconv.Atoi(r.vars["id"])
	term, ok := r.snap.Term(id)
	if !ok || !k.owns(r, term) {
		return nil, invalidParam("id")
	}

	if withArgs {
		if err := checkArgs(r); err != nil {
			return nil, err
		}
	}

	return term, k.permitted(r)
}

// permitted checks the permission, then the core controller's refusal of a parent for tags.
func (k termKind) permitted(r *request) error {
	if !k.mayManage(r.viewer) {
		return forbidden(r.viewer)
	}
	if _, ok := r.given("parent"); ok && !k.hierarchical {
		return newError(http.StatusBadRequest, "rest_taxonomy_not_hierarchical",
			"Cannot set parent term, taxonomy is not hierarchical.")
	}
	return nil
}

// body is the wp/v2 body of a term write.
func (k termKind) body(r *request) map[string]any {
	body := map[string]any{}
	for _, f := range []string{"name", "description", "slug"} {
		if v, ok := r.params.text(f); ok {
			body[f] = v
		}
	}

	if v, ok := r.given("parent"); ok {
		body["parent"], _ = asInt(v)
	}

	return body
}

func (k termKind) termResponse(r *request, id, status int) (*response, error) {
	term, ok := r.snap.Term(id)
	if !ok {
		return nil, invalidParam("id")
	}
	body := r.ctx(true).ArchiveTerm(term)
	links := r.ctx(true).TermLinks(term, r.snap.Site.Home+"/wp-json/")
	body = append(body, mapping.KV{Key: "_links", Value: links})
	return &response{status: status, body: body}, nil
}

// createTerm creates a term as the caller and returns its ID.
func (t *tx) createTerm(k termKind, body map[string]any) (int, error) {
	var saved struct {
		ID int `json:"id"`
	}

	t.terms = true
	create := func(
		ctx context.Context, c *cmsclient.Client, cr cmsclient.Credentials,
	) (*cmsclient.Response, error) {
		return c.SaveTermAs(ctx, cr, k.base(t.r), 0, body)
	}

	if err := t.send(create, &saved); err != nil {
		return 0, err
	}

	return saved.ID, nil
}
