package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"calshim/catalog"
	"calshim/internal/testkit/wpfake"
)

// Generated cases of changes written around the change log (SQL: the fake's post changes with no
// row) next to logged ones, polls and restarts from the snapshot file, on two replicas of one log:
// one compares checksums at every poll, the other only when it restarts, so that one reads a row
// before an SQL change of its post and the other after it, with or without its own check first.
// After every step each replica's sync tokens are answered by both replicas, as a client would apply
// them: a copy of what the token's replica listed (published events, and every event), with the
// changes since applied, must equal what the answering replica lists now, and name in deleted only
// events the copy held; or the token is expired (the client lists afresh). Two replicas at one
// position list the same; at the end, both hold what WordPress (the fake) holds.

// syncView is what one client role lists: the events it sees, by status.
type syncView struct {
	name string
	sees func(status string) bool
}

var syncViews = []syncView{
	{"anonymous", func(s string) bool { return s == "publish" }},
	{"administrator", func(string) bool { return true }},
}

// syncReplica is one replica: its catalog, and the options it restarts with.
type syncReplica struct {
	cat  *catalog.Catalog
	opts func(*catalog.Options)
}

// syncToken is a token one replica gave, with what each view listed there.
type syncToken struct {
	ident string
	pos   int64
	from  int
	lists map[string]map[int]string
}

// syncWorld is one generated case.
type syncWorld struct {
	t        *testing.T
	fake     *wpfake.Server
	feed     *fakeFeed
	rng      *rand.Rand
	replicas []*syncReplica
	tokens   []syncToken
	events   []int
	history  []string
	answered int // tokens answered, by client view
	expired  int // tokens answered 410, by client view
}

func TestGeneratedSQLNextToRestarts(t *testing.T) {
	cases := 40
	if testing.Short() {
		cases = 10
	}
	for c := range cases {
		seed := uint64(c) + 1
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			w := newSyncWorld(t, seed)
			for i := range 24 {
				w.step(i)
			}
			w.settle()
			t.Logf("%d tokens answered, %d expired", w.answered, w.expired)
		})
	}
}

func newSyncWorld(t *testing.T, seed uint64) *syncWorld {
	fake := wpfake.New(t)
	feed := newFakeFeed(fake)
	feed.touch, feed.logDigests = true, true
	w := &syncWorld{t: t, fake: fake, feed: feed, rng: rand.New(rand.NewPCG(seed, 26)),
		events: fake.IDs("tribe_events")[:6]}
	dir := t.TempDir()
	for i, every := range []time.Duration{time.Nanosecond, time.Hour} {
		path := filepath.Join(dir, fmt.Sprintf("replica%d.gob", i))
		r := &syncReplica{opts: func(o *catalog.Options) {
			o.SnapshotPath, o.Upstream, o.VerifyEvery = path, "http://cms/wp-json#", every
		}}
		r.cat = newCatalog(t, fake, r.opts)
		if err := r.cat.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		w.replicas = append(w.replicas, r)
	}
	return w
}

// step runs one random operation, then answers every token kept on both replicas.
func (w *syncWorld) step(i int) {
	id := w.events[w.rng.IntN(len(w.events))]
	r := w.rng.IntN(len(w.replicas))
	var what string
	switch n := w.rng.IntN(12); {
	case n < 3:
		what = w.change(id, true)
	case n < 5:
		what = w.change(id, false)
	case n < 9:
		what = fmt.Sprintf("poll replica %d", r)
		w.poll(r)
	case n < 10:
		what = fmt.Sprintf("restart replica %d", r)
		w.restart(r)
	default:
		what = fmt.Sprintf("token of replica %d", r)
		w.take(r)
	}
	w.history = append(w.history, fmt.Sprintf("%d: %s", i, what))
	w.answerAll()
	w.samePositionSameList()
}

// change sets an event's status or title, logged (a row) or by SQL (none).
func (w *syncWorld) change(id int, logged bool) string {
	field, value := "status", []string{"publish", "draft", "private"}[w.rng.IntN(3)]
	if w.rng.IntN(3) == 0 {
		field, value = "title", fmt.Sprintf("title %d", w.rng.IntN(1000))
	}
	w.fake.Update("tribe_events", id, func(o wpfake.Object) {
		if field == "title" {
			calshimField(w.fake, o)["title"] = value
		} else {
			o["status"] = value
		}
	})
	if logged {
		w.feed.change("tribe_events", id)
		return fmt.Sprintf("logged %s %q of %d (row %d)", field, value, id, w.feed.seq)
	}
	return fmt.Sprintf("SQL %s %q of %d", field, value, id)
}

func (w *syncWorld) poll(r int) {
	if err := w.replicas[r].cat.Poll(context.Background()); err != nil {
		w.fail("poll of replica %d: %v", r, err)
	}
}

