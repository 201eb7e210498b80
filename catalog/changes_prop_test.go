package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"calshim/cmsclient"
	"calshim/mapping"
)

// The sync journal, tried as replicas behind a balancer use it: generated cases of a change log
// (random writes, no-op writes and deletions of a few events and venues, each a row), two replicas
// that load at random positions and poll at random moments (a poll reads one or more pages of rows
// and publishes a snapshot, or stands still when nothing it holds changed; a replica may restart from
// its snapshot file's journal; its journal may be bounded to a few rows), and tokens at random positions (where the other replica stood, or
// anywhere) asked of a replica's current or an older snapshot by callers of random roles. Every
// answer is checked against a reference computed from the whole row history: the caller's view at
// the token, with the delta applied, equals its view now, and deleted names only what that view at
// the token showed. A replica may answer 410 only for a position before its journal (or forgotten), or inside one
// of its polls between two rows of a post the caller does not see now (it never stood there, and
// cannot tell what the caller saw of that post then).
func TestJournalDeltasMatchHistory(t *testing.T) {
	cases := 4000
	if testing.Short() {
		cases = 1000
	}
	h := &propHistory{outcomes: map[string]int{}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := cmsclient.New(srv.URL, "", "", 5*time.Second)
	failed, asked := 0, 0
	for seed := range uint64(cases) {
		msgs, n := h.run(seed, client)
		asked += n
		for _, m := range msgs {
			t.Errorf("case %d: %s", seed, m)
		}
		if len(msgs) > 0 {
			if failed++; failed >= 5 {
				t.Fatalf("stopped after %d failing cases (replay one: the case number is its seed)", failed)
			}
		}
	}
	t.Logf("%d cases, %d deltas checked: %v", cases, asked, h.outcomes)
	for _, kind := range []string{"answered", "answered, bounded journal", "410 unknown, between two rows of one poll"} {
		if h.outcomes[kind] == 0 {
			t.Errorf("no case met %q", kind)
		}
	}
}

// propState is a post's state after a row; nil: it does not exist.
type propState struct {
	status string
	rev    int // every write that changes the post changes it
}

// propRoles are the callers: the statuses each may list.
var propRoles = [][]string{{"publish"}, {"publish", "pending"}, {"publish", "draft", "pending", "private"}}

var propStatuses = []string{"publish", "draft", "pending", "private"}

// propHistory is one case: the log's rows and each post's state after every row. It serves the
// rows (changes/rows) to a restarted replica whose memory does not reach back.
type propHistory struct {
	mu    sync.Mutex
	rng   *rand.Rand
	types Types
	kind  map[int]string // each post's type
	rows  []cmsclient.LogRow
	hist  []map[int]*propState // hist[s]: the states after row s (hist[0]: before the first)
	// outcomes counts the answers by kind, over every case: that each kind is met.
	outcomes map[string]int
}

func (h *propHistory) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	since, _ := strconv.ParseInt(r.URL.Query().Get("since"), 10, 64)
	until, _ := strconv.ParseInt(r.URL.Query().Get("until"), 10, 64)
	if r.URL.Path != "/calshim/v1/changes/rows" || since < 0 || until > int64(len(h.rows)) || since > until {
		http.Error(w, "no", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"log": "L", "site": "http://cms", "head": len(h.rows),
		"seq": until, "rows": h.rows[since:until]})
}

// generate draws a case's posts and rows.
func (h *propHistory) generate(seed uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.rng = rand.New(rand.NewPCG(seed, 0x26))
	h.types = Types{Event: "tribe_events", Venue: "tribe_venue", Organizer: "tribe_organizer"}
	h.kind, h.rows = map[int]string{}, nil
	first := map[int]*propState{}
	for id := 1; id <= 2+h.rng.IntN(4); id++ {
		h.kind[id] = []string{h.types.Event, h.types.Venue}[h.rng.IntN(2)]
		if h.rng.IntN(3) > 0 {
			first[id] = &propState{status: propStatuses[h.rng.IntN(len(propStatuses))]}
		}
	}
	h.hist = []map[int]*propState{first}
	for seq := 1; seq <= 4+h.rng.IntN(40); seq++ {
		next := maps.Clone(h.hist[len(h.hist)-1])
		id := 1 + h.rng.IntN(len(h.kind))
		switch h.rng.IntN(10) {
		case 0:
			delete(next, id)
		case 1: // a row that changes nothing the catalog holds
		default:
			next[id] = &propState{status: propStatuses[h.rng.IntN(len(propStatuses))], rev: seq}
		}
		h.rows = append(h.rows, cmsclient.LogRow{Seq: int64(seq), ID: id, Type: h.kind[id], Deleted: next[id] == nil})
		h.hist = append(h.hist, next)
	}
}

