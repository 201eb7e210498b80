package wpfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Write is one wp/v2 write (POST, PUT, PATCH or DELETE) answered by Writes.
type Write struct {
	Method string
	Path   string // e.g. "/wp-json/wp/v2/tribe_events/17"
	Query  url.Values
	Body   map[string]any // the JSON body decoded (nil when none)
	// IfVersion is the X-Calshim-If-Version header sent ("" when none).
	IfVersion string
}

func (w Write) String() string { return w.Method + " " + w.Path }

// Writes answers wp/v2 writes in outline as WordPress does and records them, for tests of a client's
// write path. It answers:
//   - /wp/v2/users/me by the Authorization header from the map given to RecordWrites (Me);
//   - POST /wp/v2/{base}: a copy of the collection's first object under a new ID (990501 up), with a
//     string name, description or slug given taken over (terms), 201 and the object;
//   - POST, PUT or PATCH /wp/v2/{base}/{id}: the stored object, 200;
//   - DELETE /wp/v2/{base}/{id}: with force, the object removed ({"deleted":true,"previous":…});
//     without, its status set to "trash" and the object answered;
//   - a "METHOD path" given to Refuse: that error; an {id} the collection lacks: 404;
//   - the plugin's precondition (Calshim_Precondition): a write of /wp/v2/{base}/{id} with
//     X-Calshim-If-Version that names another object or none of its `calshim.version` (any when "*"):
//     412 calshim_precondition_failed, nothing changed. Every update or delete gives the object a
//     new version;
//   - the plugin's write keys (Calshim_Idempotency): a write with X-Calshim-Write-Key waits for
//     an earlier one with the key to end, and a key WordPress answered gets that answer again,
//     nothing written;
//   - a Fault (SetFault) instead of the answer: the answer lost before or after the write is made,
//     late, or a failure.
//
// Everything else falls through to the fake. The hook runs before SetDown's failures: to make the
// CMS unreachable, remove it (SetIntercept(nil)) as well.
type Writes struct {
	s      *Server
	mu     sync.Mutex
	me     map[string]string
	refuse map[string][2]string
	writes []Write
	next   int
	fault  func(n int) Fault
	keys   map[string]*keyed
}

// keyed is one write key's lock and the answer of its write that succeeded (nil before).
type keyed struct {
	sync.Mutex
	answer *httptest.ResponseRecorder
}

// Fault is what the fake does with a write instead of answering it at once.
type Fault int

// The faults SetFault may choose.
const (
	NoFault    Fault = iota // the write answered as it comes
	LostBefore              // the connection closes before anything is written
	LostAfter               // the write is made, then the connection closes without an answer
	Late                    // the write is made, and answered after SlowFor
	BadGateway              // 502 with a proxy's HTML page, nothing written
	Refused                 // 400 rest_invalid_param, WordPress' refusal, nothing written
	// RefusedAfter makes a create, then refuses it (400 rest_invalid_type) naming the object in
	// X-Calshim-Created, as wp/v2 refusing a new post's meta and the plugin do; other writes are
	// Refused.
	RefusedAfter
)

// SlowFor is how late a Late fault answers.
const SlowFor = 250 * time.Millisecond

// SetFault makes the fake ask fn about each write, n counting the writes received before it (every
// attempt of a keyed write counts).
func (w *Writes) SetFault(fn func(n int) Fault) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fault = fn
}

// Me is the fake's users/me: an intercept hook that answers /wp/v2/users/me by the Authorization
// header from answers, as WordPress does: the answer given (an error body, {"code":…,"data":
// {"status":N}}, with its status), and for a header not in answers 401 rest_not_logged_in (what
// WordPress answers when it does not try the credentials). Other paths fall through.
func Me(answers map[string]string) func(http.ResponseWriter, *http.Request) bool {
	return func(rw http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/wp-json/wp/v2/users/me" {
			return false
		}
		me, ok := answers[r.Header.Get("Authorization")]
		if !ok {
			writeError(rw, http.StatusUnauthorized, "rest_not_logged_in", "You are not currently logged in.")
			return true
		}
		var refusal struct {
			Data struct{ Status int } `json:"data"`
		}
		status := http.StatusOK
		if json.Unmarshal([]byte(me), &refusal) == nil && refusal.Data.Status >= 400 {
			status = refusal.Data.Status
		}
		writeJSON(rw, status, []byte(me))
		return true
	}
}

