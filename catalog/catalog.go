package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"calshim/cmsclient"
	"calshim/mapping"
)

// Options configures a Catalog.
type Options struct {
	Types          Types
	PollInterval   time.Duration
	ReconcileEvery int // full ID reconciliation every N polls, even when totals agree; 0: only when they differ
	PerPage        int // default per_page of lists
	// Authenticated: the client carries a service credential, so every status is loaded.
	Authenticated bool
	// Reader is the service credential's user name, for the fixes of set-up problems (diagnose.go).
	Reader string
	// Multilingual: the client sends a language with every request; the bulk load, which cannot filter
	// by language, is not used (the feed is: it passes the language on to its wp/v2 reads).
	Multilingual bool
	// SnapshotPath is the file the catalog is saved to and restored from ("" = none); Upstream names
	// what it was loaded from (URL and language), so a file of another upstream is never served.
	SnapshotPath string
	Upstream     string
	// MaxChangeBytes bounds the change journal behind clients' sync tokens, in bytes (0:
	// DefaultMaxChangeBytes).
	MaxChangeBytes int
	// VerifyEvery is how often the catalog compares its checksums with WordPress' (verify.go), and
	// whether it checks a restored snapshot before serving it; 0: never.
	VerifyEvery time.Duration
	// Notify, when not nil, is told about events an operator should see (a discarded snapshot, a reset
	// change log); err may be nil.
	Notify func(event string, err error)
}

// Catalog is the in-memory copy of the upstream calendar. The zero value is not usable: call New, then
// Start (the snapshot file or a full load), then Run.
type Catalog struct {
	client *cmsclient.Client
	opt    Options
	snap   atomic.Pointer[Snapshot]

	mu          sync.Mutex // serialises refreshes and writes into the catalog
	lastPollErr atomic.Value
	lastPollOK  atomic.Int64 // unix nanos of the last successful poll
	polls       int
	// relogged: the posts the poll under way read in a state their rows do not place, with the row
	// (relog, verify.go), for the journal's next record; under mu.
	relogged map[int]cmsclient.LogRow
	// since holds, per post type, the upstream's clock when its posts were last read: the next poll
	// asks for what was modified after it.
	since map[string]time.Time
	feed  feedState // the plugin's change feed, when the catalog syncs through it (feed.go)
	disk  diskState // the local snapshot file (persist.go)
	// journal records what each published snapshot changed, for sync tokens (changes.go)
	journal journal
	sums    sums        // the plugin's digests of what the catalog holds (verify.go)
	verify  verifyState // checks of those digests (verify.go)
	stats   loadStats   // where the last full load's time went
	loading *loadBound  // a full load's memory bound while it runs (loadmem.go); under mu
}

// loadStats times the parts of a full load, in nanoseconds: the bulk pages' requests (WordPress'
// work, the transfer and the envelope's decoding) and the decoding of their posts, each summed over
// the pages read in parallel, and the building of the snapshot.
type loadStats struct{ fetch, decode, build atomic.Int64 }

// LoadStats is where the last full load's time went (LastLoad).
type LoadStats struct {
	// Fetch and Decode are summed over the bulk pages, which are read Options' concurrency at a time.
	Fetch, Decode, Build time.Duration
}

// LastLoad answers where the last full load's time went.
func (c *Catalog) LastLoad() LoadStats {
	return LoadStats{Fetch: time.Duration(c.stats.fetch.Load()), Decode: time.Duration(c.stats.decode.Load()),
		Build: time.Duration(c.stats.build.Load())}
}

// New returns an empty catalog reading through client.
func New(client *cmsclient.Client, opt Options) *Catalog {
	return &Catalog{client: client, opt: opt, since: map[string]time.Time{}, sums: newSums()}
}

// Snapshot returns the current state; nil before the first successful Load.
func (c *Catalog) Snapshot() *Snapshot { return c.snap.Load() }

// statuses is what the catalog asks wp/v2 for: every status a caller may ever be shown (trash included,
// for the original's 403/410 answers). Anonymous loads can only see published posts.
func (c *Catalog) statuses() string {
	if c.opt.Authenticated {
		return "publish,future,draft,pending,private,trash"
	}
	return "publish"
}

