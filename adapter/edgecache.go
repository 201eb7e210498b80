package adapter

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"calshim/catalog"
	"calshim/mapping"
	"calshim/mapping/php"
)

// Edge caching: shared caches in front of calshim (Varnish with xkey, a CDN that purges by tag) may
// keep anonymous answers for s-maxage, and calshim purges exactly the answers a catalog change
// touches, so the caches stay as fresh as calshim itself. Each answer names what it shows in
// surrogate keys: e<id>, v<id>, o<id> and t<id> for each event, venue, organizer and term (an
// event's keys include its venues', organizers' and terms', as it embeds them), list-<collection>
// for a list, and "calshim" on everything. A change purges the keys of the posts and terms it
// changed and the list key of each collection that changed, since any list of that collection may
// now hold other items. Purges run beside the catalogs (watch): they never hold up a poll.

// EdgeOptions configures the caches in front of calshim; SMaxAge 0 turns edge caching off.
type EdgeOptions struct {
	SMaxAge, StaleWhileRevalidate time.Duration
	KeyHeader                     string // the response header of the surrogate keys
	// PurgeURLs are the caches purged when a catalog changes: PurgeMethod requests carrying the keys,
	// space-separated, in PurgeKeyHeader, and PurgeHeader ("Name: value"; "" none).
	PurgeURLs                                []string
	PurgeMethod, PurgeKeyHeader, PurgeHeader string
	// Context ends the purges' background work; nil: they last as long as the process.
	Context context.Context
	// Client sends the purges; nil: one with purgeTimeout.
	Client *http.Client
}

const (
	keyAll = "calshim" // on every answer: purged when anything may have changed
	// maxKeyBytes bounds the keys header (Varnish refuses response headers over 8 KiB by default);
	// an answer naming more shows every list key instead (coarseKeys).
	maxKeyBytes = 4096
	// maxChangeKeys: a change touching more keys purges everything.
	maxChangeKeys = 1000
	purgeBatch    = 100   // keys per purge request (Fastly takes up to 256)
	maxPending    = 10000 // keys waiting per cache (one that is down); past it, everything is purged
	watchTick     = 50 * time.Millisecond
	// settle: each purge is sent again this long after, for an answer rendered from the snapshot
	// before the change that reached a cache after the first purge.
	settle       = time.Second
	purgeTimeout = 10 * time.Second
	minBackoff   = 100 * time.Millisecond
	maxBackoff   = 30 * time.Second
)

// collections are the lists and the key prefix of their items.
var collections = map[string]string{"events": "e", "venues": "v", "organizers": "o", "categories": "t",
	"tags": "t"}

// coarseKeys name an answer whose items calshim cannot name (the iCalendar feed, /doc) or that
// would name too many: every list key, which every change of any kind purges.
const coarseKeys = keyAll + " list-events list-venues list-organizers list-categories list-tags"

// edge is the edge caching of a server; nil when off.
type edge struct {
	opt          EdgeOptions
	cacheControl string
	log          *zap.Logger
	purged       *prometheus.CounterVec
	ok, failed   prometheus.Counter
}

func newEdge(opt EdgeOptions, log *zap.Logger) *edge {
	if opt.SMaxAge <= 0 {
		return nil
	}

	if opt.Client == nil {
		opt.Client = &http.Client{Timeout: purgeTimeout}
	}

	cc := "public, max-age=0, s-maxage=" + seconds(opt.SMaxAge)
	if opt.StaleWhileRevalidate > 0 {
		cc += ", stale-while-revalidate=" + seconds(opt.StaleWhileRevalidate)
	}

	e := &edge{opt: opt, cacheControl: cc, log: log.Named("edge"),
		purged: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "calshim",
			Name: "purge_requests_total", Help: "Purge requests sent to the edge caches, by result (ok, error)."},
			[]string{"result"})}
	e.ok, e.failed = e.purged.WithLabelValues("ok"), e.purged.WithLabelValues("error")
	return e
}

