package catalog

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"calshim/cmsclient"
	"calshim/mapping"
)

// The sync journal answers clients' sync tokens (adapter/sync_token.go). A token is a position: when
// the catalog syncs through the plugin's change feed, the change log's identity and a sequence in
// it, which every replica, restarted or not, can answer; without the feed (wp/v2 polling), this
// catalog instance and a snapshot version, which only this process can.
//
// Which posts changed since a sequence comes from the log's rows: those the feed polls brought,
// kept in memory, else read from the plugin (changes/rows) and kept, so that only the first token
// older than what a replica followed itself costs an upstream request. What a changed post was at
// the token's position (did the caller see it matching then?) comes from the earlier states the
// catalog kept when its snapshots replaced them, without text or meta: a contributor saving a large
// draft again and again must not make every replica keep each version. A replica that did not
// follow the log since that position (restarted since, or forgotten) does not know: the position is
// expired. Rows and earlier states share one bound in bytes, oldest forgotten first.

// DefaultMaxChangeBytes bounds the journal when Options.MaxChangeBytes is not set.
const DefaultMaxChangeBytes = 4 << 20

// ErrSyncExpired says the position belongs to another log or catalog instance, or the log (or, without
// the feed, the journal) no longer reaches back to it.
var ErrSyncExpired = errors.New("catalog: sync position of another log, or older than the log holds")

// ErrSyncUnknown says this replica never held the state, at the position, of a post the caller does
// not see now (Split): another replica may have shown it there, so whether the caller holds it is
// not known. Distinct from ErrSyncExpired, whose log no longer reaches back.
var ErrSyncUnknown = errors.New("catalog: sync position in a gap of this replica, for a post the caller does not see")

// Changed is one post changed since a position.
type Changed struct {
	Type   string        // its post type
	Before *mapping.Post // its state at the position, as earlier keeps it (nil: it did not exist, or unplaced)
	// Unknown: this replica never held its state at the position (a gap of this replica's, or a
	// recent repair), which another may have shown there: shown to a caller now it is re-sent, else
	// the caller cannot be told whether it held it (Split: ErrSyncUnknown).
	Unknown bool
}

// Split sorts the changed posts of type typ into those a caller sees matching in snap now (now), and
// the IDs, ascending, of those it saw matching at the position (then, tested on Before) and no
// longer does. A post whose state at the position is unknown and that the caller does not see now
// makes the position unknown for it (ErrSyncUnknown): it may have seen it then, or may never have
// been allowed to (its ID would tell it of a post it may not read).
func Split(snap *Snapshot, typ string, changed map[int]Changed,
	now, then func(*mapping.Post) bool) (current []*mapping.Post, deleted []int, err error) {
	deleted = []int{}
	for id, ch := range changed {
		p, ok := snap.Post(id)
		switch {
		case ok && p.Type() == typ && now(p):
			current = append(current, p)
		case ch.Type != typ:
		case ch.Unknown:
			return nil, nil, ErrSyncUnknown
		case ch.Before != nil && then(ch.Before):
			deleted = append(deleted, id)
		}
	}
	slices.Sort(deleted)
	return current, deleted, nil
}

// syncPos is where in the change log a snapshot stands (feed only). seq moves on while the snapshot
// is current and the polls change nothing in it.
type syncPos struct {
	log string
	seq atomic.Int64
}

// change is one post a published snapshot changed, with its state just before (nil: it did not
// exist) as earlier keeps it: from is the position of the snapshot replaced, pos of the new one.
type change struct {
	from, pos int64
	id        int
	typ       string
	before    *mapping.Post
	// repair: no log row brought it (rows written around the log, which the checksum comparison
	// found), at when (unix nanoseconds).
	repair bool
	when   int64
	// embedded: an event that did not change, whose venue, organizer or term did (it has no row).
	embedded bool
}

