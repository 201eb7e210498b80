package adapter

import (
	"net/http"
	"strconv"
	"strings"
	"sync"

	"calshim/mapping"
)

// Conditional writes: single events, venues, organizers, categories and tags carry an ETag (the
// hash of the representation a plain GET by the same caller answers: anonymous GETs had it already,
// logged-in callers get it too). A write with If-Match runs only when the resource's current ETag
// for the writer is one of those given ("*": it exists); otherwise it answers 412
// calshim_precondition_failed before anything reaches WordPress. Writes with If-Match on one
// resource are serialised in this calshim, and each checks against the catalog as the previous one
// left it, so of two writers racing with the same ETag exactly one wins.

// errPreconditionFailed is the answer to an If-Match that does not match.
var errPreconditionFailed = newError(http.StatusPreconditionFailed, "calshim_precondition_failed",
	"The resource has changed since the ETag given in If-Match, or does not exist. Read it again.")

// resourceLocks serialises conditional writes per resource. It is shared by every Server of the
// process: a key names the language and the resource, and servers never write the same one apart.
var resourceLocks = &keyedMutex{held: map[string]*keyLock{}}

// tagged adds the ETag to a logged-in caller's single read (anonymous answers get it with the
// response cache). `_fields` and `_envelope` change the body: such answers carry none.
func tagged(read handler) handler {
	return func(s *Server, r *request) (*response, error) {
		res, err := read(s, r)
		if err != nil || r.viewer == nil || r.params.has("_fields") || r.params.has("_envelope") {
			return res, err
		}

		res.headers = append(res.headers, header{"ETag", etagOf(mapping.EncodeJSON(res.body))})
		expose(res, "ETag")
		return res, err
	}
}

// conditional checks If-Match before a write of a single resource; terms tells whether its {id} is
// a term's. Without If-Match the write runs as it always did.
func conditional(read, write handler, terms bool) handler {
	return func(s *Server, r *request) (*response, error) {
		match := r.gc.GetHeader("If-Match")
		if match == "" {
			return write(s, r)
		}

		unlock := resourceLocks.lock(r.lang + " " + s.resourceKey(read, r, terms))
		defer unlock()
		r.snap = s.catalog(r.lang).Snapshot() // the state this write changes
		if !tagMatches(match, s.currentTags(read, r, terms)) {
			return nil, errPreconditionFailed
		}

		res, err := write(s, r)
		if err == nil && r.method != http.MethodDelete {
			if tags := s.currentTags(read, r, terms); len(tags) > 0 {
				res.headers = append(res.headers, header{"ETag", tags[0]})
				expose(res, "ETag")
			}
		}
		return res, err
	}
}

// tagMatches is If-Match's strong comparison: one of the listed tags, or "*" for any current one.
func tagMatches(ifMatch string, current []string) bool {
	for _, t := range strings.Split(ifMatch, ",") {
		t = strings.TrimSpace(t)
		if (t == "*" && len(current) > 0) || (t != "" && contains(current, t)) {
			return true
		}
	}
	return false
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// currentTags are the ETags of the resource as the writer would read it now, with a plain GET and
// with context=edit; none when it does not exist or the writer may not read it. Only what the
// catalog holds is rendered: an ID it lacks never costs WordPress a request here.
func (s *Server) currentTags(read handler, r *request, terms bool) []string {
	g := *r
	g.method, g.viewer, g.snap = http.MethodGet, r.viewer.forMethod(http.MethodGet),
		s.catalog(r.lang).Snapshot()
	if !inCatalog(&g, terms) {
		return nil
	}

	var tags []string
	for _, p := range []Params{{}, {"context": "edit"}} {
		g.params = p
		if res, err := read(s, &g); err == nil {
			tags = append(tags, etagOf(mapping.EncodeJSON(res.body)))
		}
	}
	return tags
}

// inCatalog reports whether the {id} of a request names a post (or term) of the catalog; slugs are
// always looked up there.
func inCatalog(r *request, terms bool) bool {
	v, ok := r.vars["id"]
	if !ok {
		return true
	}

	id, _ := strconv.Atoi(v)
	if terms {
		_, found := r.snap.Term(id)
		return found
	}

	_, found := r.snap.Post(id)
	return found
}

// resourceKey names the resource a write addresses: by ID, also when the route names it by slug.
func (s *Server) resourceKey(read handler, r *request, terms bool) string {
	kind := "post "
	if terms {
		kind = "term "
	}

	if id, ok := r.vars["id"]; ok {
		return kind + id
	}

	g := *r
	g.method, g.params, g.snap = http.MethodGet, Params{}, s.catalog(r.lang).Snapshot()
	g.viewer = r.viewer.forMethod(http.MethodGet)
	if res, err := read(s, &g); err == nil {
		if o, ok := res.body.(mapping.Object); ok {
			if id, ok := member[int](o, "id"); ok {
				return kind + strconv.Itoa(id)
			}
		}
	}

	return kind + "slug " + r.vars["slug"]
}

// keyedMutex is one mutex per key, dropped when no one holds or waits for it.
type keyedMutex struct {
	mu   sync.Mutex
	held map[string]*keyLock
}

type keyLock struct {
	sync.Mutex
	refs int
}

// lock locks key and returns its unlock.
func (k *keyedMutex) lock(key string) func() {
	k.mu.Lock()
	l := k.held[key]
	if l == nil {
		l = &keyLock{}
		k.held[key] = l
	}
	l.refs++
	k.mu.Unlock()

	l.Lock()
	return func() {
		l.Unlock()
		k.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(k.held, key)
		}
		k.mu.Unlock()
	}
}
