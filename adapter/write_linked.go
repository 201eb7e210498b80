package adapter

import (
	"calshim/mapping/php"
	"net/http"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"calshim/mapping"
)

// linkedMeta maps the plain-text arguments of venues and organizers to their meta keys (the
// original: Single_Venue::prepare_postarr and Single_Organizer::prepare_postarr); website is
// URL-sanitized.
func (k linkedKind) linkedMeta() []fieldMap {
	if k.name == "venue" {
		return []fieldMap{
			{"address", "_VenueAddress"}, {"city", "_VenueCity"}, {"country", "_VenueCountry"},
			{"province", "_VenueProvince"}, {"state", "_VenueState"}, {"zip", "_VenueZip"},
			{"phone", "_VenuePhone"}, {"website", "_VenueURL"},
		}
	}

	return []fieldMap{
		{"phone", "_OrganizerPhone"}, {"website", "_OrganizerWebsite"}, {"email", "_OrganizerEmail"},
	}
}

// cap is the general capability of an action on this kind, e.g. edit_tribe_venues.
func (k linkedKind) cap(action string) string { return action + "_tribe_" + k.collection }

// create answers POST /venues and /organizers: 201 with the new one, or with an existing one of the
// same name (and description, when given) — the original's duplicate avoidance.
func (k linkedKind) create(s *Server, r *request) (*response, error) {
	if err := checkArgs(r); err != nil {
		return nil, err
	}

	if !r.viewer.can(k.cap("edit")) {
		return nil, forbidden(r.viewer)
	}

	t := s.begin(r)
	id, err := t.saveLinked(k, nil, r.params)
	if err := t.done(err); err != nil {
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

	t := s.begin(r)
	id, err := t.saveLinked(k, p, r.params)
	if err := t.done(err); err != nil {
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
		return nil, newError(http.StatusGone, k.name+"-is-in-trash", "The "+k.name+" is already trashed")
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
		return nil, newError(http.StatusInternalServerError, k.name+"-not-found",
			"The requested post ID does not exist or is not an "+k.name)
	}
	ctx := r.ctx(false)
	ctx.Unlocked = func(*mapping.Post) bool { return true }
	return &response{status: status, body: k.render(ctx, p)}, nil
}

// saveLinked creates (p nil) or updates a venue or organizer from in: the route's arguments or a
// payload nested in an event. Empty strings clear meta fields; post title and content are never
// cleared (the original ignores empty values there).
func (t *tx) saveLinked(k linkedKind, p *mapping.Post, in Params) (int, error) {
	r, create := t.r, p == nil
	if create {
		dup, err := t.findDuplicate(k, in)
		if err != nil {
			return 0, err
		}
		if dup != nil {
			return t.saveDuplicate(k, dup, in)
		}
	}

	body := map[string]any{}
	postFields(in, body, []fieldMap{{k.name, "title"}, {"description", "content"}})
	if title, ok := body["title"]; ok && create {
		// The original names the post after its title (Tribe__Events__Venue::create sets
		// post_name), so a draft has its slug too; WordPress sanitizes it as sanitize_title does.
		body["slug"] = title
	}

	canPublish := r.viewer.can("publish_tribe_events")
	if status, ok := mapping.ScaleStatus(argOf(in.raw("status")), canPublish, create); ok {
		body["status"] = status
	}

	mapping.PostDates(body, argOf(in.raw("date")), argOf(in.raw("date_utc")), r.now, r.snap.Location, true)
	if err := t.linkedFields(k, p, create, in, body); err != nil {
		return 0, err
	}

	id := 0
	if !create {
		id = p.ID
	}

	return t.savePost(k.typ(r), id, body)
}

// findDuplicate is the existing venue or organizer a create names (see duplicate). When the catalog
// has none, WordPress is searched for the name: one created elsewhere since the last poll counts
// too. A failed search leaves the catalog's answer; the search counts against the write's limit of
// requests, the one error returned.
func (t *tx) findDuplicate(k linkedKind, in Params) (*mapping.Post, error) {
	name, _ := in.text(k.name)
	desc, _ := in.text("description")
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

// saveDuplicate is the original's answer to creating a venue or organizer that exists already (same
// title, and same description when one is given): the existing one, with the meta given saved onto
// it as on create (map flags on unless given off, state/province from what is given) and its post
// fields left as they are (Tribe__Events__Venue::create with avoid_duplicates, then save_meta). A
// duplicate the caller may not edit is answered as it is: WordPress would refuse the meta.
func (t *tx) saveDuplicate(k linkedKind, dup *mapping.Post, in Params) (int, error) {
	if !t.r.viewer.mayEdit(dup) {
		return dup.ID, nil
	}
	body := map[string]any{}
	if err := t.linkedFields(k, nil, false, in, body); err != nil {
		return 0, err
	}

	// The original's save_meta writes only meta, which leaves post_modified alone; a wp/v2 save always
	// bumps it. When the duplicate holds all of it already, there is nothing to save.
	typed, err := t.typedMeta(k.typ(t.r), dup.ID, body)
	if err != nil {
		return 0, err
	}
	if holds(dup, typed) {
		return dup.ID, nil
	}
	return t.savePost(k.typ(t.r), dup.ID, body)
}

// holds reports whether p already has every value of a wp/v2 body made by linkedFields, its meta in
// the CMS's types (typedMeta): a single row as WordPress stores each value, no row for nil, and the
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

// linkedFields puts the meta and image of a venue or organizer into a wp/v2 body. p is the post
// updated (nil when its meta is written as on create); blank skips the empty values, as a new post
// has nothing to clear.
func (t *tx) linkedFields(
	k linkedKind, p *mapping.Post, blank bool, in Params, body map[string]any,
) error {
	meta := map[string]any{}
	for _, f := range k.linkedMeta() {
		v, ok := in.text(f.param)
		switch {
		case !ok || (blank && v == ""):
		case v == "":
			meta[f.target] = nil
		case f.param == "website":
			meta[f.target] = mapping.SanitizeURL(v)
		default:
			meta[f.target] = v
		}
	}

	if k.name == "venue" {
		venueMaps(in, p, meta)
	}

	if err := t.linkedImage(in, body); err != nil {
		return err
	}

	body["meta"] = meta
	return nil
}

// venueMaps stores the venue's map flags ("1" or the string "false", on by default; mirrored into
// the _EventShowMap keys as TEC does) and its derived state/province.
func venueMaps(in Params, p *mapping.Post, meta map[string]any) {
	flags := []struct{ param, venueKey, eventKey string }{
		{"show_map", "_VenueShowMap", "_EventShowMap"},
		{"show_map_link", "_VenueShowMapLink", "_EventShowMapLink"},
	}

	for _, f := range flags {
		v, ok := in.text(f.param)
		if !ok && p != nil {
			continue
		}
		flag := "1"
		if ok && !php.TribeTruthy(v) {
			flag = "false"
		}
		meta[f.venueKey], meta[f.eventKey] = flag, flag
	}

	if v, ok := in.text("stateprovince"); ok && v != "" {
		meta["_VenueStateProvince"] = v
		return
	}

	_, sOK := in.given("state")
	_, pOK := in.given("province")
	_, cOK := in.given("country")
	if p != nil && !sOK && !pOK && !cOK {
		return
	}

	field := func(name, key string) string {
		if v, ok := in.text(name); ok {
			return v
		}
		if p != nil {
			v, _ := p.MetaFirst(key)
			return v
		}
		return ""
	}

	sp := mapping.StateProvince(field("state", "_VenueState"), field("province", "_VenueProvince"),
		field("country", "_VenueCountry"))
	meta["_VenueStateProvince"] = sp
	if sp == "" && p != nil {
		meta["_VenueStateProvince"] = nil
	}
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

// unlink removes a trashed venue or organizer from the published events that point at it, as TEC
// does (for organizers the whole _EventOrganizerID key is deleted, the event's other organizers
// too; limited like the original to one page of events). Events the caller may not edit are left
// alone: the CMS decides. The site's page size bounds these saves, not the request: each widens
// the write's limit of requests by its own.
func (t *tx) unlink(k linkedKind, id int) {
	n := 0
	for _, e := range t.r.snap.Events {
		if n >= t.r.snap.PerPage || e.Status() != "publish" || !k.idsOf([]*mapping.Post{e})[id] ||
			!t.r.viewer.mayEdit(e) {
			continue
		}
		n++
		t.limit++
		_, _ = t.savePost(e.Type(), e.ID, map[string]any{"meta": map[string]any{k.metaKey: []string{}}})
	}
}