// journal is the bounded memory of changes and log rows, oldest first.
type journal struct {
	mu      sync.Mutex
	epoch   string // random per catalog instance: names positions without the feed
	started bool
	ident   string // the log (or epoch) the positions below belong to
	floor   int64  // every change after a snapshot at floor is in entries
	exact   bool   // and every change at floor's position too (floor is where the journal started)
	entries []change
	// rows are the log's rows of posts and terms after rowFloor up to rowTop, all of them (feed only).
	rowFloor, rowTop int64
	rows             []cmsclient.LogRow
	// gaps are the positions inside this replica's polls at which a post's state is not known,
	// ordered by last.
	gaps  []gap
	bytes int // the entries', rows' and gaps' size as changeSize, rowSize and gapSize count them
}

// gap is a post of which one poll read several log rows: a position from first (its first row in
// the poll) up to last (its last row), excluded, is one this replica never stood at (a token of
// another replica), and the post's state there is none the replica read, so it cannot say whether
// the caller saw it then. So is a post the poll read in a state its row at first does not place
// (changed around the log since: relog in verify.go), up to the row that does, or to the poll's end.
// id 0: every post (a poll whose rows are not kept, a reload).
type gap struct {
	id          int
	typ         string
	first, last int64
}

// publish records what next changes, then makes it the current snapshot (with c.mu held): a reader
// that sees a version finds its changes in the journal.
func (c *Catalog) publish(next *Snapshot) {
	next.pos = nil
	if c.feed.on.Load() {
		next.pos = &syncPos{log: c.feed.log}
		next.pos.seq.Store(c.feed.seq.Load())
	}
	c.journal.record(c.snap.Load(), next, c.maxChangeBytes(), c.relogged)
	c.relogged = nil
	c.snap.Store(next)
}

// advanced records that the current snapshot, unchanged by a poll, reflects the log up to the
// feed's sequence.
func (c *Catalog) advanced(cur *Snapshot) {
	if cur.pos != nil {
		c.journal.stood(cur.pos.log, cur.pos.seq.Load(), c.feed.seq.Load(), c.maxChangeBytes(), c.relogged)
		c.relogged = nil
		cur.pos.seq.Store(c.feed.seq.Load())
	}
}

// repairWindow is how long a repaired post's state is unknown to tokens on either side of the
// repair's position (Changed.Unknown): each replica finds a repair when it compares checksums, at a
// position of its own, so a token another replica issued may stand before or after this one's repair
// with the other state. Every replica compares within VerifyEvery.
func (c *Catalog) repairWindow() time.Duration {
	return max(2*c.opt.VerifyEvery, time.Minute)
}

func (c *Catalog) maxChangeBytes() int {
	if c.opt.MaxChangeBytes > 0 {
		return c.opt.MaxChangeBytes
	}
	return DefaultMaxChangeBytes
}

// SyncPoint is the position snapshot s answers from: the change log's identity and the sequence s
// reflects, or without the feed this catalog instance and the snapshot's version.
func (c *Catalog) SyncPoint(s *Snapshot) (ident string, pos int64) {
	if s.pos != nil {
		return s.pos.log, s.pos.seq.Load()
	}
	return c.journal.epochID(), int64(s.Version)
}

// ChangesSince returns the posts changed after position since of ident up to snapshot until (whose
// position must not be before since), by ID. ErrSyncExpired when ident is not until's or the
// change log (without the feed: the journal) no longer reaches back to since.
func (c *Catalog) ChangesSince(ctx context.Context, ident string, since int64,
	until *Snapshot) (map[int]Changed, error) {
	have, upto := c.SyncPoint(until)
	if ident != have || since > upto || since < 0 {
		return nil, ErrSyncExpired
	}
	if until.pos == nil {
		return c.journal.versionsSince(since, upto)
	}

	if !c.journal.reaches(ident, since) {
		return nil, ErrSyncExpired
	}
	rows, err := c.logRows(ctx, ident, since, upto)
	if err != nil {
		return nil, err
	}
	changed, known := c.journal.before(ident, rows, since, until, time.Now().Add(-c.repairWindow()).UnixNano())
	if !known {
		return nil, ErrSyncExpired
	}
	return changed, nil
}

// versionsSince answers a position of this instance (no feed) from the journal alone.
func (j *journal) versionsSince(since, until int64) (map[int]Changed, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.started || since < j.floor {
		return nil, ErrSyncExpired
	}

	out := map[int]Changed{}
	for _, ch := range j.entries {
		_, seen := out[ch.id]
		if ch.pos > since && ch.pos <= until && !seen { // the first change after since holds the state at since
			out[ch.id] = Changed{Type: ch.typ, Before: ch.before}
		}
	}
	return out, nil
}