// RecordWrites installs Writes as the fake's intercept hook (replacing any), and says in the REST
// index that it keys writes (read when a catalog loads). me maps an Authorization header to the
// users/me answer for it.
func (s *Server) RecordWrites(me map[string]string) *Writes {
	w := &Writes{s: s, me: me, refuse: map[string][2]string{}, next: 990500}
	s.SetIntercept(w.serve)
	s.SetIndex(func(o Object) { s.Sub(o, "calshim")["write_keys"] = 1 }) // it keys writes, as the plugin
	return w
}

// Refuse makes the fake answer method path (e.g. "DELETE", "/wp-json/wp/v2/tribe_events/17") with
// status and a WordPress error body of code; the write is still recorded.
func (w *Writes) Refuse(method, path string, status int, code, message string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"code": code, "message": message, "data": map[string]any{"status": status}})
	w.refuse[method+" "+path] = [2]string{strconv.Itoa(status), string(b)}
}

// List returns the writes received so far, in arrival order.
func (w *Writes) List() []Write {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Write(nil), w.writes...)
}

func (w *Writes) serve(rw http.ResponseWriter, r *http.Request) bool {
	const prefix = "/wp-json/wp/v2/"
	if Me(w.me)(rw, r) {
		return true
	}
	if r.Method == http.MethodGet || r.Method == http.MethodHead || r.Method == http.MethodOptions ||
		!strings.HasPrefix(r.URL.Path, prefix) {
		return false
	}
	var body map[string]any
	raw, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(raw, &body)
	w.mu.Lock()
	n := len(w.writes)
	w.writes = append(w.writes, Write{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Body: body,
		IfVersion: r.Header.Get("X-Calshim-If-Version")})
	fault := NoFault
	if w.fault != nil {
		fault = w.fault(n)
	}
	w.mu.Unlock()

	k := w.key(r.Header.Get("X-Calshim-Write-Key"))
	if k != nil {
		k.Lock()
		defer k.Unlock()
		if k.answer != nil {
			copyAnswer(rw, k.answer)
			return true
		}
	}
	switch fault {
	case LostBefore:
		drop(rw)
		return true
	case BadGateway:
		rw.Header().Set("Content-Type", "text/html")
		rw.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(rw, "<html><body><h1>502 Bad Gateway</h1></body></html>\n")
		return true
	}

	rec := httptest.NewRecorder()
	rec.Header().Set("Content-Type", "application/json")
	create := r.Method == http.MethodPost && !strings.Contains(strings.TrimPrefix(r.URL.Path, prefix), "/")
	switch {
	case fault == Refused || fault == RefusedAfter && !create:
		writeError(rec, http.StatusBadRequest, "rest_invalid_param", "Invalid parameter(s): title")
	case !w.apply(rec, r, body):
		return false
	case fault == RefusedAfter && rec.Code < 300:
		var made struct{ ID json.Number }
		_ = json.Unmarshal(rec.Body.Bytes(), &made)
		rec = httptest.NewRecorder()
		rec.Header().Set("X-Calshim-Created", strings.TrimPrefix(r.URL.Path, "/wp-json")+"/"+made.ID.String())
		writeError(rec, http.StatusBadRequest, "rest_invalid_type", "meta._EventAllDay is not of type boolean.")
	}
	if k != nil {
		k.answer = rec
	}
	switch fault {
	case LostAfter:
		drop(rw)
		return true
	case Late:
		time.Sleep(SlowFor)
	}
	copyAnswer(rw, rec)
	return true
}