// Load reads everything from upstream and replaces the snapshot.
func (c *Catalog) Load(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.load(ctx)
}

// load is Load with c.mu held.
func (c *Catalog) load(ctx context.Context) error {
	site, err := c.client.Site(ctx)
	if p := upstreamProblem(err, c.opt.Reader); p != nil {
		return p
	}
	if p := notRESTRoot(err); p != nil {
		return p
	}
	if err != nil {
		return fmt.Errorf("catalog: site: %w", err)
	}
	if site.PluginVersion == "" {
		return pluginMissing
	}
	head, err := c.feedHead(ctx)
	if err != nil {
		return err
	}
	c.feed.plugin.Store(head != nil)
	sums, err := c.loadSums(ctx, head)
	if err != nil {
		return err
	}
	loc, err := mapping.LocalizeZone(site.Timezone)
	if err != nil {
		return fmt.Errorf("catalog: site time zone %q: %w", site.Timezone, err)
	}
	c.stats.fetch.Store(0)
	c.stats.decode.Store(0)
	defer func() { // the bound (loadPosts) holds until the load's garbage is handed back (below)
		c.loading.done()
		c.loading = nil
	}()
	posts, err := c.loadPosts(ctx, head, sums.posts)
	if err != nil {
		return err
	}
	terms, err := c.fetchTerms(ctx)
	if err != nil {
		return err
	}
	media, err := c.fetchMedia(ctx, maps.All(posts), nil)
	if err != nil {
		return err
	}
	perPage := c.opt.PerPage
	base := Snapshot{Site: site.Site, Location: loc, MultiDayCutoff: site.MultiDayCutoff, PerPage: perPage,
		LoadedAt: time.Now(), Authenticated: c.opt.Authenticated, types: c.opt.Types}
	if old := c.snap.Load(); old != nil {
		base.Version = old.Version
	}
	base.Version++
	c.feed.start(head) // before publish, which stamps the snapshot with the log's position
	t0 := time.Now()
	c.publish(build(base, posts, terms, media))
	c.stats.build.Store(int64(time.Since(t0)))
	c.sums = sums
	c.verify.last = time.Now()
	c.feed.published()
	c.confirmed()
	c.lastPollOK.Store(time.Now().UnixNano())
	// A full load leaves several times the catalog's size in garbage (the upstream's JSON, decoded in
	// parallel with garbage collection slowed down): collected and handed back to the system now, the
	// process's resident size is the catalog's, not the load's peak.
	debug.FreeOSMemory()
	return nil
}

// fetchPosts lists posts of one type (all, or those modified after `after`) into dst.
func (c *Catalog) fetchPosts(ctx context.Context, typ string, after *time.Time, dst map[int]*mapping.Post) error {
	q := cmsclient.PostQuery{Statuses: c.statuses()}
	if after != nil {
		q.ModifiedAfter = *after
	}
	items, err := c.client.Posts(ctx, typ, q)
	if err != nil {
		return fmt.Errorf("catalog: list %s: %w", typ, err)
	}
	return c.decodePosts(typ, items, dst)
}

// decodePosts decodes listed posts of one type into dst.
func (c *Catalog) decodePosts(typ string, items []json.RawMessage, dst map[int]*mapping.Post) error {
	posts := make([]*mapping.Post, 0, len(items))
	for _, raw := range items {
		p, err := c.decodePost(typ, raw)
		if errors.Is(err, cmsclient.ErrWithheld) {
			continue // an anonymous catalog cannot hold a protected post: it knows none of its dates
		}
		if err != nil {
			return fmt.Errorf("catalog: %s: %w", typ, err)
		}
		posts = append(posts, p)
	}

	compactBlocks(posts)
	for _, p := range posts {
		dst[p.ID] = p
	}
	return nil
}