// before returns the posts the rows name and those the journal recorded after since (a repair of
// rows written around the log has no row; an event whose venue, organizer or term changed renders
// anew), each with its state at since: from the first change recorded after since (for a position
// this replica never stood at, a token of another replica, the change its poll straddled counts when
// the post's first row after since is in it; when since is inside a gap, the state is unknown), as
// in until when none was recorded (a post the catalog does not hold, of another language or status,
// stays out of deleted). A change published
// at since without moving the sequence (a repair) counts as after since. A repair recorded after
// recent (unix nanoseconds, repairWindow), on either side of since, is named Unknown: re-sent when
// the caller sees it, else the token is unknown for that caller. When the
// journal does not reach back to since (another log, a restart since, a forged position), the states
// are not known, nor what changed in the events' embedded venues, organizers and terms: false, the
// position is expired.
func (j *journal) before(ident string, rows []cmsclient.LogRow, since int64, snap *Snapshot,
	recent int64) (map[int]Changed, bool) {
	_, until := j.position(snap)
	out := make(map[int]Changed, len(rows))
	for _, r := range rows {
		if !r.Term {
			out[r.ID] = Changed{Type: r.Type}
		}
	}

	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.reachesLocked(ident, since) {
		return out, false
	}

	decided := map[int]bool{}
	if !j.unknownAt(since, out, decided) {
		return out, false
	}
	first, resend := firstRows(rows), rowEmbedders(rows, snap)
	repaired := map[int]*mapping.Post{} // the state before the last repair at or before since
	for _, ch := range j.entries {
		if ch.pos > until {
			break
		}
		if ch.repair && ch.when > recent && !decided[ch.id] {
			// Each replica repairs where it finds the change: a token of another may stand on
			// either side of this one's repair, so the state then is not known here.
			decided[ch.id] = true
			out[ch.id] = Changed{Type: ch.typ, Unknown: true}
			continue
		}
		if ch.repair && ch.pos <= since {
			repaired[ch.id] = ch.before
		}
		if decided[ch.id] {
			continue
		}
		switch after, unplaced := ch.after(since, first); {
		case after:
			decided[ch.id] = true
			out[ch.id] = Changed{Type: ch.typ, Before: ch.before}
		case unplaced:
			resend[ch.id] = ch.typ
		}
	}
	settle(out, decided, repaired, resend, snap)
	return out, true
}

// unknownAt marks in out, as decided, the posts whose state at since is unknown (since is in their
// gap); false when every post's is (a gap of every post).
func (j *journal) unknownAt(since int64, out map[int]Changed, decided map[int]bool) bool {
	for _, g := range j.gaps {
		if g.first <= since && since < g.last {
			if g.id == 0 {
				return false
			}
			out[g.id], decided[g.id] = Changed{Type: g.typ, Unknown: true}, true
		}
	}
	return true
}

// settle completes before's answer: the posts the rows name that no change after since decided, and
// the repairs to re-send.
func settle(out map[int]Changed, decided map[int]bool, repaired map[int]*mapping.Post,
	resend map[int]string, snap *Snapshot) {
	for id, c := range out {
		if !decided[id] {
			// A row after since that no change follows: the checksum comparison found the change
			// before the feed brought its row (then the state before it is the repair's), or it
			// changed nothing the catalog holds.
			before, found := repaired[id]
			if !found {
				before = postOf(snap, id)
			}
			c.Before = before
			out[id] = c
		}
	}
	for id, typ := range resend {
		if _, named := out[id]; !named {
			out[id] = Changed{Type: typ}
		}
	}
}

// rowEmbedders is the events of snap that embed a venue, organizer or term the rows name, to re-send:
// each replica reads a changed object's state when its poll reads the feed, which may be after later
// rows, so two replicas at one position may hold different states of a term (a count) or of a venue.
// The object's own row after a position, the same in every log reader, is what places the change of
// the events that embed it; the journal's embedded entries place it only on the replica that
// recorded them.
func rowEmbedders(rows []cmsclient.LogRow, snap *Snapshot) map[int]string {
	posts, terms := map[int]bool{}, map[int]bool{}
	for _, r := range rows {
		switch {
		case r.Term:
			terms[r.ID] = true
		case r.Type != snap.types.Event:
			posts[r.ID] = true
		}
	}
	out := map[int]string{}
	if len(posts) == 0 && len(terms) == 0 {
		return out
	}
	for _, p := range snap.Events {
		if embeds(p, posts, terms) {
			out[p.ID] = snap.types.Event
		}
	}
	return out
}

