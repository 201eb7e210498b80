package catalog

import (
	"crypto/rand"
	"encoding/hex"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"calshim/mapping"
)

// The change journal remembers which posts each published snapshot changed, with their state
// before, so that clients holding a sync token (a snapshot version) can be told what changed since
// (adapter/synctoken.go). It lives in memory: a restart starts a new epoch and older tokens expire.
// It is bounded in bytes, and keeps of each earlier state only what the sync filters test: a
// contributor saving a large draft again and again must not make every replica keep each version.

// DefaultMaxChangeBytes bounds the journal when Options.MaxChangeBytes is not set.
const DefaultMaxChangeBytes = 4 << 20

// change is one post that a snapshot version changed, with its state just before (nil: it did
// not exist) as earlier keeps it.
type change struct {
	version uint64
	id      int
	before  *mapping.Post
}

// journal is the bounded list of changes, oldest first.
type journal struct {
	mu      sync.Mutex
	epoch   string // random per catalog instance: tokens of another process never match
	started bool
	floor   uint64 // the oldest version from which every later change is remembered
	entries []change
	bytes   int // the entries' size as changeSize counts it
}

// publish records what next changes, then makes it the current snapshot (with c.mu held): a reader
// that sees a version finds its changes in the journal.
func (c *Catalog) publish(next *Snapshot) {
	c.journal.record(c.snap.Load(), next, c.maxChangeBytes())
	c.snap.Store(next)
}

func (c *Catalog) maxChangeBytes() int {
	if c.opt.MaxChangeBytes > 0 {
		return c.opt.MaxChangeBytes
	}
	return DefaultMaxChangeBytes
}

// SyncEpoch names this catalog instance and its upstream in sync tokens.
func (c *Catalog) SyncEpoch() string {
	c.journal.mu.Lock()
	defer c.journal.mu.Unlock()
	c.journal.init()
	return c.journal.epoch
}

// ChangesSince returns the posts changed after version since up to version until, each with its
// state at since (nil when it did not exist then) as earlier keeps it, without text or meta; ok is
// false when the journal no longer reaches back to since (or epoch is not this instance's).
func (c *Catalog) ChangesSince(epoch string, since, until uint64) (map[int]*mapping.Post, bool) {
	j := &c.journal
	j.mu.Lock()
	defer j.mu.Unlock()
	j.init()
	if epoch != j.epoch || !j.started || since < j.floor || since > until {
		return nil, false
	}

	out := map[int]*mapping.Post{}
	for _, ch := range j.entries {
		if ch.version <= since || ch.version > until {
			continue
		}
		if _, seen := out[ch.id]; !seen { // the first change after since holds the state at since
			out[ch.id] = ch.before
		}
	}

	return out, true
}

func (j *journal) init() {
	if j.epoch == "" {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		j.epoch = hex.EncodeToString(b)
	}
}

// record appends the posts that differ between old and next. A first snapshot, or one that does
// not follow old, starts the journal afresh at its version.
// record appends the posts that differ between old and next, then forgets the oldest entries
// beyond limit bytes. A first snapshot, or one that does not follow old, starts the journal afresh
// at its version.
func (j *journal) record(old, next *Snapshot, limit int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.init()
	if next == nil {
		return
	}

	if old == nil || !j.started || next.Version <= old.Version {
		j.started, j.floor, j.entries, j.bytes = true, next.Version, nil, 0
		return
	}

	for _, ch := range diffPosts(old, next) {
		ch.before = earlier(ch.before)
		j.entries = append(j.entries, ch)
		j.bytes += changeSize(ch)
	}

	drop := 0
	for ; drop < len(j.entries) && j.bytes > limit; drop++ {
		j.bytes -= changeSize(j.entries[drop])
		j.floor = j.entries[drop].version
	}

	// The dropped slots are cleared and left behind: append moves the live entries to a new
	// array when this one is full, and the old one goes.
	clear(j.entries[:drop])
	j.entries = j.entries[drop:]
}

