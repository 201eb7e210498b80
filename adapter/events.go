package adapter

import (
	"net/http"
	"strconv"

	"calshim/mapping"
)

// singleEvent answers GET /events/{id} and /events/by-slug/{slug} (reference §3.3, §3.4).
func singleEvent(s *Server, r *request) (*response, error) {
	p, err := s.findEvent(r)
	if err != nil {
		return nil, err
	}
	switch {
	case p.Status == "trash":
		return nil, newError(http.StatusForbidden, "event-no-longer-available", "This event is no longer available")
	case !r.viewer.mayRead(p):
		return nil, newError(http.StatusForbidden, "event-not-accessible", "The requested event is not accessible")
	case p.Protected && !r.ctx(true).Unlocked(p):
		return nil, newError(http.StatusForbidden, "event-password-protected", "The requested event is not accessible without a password")
	}
	return &response{status: http.StatusOK, body: r.ctx(true).Event(p)}, nil
}

// findEvent locates the event of an {id} or {slug} route with the original's errors.
func (s *Server) findEvent(r *request) (*mapping.Post, error) {
	typ := r.snap.Types().Event
	if slug, ok := r.vars["slug"]; ok {
		p, found := r.snap.BySlug(typ, slug)
		if !found {
			return nil, invalidParam("slug")
		}
		return p, nil
	}
	id, _ := strconv.Atoi(r.vars["id"])
	p, found := r.snap.Post(id)
	if !found {
		return nil, notFoundf("rest-event-not-found", "Event with ID %d does not exist.", id)
	}
	if p.Type != typ {
		return nil, newError(http.StatusBadRequest, "rest-invalid-event-id", "The specified ID is not a valid event.")
	}
	return p, nil
}
