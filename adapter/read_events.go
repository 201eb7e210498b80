package adapter

import (
	"net/http"
	"strconv"

	"calshim/mapping"
	"calshim/mapping/php"

	"go.uber.org/zap"
)

// singleEvent answers GET /events/{id} and /events/by-slug/{slug}, as the original's
// Single_Event::get and Single_Event_Slug::get.
func singleEvent(s *Server, r *request) (*response, error) {
	// WordPress validates the arguments (password must be a non-empty string) before the handler
	// looks the ID up.
	if err := checkArgs(r); err != nil {
		return nil, err
	}

	p, err := s.findEvent(r)
	if err != nil {
		return nil, err
	}

	switch {
	case p.Status() == "trash":
		return nil, errEventNoLongerAvailable
	case !r.viewer.mayRead(p):
		return nil, notAccessible("event")
	case p.Protected && !r.ctx(true).Unlocked(p):
		return nil, errEventPasswordProtected
	}

	return &response{status: http.StatusOK, body: r.ctx(true).Event(p)}, nil
}

// findEvent locates the event of an {id} or {slug} route with the original's errors
// (Single_Event::validate_event_exists): an ID of no post at all is 404, an ID of any other post
// (venue, organizer, attachment, page) is 400.
func (s *Server) findEvent(r *request) (*mapping.Post, error) {
	typ := r.snap.Types().Event
	if _, ok := r.vars["slug"]; ok {
		p, found := postBySlug(r, typ, r.snap.Events)
		if !found {
			return nil, invalidParam("slug")
		}
		return p, nil
	}

	id, _ := strconv.Atoi(r.vars["id"])
	p, found := r.snap.Post(id)
	if !found {
		exists, err := s.otherPostExists(r, id)
		if err != nil {
			return nil, err
		}

		if !exists {
			return nil, eventNotFound(id)
		}
	}

	if !found || p.Type() != typ {
		return nil, errInvalidEventID
	}

	return p, nil
}

// postBySlug finds the post of a by-slug route as WordPress' get_page_by_path does (TEC's
// is_event_slug, is_venue_slug and is_organizer_slug, then the handlers, look posts up with it):
// the slug is sanitized first (so "Opening-Night-Gala" finds "opening-night-gala"), a post with a
// parent is never found by its slug alone, and a slug that sanitizes to "" finds the oldest post
// without one (a never-published draft). "0" is empty to PHP, so no slug at all.
func postBySlug(r *request, typ string, all []*mapping.Post) (*mapping.Post, bool) {
	slug, single := php.QuerySlug(r.vars["slug"])
	if r.vars["slug"] == "0" || !single {
		return nil, false
	}

	if slug != "" {
		p, found := r.snap.BySlug(typ, slug)
		return p, found && p.Parent == 0
	}

	var oldest *mapping.Post
	for _, p := range all {
		if p.Slug() == "" && p.Parent == 0 && (oldest == nil || p.ID < oldest.ID) {
			oldest = p
		}
	}

	return oldest, oldest != nil
}

// otherPostExists reports whether WordPress holds a post with this ID that the catalog does not keep
// (an attachment, a post, a page, a revision: get_post finds posts of every type). The plugin answers
// it in one request; the answer is kept a minute at most, and only while the catalog does not change
// (a calendar post WordPress has and the catalog does not hold yet is about to arrive, or has just
// been deleted). An unreachable CMS reads as "no post". Look-ups are rationed per client address
// (limits.go): past the allowance the answer is 429.
func (s *Server) otherPostExists(r *request, id int) (bool, error) {
	if id <= 0 || r.cms == nil {
		return false, nil
	}

	key := strconv.FormatUint(r.snap.Version, 10) + " " + r.lang + " " + strconv.Itoa(id)
	if known, ok := s.others.Get(key); ok {
		return known.(bool), nil
	}

	if err := s.limits.admitLookup(r.gc); err != nil {
		return false, err
	}

	exists, err := r.cms.PostExists(r.gc.Request.Context(), id)
	if err != nil {
		s.log.Warn("post look-up failed", zap.Int("id", id), zap.Error(err))
		return false, nil
	}
	s.others.SetDefault(key, exists)
	return exists, nil
}
