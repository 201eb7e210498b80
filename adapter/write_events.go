package adapter

import (
	"errors"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"calshim/mapping"
)

// createEvent answers POST /events: 201 with the created event.
func createEvent(s *Server, r *request) (*response, error) {
	if err := checkArgs(r); err != nil {
		return nil, err
	}

	if !r.viewer.can("edit_tribe_events") {
		return nil, forbidden(r.viewer)
	}

	t := s.begin(r)
	plan := planEvent(r, nil, t.limit)
	if err := t.afford(plan.Needs); err != nil {
		return nil, err
	}

	id, err := t.saveEvent(plan)
	if err := t.done(err); err != nil {
		return nil, err
	}

	return r.eventResponse(id, http.StatusCreated)
}

// updateEvent answers POST/PUT/PATCH /events/{id} and /events/by-slug/{slug}. Only the fields given
// change (the original's Single_Event::update resets several omitted ones; docs/compatibility.md).
func updateEvent(s *Server, r *request) (*response, error) {
	p, err := s.eventForWrite(r, "edit")
	if err != nil {
		return nil, err
	}

	t := s.begin(r)
	plan := planEvent(r, p, t.limit)
	if err := t.afford(plan.Needs); err != nil {
		return nil, err
	}

	id, err := t.saveEvent(plan)
	if err := t.done(err); err != nil {
		return nil, err
	}

	return r.eventResponse(id, http.StatusOK)
}

// deleteEvent answers DELETE /events/{id} and /events/by-slug/{slug}: the event goes to the trash
// (never deleted for good, `force` is ignored) and the trashed event is returned; 410 when it is
// there already.
func deleteEvent(s *Server, r *request) (*response, error) {
	p, err := s.eventForWrite(r, "delete")
	if err != nil {
		return nil, err
	}

	if p.Status() == "trash" {
		return nil, newError(http.StatusGone, "event-is-in-trash", "The event is already trashed")
	}

	t := s.begin(r)
	if err := t.done(t.trashPost(p.Type(), p.ID)); err != nil {
		return nil, err
	}

	return r.eventResponse(p.ID, http.StatusOK)
}

// eventForWrite runs the original's order for writes on one event: the slug (validated as an
// argument on delete), the update arguments, the permission (on the event when it exists, else the
// general capability), then the handler's not-found / not-an-event answers.
func (s *Server) eventForWrite(r *request, action string) (*mapping.Post, error) {
	p, findErr := s.findEvent(r)
	if _, bySlug := r.vars["slug"]; bySlug && findErr != nil {
		if action != "edit" {
			return nil, findErr
		}
		// The original's update by slug does not validate the slug: an unknown one is the event
		// with ID 0, not found after the arguments and the permission are checked.
		findErr = notFoundf("rest-event-not-found", "Event with ID %d does not exist.", 0)
	}

	if action == "edit" {
		if err := checkArgs(r); err != nil {
			return nil, err
		}
	}

	if findErr == nil && !r.viewer.mayAct(p, action) ||
		findErr != nil && !r.viewer.can(action+"_tribe_events") {
		return nil, forbidden(r.viewer)
	}

	return p, findErr
}

// eventResponse renders a written event from the refreshed catalog (list context: no json_ld, never
// blanked for a password).
func (r *request) eventResponse(id int, status int) (*response, error) {
	p, ok := r.snap.Post(id)
	if !ok {
		return nil, newError(http.StatusInternalServerError, "event-not-found",
			"The requested post ID does not exist or is not an event")
	}
	ctx := r.ctx(false)
	ctx.Unlocked = func(*mapping.Post) bool { return true }
	return &response{status: status, body: ctx.Event(p)}, nil
}

// planEvent translates r's event write (p nil: a create) in mapping, from the catalog's state.
func planEvent(r *request, p *mapping.Post, limit int) mapping.EventPlan {
	return mapping.PlanEvent(eventWrite(r.params), p, writeState(r, limit))
}

