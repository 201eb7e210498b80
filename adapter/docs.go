package adapter

import (
	"net/http"

	"calshim/adapter/apidoc"
)

// docOptions describes the address the client used, so both documents name it.
func docOptions(r *request) apidoc.Options {
	return apidoc.Options{Namespace: r.ns, RESTRoot: r.root + "/", PerPage: r.snap.PerPage,
		Defaults: func() (string, string) { return defaultWindow(r) }}
}

// namespaceIndex answers GET {ns} (reference §3.9).
func namespaceIndex(s *Server, r *request) (*response, error) {
	return &response{status: http.StatusOK, body: apidoc.Index(docOptions(r))}, nil
}

// documentation answers GET {ns}/doc (reference §3.8).
func documentation(s *Server, r *request) (*response, error) {
	return &response{status: http.StatusOK, body: apidoc.Doc(docOptions(r))}, nil
}
