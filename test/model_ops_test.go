package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The model test's operations: each makes one change and names it in the history; what WordPress
// then holds is read back into the model.

// op is one kind of change, with its weight in the random choice.
type op struct {
	weight int
	run    func(w *world) string
}

var modelOps = []op{
	{6, (*world).v1CreateEvent},
	{6, (*world).v1UpdateEvent},
	{2, (*world).v1TrashEvent},
	{3, (*world).wpEditEvent},
	{2, (*world).wpTrashOrRestore},
	{1, (*world).sqlEditEvent},
	{2, (*world).v1EditLinked},
	{1, (*world).wpEditLinked},
	{2, (*world).v1CreateOrganizer},
	{2, (*world).renameTag},
	{1, (*world).restartReplica},
}

// step runs one random operation, then the checker.
func (w *world) step(i int) {
	total := 0
	for _, o := range modelOps {
		total += o.weight
	}
	w.stepNo = i
	n := w.rng.IntN(total)
	for _, o := range modelOps {
		if n -= o.weight; n < 0 {
			w.history = append(w.history, fmt.Sprintf("%d: %s", i, o.run(w)))
			break
		}
	}
	w.checkAll(i, i%5 == 4)
}

// script runs, after the random steps from step first on, the changes random runs found the
// defects of SQL and restarts with, in one fixed order, each followed by every client's delta: an
// event's status changed by SQL, then written through calshim (title, trash) on another replica, with
// restarts between, so that every run (the short one of `make test` too) goes through them.
//
// The event is created and seen everywhere first: an SQL change made before every replica has read
// a logged change of the same post is read by the late ones with it, at its row, where the others
// hold the state before (docs/features.md, "Delta sync": a token between the two answers on each
// replica as that replica read it), which a random run may still meet.
func (w *world) script(first int) {
	id := w.v1Event(0)
	w.checkAll(first, true)
	ops := []func() string{
		func() string { return w.sqlSet(id, "post_status = 'draft'") },
		func() string { return w.v1Title(id, 1) },
		w.restartReplica,
		func() string { return w.sqlSet(id, "post_status = 'publish'") },
		func() string { return w.v1Title(id, 2) },
		func() string { return w.sqlSet(id, "post_status = 'private'") },
		w.restartReplica,
		func() string { return w.trash(id, 1) },
	}
	for i, run := range ops {
		w.stepNo = first + i
		w.history = append(w.history, fmt.Sprintf("%d: %s", first+i, run()))
		w.checkAll(first+i, true)
	}
}

// v1Event creates a published event through calshim target as the administrator.
func (w *world) v1Event(target int) int {
	day := modelYear + "-07-04"
	b, _ := json.Marshal(map[string]any{"title": "Model scripted event", "status": "publish",
		"start_date": day + " 10:00:00", "end_date": day + " 12:00:00", "venue": pickID(w, w.venues)})
	r := call(w.t, http.MethodPost, w.targets[target]+v1+"/events", as("admin"), jsonBody(string(b)), lenient)
	id, _ := strconv.Atoi(str(at(r.body, "id")))
	if id == 0 {
		if made := w.createdAnyway("tribe_events", "Model scripted event", r); made > 0 {
			w.events[made] = w.read("tribe_events", made) // deleted when the test ends
		}
		w.t.Fatalf("scripted event: %d %s", r.status, r.raw)
	}
	w.events[id] = w.read("tribe_events", id)
	w.history = append(w.history, fmt.Sprintf("script: v1 create publish event %d on calshim %d", id, target))
	return id
}

// v1Title renames an event through calshim target as the editor.
func (w *world) v1Title(id, target int) string {
	before := w.events[id]
	r := call(w.t, http.MethodPost, w.targets[target]+v1+"/events/"+strconv.Itoa(id), as("editor"),
		jsonBody(fmt.Sprintf(`{"title":"Model scripted %d"}`, w.rng.IntN(1e6))), lenient)
	w.events[id] = w.read("tribe_events", id)
	w.written("v1 update title of event "+strconv.Itoa(id), r, before, w.events[id])
	return fmt.Sprintf("v1 update title of event %d on calshim %d: %d", id, target, r.status)
}

