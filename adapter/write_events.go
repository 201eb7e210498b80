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
	if err := t.afford(eventNeeds(r, nil, t.limit)); err != nil {
		return nil, err
	}

	id, err := t.saveEvent(nil)
	if err := t.done(err); err != nil {
		return nil, err
	}

	return r.eventResponse(id, http.StatusCreated)
}

// updateEvent answers POST/PUT/PATCH /events/{id} and /events/by-slug/{slug}. Only the fields given
// change (the original's Single_Event::update resets several omitted ones; README).
func updateEvent(s *Server, r *request) (*response, error) {
	p, err := s.eventForWrite(r, "edit")
	if err != nil {
		return nil, err
	}

	t := s.begin(r)
	if err := t.afford(eventNeeds(r, p, t.limit)); err != nil {
		return nil, err
	}

	id, err := t.saveEvent(p)
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

// saveEvent creates (p nil) or updates an event from r's arguments: linked terms, venue, organizers
// and image are resolved (and created) first, then the post and its meta are written in one wp/v2
// call.
func (t *tx) saveEvent(p *mapping.Post) (int, error) {
	r, create := t.r, p == nil
	body, meta := map[string]any{}, map[string]any{}
	postFields(r.params, body, []fieldMap{
		{"title", "title"}, {"description", "content"}, {"excerpt", "excerpt"}, {"slug", "slug"},
	})
	if status, ok := scaleStatus(r.params, r.viewer, create); ok {
		body["status"] = status
	}

	tz, _ := r.params.text("timezone")
	postDates(r.params, r.now, body, mapping.EventZone(tz, r.snap.Location), false)
	eventDateMeta(r, p, meta)
	eventFlags(r.params, create, body, meta)
	eventCost(r.params, create, meta)
	// The original creates events from its arguments without the empty ones (array_filter), so an
	// empty website on create leaves no _EventURL row and the event shows its own URL.
	if v, ok := r.params.text("website"); ok && (v != "" || !create) {
		meta["_EventURL"] = mapping.SanitizeURL(v)
	}

	steps := []func(map[string]any, map[string]any) error{
		t.eventImage, t.eventTerms, t.eventVenue, t.eventOrganizers,
	}

	for _, step := range steps {
		if err := step(body, meta); err != nil {
			return 0, err
		}
	}

	body["meta"] = meta
	id := 0
	if !create {
		id = p.ID
	}

	id, err := t.savePost(r.snap.Types().Event, id, body)
	if err == nil && create && body["menu_order"] == -1 {
		err = t.stickNew(id)
	}
	if err == nil {
		err = t.keepEndUTC(id, meta)
	}

	if err == nil && body["status"] == "publish" {
		t.publishLinked(p, meta)
	}

	return id, err
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
func (t *tx) keepEndUTC(id int, meta map[string]any) error {
	endUTC, ok := meta["_EventEndDateUTC"].(string)
	if !ok || meta["_EventEndDate"] != meta["_EventStartDate"] ||
		endUTC == meta["_EventStartDateUTC"] {
		return nil
	}
	fix := map[string]any{"meta": map[string]any{"_EventEndDateUTC": endUTC}}
	t.limit++ // completes the save made: never cut by the write's limit of requests
	_, err := t.savePost(t.r.snap.Types().Event, id, fix)
	return err
}

// publishLinked publishes the draft venue and organizers of an event that was just published, as
// TEC does (publishAssociatedTypes), each once. It is a consequence of the event's save, which
// stands: a refusal by the CMS (or the write's limit of requests, write_budget.go) leaves that venue
// or organizer as it was.
func (t *tx) publishLinked(p *mapping.Post, meta map[string]any) {
	var ids []string
	for _, key := range []string{"_EventVenueID", "_EventOrganizerID"} {
		if rows, given := meta[key].([]string); given {
			ids = append(ids, rows...)
		} else if p != nil {
			ids = append(ids, p.Meta.Get(key)...)
		}
	}

	published := map[string]bool{}
	for _, s := range ids {
		if linked, ok := draftPost(t.r, s); ok && !published[s] {
			published[s] = true
			_, _ = t.savePost(linked.Type(), linked.ID, map[string]any{"status": "publish"})
		}
	}
}

// eventDateMeta writes the date meta (the fields of mapping.EventDates) when any of the date
// arguments is given. On update the missing ones come from the stored event, so a new time zone
// alone re-reads the stored wall times in it and keeps the UTC values consistent.
func eventDateMeta(r *request, p *mapping.Post, meta map[string]any) {
	start, sOK := r.params.text("start_date")
	end, eOK := r.params.text("end_date")
	tz, tzOK := r.params.text("timezone")
	allDay, adOK := r.params.truthy("all_day")
	if p != nil {
		if !sOK && !eOK && !tzOK && !adOK {
			return
		}
		start, end = keep(start, sOK, p, "_EventStartDate"), keep(end, eOK, p, "_EventEndDate")
		tz = keep(tz, tzOK, p, "_EventTimezone")
		if !adOK {
			v, _ := p.MetaFirst("_EventAllDay")
			allDay = php.TribeTruthy(v)
		}
	}

	loc := mapping.EventZone(tz, r.snap.Location)
	st, _ := php.ParseTime(start, r.now, loc)
	en, _ := php.ParseTime(end, r.now, loc)
	d := mapping.NewEventDates(st, en, allDay, tz,
		r.snap.Site.Timezone, r.snap.MultiDayCutoff, r.snap.Location)
	meta["_EventStartDate"], meta["_EventEndDate"] = d.Start, d.End
	meta["_EventStartDateUTC"], meta["_EventEndDateUTC"] = d.StartUTC, d.EndUTC
	meta["_EventTimezone"], meta["_EventTimezoneAbbr"] = d.Timezone, d.Abbr
	switch {
	case d.AllDay:
		meta["_EventAllDay"] = "yes"
	case p == nil:
		meta["_EventAllDay"] = nil // TEC deletes it on create and writes "no" on update
	default:
		meta["_EventAllDay"] = "no"
	}

	if d.Duration >= 0 {
		meta["_EventDuration"] = strconv.Itoa(d.Duration)
	}
}

// keep returns the given value, or the stored meta when it was not given.
func keep(v string, given bool, p *mapping.Post, key string) string {
	if given {
		return v
	}
	stored, _ := p.MetaFirst(key)
	return stored
}

// eventFlags stores show_map, show_map_link, hide_from_listings, featured and sticky as TEC does:
// "1"/"" for the map flags (created events default to off: Single_Event::prepare_postarr stores
// tribe_is_truthy of the absent flag), "yes" or no row for hidden, "1" or no row for featured,
// menu_order -1 for sticky.
func eventFlags(in Params, create bool, body, meta map[string]any) {
	mapFlags := []fieldMap{{"show_map", "_EventShowMap"}, {"show_map_link", "_EventShowMapLink"}}
	for _, f := range mapFlags {
		if b, ok := in.truthy(f.param); ok || create {
			meta[f.target] = ""
			if b {
				meta[f.target] = "1"
			}
		}
	}

	if b, ok := in.truthy("hide_from_listings"); ok {
		meta["_EventHideFromUpcoming"] = nil
		if b {
			meta["_EventHideFromUpcoming"] = "yes"
		}
	}

	if b, ok := in.truthy("featured"); ok {
		meta["_tribe_featured"] = nil
		if b {
			meta["_tribe_featured"] = "1"
		}
	}

	if b, ok := in.truthy("sticky"); ok {
		body["menu_order"] = 0
		if b {
			body["menu_order"] = -1
		}
	}
}

// eventCost stores the cost rows raw (an array gives one row each) and the currency symbol and
// position parsed from them.
func eventCost(in Params, create bool, meta map[string]any) {
	v, ok := in.given("cost")
	if !ok {
		return
	}

	rows := []string{}
	for _, item := range costItems(v) {
		if s, ok := scalar(item); ok && s != "" {
			rows = append(rows, s)
		}
	}

	meta["_EventCost"] = rows
	if sym, pos, ok := mapping.CostCurrency(rows); ok {
		meta["_EventCurrencySymbol"], meta["_EventCurrencyPosition"] = sym, pos
	} else if !create {
		meta["_EventCurrencySymbol"], meta["_EventCurrencyPosition"] = nil, nil
	}
}

// costItems is the cost as rows: an array's or an object's members (PHP casts either to an array),
// or the value itself (a cost string is not CSV).
func costItems(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case map[string]any:
		return objectEntries(x)
	}
	return []any{v}
}

// eventTerms resolves categories and tags: IDs of existing terms (unknown IDs skipped), else slugs
// or names, created when missing; a name given again is the term it named first, without asking
// again. Given but empty removes them all; absent leaves them.
func (t *tx) eventTerms(body, _ map[string]any) error {
	types := t.r.snap.Types()
	for _, k := range []termKind{categories, tags} {
		v, ok := t.r.params.given(k.collection)
		if !ok {
			continue
		}
		t.terms = true
		ids, resolved := []int{}, map[string]int{}
		for _, s := range termArgs(v) {
			id, done := resolved[s]
			if !done {
				var err error
				if id, err = t.resolveTerm(k, s); err != nil {
					return err
				}
				resolved[s] = id
			}
			if id != 0 {
				ids = append(ids, id)
			}
		}
		base := types.CategoryBase
		if !k.hierarchical {
			base = types.TagBase
		}
		body[base] = ids
	}

	return nil
}

// termArgs are the entries of a categories or tags argument, trimmed, without the empty ones.
func termArgs(v any) []string {
	if m, isObj := v.(map[string]any); isObj {
		v = objectEntries(m) // PHP casts an object to the array of its members
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

// resolveTerm finds a term of k by ID, slug or name, creating it (as the caller) when a name is
// new. The original turns an existing tag given by name into a new tag named after its ID; calshim
// assigns the existing tag (README).
func (t *tx) resolveTerm(k termKind, item string) (int, error) {
	if id, found := k.lookup(t.r, item); found {
		return id, nil
	}

	id, err := t.createTerm(k, map[string]any{"name": item})
	var exists *apiError
	if errors.As(err, &exists) && exists.Code == "term_exists" {
		// Created meanwhile by someone else (the catalog has not seen it yet): the existing term is
		// the one named, as the original's Tribe__Terms::translate_terms_to_ids finds it.
		return termID(exists), nil
	}

	return id, err
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
