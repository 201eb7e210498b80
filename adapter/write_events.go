package adapter

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"calshim/mapping"
	"calshim/mapping/php"
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
		return nil, inTrash("event")
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
		findErr = eventNotFound(0)
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
		return nil, savedNotFound("event")
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
		return 0, refused(plan.Refusal)
	}

	done := make([]int, len(plan.Steps))
	for i, s := range plan.Steps {
		t.terms = t.terms || s.ImageURL == "" && len(plan.Save.Terms) > 0
		id, err := t.step(s)
		if err != nil {
			t.undo(err)
			return 0, err
		}
		done[i] = id
	}

	t.terms = t.terms || len(plan.Save.Terms) > 0

	id, err := t.savePost(plan.Save.Type, plan.Save.ID, plan.Save.Body(done))
	if err == nil {
		err = t.after(plan.After, done, id)
	}
	if err != nil && (plan.Save.ID == 0 || id == 0) {
		// The event's save, or a follow-up of its creation, failed: nothing this write created
		// stays. An update that saved keeps what the event now links. (A failed follow-up comes
		// before any draft is published: the plan puts the saves that complete the event's first.)
		t.undo(err)
	}
	return id, err
}

// after runs the saves that follow an event's (mapping.FollowUp), of the event saved as id. A
// draft to publish that is no draft in the catalog, or that was published already, is skipped.
func (t *tx) after(saves []mapping.FollowUp, done []int, id int) error {
	published := map[int]bool{}
	for _, f := range saves {
		post := f.Post.Resolve(done, id)
		if !f.IfDraft {
			t.limit++ // completes the save made: never cut by the write's limit of requests
			if _, err := t.savePost(f.Write.Type, post, f.Write.Body(done)); err != nil {
				return err
			}
			continue
		}
		if linked, ok := draftPost(t.r, strconv.Itoa(post)); ok && !published[post] {
			published[post] = true
			_, _ = t.savePost(linked.Type(), linked.ID, f.Write.Body(done))
		}
	}
	return nil
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
		v = php.ArrayValues(m) // PHP casts an object to the array of its members
	}
	var names []string
	for _, item := range items(v) {
		if s, ok := php.Scalar(item); ok && strings.TrimSpace(s) != "" {
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

// eventWrite reads a validated event write's arguments into mapping's typed form.
func eventWrite(in Params) mapping.EventWrite {
	return mapping.EventWrite{
		Title: argOf(in.raw("title")), Description: argOf(in.raw("description")),
		Excerpt: argOf(in.raw("excerpt")), Slug: argOf(in.raw("slug")),
		Author: argOf(in.integer("author")), Status: argOf(in.raw("status")),
		Date: argOf(in.raw("date")), DateUTC: argOf(in.raw("date_utc")),
		Start: argOf(in.text("start_date")), End: argOf(in.text("end_date")),
		Timezone: argOf(in.text("timezone")), Website: argOf(in.text("website")),
		Image: argOf(in.text("image")), AllDay: argOf(in.truthy("all_day")),
		ShowMap: argOf(in.truthy("show_map")), ShowMapLink: argOf(in.truthy("show_map_link")),
		HideFromListings: argOf(in.truthy("hide_from_listings")), Featured: argOf(in.truthy("featured")),
		Sticky:     argOf(in.truthy("sticky")),
		Cost:       in.listArg("cost", costRows),
		Categories: in.listArg("categories", termArgs), Tags: in.listArg("tags", termArgs),
		Venue: venueLinks(in), Organizers: organizerLinks(in),
	}
}

// argOf is an argument read by a Params reader in mapping's form.
func argOf[T any](v T, given bool) mapping.Arg[T] { return mapping.Arg[T]{V: v, OK: given} }

// costRows are the cost's rows (an array gives one row each), without the empty ones.
func costRows(v any) []string {
	rows := []string{}
	for _, item := range costItems(v) {
		if s, ok := php.Scalar(item); ok && s != "" {
			rows = append(rows, s)
		}
	}
	return rows
}

// costItems is the cost as rows: an array's or an object's members (PHP casts either to an array),
// or the value itself (a cost string is not CSV).
func costItems(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case map[string]any:
		return php.ArrayValues(x)
	}
	return []any{v}
}