// key is the lock and record of a write key, nil for none.
func (w *Writes) key(key string) *keyed {
	if key == "" {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.keys == nil {
		w.keys = map[string]*keyed{}
	}
	if w.keys[key] == nil {
		w.keys[key] = &keyed{}
	}
	return w.keys[key]
}

func copyAnswer(rw http.ResponseWriter, rec *httptest.ResponseRecorder) {
	for k, v := range rec.Header() {
		rw.Header()[k] = v
	}
	rw.WriteHeader(rec.Code)
	_, _ = rw.Write(rec.Body.Bytes())
}

// drop closes the connection without an answer.
func drop(rw http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(rw).Hijack(); err == nil {
		conn.Close()
	}
}

// apply makes a write of the fake's state and writes its answer into rw; false falls through.
func (w *Writes) apply(rw http.ResponseWriter, r *http.Request, body map[string]any) bool {
	const prefix = "/wp-json/wp/v2/"
	w.mu.Lock()
	refusal, refused := w.refuse[r.Method+" "+r.URL.Path]
	w.mu.Unlock()
	if refused {
		status, _ := strconv.Atoi(refusal[0])
		writeJSON(rw, status, []byte(refusal[1]))
		return true
	}
	base, idPart, hasID := strings.Cut(strings.TrimPrefix(r.URL.Path, prefix), "/")
	if !hasID {
		return r.Method == http.MethodPost && w.create(rw, base, body)
	}
	id, err := strconv.Atoi(idPart)
	if err != nil {
		return false
	}
	w.write(rw, r, base, id)
	return true
}

// create answers POST /wp/v2/{base}.
func (w *Writes) create(rw http.ResponseWriter, base string, body map[string]any) bool {
	ids := w.s.IDs(base)
	if len(ids) == 0 {
		writeError(rw, http.StatusInternalServerError, "wpfake", "no "+base+" to copy")
		return true
	}
	w.mu.Lock()
	w.next++
	id := w.next
	w.mu.Unlock()
	w.s.Clone(base, ids[0], id, func(o Object) {
		for _, k := range []string{"name", "description", "slug"} {
			if v, ok := body[k].(string); ok {
				o[k] = v
			}
		}
	})
	w.answer(rw, http.StatusCreated, w.s.Item(base, id))
	return true
}

// write answers an update or a delete of /wp/v2/{base}/{id}.
func (w *Writes) write(rw http.ResponseWriter, r *http.Request, base string, id int) {
	exists := slices.Contains(w.s.IDs(base), id)
	w.mu.Lock() // the check and the new version at once, as under the plugin's lock
	if h := r.Header.Get("X-Calshim-If-Version"); h != "" && !w.versionHolds(h, base, id, exists) {
		w.mu.Unlock()
		writeError(rw, http.StatusPreconditionFailed, "calshim_precondition_failed", "The resource has changed "+
			"since the ETag given in If-Match, or does not exist. Read it again.")
		return
	}
	if exists {
		w.next++
		version := fmt.Sprintf("%016x", w.next)
		w.s.Update(base, id, func(o Object) { w.s.Sub(o, "calshim")["version"] = version })
	}
	w.mu.Unlock()
	switch force := r.URL.Query().Get("force"); {
	case !exists:
		writeError(rw, http.StatusNotFound, "rest_post_invalid_id", "Invalid post ID.")
	case r.Method != http.MethodDelete:
		w.answer(rw, http.StatusOK, w.s.Item(base, id))
	case force == "true" || force == "1":
		prev := w.s.Item(base, id)
		w.s.Delete(base, id)
		w.answer(rw, http.StatusOK, Object{"deleted": true, "previous": prev})
	default:
		w.s.Modify(base, id, func(o Object) { o["status"] = "trash" })
		w.answer(rw, http.StatusOK, w.s.Item(base, id))
	}
}

// versionHolds is the plugin's comparison: the header "<post|term>:<id>:<version>,…" names this
// object and its stored version, or "*" and it exists.
func (w *Writes) versionHolds(header, base string, id int, exists bool) bool {
	kind := "post"
	if base == "tribe_events_cat" || base == "tags" {
		kind = "term"
	}
	parts := strings.SplitN(header, ":", 3)
	if len(parts) != 3 || parts[0] != kind || parts[1] != strconv.Itoa(id) || !exists {
		return false
	}
	stored, _ := w.s.Sub(w.s.Item(base, id), "calshim")["version"].(string)
	given := strings.Split(parts[2], ",")
	return slices.Contains(given, "*") || (stored != "" && slices.Contains(given, stored))
}

func (w *Writes) answer(rw http.ResponseWriter, status int, o Object) {
	b, err := json.Marshal(o)
	if err != nil {
		w.s.tb.Errorf("wpfake: %v", err)
		writeError(rw, http.StatusInternalServerError, "wpfake", fmt.Sprint(err))
		return
	}
	writeJSON(rw, status, b)
}