// seconds is d in whole seconds, rounded up (Cache-Control takes seconds).
func seconds(d time.Duration) string {
	return strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10)
}

// headers sets a cacheable answer's edge headers: Cache-Control with s-maxage, the keys, and Vary:
// Origin, as the CORS headers of the answer follow the request's Origin. An answer that names no
// keys (the REST index) carries "calshim", which every change of the site purges: a cache may keep
// nothing calshim cannot purge.
func (e *edge) headers(h http.Header, out *rendered) {
	if e == nil || out.etag == "" {
		return
	}

	h.Set("Cache-Control", e.cacheControl)
	h.Set("Vary", "Origin")
	keys := out.keys
	if keys == "" {
		keys = keyAll
	}
	h.Set(e.opt.KeyHeader, keys)
}

// keySet is an ordered set of keys and the length of their header value.
type keySet struct {
	seen map[string]bool
	list []string
	size int
}

func (k *keySet) add(key string) {
	if k.seen == nil {
		k.seen = map[string]bool{}
	}
	if !k.seen[key] {
		k.seen[key] = true
		k.list = append(k.list, key)
		k.size += len(key) + 1
	}
}

// answerKeys names what an anonymous answer shows, from the handler's body before `_fields` (which
// may leave the IDs out); "" when edge caching is off or the caller is known.
func (e *edge) answerKeys(rt *route, r *request, body any) string {
	if e == nil || r.viewer != nil {
		return ""
	}

	if rt.shows.collection == "" {
		return coarseKeys
	}

	k := keySet{}
	k.add(keyAll)
	if !k.addShown(r.snap, rt.shows.collection, rt.shows.single, body) || k.size > maxKeyBytes {
		return coarseKeys
	}
	return strings.Join(k.list, " ")
}

// addShown adds the keys of a single answer's object or a list's items; false when the body does
// not have the shape it should.
func (k *keySet) addShown(snap *catalog.Snapshot, kind string, single bool, body any) bool {
	obj, ok := body.(mapping.Object)
	if !ok {
		return false
	}
	if single {
		return k.addItem(snap, kind, obj)
	}

	k.add("list-" + kind)
	items, _ := obj.Get(kind)
	list, ok := items.([]any)
	for _, item := range list {
		ok = ok && k.addItem(snap, kind, item)
	}
	return ok
}

// addItem adds the keys of one shown object of a collection; an event's include what it embeds.
func (k *keySet) addItem(snap *catalog.Snapshot, kind string, item any) bool {
	id, ok := itemID(item)
	if !ok {
		return false
	}

	k.add(collections[kind] + strconv.Itoa(id))
	if p, found := snap.Post(id); found && kind == "events" {
		for _, linked := range [][2]string{{"_EventVenueID", "v"}, {"_EventOrganizerID", "o"}} {
			for _, v := range p.Meta.Get(linked[0]) {
				if n := php.Int(v); n > 0 { // as mapping reads the IDs
					k.add(linked[1] + strconv.Itoa(n))
				}
			}
		}
		for _, tax := range []string{mapping.TaxonomyCategory, mapping.TaxonomyTag} {
			for _, t := range p.Terms[tax] {
				k.add("t" + strconv.Itoa(t))
			}
		}
	}
	return true
}

// itemID is the id of a rendered object, or of a listed event's JSON, which opens with it.
func itemID(item any) (int, bool) {
	switch o := item.(type) {
	case mapping.Object:
		id, _ := o.Get("id")
		n, ok := id.(int)
		return n, ok
	case mapping.Raw:
		rest, ok := bytes.CutPrefix(o, []byte(`{"id":`))
		end := bytes.IndexByte(rest, ',')
		if !ok || end < 0 {
			return 0, false
		}
		n, err := strconv.Atoi(string(rest[:end]))
		return n, err == nil && strconv.Itoa(n) == string(rest[:end]) // as mapping writes it
	}
	return 0, false
}