// snapshot is the catalog's state at position pos.
func (h *propHistory) snapshot(pos int64, version uint64) *Snapshot {
	posts := map[int]*mapping.Post{}
	for id, st := range h.hist[pos] {
		posts[id] = &mapping.Post{ID: id, Text: mapping.TextFields{Type: h.kind[id], Status: st.status,
			Title: strconv.Itoa(st.rev)}.Pack()}
	}
	return build(Snapshot{Version: version, types: h.types}, posts, nil, nil)
}

// view is what a caller of role sees of the posts of typ at position pos: each one's revision.
func (h *propHistory) view(pos int64, role []string, typ string) map[int]int {
	out := map[int]int{}
	for id, st := range h.hist[pos] {
		if h.kind[id] == typ && slices.Contains(role, st.status) {
			out[id] = st.rev
		}
	}
	return out
}

// propReplica is one replica: its catalog, where it loaded, its polls and its snapshots.
type propReplica struct {
	c     *Catalog
	load  int64
	polls [][2]int64
	snaps []*Snapshot
}

// start loads a replica at load. Its journal is bounded to a few rows in one case of four.
func (h *propHistory) start(client *cmsclient.Client, load int64) *propReplica {
	bound := 1 << 30
	if h.rng.IntN(4) == 0 {
		bound = (2 + h.rng.IntN(30)) * rowSize(cmsclient.LogRow{})
	}
	r := &propReplica{c: New(client, Options{Types: h.types, MaxChangeBytes: bound}), load: load}
	r.boot(h, load, 1)
	return r
}

// boot publishes the replica's first snapshot, at pos.
func (r *propReplica) boot(h *propHistory, pos int64, version uint64) {
	c := r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	c.feed.on.Store(true)
	c.feed.log, c.feed.site = "L", "http://cms"
	c.feed.seq.Store(pos)
	c.publish(h.snapshot(pos, version))
	r.snaps = append(r.snaps, c.snap.Load())
}

// poll reads the rows after the replica's position up to to, in pages, as catchUp does.
func (r *propReplica) poll(h *propHistory, to int64) {
	c := r.c
	c.mu.Lock()
	defer c.mu.Unlock()
	from := c.feed.seq.Load()
	for at := from; at < to; {
		next := at + 1 + h.rng.Int64N(to-at)
		c.addRows(at, next, slices.Clone(h.rows[at:next]))
		at = next
	}
	c.feed.seq.Store(to)
	cur := c.snap.Load()
	if maps.EqualFunc(h.hist[from], h.hist[to], func(a, b *propState) bool { return *a == *b }) &&
		h.rng.IntN(4) > 0 {
		c.advanced(cur)
	} else {
		c.publish(h.snapshot(to, cur.Version+1))
		r.snaps = append(r.snaps, c.snap.Load())
	}
	c.feed.published()
	r.polls = append(r.polls, [2]int64{from, to})
}

// restart replaces the replica's catalog with one started from its snapshot file: the snapshot at
// its position and the journal image (persist.go), without the rows, which the plugin answers.
func (r *propReplica) restart(h *propHistory, client *cmsclient.Client) {
	old := r.c
	old.mu.Lock()
	pos, version := old.feed.seq.Load(), old.snap.Load().Version
	d := old.journal.image("L", pos)
	old.mu.Unlock()
	r.c = New(client, old.opt)
	r.boot(h, pos, version)
	r.c.journal.resume(d, "L", pos)
}

// run plays one case and returns what went wrong, and how many deltas it checked.
func (h *propHistory) run(seed uint64, client *cmsclient.Client) (msgs []string, asked int) {
	h.generate(seed)
	end := int64(len(h.rows))
	reps := []*propReplica{h.start(client, h.rng.Int64N(end/2+1)), h.start(client, h.rng.Int64N(end/2+1))}
	for step := 0; step < 30 && len(msgs) == 0; step++ {
		r := reps[h.rng.IntN(2)]
		switch pos := r.c.feed.seq.Load(); {
		case h.rng.IntN(12) == 0:
			r.restart(h, client)
		case pos < end && h.rng.IntN(3) > 0:
			r.poll(h, pos+1+h.rng.Int64N(min(end-pos, 8)))
		default:
			msgs = append(msgs, h.ask(r, reps[0] == r, reps)...)
			asked++
		}
	}
	return msgs, asked
}

