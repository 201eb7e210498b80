package adapter

import (
	"errors"
	"net/http"

	"calshim/cmsclient"
)

// prepare completes a request before its handler runs: it identifies the caller (auth.go) and, for
// writes, merges the body into the parameters (body.go). A read whose caller cannot be identified
// because the CMS is unreachable is served as anonymous, which never shows more than it should; a write
// then fails with 503.
func (s *Server) prepare(r *request) error {
	r.cms = s.catalog(r.lang).Client()
	v, err := s.resolveViewer(r)
	if errors.Is(err, cmsclient.ErrUnavailable) && r.method == http.MethodGet {
		v, err = nil, nil
	}
	if err != nil {
		return err
	}
	r.viewer = v
	r.gc.Set(viewerKey, v)
	if v != nil {
		// What a logged-in caller sees is theirs alone: no shared cache may keep it (WordPress sends
		// the same for logged-in users).
		r.gc.Header("Cache-Control", "no-cache, must-revalidate, max-age=0, private")
	}
	if r.method == http.MethodGet {
		return nil
	}
	body, err := readBody(r.gc.Request)
	if err != nil {
		return err
	}
	r.params = mergeParams(r.params, body)
	return nil
}