// firstRows is each post's first row in rows.
func firstRows(rows []cmsclient.LogRow) map[int]int64 {
	first := map[int]int64{}
	for _, r := range rows {
		if r.Term {
			continue
		}
		if seq, ok := first[r.ID]; !ok || r.Seq < seq {
			first[r.ID] = r.Seq
		}
	}
	return first
}

// after reports whether ch happened after since, given each post's first row after since: recorded
// after it, or published at it without moving the sequence (a repair). A change this replica's poll
// straddled since with (a token of another replica) was after since when the post's first row after
// since is in it, else before (since's state is its result); a repair or an embedded change it
// straddled is unplaced (the post is re-sent).
// The change that led to since itself was before any token taken there.
func (ch change) after(since int64, first map[int]int64) (after, unplaced bool) {
	switch {
	case ch.pos < since || ch.pos == since && ch.from < since:
		return false, false
	case ch.from >= since:
		return true, false
	case ch.repair || ch.embedded:
		return false, true
	}
	seq, ok := first[ch.id]
	return ok && seq <= ch.pos, false
}

// reaches reports whether the journal holds every change after since of log ident.
func (j *journal) reaches(ident string, since int64) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.reachesLocked(ident, since)
}

func (j *journal) reachesLocked(ident string, since int64) bool {
	return j.started && ident == j.ident && (since > j.floor || since == j.floor && j.exact)
}

// logRows returns the log's rows of posts after since up to until: from memory when it reaches
// back to since, else the missing older ones from the plugin, which memory then keeps.
func (c *Catalog) logRows(ctx context.Context, ident string, since, until int64) ([]cmsclient.LogRow, error) {
	kept, floor := c.journal.rowsSince(ident, since, until)
	if floor <= since {
		return kept, nil
	}

	older, err := c.fetchRows(ctx, ident, since, floor)
	if err != nil {
		return nil, err
	}
	c.journal.prependRows(ident, since, floor, older, c.maxChangeBytes())
	return append(older, kept...), nil
}

// fetchRows reads the log's rows of posts after since up to until from the plugin, at most as many
// as the journal's bound holds: a token so old that more changed since is expired, as a client
// lists afresh at that cost anyway.
func (c *Catalog) fetchRows(ctx context.Context, ident string, since, until int64) ([]cmsclient.LogRow, error) {
	limit := c.maxChangeBytes() / rowSize(cmsclient.LogRow{})
	var out []cmsclient.LogRow
	for since < until {
		page, err := c.client.ChangeRows(ctx, since, until)
		var ue *cmsclient.Error
		if errors.As(err, &ue) && ue.Status == http.StatusGone {
			return nil, ErrSyncExpired
		}
		if err != nil {
			return nil, fmt.Errorf("catalog: change log rows: %w", err)
		}
		if page.Log != ident {
			return nil, ErrSyncExpired
		}
		for _, r := range page.Rows {
			r.Type = c.postType(r.Type)
			out = append(out, r)
		}
		if len(out) > limit {
			return nil, ErrSyncExpired
		}
		if !page.More || page.Seq <= since {
			break
		}
		since = page.Seq
	}
	return out, nil
}

// postType is typ as the catalog's own string for it, so that kept rows share it.
func (c *Catalog) postType(typ string) string {
	for _, t := range c.postTypes() {
		if t == typ {
			return t
		}
	}
	return strings.Clone(typ)
}

// addRows keeps the rows of one feed answer, which read the log after from up to to.
func (c *Catalog) addRows(from, to int64, rows []cmsclient.LogRow) {
	for i := range rows {
		rows[i].Type = c.postType(rows[i].Type)
	}
	j := &c.journal
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.started || from > j.rowTop || to <= j.rowTop {
		return // not the log's continuation: the plugin answers what memory lacks
	}
	for _, r := range rows {
		if r.Seq > j.rowTop {
			j.rows = append(j.rows, r)
			j.bytes += rowSize(r)
		}
	}
	j.rowTop = to
	j.trim(c.maxChangeBytes())
}

