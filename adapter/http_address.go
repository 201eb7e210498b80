package adapter

import (
	"net/http"
	"strings"
)

// address is where a v1 request was sent, in one of the forms WordPress answers to:
//
//	{lang}/wp-json/{ns}/{route}                   pretty permalinks
//	{lang}/?rest_route=/{ns}/{route}              plain permalinks (also /index.php?rest_route=)
//
// Every URL of the response is built from it, so a client never leaves the address it started on.
type address struct {
	lang  string // language segment, "" for the default language
	root  string // URL "/"+ns+route is appended to: "http://h/de/wp-json", "http://h/?rest_route="
	ns    string // namespace the client used ("" when none of the served ones)
	route string // path below the namespace, untrailingslashed ("" for the namespace index)
	index bool   // the REST root itself (WordPress' index, restindex.go)
}

// restRoot is the REST root URL WordPress' index and Link header point at ("http://h/wp-json/").
func (a address) restRoot() string { return a.root + "/" }

// resolve finds the address of a request; ok is false when it is not a REST request at all.
func (s *Server) resolve(req *http.Request) (a address, ok bool) {
	path := req.URL.Path
	prefix := ""
	seg, rest, found := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	if found && s.isLanguage(seg) {
		a.lang, prefix, path = seg, "/"+seg, "/"+rest
	}

	host := scheme(req) + "://" + req.Host + prefix
	var below string
	var rr []string // the query is parsed only where rest_route can address (not on every request)
	if path == "/" || path == "/index.php" {
		rr = req.URL.Query()["rest_route"]
	}

	if rr != nil {
		a.root, below = host+path+"?rest_route=", rr[0]
	} else if rest, found := strings.CutPrefix(path, s.opt.RESTRoot); found &&
		(rest == "" || rest[0] == '/') {
		a.root, below = host+s.opt.RESTRoot, rest
	} else {
		return a, false
	}

	// WordPress matches routes untrailingslashed and case-insensitively.
	below = strings.TrimSuffix(below, "/")
	a.index = below == ""
	for _, n := range s.opt.Namespaces {
		if len(below) > len(n) && tokenEqual(below[1:min(len(below), len(n)+1)], n) &&
			(len(below) == len(n)+1 || below[len(n)+1] == '/') {
			a.ns, a.route = n, below[len(n)+1:]
			return a, true
		}
	}

	return a, true
}

// isLanguage reports whether seg is one of the language segments served (the default language has
// none).
func (s *Server) isLanguage(seg string) bool {
	for _, l := range s.opt.Languages {
		if l == seg {
			return true
		}
	}
	return false
}

// scheme is the scheme the client used, trusting X-Forwarded-Proto from a TLS-terminating proxy.
func scheme(req *http.Request) string {
	if req.TLS != nil || tokenEqual(req.Header.Get("X-Forwarded-Proto"), "https") {
		return "https"
	}
	return "http"
}

// tokenEqual compares an HTTP token (a scheme, a method, a header's name or keyword) as HTTP
// defines them: ASCII letters without case, every other byte as it is. strings.EqualFold folds
// Unicode, so "httpſ" (U+017F) would be "https", which the caches in front do not think.
func tokenEqual(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// withQuery appends a query string to a URL that may already carry one (the rest_route form).
func withQuery(url, query string) string {
	if query == "" {
		return url
	}
	if strings.Contains(url, "?") {
		return url + "&" + query
	}
	return url + "?" + query
}