// changedKeys are the keys to purge when a catalog moved from old to next: everything when there
// was no old (a start: the caches may hold answers of an older calshim), when the site changed or
// the journal no longer reaches back to old.
func changedKeys(ctx context.Context, c *catalog.Catalog, old, next *catalog.Snapshot) []string {
	all := []string{keyAll}
	if old == nil || !reflect.DeepEqual(old.Site, next.Site) || old.MultiDayCutoff != next.MultiDayCutoff ||
		old.Location.String() != next.Location.String() {
		return all
	}

	ident, since := c.SyncPoint(old)
	posts, err := c.ChangesSince(ctx, ident, since, next)
	if err != nil {
		return all
	}

	k := keySet{}
	types := next.Types()
	for id, ch := range posts {
		k.addChanged(types, ch.Type, id)
	}
	k.addChangedTerms(old, next)
	k.addChangedMedia(old, next)
	if len(k.list) > maxChangeKeys {
		return all
	}
	return k.list
}

// addChanged adds the key of a changed post of type typ and its collection's list key.
func (k *keySet) addChanged(types catalog.Types, typ string, id int) {
	kind := ""
	switch typ {
	case types.Event:
		kind = "events"
	case types.Venue:
		kind = "venues"
	case types.Organizer:
		kind = "organizers"
	default:
		return
	}
	k.add(collections[kind] + strconv.Itoa(id))
	k.add("list-" + kind)
}

// addChangedTerms adds the keys of the terms added, changed or removed, and their lists'.
func (k *keySet) addChangedTerms(old, next *catalog.Snapshot) {
	for _, l := range []struct {
		kind      string
		old, next []*mapping.Term
	}{{"categories", old.Categories, next.Categories}, {"tags", old.Tags, next.Tags}} {
		before := make(map[int]*mapping.Term, len(l.old))
		for _, t := range l.old {
			before[t.ID] = t
		}
		for _, t := range l.next {
			if b := before[t.ID]; b != t && !reflect.DeepEqual(b, t) {
				k.add("t" + strconv.Itoa(t.ID))
				k.add("list-" + l.kind)
			}
			delete(before, t.ID)
		}
		for id := range before {
			k.add("t" + strconv.Itoa(id))
			k.add("list-" + l.kind)
		}
	}
}

// addChangedMedia adds the keys of the posts whose featured image changed while they did not (the
// feed brings images apart from posts). The snapshot lists no images, so this looks at each post's:
// a map look-up per post and change, beside the catalog, not in its poll.
func (k *keySet) addChangedMedia(old, next *catalog.Snapshot) {
	k.addChangedImages(next.Types(), [][]*mapping.Post{next.Events, next.Venues, next.Organizers},
		old.Media, next.Media)
}

// addChangedImages adds the keys of the posts of lists whose image reads differently in was and is.
func (k *keySet) addChangedImages(types catalog.Types, lists [][]*mapping.Post,
	was, is func(id int) (*mapping.Media, bool)) {
	for _, l := range lists {
		for _, p := range l {
			if p.FeaturedMedia == 0 {
				continue
			}
			before, _ := was(p.FeaturedMedia)
			after, _ := is(p.FeaturedMedia)
			if before != after && !reflect.DeepEqual(before, after) {
				k.addChanged(types, p.Type(), p.ID)
			}
		}
	}
}

// start follows the catalogs and purges the caches until the options' context ends.
func (e *edge) start(cats []*catalog.Catalog) {
	if e == nil || len(e.opt.PurgeURLs) == 0 {
		return
	}

	ctx := e.opt.Context
	if ctx == nil {
		ctx = context.Background()
	}

	targets := make([]*purgeTarget, len(e.opt.PurgeURLs))
	for i, u := range e.opt.PurgeURLs {
		targets[i] = &purgeTarget{url: u, keys: map[string]bool{}, wake: make(chan struct{}, 1)}
		go e.purgeLoop(ctx, targets[i])
	}
	go e.watch(ctx, cats, targets)
}

// delayed are keys to purge again at due (settle).
type delayed struct {
	due  time.Time
	keys []string
}