// decodePost decodes one wp/v2 post of type typ as the catalog keeps it: terms keyed by role and the
// fields list filters use computed once (mapping.Derive); compactBlocks then stores it.
func (c *Catalog) decodePost(typ string, raw json.RawMessage) (*mapping.Post, error) {
	p, err := cmsclient.DecodePost(raw, c.opt.Types.CategoryBase, c.opt.Types.TagBase)
	if err != nil {
		return nil, err
	}
	if p.Type() != typ {
		p.EditText(func(f *mapping.TextFields) { f.Type = typ })
	}
	renameTaxonomies(p, c.opt.Types)
	mapping.Derive(p)
	switch typ { // a venue or organizer search reads its own text, folded now (mapping.DeriveLinked)
	case c.opt.Types.Venue:
		mapping.DeriveLinked(p, mapping.VenueSearchMeta)
	case c.opt.Types.Organizer:
		mapping.DeriveLinked(p, mapping.OrganizerSearchMeta)
	}
	return p, nil
}

// renameTaxonomies keys a post's terms by role (mapping.TaxonomyCategory, mapping.TaxonomyTag) rather
// than by upstream REST base (wp/v2 lists post_tag terms under "tags").
func renameTaxonomies(p *mapping.Post, t Types) {
	terms := map[string][]int{}
	terms[mapping.TaxonomyCategory] = p.Terms[t.CategoryBase]
	terms[mapping.TaxonomyTag] = p.Terms[t.TagBase]
	p.Terms = terms
}

func (c *Catalog) fetchTerms(ctx context.Context) (map[int]*mapping.Term, error) {
	terms := map[int]*mapping.Term{}
	for _, base := range []string{c.opt.Types.CategoryBase, c.opt.Types.TagBase} {
		items, err := c.client.Terms(ctx, base)
		if err != nil {
			return nil, fmt.Errorf("catalog: list %s: %w", base, err)
		}
		for _, raw := range items {
			t, err := cmsclient.DecodeTerm(raw)
			if err != nil {
				return nil, fmt.Errorf("catalog: %s: %w", base, err)
			}
			terms[t.ID] = t
		}
	}
	return terms, nil
}

// fetchMedia loads the featured images the posts use and that have is missing (have may be nil).
func (c *Catalog) fetchMedia(
	ctx context.Context, posts iter.Seq2[int, *mapping.Post], have map[int]*mapping.Media,
) (map[int]*mapping.Media, error) {
	media := map[int]*mapping.Media{}
	var want []int
	seen := map[int]bool{}
	for _, p := range posts {
		id := p.FeaturedMedia
		if id == 0 || seen[id] {
			continue
		}
		seen[id] = true
		if m, ok := have[id]; ok {
			media[id] = m
			continue
		}
		want = append(want, id)
	}
	for len(want) > 0 {
		n := min(len(want), 100)
		items, err := c.readMedia(ctx, want[:n])
		want = want[n:]
		if err != nil {
			return nil, fmt.Errorf("catalog: media: %w", err)
		}
		for _, raw := range items {
			m, err := cmsclient.DecodeMedia(raw)
			if err != nil {
				return nil, fmt.Errorf("catalog: %w", err)
			}
			media[m.ID] = m
		}
	}
	return media, nil
}

// readMedia reads attachments by ID (at most 100). Through the plugin when the catalog syncs through
// it: whatever their status, as TEC reads a featured image; wp/v2/media lists only attachments in the
// statuses inherit and private, and misses those importers write as publish. A plugin older than the
// route (404) still gets wp/v2/media, so calshim may be upgraded before it.
func (c *Catalog) readMedia(ctx context.Context, ids []int) ([]json.RawMessage, error) {
	if !c.feed.plugin.Load() {
		return c.client.Media(ctx, ids)
	}
	items, err := c.client.AttachmentsByID(ctx, ids)
	var ue *cmsclient.Error
	if errors.As(err, &ue) && ue.Status == http.StatusNotFound {
		return c.client.Media(ctx, ids)
	}
	return items, err
}

// Health describes how fresh the catalog is, for /readyz.
type Health struct {
	Loaded      bool
	LastPollOK  time.Time
	LastPollErr string
	Sync        SyncHealth
}

// Health returns the catalog's freshness.
func (c *Catalog) Health() Health {
	h := Health{Loaded: c.snap.Load() != nil}
	if n := c.lastPollOK.Load(); n != 0 {
		h.LastPollOK = time.Unix(0, n)
	}
	if e, ok := c.lastPollErr.Load().(string); ok {
		h.LastPollErr = e
	}
	h.Sync = c.syncHealth()
	return h
}
