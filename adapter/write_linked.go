package adapter

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"calshim/mapping"
	"calshim/mapping/php"
)

// create answers POST /venues and /organizers: 201 with the new one, or with an existing one of the
// same name (and description, when given) — the original's duplicate avoidance.
func (k linkedKind) create(s *Server, r *request) (*response, error) {
	if err := checkArgs(r); err != nil {
		return nil, err
	}

	if !r.viewer.can(k.cap("edit")) {
		return nil, forbidden(r.viewer)
	}

	id, err := k.write(s, r, nil)
	if err != nil {
		return nil, err
	}

	return k.response(r, id, http.StatusCreated)
}

// update answers POST/PUT/PATCH on one venue or organizer; only the fields given change.
func (k linkedKind) update(s *Server, r *request) (*response, error) {
	p, err := k.forWrite(r, "edit")
	if err != nil {
		return nil, err
	}

	id, err := k.write(s, r, p)
	if err != nil {
		return nil, err
	}

	return k.response(r, id, http.StatusOK)
}

// remove answers DELETE on one venue or organizer: to the trash, 410 when it is there already.
func (k linkedKind) remove(s *Server, r *request) (*response, error) {
	p, err := k.forWrite(r, "delete")
	if err != nil {
		return nil, err
	}

	if p.Status() == "trash" {
		return nil, inTrash(k.name)
	}

	t := s.begin(r)
	err = t.trashPost(p.Type(), p.ID)
	if err == nil {
		t.unlink(k, p.ID)
	}

	if err := t.done(err); err != nil {
		return nil, err
	}

	return k.response(r, p.ID, http.StatusOK)
}

// forWrite validates the ID or slug (400 before any permission check, as the original), the update
// arguments, then the permission.
func (k linkedKind) forWrite(r *request, action string) (*mapping.Post, error) {
	p, err := k.find(r)
	if err != nil {
		return nil, err
	}

	if action == "edit" {
		if err := checkArgs(r); err != nil {
			return nil, err
		}
	}

	if !r.viewer.mayAct(p, action) {
		return nil, forbidden(r.viewer)
	}

	return p, nil
}

// find locates the venue or organizer of an {id} or {slug} route; unknown → 400 on the argument.
func (k linkedKind) find(r *request) (*mapping.Post, error) {
	if slug, ok := r.vars["slug"]; ok {
		p, found := r.snap.BySlug(k.typ(r), slug)
		if !found {
			return nil, invalidParam("slug")
		}
		return p, nil
	}

	id, _ := strconv.Atoi(r.vars["id"])
	p, found := r.snap.Post(id)
	if !found || p.Type() != k.typ(r) {
		return nil, invalidParam("id")
	}

	return p, nil
}

func (k linkedKind) response(r *request, id, status int) (*response, error) {
	p, ok := r.snap.Post(id)
	if !ok {
		return nil, savedNotFound(k.name)
	}
	ctx := r.ctx(false)
	ctx.Unlocked = func(*mapping.Post) bool { return true }
	return &response{status: status, body: k.render(ctx, p)}, nil
}

// write translates r's venue or organizer write (p nil: a create) in mapping, runs the plan as a
// write of its own, then refreshes the catalog.
func (k linkedKind) write(s *Server, r *request, p *mapping.Post) (int, error) {
	t := s.begin(r)
	plan := mapping.PlanLinked(linkedWrite(k, r.params), p, writeState(r, t.limit))
	id, err := t.saveLinked(plan)
	if err != nil {
		t.undo(err) // an image uploaded for it, or the post itself when WordPress refused it half-way
	}
	return id, t.done(err)
}

// linkedWrite reads a validated venue or organizer write (the route's arguments, or a payload
// nested in an event) into mapping's typed form.
func linkedWrite(k linkedKind, in Params) mapping.LinkedWrite {
	return mapping.LinkedWrite{
		Venue: k.name == "venue", Name: argOf(in.raw(k.name)),
		Description: argOf(in.raw("description")), Status: argOf(in.raw("status")),
		Date: argOf(in.raw("date")), DateUTC: argOf(in.raw("date_utc")),
		Author: argOf(in.integer("author")), Image: argOf(in.text("image")),
		Website: argOf(in.text("website")), Phone: argOf(in.text("phone")),
		Email: argOf(in.text("email")), Address: argOf(in.text("address")),
		City: argOf(in.text("city")), Country: argOf(in.text("country")),
		Province: argOf(in.text("province")), State: argOf(in.text("state")),
		Zip: argOf(in.text("zip")), StateProvince: argOf(in.text("stateprovince")),
		ShowMap: argOf(in.text("show_map")), ShowMapLink: argOf(in.text("show_map_link")),
	}
}

