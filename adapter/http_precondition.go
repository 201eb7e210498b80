package adapter

import (
	"net/http"
	"strings"

	"calshim/catalog"
	"calshim/cmsclient"
	"calshim/mapping"
)

// Conditional writes: single events, venues, organizers, categories and tags carry an ETag for a
// logged-in reader, `"<hash>-<version>"`: the hash of the representation a plain GET by the same
// caller answers, and the version of the stored object the plugin publishes (`calshim.version`, a
// keyed hash of the post's or term's stored state). A write with If-Match sends the versions its
// tags name with its first wp/v2 write of the object (cmsclient.IfVersion); the plugin compares them
// with the object's stored state under a lock on the object, and answers 412
// calshim_precondition_failed without changing anything when none matches. WordPress is the only
// judge: a replica whose catalog lags behind neither refuses a current tag nor lets a stale one
// through. Here only what cannot be sent is refused: a tag without a version, an object the writer
// cannot read in this catalog once it has caught up with the change feed.

// maxIfVersions bounds the versions one If-Match sends to WordPress; further tags are ignored.
const maxIfVersions = 16

// tagged adds the ETag to a logged-in caller's single read (anonymous answers get the hash of the
// body alone, with the response cache). `_fields` and `_envelope` change the body: such answers
// carry none.
func tagged(read handler, terms bool) handler {
	return func(s *Server, r *request) (*response, error) {
		res, err := read(s, r)
		if err != nil || r.viewer == nil || r.params.has("_fields") || r.params.has("_envelope") {
			return res, err
		}

		res.headers = append(res.headers, header{"ETag", tagOf(r.snap, res.body, terms)})
		expose(res, "ETag")
		return res, err
	}
}

// conditional sends If-Match's versions with a write of a single resource; terms tells whether its
// {id} is a term's. Without If-Match the write runs as it always did.
func conditional(read, write handler, terms bool) handler {
	return func(s *Server, r *request) (*response, error) {
		match := r.gc.GetHeader("If-Match")
		if match == "" {
			return write(s, r)
		}

		versions := ifVersions(match)
		if len(versions) == 0 {
			return nil, errPreconditionFailed
		}
		body, _ := s.readAsWriter(read, r)
		if _, found := member[int](body, "id"); !found && r.viewer != nil &&
			s.catalog(r.lang).ReadFeed(r.gc.Request.Context()) {
			// This catalog may lag behind WordPress, which judges If-Match (a post restored or made
			// there moments ago, not polled yet): it refuses only what WordPress' state now lacks.
			r.snap = s.catalog(r.lang).Snapshot()
			body, _ = s.readAsWriter(read, r)
		}
		id, found := member[int](body, "id")
		if !found {
			return nil, errPreconditionFailed
		}

		kind := "post"
		if terms {
			kind = "term"
		}
		pre := &cmsclient.IfVersion{Kind: kind, ID: id, Versions: versions}
		r.gc.Request = r.gc.Request.WithContext(cmsclient.WithIfVersion(r.gc.Request.Context(), pre))
		res, err := write(s, r)
		if err == nil && r.method != http.MethodDelete {
			if body, snap := s.readAsWriter(read, r); body != nil {
				res.headers = append(res.headers, header{"ETag", tagOf(snap, body, terms)})
				expose(res, "ETag")
			}
		}
		return res, err
	}
}

// readAsWriter renders the resource a write addresses as its writer would read it now with a plain
// GET, and the snapshot it read; nil when it does not exist in the catalog or the writer may not
// read it. A password-protected event is read with the password the write gives, else as its editor
// reads it (context=edit): If-Match compares the stored versions, which a writer who may edit the
// event knows whether or not it sent the password.
func (s *Server) readAsWriter(read handler, r *request) (mapping.Object, *catalog.Snapshot) {
	g := *r
	g.method, g.snap = http.MethodGet, s.catalog(r.lang).Snapshot()
	g.viewer = r.viewer.forMethod(http.MethodGet)
	plain := Params{}
	if pw, ok := r.params.str("password"); ok {
		plain["password"] = pw
	}
	for _, params := range []Params{plain, {"context": "edit"}} {
		g.params = params
		if res, err := read(s, &g); err == nil {
			o, _ := res.body.(mapping.Object)
			return o, g.snap
		}
	}
	return nil, g.snap
}

// tagOf is the ETag of a single resource's answer: the hash of body and the catalog's version of
// the post (or term) it shows; the hash alone when the catalog has no version of it.
func tagOf(snap *catalog.Snapshot, body any, terms bool) string {
	tag := etagOf(mapping.EncodeJSON(body))
	o, _ := body.(mapping.Object)
	id, _ := member[int](o, "id")
	version := ""
	if t, ok := snap.Term(id); terms && ok {
		version = t.Version
	} else if p, ok := snap.Post(id); !terms && ok {
		version = p.Version
	}

	if version == "" {
		return tag
	}
	return strings.TrimSuffix(tag, `"`) + "-" + version + `"`
}

// ifVersions are the versions the strong tags of an If-Match name ("*": any), each once, at most
// maxIfVersions. Tags without a version (anonymous reads', weak or foreign ones) name none.
func ifVersions(ifMatch string) []string {
	var out []string
	for t := range strings.SplitSeq(ifMatch, ",") {
		v := strings.TrimSpace(t)
		if v != "*" {
			inner, ok := strings.CutPrefix(v, `"`)
			inner, closed := strings.CutSuffix(inner, `"`)
			i := strings.LastIndexByte(inner, '-')
			if !ok || !closed || i < 0 || !isVersion(inner[i+1:]) {
				continue
			}
			v = inner[i+1:]
		}
		if !contains(out, v) {
			out = append(out, v)
		}
		if len(out) == maxIfVersions {
			break
		}
	}
	return out
}

// isVersion reports whether s looks like a plugin version: 1 to 64 lower-case letters and digits
// (it goes into a request header).
func isVersion(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'z') {
			return false
		}
	}
	return true
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
