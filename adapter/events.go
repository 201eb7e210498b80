package adapter

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"calshim/cmsclient"
	"calshim/mapping"
	"calshim/mapping/php"
)

// singleEvent answers GET /events/{id} and /events/by-slug/{slug}, as the original's
// Single_Event::get and Single_Event_Slug::get.
func singleEvent(s *Server, r *request) (*response, error) {
	p, err := s.findEvent(r)
	if err != nil {
		return nil, err
	}

	switch {
	case p.Status == "trash":
		return nil, newError(http.StatusForbidden, "event-no-longer-available",
			"This event is no longer available")
	case !r.viewer.mayRead(p):
		return nil, newError(http.StatusForbidden, "event-not-accessible",
			"The requested event is not accessible")
	case p.Protected && !r.ctx(true).Unlocked(p):
		return nil, newError(http.StatusForbidden, "event-password-protected",
			"The requested event is not accessible without a password")
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
	if !found && !postExistsUpstream(r, id) {
		return nil, notFoundf("rest-event-not-found", "Event with ID %d does not exist.", id)
	}

	if !found || p.Type != typ {
		return nil, newError(http.StatusBadRequest, "rest-invalid-event-id",
			"The specified ID is not a valid event.")
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
		if p.Slug == "" && p.Parent == 0 && (oldest == nil || p.ID < oldest.ID) {
			oldest = p
		}
	}

	return oldest, oldest != nil
}

// existenceProbe is one upstream read that tells whether a post exists; answerOnly: only a
// successful answer does.
type existenceProbe struct {
	path       string
	answerOnly bool
}

// postExistsUpstream reports whether WordPress holds a post with this ID that the catalog does not
// keep (an attachment, a post, a page, a revision). get_post finds posts of every type; wp/v2 has
// no route for "any post by ID", so the common types are asked at once. For the first three any
// answer but "not found" (401 or 403 for one the service credential may not read) means the post
// exists. Revisions are asked for below any event (wp/v2 does not check the parent matches), where
// only an answer counts: a refusal there is about the parent. Anonymous answers are cached, so a
// client asking again costs nothing upstream.
func postExistsUpstream(r *request, id int) bool {
	if id <= 0 || r.cms == nil {
		return false
	}

	n := strconv.Itoa(id)
	probes := []existenceProbe{{"/wp/v2/media/" + n, false}, {"/wp/v2/posts/" + n, false},
		{"/wp/v2/pages/" + n, false}}
	if len(r.snap.Events) > 0 {
		parent := "/wp/v2/" + r.snap.Types().Event + "/" + strconv.Itoa(r.snap.Events[0].ID)
		probes = append(probes, existenceProbe{parent + "/revisions/" + n, true})
	}

	ctx, cancel := context.WithCancel(r.gc.Request.Context())
	defer cancel()
	found := make(chan bool, len(probes))
	for _, probe := range probes {
		go func() {
			_, err := r.cms.Get(ctx, probe.path, url.Values{"_fields": {"id"}})
			var upstream *cmsclient.Error
			refused := errors.As(err, &upstream) && upstream.Status != http.StatusNotFound
			found <- err == nil || refused && !probe.answerOnly
		}()
	}

	for range probes {
		if <-found {
			return true
		}
	}

	return false
}