// saveLinked runs a venue or organizer write's plan: a create first looks for a duplicate (which
// then takes the plan's save of one instead), then the image is resolved and the post saved in one
// wp/v2 call.
func (t *tx) saveLinked(plan mapping.LinkedPlan) (int, error) {
	save, dup := plan.Save, (*mapping.Post)(nil)
	if d := plan.Duplicate; d != nil {
		var err error
		if dup, err = t.findDuplicate(linkedOf(t.r, save.Type), d.Name, d.Description); err != nil {
			return 0, err
		}
		if dup != nil && !t.r.viewer.mayEdit(dup) {
			// A duplicate the caller may not edit is answered as it is: WordPress would refuse
			// the meta.
			return dup.ID, nil
		}
		if dup != nil {
			save = d.Save
			save.ID = dup.ID
		}
	}

	done := make([]int, len(plan.Steps))
	for i, s := range plan.Steps {
		id, err := t.step(s)
		if err != nil {
			return 0, err
		}
		done[i] = id
	}

	body := save.Body(done)
	if dup != nil {
		// The original's save_meta writes only meta, which leaves post_modified alone; a wp/v2
		// save always bumps it. When the duplicate holds all of it already, there is nothing to
		// save.
		ctx := t.r.gc.Request.Context()
		typed, err := t.r.cms.PostBody(ctx, t.postSave(save.Type, dup.ID, body))
		if err != nil {
			return 0, t.upstreamError(err)
		}
		if holds(dup, typed) {
			return dup.ID, nil
		}
	}
	return t.savePost(save.Type, save.ID, body)
}

// findDuplicate is the existing venue or organizer a create names (see duplicate). When the catalog
// has none, WordPress is searched for the name: one created elsewhere since the last poll counts
// too. A failed search leaves the catalog's answer; the search counts against the write's limit of
// requests, the one error returned.
func (t *tx) findDuplicate(k linkedKind, name, desc string) (*mapping.Post, error) {
	if dup := k.duplicate(t.r, name, desc); dup != nil || name == "" {
		return dup, nil
	}

	if err := t.spend(); err != nil {
		return nil, err
	}

	if err := t.cat.CatchUp(t.r.gc.Request.Context(), k.typ(t.r), name); err != nil {
		route := zap.String("route", traceOf(t.r.gc).route)
		t.s.log.Warn("duplicate search failed", route, zap.Error(err))
		return nil, nil
	}

	t.r.snap = t.cat.Snapshot()
	return k.duplicate(t.r, name, desc), nil
}

// holds reports whether p already has every value of a duplicate's wp/v2 body, its meta in the
// CMS's types (cmsclient.(*Client).PostBody): a single row as WordPress stores each value, no row for nil, and the
// same featured image.
func holds(p *mapping.Post, body map[string]any) bool {
	if id, ok := body["featured_media"].(int); ok && id != p.FeaturedMedia {
		return false
	}

	meta, _ := body["meta"].(map[string]any)
	for key, v := range meta {
		rows := p.Meta.Get(key)
		stored, ok := storedRow(v)
		switch {
		case v == nil && len(rows) > 0:
			return false
		case v != nil && (!ok || len(rows) != 1 || rows[0] != stored):
			return false
		}
	}
	return true
}

// storedRow is the meta row WordPress stores for a single value (update_metadata: false as "", true
// as "1"); ok is false for values of several rows.
func storedRow(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		if v {
			return "1", true
		}
		return "", true
	}
	return "", false
}

// duplicate is the original's duplicate avoidance on create (Tribe__Duplicate__Post): a venue or
// organizer (not trashed) whose title equals name and, when a description is given, whose content
// equals it, compared as MySQL compares them (case-insensitively). The catalog holds the content
// rendered, so the description is compared rendered too.
func (k linkedKind) duplicate(r *request, name, desc string) *mapping.Post {
	for _, p := range k.all(r.snap) {
		if p.Status() == "trash" || !strings.EqualFold(strings.TrimSpace(p.Title()), name) {
			continue
		}
		if desc == "" || mapping.SameContent(p.Content(), desc) {
			return p
		}
	}
	return nil
}

// unlink removes a trashed venue or organizer from the published events that point at it
// (mapping.PlanUnlink). Events the caller may not edit are left alone: the CMS decides. Each save
// widens the write's limit of requests by its own, and a refusal leaves that event as it was.
func (t *tx) unlink(k linkedKind, id int) {
	for _, w := range mapping.PlanUnlink(t.r.snap.Events, id, k.metaKey, t.r.snap.PerPage, t.r.viewer.mayEdit) {
		t.limit++
		_, _ = t.savePost(w.Type, w.ID, w.Body(nil))
	}
}

