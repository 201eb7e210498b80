// Package wpfake is a fake WordPress REST API (wp/v2) for tests. It serves the answers recorded from the
// real rig (cmsclient/testdata/wp, written by cmsclient/testdata/record.sh) with httptest, and answers list
// queries the way wp/v2 does for the parameters calshim uses: per_page and page (with X-WP-Total and
// X-WP-TotalPages), status, include, orderby=id, modified_after, hide_empty and _fields. Tests change its
// state (add, modify, delete objects; take it down) and inspect the requests it received. Its clock (the
// Date header of every answer, and the modification time Modify stamps) is the real one unless set.
//
// All methods are safe for concurrent use; the mutators fail the test on misuse.
package wpfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Object is a decoded JSON object of the fake's state (numbers are json.Number).
type Object = map[string]any

// Drop is the status that, passed to SetDown, makes the fake close every connection without answering.
const Drop = -1

// Request is one request the fake received.
type Request struct {
	Method string
	Path   string // e.g. "/wp-json/wp/v2/tribe_events"
	Query  url.Values
}

func (r Request) String() string { return r.Method + " " + r.Path + "?" + r.Query.Encode() }

// Server is a running fake. Root is its REST root, for cmsclient.New.
type Server struct {
	*httptest.Server
	Root       string               // URL + "/wp-json"
	Recordings map[string]Recording // every recorded answer, by file name

	tb         testing.TB
	mu         sync.Mutex
	index      Object
	coll       map[string][]item
	maxPerPage int
	now        time.Time // zero: the real clock
	down       int
	intercept  func(http.ResponseWriter, *http.Request) bool
	requests   []Request
}

// New starts a fake serving the recorded fixtures (Dir); it stops when the test ends.
func New(tb testing.TB) *Server {
	tb.Helper()
	recs, err := ReadRecordings(Dir())
	if err != nil {
		tb.Fatal(err)
	}
	coll, err := loadCollections(recs)
	if err != nil {
		tb.Fatal(err)
	}
	s := &Server{Recordings: recs, tb: tb, coll: coll, maxPerPage: 100}
	if s.index, err = decodeObject(recs["index.json"].Body); err != nil {
		tb.Fatalf("wpfake: index.json: %v", err)
	}
	s.Server = httptest.NewServer(s)
	s.Root = s.URL + "/wp-json"
	tb.Cleanup(s.Close)
	return s
}

// ServeHTTP records the request, then lets the intercept hook answer, or fails as set by SetDown, or
// answers as WordPress would.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query()})
	down, intercept := s.down, s.intercept
	s.mu.Unlock()
	w.Header().Set("Date", s.Now().UTC().Format(http.TimeFormat))
	if intercept != nil && intercept(w, r) {
		return
	}
	switch {
	case down == Drop:
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
		return
	case down != 0:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(down)
		fmt.Fprintf(w, "<html><body><h1>%d %s</h1></body></html>\n", down, http.StatusText(down))
		return
	}
	s.route(w, r)
}

func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	path, ok := strings.CutPrefix(r.URL.Path, "/wp-json")
	if !ok || r.Method != http.MethodGet {
		s.writeRecorded(w, "error-404-no-route.json")
		return
	}
	if path == "" || path == "/" {
		s.mu.Lock()
		b, err := json.Marshal(s.index)
		s.mu.Unlock()
		if err != nil {
			writeError(w, http.StatusInternalServerError, "wpfake", err.Error())
			return
		}
		writeJSON(w, http.StatusOK, b)
		return
	}
	if id, ok := strings.CutPrefix(path, "/calshim/v1/posts/"); ok {
		s.postType(w, id)
		return
	}
	rest, ok := strings.CutPrefix(path, "/wp/v2/")
	base, id, single := strings.Cut(rest, "/")
	s.mu.Lock()
	items, known := s.coll[base]
	items = slices.Clone(items)
	s.mu.Unlock()
	switch {
	case !ok || !known:
		s.writeRecorded(w, "error-404-no-route.json")
	case single:
		s.single(w, base, id, items)
	default:
		s.list(w, r.URL.Query(), base, items)
	}
}

// postType answers the plugin's GET /calshim/v1/posts/{id}: the type of any post (attachments
// included) with that ID, else 404.
func (s *Server) postType(w http.ResponseWriter, id string) {
	n, _ := strconv.Atoi(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	for base, items := range s.coll {
		for _, it := range items {
			if it.id == n && it.status != "" {
				writeJSON(w, http.StatusOK, []byte(`{"id":`+id+`,"type":"`+base+`"}`))
				return
			}
		}
	}
	writeError(w, http.StatusNotFound, "calshim_no_post", "No post has this ID.")
}

func (s *Server) writeRecorded(w http.ResponseWriter, file string) {
	rec := s.Recordings[file]
	writeJSON(w, rec.Status, rec.Body)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	w.Write(body)
}

func writeError(w http.ResponseWriter, status int, code, message string) {
	b, _ := json.Marshal(map[string]any{"code": code, "message": message, "data": map[string]int{"status": status}})
	writeJSON(w, status, b)
}

// Now returns the fake's clock.
func (s *Server) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.now.IsZero() {
		return time.Now()
	}
	return s.now
}

