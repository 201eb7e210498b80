package adapter

import (
	"net/http"

	"calshim/adapter/apidoc"
)

// docOptions describes the address the client used, so both documents name it.
func (s *Server) docOptions(r *request) apidoc.Options {
	o := apidoc.Options{Namespace: r.ns, RESTRoot: r.root + "/", PerPage: r.snap.PerPage,
		Defaults: func() (string, string) { return defaultWindow(r) }}
	if s.opt.Translate != nil {
		o.Translate = s.opt.Translate(r.lang)
	}
	return o
}

// namespaceIndex answers GET {ns} (reference §3.9).
func namespaceIndex(s *Server, r *request) (*response, error) {
	return &response{status: http.StatusOK, body: apidoc.Index(s.docOptions(r))}, nil
}

// documentation answers GET {ns}/doc (reference §3.8).
func documentation(s *Server, r *request) (*response, error) {
	return &response{status: http.StatusOK, body: apidoc.Doc(s.docOptions(r))}, nil
}