// How an event names its venue and organizers (the original: Linked_Post_Base::insert, called by
// Single_Event::prepare_postarr): IDs, {id} objects, creation payloads; their validation and their
// reading into mapping's typed form, beside the save they lead to (saveLinked).

// validLink is the validator of an event's venue / organizer argument: empty; a CSV or list of IDs
// of that type; or objects, each {id} of that type or a creation payload with a non-empty name.
func (k linkedKind) validLink(r *request, v any) bool {
	if php.Empty(v) || allEmpty(v) {
		return true
	}

	if m, ok := v.(map[string]any); ok {
		return k.validObject(r, m)
	}

	for _, item := range items(v) {
		if m, ok := item.(map[string]any); ok {
			if !k.validObject(r, m) {
				return false
			}
		} else if !isPostOf(r, item, k.typ(r)) {
			return false
		}
	}

	return true
}

func (k linkedKind) validObject(r *request, m map[string]any) bool {
	if id, ok := Params(m).given("id"); ok {
		return isPostOf(r, id, k.typ(r))
	}
	name, _ := Params(m).text(k.name)
	return name != ""
}

// allEmpty reports whether v is a list or object whose members are all empty: the original's
// validator filters them out first (array_filter) and then finds nothing to check.
func allEmpty(v any) bool {
	var members []any
	switch x := v.(type) {
	case []any:
		members = x
	case map[string]any:
		for _, m := range x {
			members = append(members, m)
		}
	default:
		return false
	}

	return !slices.ContainsFunc(members, func(m any) bool { return !php.Empty(m) })
}

// linkItem reads one entry of a venue or organizer argument. An empty id is no id, as for the
// original (Linked_Post_Base::insert).
func linkItem(k linkedKind, item any) mapping.LinkItem {
	m, isObj := item.(map[string]any)
	if !isObj {
		s, _ := php.Scalar(item)
		return mapping.LinkItem{ID: strings.TrimSpace(s), HasID: true}
	}
	if id, ok := Params(m).given("id"); ok && !php.Empty(id) {
		s, _ := php.Scalar(id)
		return mapping.LinkItem{Object: true, ID: strings.TrimSpace(s), HasID: true}
	}
	name, _ := Params(m).text(k.name)
	return mapping.LinkItem{Object: true, Name: name, Payload: linkedWrite(k, Params(m))}
}

// venueLinks reads an event's venue: an ID, an {id} object or a creation payload. Lists (even of
// one ID or object) and CSV strings are malformed, as in the original (Linked_Post_Base::insert
// takes a list for creation data without a name); empty leaves the venue as it is.
func venueLinks(in Params) mapping.Links {
	v, ok := in.given("venue")
	if !ok || php.Empty(v) {
		return mapping.Links{}
	}
	_, isList := v.([]any)
	if s, _ := php.Scalar(v); isList || strings.Contains(s, ",") {
		return mapping.Links{Given: true, Malformed: true}
	}
	return mapping.Links{Given: true, Items: []mapping.LinkItem{linkItem(venues, v)}}
}

// organizerLinks reads an event's organizers in the order given: IDs, {id} objects, creation
// payloads; empty entries are skipped (Linked_Post_Base::insert: nothing to link). "" or [] removes
// them all; a CSV string is malformed, and an unwrapped object is a list of its members.
func organizerLinks(in Params) mapping.Links {
	v, ok := in.given("organizer")
	if !ok {
		return mapping.Links{}
	}
	list, ok := organizerList(v)
	if !ok {
		return mapping.Links{Given: true, Malformed: true}
	}
	l := mapping.Links{Given: true}
	for _, item := range list {
		if !php.Empty(item) {
			l.Items = append(l.Items, linkItem(organizers, item))
		}
	}
	return l
}

// organizerList is an event's organizer argument as a list of entries; ok is false for a CSV
// string, which the original fails on.
func organizerList(v any) ([]any, bool) {
	switch x := v.(type) {
	case map[string]any:
		// An unwrapped object is a list of entries to the original (Single_Organizer::insert casts
		// it to an array): its members are taken one by one, empty ones skipped.
		return php.ArrayValues(x), true
	case []any:
		return x, true
	}

	if s, _ := php.Scalar(v); strings.Contains(s, ",") {
		return nil, false
	}
	if php.Empty(v) {
		return nil, true
	}
	return []any{v}, true
}

// isPostOf reports whether v is the ID of a post of the given type in the catalog.
func isPostOf(r *request, v any, postType string) bool {
	s, ok := php.Scalar(v)
	if !ok {
		return false
	}
	n, ok := php.PositiveInt(strings.TrimSpace(s))
	p, exists := r.snap.Post(n)
	return ok && exists && p.Type() == postType
}