// watch looks at the catalogs' snapshots every watchTick (as waiting requests do, catalog/wait.go:
// the catalog's own paths stay as they are) and queues the keys of each change, twice (settle).
func (e *edge) watch(ctx context.Context, cats []*catalog.Catalog, targets []*purgeTarget) {
	seen := make([]*catalog.Snapshot, len(cats))
	var again []delayed // due in order; at most settle/watchTick entries per catalog
	tick := time.NewTicker(watchTick)
	defer tick.Stop()
	for {
		var now time.Time
		select {
		case <-ctx.Done():
			return
		case now = <-tick.C:
		}

		for i, c := range cats {
			snap := c.Snapshot()
			if snap == nil || snap == seen[i] {
				continue
			}
			keys := changedKeys(ctx, c, seen[i], snap)
			seen[i] = snap
			e.enqueue(targets, keys)
			again = append(again, delayed{due: now.Add(settle), keys: keys})
		}

		for len(again) > 0 && !now.Before(again[0].due) {
			e.enqueue(targets, again[0].keys)
			again = again[1:]
		}
	}
}

func (e *edge) enqueue(targets []*purgeTarget, keys []string) {
	for _, t := range targets {
		if t.add(keys) {
			e.log.Warn("too many purges waiting for an edge cache: purging everything there",
				zap.String("url", t.url))
		}
	}
}

// purgeTarget is one cache's queue: the keys waiting to be purged there, without repeats.
type purgeTarget struct {
	url  string
	mu   sync.Mutex
	keys map[string]bool // at most maxPending; holding keyAll, nothing else
	wake chan struct{}   // one slot: the purge loop has something to send
}

// add queues keys; past maxPending, keyAll replaces them all (it reports that).
func (t *purgeTarget) add(keys []string) (collapsed bool) {
	t.mu.Lock()
	for _, k := range keys {
		if t.keys[keyAll] {
			break
		}
		t.keys[k] = true
		if k == keyAll || len(t.keys) > maxPending {
			t.keys = map[string]bool{keyAll: true}
			collapsed = k != keyAll
		}
	}
	t.mu.Unlock()
	select {
	case t.wake <- struct{}{}:
	default:
	}
	return collapsed
}

// take removes and returns up to n waiting keys.
func (t *purgeTarget) take(n int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for k := range t.keys {
		if len(out) == n {
			break
		}
		out = append(out, k)
		delete(t.keys, k)
	}
	return out
}

// purgeLoop sends a cache's purges in batches; a failed batch goes back to the queue and the loop
// waits, doubling the wait up to maxBackoff while the cache fails. It logs when the cache starts
// failing and when it answers again, not each failure.
func (e *edge) purgeLoop(ctx context.Context, t *purgeTarget) {
	backoff, failing := minBackoff, false
	for {
		batch := t.take(purgeBatch)
		if len(batch) == 0 {
			select {
			case <-ctx.Done():
				return
			case <-t.wake:
			}
			continue
		}

		err := e.send(ctx, t.url, batch)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			e.ok.Inc()
			if failing {
				e.log.Info("edge cache purges succeed again", zap.String("url", t.url))
			}
			backoff, failing = minBackoff, false
			continue
		}

		e.failed.Inc()
		t.add(batch)
		if !failing {
			e.log.Warn("edge cache purge failed: retrying with backoff", zap.String("url", t.url),
				zap.Error(err))
		}
		failing = true
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// send makes one purge request.
func (e *edge) send(ctx context.Context, url string, keys []string) error {
	req, err := http.NewRequestWithContext(ctx, e.opt.PurgeMethod, url, nil)
	if err != nil {
		return err
	}

	req.Header.Set(e.opt.PurgeKeyHeader, strings.Join(keys, " "))
	if name, value, ok := strings.Cut(e.opt.PurgeHeader, ":"); ok {
		req.Header.Set(strings.TrimSpace(name), strings.TrimSpace(value))
	}

	res, err := e.opt.Client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10)) // so the connection is reused
	_ = res.Body.Close()
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("purge answered %s", res.Status)
	}
	return nil
}
