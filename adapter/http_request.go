package adapter

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"calshim/cmsclient"
	"calshim/mapping/php"
)

// prepare completes a request before its handler runs: it identifies the caller (auth.go) and, for
// writes, merges the body into the parameters (args_body.go). A read whose caller cannot be identified
// because the CMS is unreachable is served as anonymous, which never shows more than it should; a
// write then fails with 503.
func (s *Server) prepare(r *request) error {
	if err := s.identify(r); err != nil {
		return err
	}

	if r.method == http.MethodGet {
		return nil
	}

	if err := s.limits.admitWrite(r.gc); err != nil {
		return err
	}

	body, err := readBody(r.gc.Request, int64(s.opt.MaxBody),
		func(n int64) error { return r.mem.take(r.gc, n) })
	if err != nil {
		return err
	}

	r.params = mergeParams(r.params, body)
	return nil
}

// identify resolves the caller of r (auth.go). WordPress checks credentials before it dispatches,
// so rejected ones answer its error on every request, reads and OPTIONS included; a caller that
// cannot be identified because the CMS is unreachable reads as anonymous.
func (s *Server) identify(r *request) error {
	r.cms = s.catalog(r.lang).Client()
	v, err := s.resolveViewer(r)
	readOnly := r.method == http.MethodGet || r.method == http.MethodOptions
	if errors.Is(err, cmsclient.ErrUnavailable) && readOnly {
		v, err = nil, nil
	}

	if err != nil {
		return err
	}

	r.viewer = v
	if v != nil {
		r.gc.Set(viewerKey, v) // allow reads it; unset is anonymous (gin's Set allocates a map)
		// What a logged-in caller sees is theirs alone: no shared cache may keep it (WordPress sends
		// the same for logged-in users).
		r.gc.Header("Cache-Control", "no-cache, must-revalidate, max-age=0, private")
	}

	return nil
}

// noRoute is the answer to a request no route matches: WordPress' rest_no_route, unless the
// credentials are rejected, which it checks first.
func (s *Server) noRoute(gc *gin.Context, lang string) error {
	r := &request{
		gc:     gc,
		method: http.MethodGet,
		lang:   lang,
		params: parseForm(gc.Request.URL.RawQuery),
	}

	if err := s.identify(r); err != nil {
		return err
	}

	return errNoRoute
}

// methodOverride applies WordPress' method override (WP_REST_Server::serve_request): a `_method`
// query parameter, else an X-HTTP-Method-Override header, replaces the request method — clients
// behind proxies that only pass GET and POST send their PUT, PATCH and DELETE this way. Upper-cased
// as PHP does, ASCII alone ("poſt" is no POST).
func methodOverride(gc *gin.Context) {
	m := gc.Query("_method")
	if m == "" {
		m = gc.GetHeader("X-HTTP-Method-Override")
	}
	if m != "" {
		m = php.Strtoupper(m) // WP_REST_Request::set_method
		if m == http.MethodHead && gc.Request.Method != http.MethodHead {
			gc.Set(headOverride, true)
		}
		gc.Request.Method = m
	}
	gc.Next()
}

// headOverride marks a request whose method was overridden to HEAD: WordPress then serves no body
// (WP_REST_Server::serve_request returns before echoing it), and the connection, which carried a
// GET or a POST, expects the length of what is sent, none (send).
const headOverride = "calshim.head_override"