// writeState is what a write plan reads of r's snapshot and caller.
func writeState(r *request, limit int) mapping.WriteState {
	return mapping.WriteState{
		Now: r.now, Location: r.snap.Location, SiteTimezone: r.snap.Site.Timezone,
		MultiDayCutoff: r.snap.MultiDayCutoff, CanPublish: r.viewer.can("publish_tribe_events"),
		Types: writeTypes(r), Post: r.snap.Post,
		Term: func(hierarchical bool, item string) (int, bool) {
			if hierarchical {
				return categories.lookup(r, item)
			}
			return tags.lookup(r, item)
		},
		Duplicate: func(postType, name, desc string) *mapping.Post {
			return linkedOf(r, postType).duplicate(r, name, desc)
		},
		KnownImage: func(v string) (int, bool) { return knownImage(r, v) },
		Limit:      limit,
	}
}

// writeTypes are the site's post types and taxonomy REST bases, as a write plan names them.
func writeTypes(r *request) mapping.PostTypes {
	types := r.snap.Types()
	return mapping.PostTypes{Event: types.Event, Venue: types.Venue, Organizer: types.Organizer,
		CategoryBase: types.CategoryBase, TagBase: types.TagBase}
}

// linkedOf is the linked kind of a post type.
func linkedOf(r *request, postType string) linkedKind {
	if postType == venues.typ(r) {
		return venues
	}
	return organizers
}

// saveEvent runs an event write's plan: its steps in order (new terms, venues and organizers, an
// image), then the event's save in one wp/v2 call, then what follows it. A write refused for its
// arguments changes nothing: the original creates the terms, venues and organizers named before the
// argument it refuses (docs/compatibility.md). A step or the save that WordPress fails undoes what the
// write created before it.
func (t *tx) saveEvent(plan mapping.EventPlan) (int, error) {
	if plan.Refusal != nil {
		return 0, newError(http.StatusBadRequest, plan.Refusal.Code, plan.Refusal.Message)
	}

	done := make([]int, len(plan.Steps))
	for i, s := range plan.Steps {
		t.terms = t.terms || s.ImageURL == "" && len(plan.Save.Terms) > 0
		id, err := t.step(s)
		if err != nil {
			t.undo()
			return 0, err
		}
		done[i] = id
	}

	t.terms = t.terms || len(plan.Save.Terms) > 0

	id, err := t.savePost(plan.Save.Type, plan.Save.ID, wireBody(plan.Save, done))
	if err == nil && plan.Stick {
		err = t.stickNew(id)
	}
	if err == nil && plan.EndUTC != "" {
		err = t.keepEndUTC(id, plan.EndUTC)
	}
	if err != nil && (plan.Save.ID == 0 || id == 0) {
		// The event's save, or a follow-up of its creation, failed: nothing this write created
		// stays. An update that saved keeps what the event now links.
		t.undo()
	}
	if err != nil {
		return id, err
	}
	t.publishLinked(resolve(plan.Publish, done))
	return id, nil
}

// step runs one step of a plan and returns the ID it resolved.
func (t *tx) step(s mapping.Step) (int, error) {
	switch {
	case s.Term != nil:
		return t.createNamedTerm(*s.Term)
	case s.Linked != nil:
		return t.saveLinked(*s.Linked)
	}
	return t.resolveImage(s.ImageURL)
}

// resolve turns refs into IDs, with the steps' results.
func resolve(refs []mapping.Ref, done []int) []int {
	ids := make([]int, len(refs))
	for i, ref := range refs {
		ids[i] = ref.ID
		if ref.ID == 0 && ref.Step >= 0 && ref.Step < len(done) {
			ids[i] = done[ref.Step]
		}
	}
	return ids
}

// wireBody is a planned save as a wp/v2 body, with the steps' results in place of their refs: meta
// deletions are null values, linked posts rows of IDs, terms lists of IDs (without 0).
func wireBody(w mapping.PostWrite, done []int) map[string]any {
	body := maps.Clone(w.Fields)
	if w.Image != nil {
		body["featured_media"] = resolve([]mapping.Ref{*w.Image}, done)[0]
	}
	for base, refs := range w.Terms {
		body[base] = slices.DeleteFunc(resolve(refs, done), func(id int) bool { return id == 0 })
	}
	if w.Set == nil {
		return body
	}

	meta := maps.Clone(w.Set)
	for _, key := range w.Delete {
		meta[key] = nil
	}
	for key, refs := range w.Links {
		rows := []string{}
		for _, id := range resolve(refs, done) {
			rows = append(rows, strconv.Itoa(id))
		}
		meta[key] = rows
	}
	body["meta"] = meta
	return body
}