// earlier is what the journal keeps of a post's state: what the sync filters test without its
// text (identity, type, status, protection, parent, terms, dates and linked posts), in memory of
// its own, so that it holds neither the post's text and meta nor the block the post lives in.
func earlier(p *mapping.Post) *mapping.Post {
	if p == nil {
		return nil
	}

	d := p.Derived
	d.Start, d.End = strings.Clone(d.Start), strings.Clone(d.End) // slices of the block's text
	return &mapping.Post{ID: p.ID, Protected: p.Protected, Parent: p.Parent, Terms: p.Terms, Derived: d,
		Text: mapping.TextFields{Type: p.Type(), Status: p.Status()}.Pack()}
}

// changeSize is what one entry holds: its slot, and the earlier state's post, strings and ID
// lists. The term lists count whole although posts share equal ones (compact.go).
func changeSize(ch change) int {
	n := int(unsafe.Sizeof(ch))
	p := ch.before
	if p == nil {
		return n
	}

	ids := len(p.Derived.Venues) + len(p.Derived.Organizers)
	for role, l := range p.Terms {
		n += len(role) + int(unsafe.Sizeof(l))
		ids += len(l)
	}

	return n + int(unsafe.Sizeof(*p)) + len(p.Type()) + len(p.Status()) + len(p.Derived.Start) +
		len(p.Derived.End) + ids*int(unsafe.Sizeof(0))
}

// diffPosts lists the events, venues and organizers added, changed or removed from old to next.
func diffPosts(old, next *Snapshot) []change {
	var out []change
	lists := [][2][]*mapping.Post{{old.Events, next.Events}, {old.Venues, next.Venues},
		{old.Organizers, next.Organizers}}
	for _, l := range lists {
		out = append(out, diffList(l[0], l[1], old, next)...)
	}

	return out
}

// diffList compares one list of old with the same list of next. Unchanged posts are carried over
// as the same pointer and keep their relative order, so the two lists are walked side by side and
// only the posts where they part are looked up: a poll that changed a few posts costs one pointer
// test per post. Should the walk meet two unchanged posts out of step, it compares every post.
func diffList(a, b []*mapping.Post, old, next *Snapshot) []change {
	var out []change
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			i, j = i+1, j+1
		case !sameIn(old, b[j]): // added or changed: recorded where next has it
			out = append(out, change{version: next.Version, id: b[j].ID, before: postOf(old, b[j].ID)})
			j++
		case !sameIn(next, a[i]): // removed or changed (then recorded from next's side)
			if _, has := next.Post(a[i].ID); !has {
				out = append(out, change{version: next.Version, id: a[i].ID, before: a[i]})
			}
			i++
		default:
			return diffAll(a, b, old, next)
		}
	}

	for ; j < len(b); j++ {
		if !sameIn(old, b[j]) {
			out = append(out, change{version: next.Version, id: b[j].ID, before: postOf(old, b[j].ID)})
		}
	}

	for ; i < len(a); i++ {
		if _, has := next.Post(a[i].ID); !has {
			out = append(out, change{version: next.Version, id: a[i].ID, before: a[i]})
		}
	}

	return out
}

// diffAll compares every post of a list by ID.
func diffAll(a, b []*mapping.Post, old, next *Snapshot) []change {
	var out []change
	for _, p := range b {
		if !sameIn(old, p) {
			out = append(out, change{version: next.Version, id: p.ID, before: postOf(old, p.ID)})
		}
	}

	for _, p := range a {
		if _, has := next.Post(p.ID); !has {
			out = append(out, change{version: next.Version, id: p.ID, before: p})
		}
	}

	return out
}

// sameIn reports whether s holds p unchanged (the same post, or an equal copy).
func sameIn(s *Snapshot, p *mapping.Post) bool {
	q, ok := s.Post(p.ID)
	return ok && (q == p || reflect.DeepEqual(q, p))
}

// postOf is the post of s with that ID, nil when none.
func postOf(s *Snapshot, id int) *mapping.Post {
	p, _ := s.Post(id)
	return p
}