// restart stops a replica (it saves its file) and starts it from the file, as a process would.
func (w *syncWorld) restart(r int) {
	rep := w.replicas[r]
	if err := rep.cat.Save(); err != nil {
		w.fail("save: %v", err)
	}
	rep.cat = newCatalog(w.t, w.fake, rep.opts)
	if err := rep.cat.Start(context.Background()); err != nil {
		w.fail("start: %v", err)
	}
	w.poll(r) // Run polls at once after a start from the file
}

// take keeps a token of replica r with what each view lists there.
func (w *syncWorld) take(r int) {
	snap := w.replicas[r].cat.Snapshot()
	ident, pos := w.replicas[r].cat.SyncPoint(snap)
	tok := syncToken{ident: ident, pos: pos, from: r, lists: map[string]map[int]string{}}
	for _, v := range syncViews {
		tok.lists[v.name] = listed(snap, v)
	}
	w.tokens = append(w.tokens, tok)
	if len(w.tokens) > 6 {
		w.tokens = w.tokens[1:]
	}
}

// listed is what a view lists of a snapshot: event ID → status and title.
func listed(s *catalog.Snapshot, v syncView) map[int]string {
	out := map[int]string{}
	for _, p := range s.Events {
		if v.sees(p.Status()) {
			out[p.ID] = p.Status() + " " + p.Title()
		}
	}
	return out
}

// answerAll applies every kept token's changes on every replica standing at or after it.
func (w *syncWorld) answerAll() {
	for _, tok := range w.tokens {
		for r, rep := range w.replicas {
			snap := rep.cat.Snapshot()
			ident, pos := rep.cat.SyncPoint(snap)
			if ident != tok.ident || pos < tok.pos {
				continue // a client waits for that replica, or lists afresh (another log)
			}
			changed, err := rep.cat.ChangesSince(context.Background(), tok.ident, tok.pos, snap)
			if errors.Is(err, catalog.ErrSyncExpired) {
				w.expired++
				continue
			}
			if err != nil {
				w.fail("token %d of replica %d on replica %d: %v", tok.pos, tok.from, r, err)
			}
			for _, v := range syncViews {
				if w.apply(tok, v, r, snap, changed) {
					w.answered++
				} else {
					w.expired++
				}
			}
		}
	}
}

// apply is what a client of view v holding tok's list gets from replica r's changes (as the adapter
// answers them, adapter/sync_token.go), compared with a fresh list of r; false: the token expires
// for that client (a post it does not see whose state then r does not know).
func (w *syncWorld) apply(tok syncToken, v syncView, r int, snap *catalog.Snapshot,
	changed map[int]catalog.Changed) bool {
	copied := maps.Clone(tok.lists[v.name])
	for id, ch := range changed {
		p, ok := snap.Post(id)
		switch {
		case ok && p.Type() == "tribe_events" && v.sees(p.Status()):
			copied[id] = p.Status() + " " + p.Title()
		case ch.Type != "tribe_events":
		case ch.Unknown:
			return false
		case ch.Before != nil && v.sees(ch.Before.Status()):
			if _, held := copied[id]; !held {
				w.fail("%s token %d of replica %d on replica %d: %d in deleted, never listed", v.name, tok.pos,
					tok.from, r, id)
			}
			delete(copied, id)
		}
	}
	if want := listed(snap, v); !maps.Equal(copied, want) {
		w.fail("%s token %d of replica %d on replica %d: copy %v, fresh list %v", v.name, tok.pos, tok.from, r,
			copied, want)
	}
	return true
}

// samePositionSameList wants two replicas at one position to list the same.
func (w *syncWorld) samePositionSameList() {
	a, b := w.replicas[0].cat.Snapshot(), w.replicas[1].cat.Snapshot()
	_, pa := w.replicas[0].cat.SyncPoint(a)
	_, pb := w.replicas[1].cat.SyncPoint(b)
	if pa == pb && !maps.Equal(listed(a, syncViews[1]), listed(b, syncViews[1])) {
		w.fail("both replicas at %d: %v vs %v", pa, listed(a, syncViews[1]), listed(b, syncViews[1]))
	}
}

// settle polls both replicas (the first compares checksums at each poll) until WordPress' state is
// theirs.
func (w *syncWorld) settle() {
	for range 3 {
		w.poll(0)
		w.poll(1)
	}
	want := map[int]string{}
	for _, id := range w.fake.IDs("tribe_events") {
		o := w.fake.Item("tribe_events", id)
		want[id] = fmt.Sprint(o["status"]) + " " + fmt.Sprint(calshimField(w.fake, o)["title"])
	}
	for r, rep := range w.replicas {
		if got := listed(rep.cat.Snapshot(), syncViews[1]); !maps.Equal(got, want) {
			w.fail("replica %d after settling: %v, WordPress %v", r, got, want)
		}
	}
	w.answerAll()
}

func (w *syncWorld) fail(format string, args ...any) {
	w.t.Helper()
	w.t.Fatalf(format+"\nsteps:\n  %s", append(args, strings.Join(w.history, "\n  "))...)
}