// SetNow stops the fake's clock at t.
func (s *Server) SetNow(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = t
}

// Advance moves the fake's clock on by d (stopping it first if it was the real one).
func (s *Server) Advance(d time.Duration) { s.SetNow(s.Now().Add(d)) }

// SetMaxPerPage caps the page size the fake serves (default 100, wp/v2's maximum), so that the recorded
// objects span several pages of a per_page=100 list; X-WP-TotalPages follows.
func (s *Server) SetMaxPerPage(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxPerPage = n
}

// SetDown makes every later request fail: with that HTTP status (and an HTML body, as a proxy in front
// of a dead PHP would answer), or, with Drop, by closing the connection. SetDown(0) brings it back.
func (s *Server) SetDown(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = status
}

// SetIntercept installs a hook that sees every request first (after it is recorded) and answers it
// itself when it returns true. nil removes it. The hook runs on the server's goroutines.
func (s *Server) SetIntercept(fn func(w http.ResponseWriter, r *http.Request) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.intercept = fn
}

// Requests returns the requests received so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// ResetRequests forgets the requests received so far.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

// IDs returns the IDs of a collection (REST base, e.g. "tribe_events") in stored order.
func (s *Server) IDs(base string) []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []int
	for _, it := range s.mustColl(base) {
		ids = append(ids, it.id)
	}
	return ids
}

// Item returns a copy of one object of a collection.
func (s *Server) Item(base string, id int) Object {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.mustIndex(base, id)
	o, err := decodeObject(s.coll[base][i].raw)
	if err != nil {
		s.tb.Fatalf("wpfake: %s %d: %v", base, id, err)
	}
	return o
}

// Update changes one object of a collection in place: fn gets it decoded and may change anything.
func (s *Server) Update(base string, id int, fn func(Object)) {
	o := s.Item(base, id)
	fn(o)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.coll[base][s.mustIndex(base, id)] = s.mustItem(o)
}

// Modify is Update as WordPress saves a post: after fn, modified_gmt (and modified, in site time) become
// the fake's clock.
func (s *Server) Modify(base string, id int, fn func(Object)) {
	at := s.Now()
	s.Update(base, id, func(o Object) {
		fn(o)
		s.stamp(o, at)
	})
}

// Clone adds a copy of object id under newID, changed by fn (nil: unchanged), at the end of the collection.
func (s *Server) Clone(base string, id, newID int, fn func(Object)) {
	o := s.Item(base, id)
	o["id"] = json.Number(fmt.Sprint(newID))
	if fn != nil {
		fn(o)
	}
	s.Add(base, o)
}

// Add appends an object to a collection.
func (s *Server) Add(base string, o Object) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.mustItem(o)
	if slices.ContainsFunc(s.mustColl(base), func(x item) bool { return x.id == it.id }) {
		s.tb.Fatalf("wpfake: %s %d already exists", base, it.id)
	}
	s.coll[base] = append(s.coll[base], it)
}

// Delete removes an object for good (as ?force=true does).
func (s *Server) Delete(base string, id int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.mustIndex(base, id)
	s.coll[base] = slices.Delete(s.coll[base], i, i+1)
}

// SetIndex changes the REST index (GET /wp-json/).
func (s *Server) SetIndex(fn func(Object)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(s.index)
}

// stamp sets modified_gmt and modified as WordPress stores them (wp/v2 format, no offset).
func (s *Server) stamp(o Object, at time.Time) {
	s.mu.Lock()
	loc := siteLocation(s.index)
	s.mu.Unlock()
	o["modified_gmt"] = at.UTC().Format("2006-01-02T15:04:05")
	o["modified"] = at.In(loc).Format("2006-01-02T15:04:05")
}

func (s *Server) mustColl(base string) []item {
	c, ok := s.coll[base]
	if !ok {
		s.tb.Fatalf("wpfake: no collection %q", base)
	}
	return c
}

func (s *Server) mustIndex(base string, id int) int {
	i := slices.IndexFunc(s.mustColl(base), func(x item) bool { return x.id == id })
	if i < 0 {
		s.tb.Fatalf("wpfake: no %s %d", base, id)
	}
	return i
}

func (s *Server) mustItem(o Object) item {
	b, err := json.Marshal(o)
	if err != nil {
		s.tb.Fatalf("wpfake: %v", err)
	}
	it, err := newItem(b)
	if err != nil {
		s.tb.Fatal(err)
	}
	return it
}

func decodeObject(b []byte) (Object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var o Object
	if err := dec.Decode(&o); err != nil {
		return nil, err
	}
	return o, nil
}

// Sub returns the object under key (e.g. a post's "calshim" field), failing the test when there is none.
func (s *Server) Sub(o Object, key string) Object {
	sub, ok := o[key].(Object)
	if !ok {
		s.tb.Fatalf("wpfake: %q is not an object: %v", key, o[key])
	}
	return sub
}