// stickNew saves a new sticky event's menu_order a second time, as the original does: its
// Tribe__Events__API::saveEventMeta makes an inserted event sticky with a wp_update_post of its own,
// which stores the current time as the modified date (not the post date given) and gives a draft its
// modified_utc.
func (t *tx) stickNew(id int) error {
	t.limit++ // completes the save made: never cut by the write's limit of requests
	_, err := t.savePost(t.r.snap.Types().Event, id, map[string]any{"menu_order": -1})
	return err
}

// keepEndUTC stores again the UTC end of an event whose end was before its start. The original
// keeps the UTC end given there (the wall end moves to the start), but the calendar plugin, when
// active on the CMS, recomputes both UTC dates from the wall times after every wp/v2 update that
// sets them (Tribe__Events__Editor__Meta::add_utc_dates); a write of the UTC end alone escapes
// that.
func (t *tx) keepEndUTC(id int, endUTC string) error {
	fix := map[string]any{"meta": map[string]any{"_EventEndDateUTC": endUTC}}
	t.limit++ // completes the save made: never cut by the write's limit of requests
	_, err := t.savePost(t.r.snap.Types().Event, id, fix)
	return err
}

// publishLinked publishes the draft venue and organizers of an event that was just published, as
// TEC does (publishAssociatedTypes), each once. It is a consequence of the event's save, which
// stands: a refusal by the CMS (or the write's limit of requests, write_budget.go) leaves that venue
// or organizer as it was.
func (t *tx) publishLinked(ids []int) {
	published := map[int]bool{}
	for _, id := range ids {
		if linked, ok := draftPost(t.r, strconv.Itoa(id)); ok && !published[id] {
			published[id] = true
			_, _ = t.savePost(linked.Type(), linked.ID, map[string]any{"status": "publish"})
		}
	}
}

// createNamedTerm creates a term an event names as the caller. The original turns an existing tag
// given by name into a new tag named after its ID; calshim assigns the existing tag (docs/compatibility.md).
func (t *tx) createNamedTerm(plan mapping.TermPlan) (int, error) {
	id, err := t.saveTerm(plan)
	var exists *apiError
	if errors.As(err, &exists) && exists.Code == "term_exists" {
		// Created meanwhile by someone else (the catalog has not seen it yet): the existing term is
		// the one named, as the original's Tribe__Terms::translate_terms_to_ids finds it.
		return termID(exists), nil
	}
	return id, err
}

// termArgs are the entries of a categories or tags argument, trimmed, without the empty ones.
func termArgs(v any) []string {
	if m, isObj := v.(map[string]any); isObj {
		v = mapValues(m) // PHP casts an object to the array of its members
	}
	var names []string
	for _, item := range items(v) {
		if s, ok := scalar(item); ok && strings.TrimSpace(s) != "" {
			names = append(names, strings.TrimSpace(s))
		}
	}
	return names
}

// lookup finds a term of k in the catalog by ID, slug or name; an ID it does not hold is 0, found
// (skipped, as the original does).
func (k termKind) lookup(r *request, item string) (int, bool) {
	terms := k.terms(r)
	if n, err := strconv.Atoi(item); err == nil {
		for _, term := range terms {
			if term.ID == n {
				return n, true
			}
		}
		return 0, true
	}

	for _, term := range terms {
		if term.Slug == item || strings.EqualFold(term.Name, item) {
			return term.ID, true
		}
	}
	return 0, false
}

// termID reads the term_id WordPress sends with term_exists.
func termID(e *apiError) int {
	for _, kv := range e.Extra {
		if n, ok := kv.Value.(int); ok && kv.Key == "term_id" {
			return n
		}
	}
	return 0
}