// rowsSince returns the kept rows after since up to until, and the floor of memory: the rows after
// since up to the floor are not kept.
func (j *journal) rowsSince(ident string, since, until int64) ([]cmsclient.LogRow, int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.started || ident != j.ident || until > j.rowTop {
		return nil, until
	}
	var out []cmsclient.LogRow
	for _, r := range j.rows {
		if r.Seq > since && r.Seq <= until {
			out = append(out, r)
		}
	}
	return out, max(since, j.rowFloor)
}

// prependRows keeps rows read from the plugin (after since up to floor) below the kept ones, when
// memory still starts at floor in the same log.
func (j *journal) prependRows(ident string, since, floor int64, older []cmsclient.LogRow, limit int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.started || ident != j.ident || j.rowFloor != floor {
		return
	}
	for _, r := range older {
		j.bytes += rowSize(r)
	}
	j.rows = append(older[:len(older):len(older)], j.rows...)
	j.rowFloor = since
	j.trim(limit)
}

func (j *journal) epochID() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.init()
	return j.epoch
}

func (j *journal) init() {
	if j.epoch == "" {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		j.epoch = hex.EncodeToString(b)
	}
}

// position is where a snapshot stands for the journal.
func (j *journal) position(s *Snapshot) (string, int64) {
	if s.pos != nil {
		return s.pos.log, s.pos.seq.Load()
	}
	return j.epoch, int64(s.Version)
}

// record appends the posts that differ between old and next and the gaps of the poll (relogged: the
// rows of posts read in a state they did not place, addGaps), then forgets the oldest entries, rows
// and gaps beyond limit bytes. A first snapshot, or one that does not follow old (another log, a position back),
// starts the journal afresh at next's position.
func (j *journal) record(old, next *Snapshot, limit int, relogged map[int]cmsclient.LogRow) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.init()
	if next == nil {
		return
	}

	ident, pos := j.position(next)
	if old == nil || !j.started || ident != j.ident || next.Version <= old.Version {
		j.started, j.ident, j.floor, j.exact, j.entries, j.gaps, j.bytes = true, ident, pos, true, nil, nil, 0
		j.rowFloor, j.rowTop, j.rows = pos, pos, nil
		return
	}

	_, from := j.position(old)
	logged, now := j.loggedIn(from, pos), time.Now().UnixNano()
	changes := diffPosts(old, next)
	for i := range changes {
		changes[i].repair = logged != nil && !logged[changes[i].id]
	}
	for _, ch := range embedded(old, next, changes) {
		ch.from, ch.pos, ch.typ, ch.when = from, pos, typeOf(next, ch), now
		ch.before = earlier(ch.before)
		j.entries = append(j.entries, ch)
		j.bytes += changeSize(ch)
	}
	if next.pos != nil {
		j.addGaps(from, pos, relogged)
	}
	j.trim(limit)
}

// stood records that the replica, which stood at from in log ident, stands at pos without a new
// snapshot (a poll that changed nothing it holds: a post written twice may still have changed
// between).
func (j *journal) stood(ident string, from, pos int64, limit int, relogged map[int]cmsclient.LogRow) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.started || ident != j.ident || pos <= from {
		return
	}
	j.addGaps(from, pos, relogged)
	j.trim(limit)
}

