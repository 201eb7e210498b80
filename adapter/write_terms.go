package adapter

import (
	"context"
	"net/http"
	"strconv"

	"calshim/cmsclient"
	"calshim/mapping"
)

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

	plan, err := k.plan(r, 0, false)
	if err != nil {
		return nil, err
	}

	id, err := s.writeTerm(r, plan)
	if err != nil {
		return nil, err
	}

	res, err := k.termResponse(r, id, http.StatusCreated)
	if err == nil {
		location := cmsclient.TermURL(r.snap.Site.Home+"/wp-json", plan.Base, id)
		res.headers = []header{{"Location", location}}
	}

	return res, err
}

// update answers POST/PUT/PATCH /categories/{id} and /tags/{id}.
func (k termKind) update(s *Server, r *request) (*response, error) {
	_, plan, err := k.forWrite(r, false)
	if err != nil {
		return nil, err
	}

	id, err := s.writeTerm(r, plan)
	if err != nil {
		return nil, err
	}

	return k.termResponse(r, id, http.StatusOK)
}

// remove answers DELETE /categories/{id} and /tags/{id}: always a permanent delete; the answer is
// the term as it was, without _links.
func (k termKind) remove(s *Server, r *request) (*response, error) {
	term, plan, err := k.forWrite(r, true)
	if err != nil {
		return nil, err
	}

	before := r.ctx(true).ArchiveTerm(term)
	if _, err := s.writeTerm(r, plan); err != nil {
		return nil, err
	}

	return &response{status: http.StatusOK, body: before}, nil
}

// forWrite validates the term ID (400 before permission, as the original), the arguments of an
// update, then plans the write.
func (k termKind) forWrite(r *request, del bool) (*mapping.Term, mapping.TermPlan, error) {
	id, _ := strconv.Atoi(r.vars["id"])
	term, ok := r.snap.Term(id)
	if !ok || !k.owns(r, term) {
		return nil, mapping.TermPlan{}, invalidParam("id")
	}

	if !del {
		if err := checkArgs(r); err != nil {
			return nil, mapping.TermPlan{}, err
		}
	}

	plan, err := k.plan(r, term.ID, del)
	return term, plan, err
}

// plan checks the permission, then translates the write in mapping (which refuses a parent for
// tags, as the core controller does).
func (k termKind) plan(r *request, id int, del bool) (mapping.TermPlan, error) {
	if !k.mayManage(r.viewer) {
		return mapping.TermPlan{}, forbidden(r.viewer)
	}

	w := mapping.TermWrite{Hierarchical: k.hierarchical, ID: id, Delete: del,
		Name: argOf(r.params.text("name")), Description: argOf(r.params.text("description")),
		Slug: argOf(r.params.text("slug")), Parent: argOf(r.params.integer("parent"))}
	plan := mapping.PlanTerm(w, writeTypes(r))
	if plan.Refusal != nil {
		return plan, refused(plan.Refusal)
	}
	return plan, nil
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

// writeTerm runs a term plan as a write of its own, then refreshes the catalog.
func (s *Server) writeTerm(r *request, plan mapping.TermPlan) (int, error) {
	t := s.begin(r)
	id, err := t.saveTerm(plan)
	if err != nil {
		t.undo(err) // a term WordPress inserted before it refused the rest
	}
	return id, t.done(err)
}

// saveTerm runs a term plan: one wp/v2 call as the caller. It returns the ID of the term written.
func (t *tx) saveTerm(plan mapping.TermPlan) (int, error) {
	t.terms = true
	id := plan.ID
	err := t.call(func(ctx context.Context, c *cmsclient.Client, creds cmsclient.Credentials) (err error) {
		if plan.Delete {
			return c.DeleteTermAs(ctx, creds, plan.Base, plan.ID)
		}
		saved, err := c.SaveTermAs(ctx, creds, plan.Base, plan.ID, plan.Fields)
		if plan.ID == 0 {
			id = saved
		}
		return err
	})
	if err == nil && plan.ID == 0 {
		t.created = append(t.created, created{term: true, base: plan.Base, id: id})
	}
	return id, err
}
