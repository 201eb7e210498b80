package adapter

import (
	"net/http"
	"slices"

	"calshim/adapter/apidoc"
)

// docOptions describes the address the client used, so both documents name it.
func (s *Server) docOptions(r *request) apidoc.Options {
	o := apidoc.Options{Routes: s.docs, Namespace: r.ns, RESTRoot: r.root + "/",
		PerPage: r.snap.PerPage, Defaults: func() (string, string) { return defaultWindow(r) }}
	if s.opt.Translate != nil {
		o.Translate = s.opt.Translate(r.lang)
	}
	return o
}

// namespaceIndex answers GET {ns} as WordPress' WP_REST_Server::get_namespace_index does: every
// route keyed by its pattern, in registration order.
// A `namespace` parameter names the namespace to describe, as WordPress' get_namespace_index reads
// it; one that is not served answers 404. (WordPress would describe any namespace it has, wp/v2
// included, and fails with a PHP error on a list: both are outside this API.)
func namespaceIndex(s *Server, r *request) (*response, error) {
	o := s.docOptions(r)
	if r.params.has("namespace") {
		asked, ok := r.params.str("namespace")
		if !ok || !slices.Contains(s.opt.Namespaces, asked) {
			return nil, errInvalidNamespace
		}
		o.Namespace = asked
	}

	return &response{status: http.StatusOK, body: apidoc.Index(o)}, nil
}

// documentation answers GET {ns}/doc: the OpenAPI document of the original's
// Swagger_Documentation::get.
func documentation(s *Server, r *request) (*response, error) {
	return &response{status: http.StatusOK, body: apidoc.Doc(s.docOptions(r))}, nil
}