// trash trashes an event through calshim target.
func (w *world) trash(id, target int) string {
	before := w.events[id]
	r := call(w.t, http.MethodDelete, w.targets[target]+v1+"/events/"+strconv.Itoa(id), as("admin"), jsonBody(""), lenient)
	w.events[id] = w.read("tribe_events", id)
	w.written("v1 trash of event "+strconv.Itoa(id), r, before, w.events[id])
	return fmt.Sprintf("v1 trash event %d on calshim %d: %d", id, target, r.status)
}

func (w *world) pick(roles ...string) string { return roles[w.rng.IntN(len(roles))] }

func (w *world) target() (int, string) {
	i := w.rng.IntN(len(w.targets))
	return i, w.targets[i]
}

// someEvent picks one of the test's events WordPress still holds; 0 when none.
func (w *world) someEvent() int {
	return pickID(w, w.events)
}

func pickID(w *world, m map[int]*modelPost) int {
	var ids []int
	for id, p := range m {
		if p != nil {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return 0
	}
	slices.Sort(ids)
	return ids[w.rng.IntN(len(ids))]
}

var modelStatuses = []string{"publish", "publish", "publish", "draft", "pending", "private"}

// v1CreateEvent creates an event through a calshim with a venue, an organizer and tags.
func (w *world) v1CreateEvent() string {
	role, status := w.pick("admin", "editor", "author"), w.pick(modelStatuses...)
	ti, base := w.target()
	day := fmt.Sprintf("%s-%02d-%02d", modelYear, 1+w.rng.IntN(12), 1+w.rng.IntN(28))
	title := fmt.Sprintf("Model event %d", w.rng.IntN(1e6))
	body := map[string]any{"title": title, "status": status,
		"start_date": day + " 10:00:00", "end_date": day + " 12:00:00",
		"venue": pickID(w, w.venues), "organizer": []int{pickID(w, w.orgs)}, "tags": []int{w.tags[w.rng.IntN(len(w.tags))]}}
	b, _ := json.Marshal(body)
	r := call(w.t, http.MethodPost, base+v1+"/events", as(role), jsonBody(string(b)), lenient)
	id, _ := strconv.Atoi(str(at(r.body, "id")))
	got := ""
	if r.status == http.StatusCreated && id > 0 {
		w.events[id] = w.read("tribe_events", id)
		got = statusOf(w.events[id])
	} else if id = w.createdAnyway("tribe_events", title, r); id > 0 {
		w.events[id] = w.read("tribe_events", id)
		got = statusOf(w.events[id])
	}
	return fmt.Sprintf("v1 create %s event %d (WordPress holds it %s) as %s on calshim %d: %d", status, id, got, role, ti,
		r.status)
}

// v1UpdateEvent changes an event's title, status, venue or tags through a calshim, by ID or slug,
// without If-Match, with a fresh ETag or with If-Match: *.
func (w *world) v1UpdateEvent() string {
	id := w.someEvent()
	if id == 0 {
		return w.v1CreateEvent()
	}
	m := w.events[id]
	role := w.pick("admin", "editor")
	ti, base := w.target()
	path := "/events/" + strconv.Itoa(id)
	if w.rng.IntN(2) == 0 && m.slug != "" {
		path = "/events/by-slug/" + m.slug
	}
	body, what := map[string]any{}, ""
	switch w.rng.IntN(4) {
	case 0:
		body["title"] = fmt.Sprintf("Model event %d", w.rng.IntN(1e6))
		what = "title"
	case 1:
		body["status"] = w.pick(modelStatuses...)
		what = "status " + body["status"].(string)
	case 2:
		body["venue"] = pickID(w, w.venues)
		what = "venue"
	default:
		body["tags"] = []int{w.tags[w.rng.IntN(len(w.tags))]}
		what = "tags"
	}
	cond := w.pick("", "fresh", "*")
	b, _ := json.Marshal(body)
	measure := what == "title" && m.status == "publish" && m.password == ""
	var start time.Time
	if measure {
		w.warm(id)
		start = time.Now()
	}
	r := w.conditionalWrite(base+v1+path, role, cond, m.password, string(b))
	defer func() { w.written("v1 update "+what+" of event "+strconv.Itoa(id), r, m, w.events[id]) }()
	if r.status == http.StatusPreconditionFailed && m.status != "trash" { // a trashed event is gone for If-Match
		w.note("if-match-refused", "If-Match %s on event %d (password %q) as %s: 412", cond, id, m.password, role)
	}
	if measure && r.status == http.StatusOK {
		kind := "v1 write on a replica"
		if base == w.edge {
			kind = "v1 write on the edge calshim"
		}
		w.timeFresh(kind, id, body["title"].(string), start)
	}
	w.events[id] = w.read("tribe_events", id)
	return fmt.Sprintf("v1 update %s of %s (event %d) as %s, If-Match %q, on calshim %d: %d", what, path, id, role,
		cond, ti, r.status)
}

// conditionalWrite posts body to target as role with If-Match cond: none, "*", or "fresh" (the ETag a
// GET of target answers, read with the event's password). A fresh tag read from a replica that has not
// yet polled another replica's write is stale, and its 412 is right: such a refusal changed nothing, so
// the tag is read again and the write retried until the freshness bound; only a tag refused after that
// is a finding.
func (w *world) conditionalWrite(target, role, cond, password, body string) reply {
	deadline := time.Now().Add(modelFreshness)
	for {
		opts := []reqOption{as(role), lenient, jsonBody(body)}
		switch cond {
		case "fresh":
			read := target
			if password != "" {
				read += "?password=" + password
			}
			tag := call(w.t, http.MethodGet, read, as(role), lenient).header.Get("ETag")
			if tag == "" {
				tag = "*"
			}
			opts = append(opts, header("If-Match", tag))
		case "*":
			opts = append(opts, header("If-Match", "*"))
		}
		r := call(w.t, http.MethodPost, target, opts...)
		if r.status != http.StatusPreconditionFailed || cond != "fresh" || time.Now().After(deadline) {
			return r
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// v1TrashEvent trashes an event through a calshim.
func (w *world) v1TrashEvent() string {
	id := w.someEvent()
	if id == 0 {
		return w.v1CreateEvent()
	}
	ti, base := w.target()
	before := w.events[id]
	r := call(w.t, http.MethodDelete, base+v1+"/events/"+strconv.Itoa(id), as("admin"), jsonBody(""), lenient)
	w.events[id] = w.read("tribe_events", id)
	w.written("v1 trash of event "+strconv.Itoa(id), r, before, w.events[id])
	return fmt.Sprintf("v1 trash event %d on calshim %d: %d", id, ti, r.status)
}

// wpEditEvent changes an event's title, status or password through wp/v2.
func (w *world) wpEditEvent() string {
	id := w.someEvent()
	if id == 0 {
		return w.v1CreateEvent()
	}
	m := w.events[id]
	body := map[string]any{}
	switch w.rng.IntN(3) {
	case 0:
		body["title"] = fmt.Sprintf("Model event %d", w.rng.IntN(1e6))
	case 1:
		body["status"] = w.pick(modelStatuses...)
	default:
		body["password"] = w.pick("", "", "sesame")
	}
	measure := body["title"] != nil && m.status == "publish" && m.password == ""
	if measure {
		w.warm(id)
	}
	start := time.Now()
	wp(w.t, http.MethodPost, "/wp/v2/tribe_events/"+strconv.Itoa(id), body)
	if measure {
		w.timeFresh("wp/v2 edit", id, body["title"].(string), start)
	}
	w.events[id] = w.read("tribe_events", id)
	return fmt.Sprintf("wp/v2 edit event %d: %v", id, body)
}

// wpTrashOrRestore trashes an event through wp/v2, or restores a trashed one.
func (w *world) wpTrashOrRestore() string {
	id := w.someEvent()
	if id == 0 {
		return w.v1CreateEvent()
	}
	if w.events[id].status == "trash" {
		wpPHP(w.t, "wp_untrash_post( "+strconv.Itoa(id)+" );")
		w.events[id] = w.read("tribe_events", id)
		return fmt.Sprintf("untrash event %d (now %s)", id, statusOf(w.events[id]))
	}
	wp(w.t, http.MethodDelete, "/wp/v2/tribe_events/"+strconv.Itoa(id), nil)
	w.events[id] = w.read("tribe_events", id)
	return fmt.Sprintf("wp/v2 trash event %d", id)
}

// sqlEditEvent changes an event's title or status straight in the database: no hook, no log row.
func (w *world) sqlEditEvent() string {
	id := w.someEvent()
	if id == 0 {
		return w.v1CreateEvent()
	}
	set := fmt.Sprintf("post_title = 'Model event by SQL %d'", w.rng.IntN(1e6))
	if w.rng.IntN(2) == 0 {
		set = "post_status = '" + w.pick("publish", "draft") + "'"
	}
	return w.sqlSet(id, set)
}

// sqlSet sets columns of an event's row straight in the database.
func (w *world) sqlSet(id int, set string) string {
	w.sql("UPDATE {prefix}posts SET " + set + ", post_modified_gmt = UTC_TIMESTAMP(), post_modified = NOW() WHERE ID = " +
		strconv.Itoa(id))
	w.events[id] = w.read("tribe_events", id)
	return fmt.Sprintf("SQL %s on event %d", set, id)
}

// sql runs a statement on the rig's database with the mariadb client.
func (w *world) sql(stmt string) {
	out, err := exec.Command("mariadb", "--protocol=socket", "--socket=/run/mysqld/mysqld.sock", "-ucalshim_wp",
		"-pcalshim_wp", w.db, "-e", strings.ReplaceAll(stmt, "{prefix}", "wp_")).CombinedOutput()
	if err != nil {
		w.t.Fatalf("SQL %s: %v\n%s", stmt, err, out)
	}
}

// v1EditLinked renames a venue or organizer, or changes its status, through a calshim, by ID or slug.
func (w *world) v1EditLinked() string {
	kind, typ, m, field := "venues", "tribe_venue", w.venues, "venue"
	if w.rng.IntN(2) == 0 {
		kind, typ, m, field = "organizers", "tribe_organizer", w.orgs, "organizer"
	}
	id := pickID(w, m)
	ti, base := w.target()
	path := "/" + kind + "/" + strconv.Itoa(id)
	if w.rng.IntN(2) == 0 && m[id].slug != "" {
		path = "/" + kind + "/by-slug/" + m[id].slug
	}
	body := map[string]any{field: fmt.Sprintf("Model %s %d", field, w.rng.IntN(1e6))}
	if w.rng.IntN(3) == 0 {
		body = map[string]any{"status": w.pick("publish", "publish", "draft")}
	}
	b, _ := json.Marshal(body)
	role := w.pick("admin", "editor")
	before := m[id]
	r := call(w.t, http.MethodPost, base+v1+path, as(role), jsonBody(string(b)), lenient)
	m[id] = w.read(typ, id)
	w.written("v1 edit of "+path, r, before, m[id])
	return fmt.Sprintf("v1 edit %s (%d) as %s on calshim %d: %v: %d", path, id, role, ti, body, r.status)
}

// wpEditLinked renames a venue or organizer through wp/v2.
func (w *world) wpEditLinked() string {
	typ, m := "tribe_venue", w.venues
	if w.rng.IntN(2) == 0 {
		typ, m = "tribe_organizer", w.orgs
	}
	id := pickID(w, m)
	title := fmt.Sprintf("Model linked %d", w.rng.IntN(1e6))
	wp(w.t, http.MethodPost, "/wp/v2/"+typ+"/"+strconv.Itoa(id), map[string]any{"title": title})
	m[id] = w.read(typ, id)
	return fmt.Sprintf("wp/v2 rename %s %d", typ, id)
}

// v1CreateOrganizer creates an organizer (a draft, when the author makes it) through a calshim,
// or deletes one the run created.
func (w *world) v1CreateOrganizer() string {
	ti, base := w.target()
	if len(w.orgs) > 5 && w.rng.IntN(2) == 0 {
		id := pickID(w, w.orgs)
		before := w.orgs[id]
		r := call(w.t, http.MethodDelete, base+v1+"/organizers/"+strconv.Itoa(id), as("admin"), jsonBody(""), lenient)
		w.orgs[id] = w.read("tribe_organizer", id)
		w.written("v1 delete of organizer "+strconv.Itoa(id), r, before, w.orgs[id])
		return fmt.Sprintf("v1 delete organizer %d on calshim %d: %d", id, ti, r.status)
	}
	role := w.pick("admin", "editor", "author")
	status := w.pick("publish", "draft")
	name := fmt.Sprintf("Model organizer %d", w.rng.IntN(1e6))
	b, _ := json.Marshal(map[string]any{"organizer": name, "status": status})
	r := call(w.t, http.MethodPost, base+v1+"/organizers", as(role), jsonBody(string(b)), lenient)
	id, _ := strconv.Atoi(str(at(r.body, "id")))
	if id == 0 {
		id = w.createdAnyway("tribe_organizer", name, r)
	}
	if id > 0 {
		w.orgs[id] = w.read("tribe_organizer", id)
	}
	return fmt.Sprintf("v1 create %s organizer %d as %s on calshim %d: %d", status, id, role, ti, r.status)
}

// renameTag renames a tag events embed, through a calshim or wp/v2.
func (w *world) renameTag() string {
	id := w.tags[w.rng.IntN(len(w.tags))]
	name := fmt.Sprintf("Model tag %d", w.rng.IntN(1e9))
	if w.rng.IntN(2) == 0 {
		ti, base := w.target()
		r := call(w.t, http.MethodPost, base+v1+"/tags/"+strconv.Itoa(id), as("admin"),
			jsonBody(`{"name":"`+name+`"}`), lenient)
		return fmt.Sprintf("v1 rename tag %d on calshim %d: %d", id, ti, r.status)
	}
	wp(w.t, http.MethodPost, "/wp/v2/tags/"+strconv.Itoa(id), map[string]any{"name": name})
	return fmt.Sprintf("wp/v2 rename tag %d", id)
}

// restartReplica stops the second replica and starts it again: tokens stay answered.
func (w *world) restartReplica() string {
	r := w.c.Replicas[1]
	mustDo(w.t, r.Term(15*time.Second))
	mustDo(w.t, r.Start())
	mustDo(w.t, w.c.WaitUp(1, 30*time.Second))
	w.restarts++
	return "restart replica 1"
}

// warm puts an event's anonymous answer into Varnish.
func (w *world) warm(id int) {
	for range 2 {
		call(w.t, http.MethodGet, w.varnish+v1+"/events/"+strconv.Itoa(id), lenient)
	}
}

// timeFresh records how long after start Varnish answered the event with title (at most 10 s).
func (w *world) timeFresh(kind string, id int, title string, start time.Time) {
	limit := start.Add(10 * time.Second)
	for time.Now().Before(limit) {
		r := call(w.t, http.MethodGet, w.varnish+v1+"/events/"+strconv.Itoa(id), lenient)
		if str(at(r.body, "title")) == title {
			w.fresh[kind] = append(w.fresh[kind], time.Since(start))
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.fresh[kind] = append(w.fresh[kind], time.Since(start))
	w.note("varnish-stale", "%s of event %d: Varnish still answers the old title after 10 s", kind, id)
}