// addGaps records the gaps of a poll that moved the replica from one position to the next: the
// posts the kept rows after from up to pos name more than once, or every post when the rows kept do
// not cover them all (nothing to record when no position lies between). A post of relogged starts its
// gap at that row at the latest, and ends it at its last row after, else at pos.
func (j *journal) addGaps(from, pos int64, relogged map[int]cmsclient.LogRow) {
	covered := j.rowFloor <= from && j.rowTop >= pos
	if j.rowTop < pos {
		// The rows up to pos are not kept (a reload): keeping rows starts again at pos, so that the
		// polls that follow keep theirs; the older ones are read from the plugin when asked for.
		for _, r := range j.rows {
			j.bytes -= rowSize(r)
		}
		j.rows, j.rowFloor, j.rowTop = nil, pos, pos
	}
	if pos-from < 2 {
		return
	}
	gaps := []gap{{first: from + 1, last: pos}}
	if covered {
		gaps = j.postGaps(from, pos, relogged)
	}
	slices.SortFunc(gaps, func(a, b gap) int { return cmp.Or(cmp.Compare(a.last, b.last), cmp.Compare(a.id, b.id)) })
	for _, g := range gaps {
		j.bytes += gapSize(g)
	}
	j.gaps = append(j.gaps, gaps...)
}

// postGaps is the gaps of the posts the kept rows after from up to pos name more than once, and of
// those relogged names.
func (j *journal) postGaps(from, pos int64, relogged map[int]cmsclient.LogRow) []gap {
	var gaps []gap
	at := map[int]int{} // a post's gap in gaps
	i, _ := slices.BinarySearchFunc(j.rows, from+1, func(r cmsclient.LogRow, seq int64) int {
		return cmp.Compare(r.Seq, seq)
	})
	for ; i < len(j.rows) && j.rows[i].Seq <= pos; i++ {
		r := j.rows[i]
		if r.Term {
			continue
		}
		if k, ok := at[r.ID]; ok {
			gaps[k].last = r.Seq
			continue
		}
		at[r.ID] = len(gaps)
		gaps = append(gaps, gap{id: r.ID, typ: r.Type, first: r.Seq, last: r.Seq})
	}
	for id, r := range relogged {
		k, ok := at[id]
		if !ok {
			gaps = append(gaps, gap{id: id, typ: r.Type, first: r.Seq, last: pos}) // no row placed it
			continue
		}
		if gaps[k].last <= r.Seq { // no later row placed it
			gaps[k].last = pos
		}
		gaps[k].first = min(gaps[k].first, r.Seq)
	}
	return slices.DeleteFunc(gaps, func(g gap) bool { return g.first >= g.last })
}

// gapSize is what one gap holds (its type string is the catalog's, shared).
func gapSize(g gap) int { return int(unsafe.Sizeof(g)) }

// embedded adds to changes the events that render differently because a venue, organizer or term
// they embed changed while they did not: a client's copy of them, and a cache's, must change too.
func embedded(old, next *Snapshot, changes []change) []change {
	posts, terms, listed := map[int]bool{}, map[int]bool{}, map[int]bool{}
	for _, ch := range changes {
		listed[ch.id] = true
		if p, ok := next.Post(ch.id); !ok || p.Type() != next.types.Event {
			posts[ch.id] = true
		}
	}
	for id, t := range next.terms {
		if u, ok := old.terms[id]; !ok || u != t && !reflect.DeepEqual(u, t) {
			terms[id] = true
		}
	}
	for id := range old.terms {
		if _, ok := next.terms[id]; !ok {
			terms[id] = true
		}
	}
	if len(posts) == 0 && len(terms) == 0 {
		return changes
	}
	for _, p := range next.Events {
		if !listed[p.ID] && embeds(p, posts, terms) {
			changes = append(changes, change{id: p.ID, before: p, embedded: true})
		}
	}
	return changes
}

// embeds reports whether an event shows one of posts or terms.
func embeds(p *mapping.Post, posts, terms map[int]bool) bool {
	for _, l := range [][]int{p.Derived.Venues, p.Derived.Organizers} {
		if slices.ContainsFunc(l, func(id int) bool { return posts[id] }) {
			return true
		}
	}
	for _, l := range p.Terms {
		if slices.ContainsFunc(l, func(id int) bool { return terms[id] }) {
			return true
		}
	}
	return false
}

// loggedIn is the posts the kept rows after from up to pos name; nil when the rows kept do not cover
// them all (a catalog without the feed has none).
func (j *journal) loggedIn(from, pos int64) map[int]bool {
	if j.rowFloor > from || j.rowTop < pos {
		return nil
	}
	out := map[int]bool{}
	i, _ := slices.BinarySearchFunc(j.rows, from+1, func(r cmsclient.LogRow, seq int64) int {
		return cmp.Compare(r.Seq, seq)
	})
	for ; i < len(j.rows) && j.rows[i].Seq <= pos; i++ {
		if !j.rows[i].Term {
			out[j.rows[i].ID] = true
		}
	}
	return out
}