// ask asks replica r one token, of a random role and list, at a random position up to a random one
// of its snapshots (where the other replica stood, or anywhere), and checks the answer.
func (h *propHistory) ask(r *propReplica, first bool, reps []*propReplica) []string {
	snap := r.snaps[len(r.snaps)-1]
	if h.rng.IntN(4) == 0 {
		snap = r.snaps[h.rng.IntN(len(r.snaps))]
	}
	_, upto := r.c.SyncPoint(snap)
	since := h.rng.Int64N(upto + 1)
	if other := reps[map[bool]int{true: 1, false: 0}[first]]; h.rng.IntN(2) == 0 {
		var stood []int64
		for _, p := range other.polls {
			if p[1] <= upto {
				stood = append(stood, p[1])
			}
		}
		if len(stood) > 0 {
			since = stood[h.rng.IntN(len(stood))]
		}
	}
	role := propRoles[h.rng.IntN(len(propRoles))]
	typ := []string{h.types.Event, h.types.Venue}[h.rng.IntN(2)]
	visible := func(p *mapping.Post) bool { return slices.Contains(role, p.Status()) }
	where := fmt.Sprintf("token %d asked of the replica loaded at %d (polls %v) at %d, statuses %v, %s",
		since, r.load, r.polls, upto, role, typ)

	changed, err := r.c.ChangesSince(context.Background(), "L", since, snap)
	var current []*mapping.Post
	var deleted []int
	if err == nil {
		current, deleted, err = Split(snap, typ, changed, visible, visible)
	}
	then, now := h.view(since, role, typ), h.view(upto, role, typ)
	if errors.Is(err, ErrSyncUnknown) {
		if !h.ambiguous(r, since, now, typ) {
			return []string{where + ": unknown, outside a gap of a post the caller does not see"}
		}
		h.outcomes["410 unknown, between two rows of one poll"]++
		return nil
	}
	if errors.Is(err, ErrSyncExpired) {
		switch {
		case since < r.load:
			h.outcomes["410 before its load"]++
		case r.forgot(since, upto):
			h.outcomes["410 forgotten past the bound"]++
		default:
			return []string{where + ": expired, at a position it can answer"}
		}
		return nil
	}
	if err != nil {
		return []string{where + ": " + err.Error()}
	}
	h.outcomes[map[bool]string{true: "answered, bounded journal", false: "answered"}[r.c.maxChangeBytes() < 1<<30]]++
	return h.check(then, now, current, deleted, where)
}

// forgot reports whether r's journal, bounded, no longer reaches back to since: it forgot the
// states after it, or more rows follow it than its bound holds.
func (r *propReplica) forgot(since, upto int64) bool {
	bound := r.c.maxChangeBytes()
	return bound < 1<<30 && (!r.c.journal.reaches("L", since) ||
		int(upto-since) > bound/rowSize(cmsclient.LogRow{}))
}

// ambiguous reports whether position since lies inside one of r's polls between two rows of a post
// of typ the caller does not see now: a position r never stood at, with a state of that post r never
// read.
func (h *propHistory) ambiguous(r *propReplica, since int64, now map[int]int, typ string) bool {
	for _, p := range r.polls {
		if since <= p[0] || since >= p[1] {
			continue
		}
		before, after := map[int]bool{}, map[int]bool{}
		for _, row := range h.rows[p[0]:p[1]] {
			if _, seen := now[row.ID]; !seen && h.kind[row.ID] == typ {
				if row.Seq <= since {
					before[row.ID] = true
				} else if before[row.ID] {
					after[row.ID] = true
				}
			}
		}
		if len(after) > 0 {
			return true
		}
	}
	return false
}

// check applies a delta to the caller's view at the token and wants its view now; deleted may name
// only posts that view showed.
func (h *propHistory) check(then, now map[int]int, current []*mapping.Post, deleted []int, where string) []string {
	var out []string
	copyOf := maps.Clone(then)
	for _, id := range deleted {
		if _, held := then[id]; !held {
			out = append(out, fmt.Sprintf("%s: deleted names %d, which the caller did not see then", where, id))
		}
		delete(copyOf, id)
	}
	for _, p := range current {
		copyOf[p.ID], _ = strconv.Atoi(p.Title())
	}
	if !maps.Equal(copyOf, now) {
		out = append(out, fmt.Sprintf("%s: the view then %v with the delta (current %v, deleted %v) is %v, the view now %v",
			where, then, ids(current), deleted, copyOf, now))
	}
	return out
}