// typeOf is the post type of a change, as the snapshot's own string.
func typeOf(next *Snapshot, ch change) string {
	typ := ""
	if p, ok := next.Post(ch.id); ok {
		typ = p.Type()
	} else if ch.before != nil {
		typ = ch.before.Type()
	}
	for _, t := range []string{next.types.Event, next.types.Venue, next.types.Organizer} {
		if t == typ {
			return t
		}
	}
	return strings.Clone(typ)
}

// trim forgets the oldest entries, rows and gaps until they fit in limit bytes. Forgetting an entry
// or a gap expires the positions before it; rows forgotten are read from the plugin again.
func (j *journal) trim(limit int) {
	drop, dropRows, dropGaps := 0, 0, 0
	for j.bytes > limit && (drop < len(j.entries) || dropRows < len(j.rows) || dropGaps < len(j.gaps)) {
		oldest, which := int64(math.MaxInt64), 0
		if drop < len(j.entries) {
			oldest, which = j.entries[drop].pos, 1
		}
		if dropRows < len(j.rows) && j.rows[dropRows].Seq < oldest {
			oldest, which = j.rows[dropRows].Seq, 2
		}
		if dropGaps < len(j.gaps) && j.gaps[dropGaps].last-1 < oldest {
			which = 3
		}
		switch which {
		case 1:
			j.bytes -= changeSize(j.entries[drop])
			j.floor, j.exact = max(j.floor, j.entries[drop].pos), false
			drop++
		case 2:
			j.bytes -= rowSize(j.rows[dropRows])
			j.rowFloor = j.rows[dropRows].Seq
			dropRows++
		default:
			j.bytes -= gapSize(j.gaps[dropGaps])
			j.floor, j.exact = max(j.floor, j.gaps[dropGaps].last-1), false
			dropGaps++
		}
	}
	// Gaps wholly before the floor place nothing any more.
	for dropGaps < len(j.gaps) && (j.gaps[dropGaps].last <= j.floor ||
		j.gaps[dropGaps].last-1 == j.floor && !j.exact) {
		j.bytes -= gapSize(j.gaps[dropGaps])
		dropGaps++
	}

	// The dropped slots are cleared and left behind: append moves the live ones to a new array
	// when this one is full, and the old one goes.
	clear(j.entries[:drop])
	j.entries = j.entries[drop:]
	j.rows = j.rows[dropRows:]
	j.gaps = j.gaps[dropGaps:]
}

// rowSize is what one kept row holds (its type string is the catalog's, shared).
func rowSize(r cmsclient.LogRow) int { return int(unsafe.Sizeof(r)) }

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
	if out, ok := diffShards(old, next); ok {
		return out
	}
	var out []change
	lists := [][2][]*mapping.Post{{old.Events, next.Events}, {old.Venues, next.Venues},
		{old.Organizers, next.Organizers}}
	for _, l := range lists {
		out = append(out, diffList(l[0], l[1], old, next)...)
	}

	return out
}

// diffShards is diffPosts from the posts maps' shards that next does not share with old (those a
// poll wrote to): its cost follows the changed posts, not the catalog, as long as next was made
// from old by a few edits (ok false otherwise: the lists are compared). In ID order.
func diffShards(old, next *Snapshot) (out []change, ok bool) {
	pairs, ok := next.posts.unshared(old.posts)
	if !ok {
		return nil, false
	}
	listed := func(p *mapping.Post) bool {
		t := p.Type()
		return t == next.types.Event || t == next.types.Venue || t == next.types.Organizer
	}
	for _, pair := range pairs {
		for id, p := range pair[0] {
			if q, had := pair[1][id]; listed(p) && (!had || q != p && !reflect.DeepEqual(q, p)) {
				out = append(out, change{id: id, before: q})
			}
		}
		for id, q := range pair[1] {
			if _, has := pair[0][id]; !has && listed(q) {
				out = append(out, change{id: id, before: q})
			}
		}
	}
	slices.SortFunc(out, func(a, b change) int { return cmp.Compare(a.id, b.id) })
	return out, true
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
			out = append(out, change{id: b[j].ID, before: postOf(old, b[j].ID)})
			j++
		case !sameIn(next, a[i]): // removed or changed (then recorded from next's side)
			if _, has := next.Post(a[i].ID); !has {
				out = append(out, change{id: a[i].ID, before: a[i]})
			}
			i++
		default:
			return diffAll(a, b, old, next)
		}
	}

	for ; j < len(b); j++ {
		if !sameIn(old, b[j]) {
			out = append(out, change{id: b[j].ID, before: postOf(old, b[j].ID)})
		}
	}

	for ; i < len(a); i++ {
		if _, has := next.Post(a[i].ID); !has {
			out = append(out, change{id: a[i].ID, before: a[i]})
		}
	}

	return out
}

// diffAll compares every post of a list by ID.
func diffAll(a, b []*mapping.Post, old, next *Snapshot) []change {
	var out []change
	for _, p := range b {
		if !sameIn(old, p) {
			out = append(out, change{id: p.ID, before: postOf(old, p.ID)})
		}
	}

	for _, p := range a {
		if _, has := next.Post(p.ID); !has {
			out = append(out, change{id: p.ID, before: p})
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

// diskJournal is the journal as the snapshot file keeps it (persist.go): its changes, gaps and
// where they start, not the log's rows (the plugin answers those again).
type diskJournal struct {
	Floor   int64
	Exact   bool
	Entries []diskChange
	// Version is journalVersion when the journal was written: a file's journal of another (an older
	// calshim's, without its gaps) is not resumed, and the positions before the file expire.
	Version int
	Gaps    []diskGap
}

// journalVersion: 1, the gaps.
const journalVersion = 1

// diskGap is one gap as the file keeps it.
type diskGap struct {
	ID          int
	Type        string
	First, Last int64
}

// diskChange is one change as the file keeps it.
type diskChange struct {
	From, Pos        int64
	ID               int
	Type             string
	Before           *mapping.Post
	Repair, Embedded bool
	When             int64
}

// image is the journal of log ident up to seq, for the snapshot file; nil when it follows another
// log or position (with c.mu held, so that no snapshot is published meanwhile).
func (j *journal) image(ident string, seq int64) *diskJournal {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.started || j.ident != ident || len(j.entries) > 0 && j.entries[len(j.entries)-1].pos > seq ||
		len(j.gaps) > 0 && j.gaps[len(j.gaps)-1].last > seq {
		return nil
	}
	d := &diskJournal{Floor: j.floor, Exact: j.exact, Entries: make([]diskChange, len(j.entries)),
		Version: journalVersion, Gaps: make([]diskGap, len(j.gaps))}
	for i, ch := range j.entries {
		d.Entries[i] = diskChange{From: ch.from, Pos: ch.pos, ID: ch.id, Type: ch.typ, Before: ch.before,
			Repair: ch.repair, Embedded: ch.embedded, When: ch.when}
	}
	for i, g := range j.gaps {
		d.Gaps[i] = diskGap{ID: g.id, Type: g.typ, First: g.first, Last: g.last}
	}
	return d
}

// resume puts back, below the journal a restored snapshot started at seq of log ident, the changes
// the file kept: the previous process's clients' tokens are answered as they were. Without them
// (another log, none kept), the journal starts at seq.
func (j *journal) resume(d *diskJournal, ident string, seq int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if d == nil || d.Version != journalVersion || !j.started || j.ident != ident || j.floor != seq ||
		len(j.entries) > 0 || len(j.gaps) > 0 || d.Floor > seq {
		return
	}
	j.floor, j.exact = d.Floor, d.Exact
	for _, e := range d.Entries {
		ch := change{from: e.From, pos: e.Pos, id: e.ID, typ: e.Type, before: e.Before, repair: e.Repair,
			embedded: e.Embedded, when: e.When}
		j.entries = append(j.entries, ch)
		j.bytes += changeSize(ch)
	}
	for _, e := range d.Gaps {
		g := gap{id: e.ID, typ: e.Type, first: e.First, last: e.Last}
		j.gaps = append(j.gaps, g)
		j.bytes += gapSize(g)
	}
}
