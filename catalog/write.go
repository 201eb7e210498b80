package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"calshim/cmsclient"
	"calshim/mapping"
)

// PostRef names one post to refresh: its post type (REST base) and ID, and optionally WordPress'
// answer to the write that changed it (a wp/v2 post with the calshim field), which then stands for
// reading it again.
type PostRef struct {
	Type   string
	ID     int
	Answer json.RawMessage
}

// Client returns the upstream client the catalog reads with. Writes made on behalf of callers go
// through its caller-authenticated methods (cmsclient.Client.Send), never its service credential.
func (c *Catalog) Client() *cmsclient.Client { return c.client }

// Refresh brings a write's changes into the catalog at once, so that the next read of this replica
// sees it (read-your-writes) without waiting for the poll.
//
// When the catalog syncs through the plugin's change feed, that is a poll of the feed now: the
// write's rows are in the log once WordPress has answered it (stampSequence), so the change enters
// the catalog exactly as the same change polled later would, at the sequence that includes it, with
// its journal entry, its purge keys and its deltas: one journal, whoever wrote (refs and terms are
// not needed then). That poll reads the feed alone: the periodic ID counts and checksum comparison
// wait for Run's next poll, not the writer.
//
// Without the feed, it re-reads the given posts (from the write's own answer when it carries the
// post, else from upstream with the service credential; and, with terms, every term: names, counts)
// and publishes a new snapshot, a new version of this instance's journal. A post upstream no longer
// has (deleted permanently, or in a status the catalog does not hold) leaves the catalog. Featured
// images the posts now use are loaded too. The upstream reads happen outside the catalog lock, so
// concurrent writes refresh in parallel; a post the catalog meanwhile holds in a newer version (a
// poll or another write got there first) is kept.
func (c *Catalog) Refresh(ctx context.Context, terms bool, refs ...PostRef) error {
	if c.snap.Load() == nil {
		return errors.New("catalog: refresh before load")
	}
	if c.feed.on.Load() {
		return c.pollFeed(ctx, false)
	}

	fetched, gone, err := c.readPosts(ctx, refs)
	if err != nil {
		return err
	}

	var freshTerms map[int]*mapping.Term
	if terms {
		var err error
		if freshTerms, err = c.fetchTerms(ctx); err != nil {
			return err
		}
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.snap.Load()
	posts := old.posts.edit()
	var changed []int
	for id, p := range fetched {
		if q, ok := posts.get(id); !ok || q.ModifiedGMT() <= p.ModifiedGMT() {
			posts.set(id, p)
			changed = append(changed, id)
		}
	}

	for id := range gone {
		posts.delete(id)
		changed = append(changed, id)
	}

	if freshTerms == nil {
		freshTerms = old.terms
	}

	next := posts.done()
	media, err := c.fetchMedia(ctx, next.all(), old.media)
	if err != nil {
		return err
	}

	base := *old
	base.Version++
	c.publish(patch(base, old, next, freshTerms, media, changed))
	return nil
}

// ReadFeed reads the change feed now, so that the catalog holds what WordPress holds at this moment
// rather than up to a poll interval ago; false when it did not (no feed: wp/v2 polling has no log to
// read up to, or the feed failed).
func (c *Catalog) ReadFeed(ctx context.Context) bool {
	return c.snap.Load() != nil && c.feed.on.Load() && c.pollFeed(ctx, false) == nil
}

// readPosts reads posts for Refresh: those upstream has, and the IDs of those it no longer has.
func (c *Catalog) readPosts(
	ctx context.Context, refs []PostRef,
) (map[int]*mapping.Post, map[int]bool, error) {
	fetched, gone := map[int]*mapping.Post{}, map[int]bool{}
	for _, ref := range refs {
		p, err := c.readPost(ctx, ref)
		if err != nil {
			return nil, nil, err
		}
		if p == nil {
			gone[ref.ID] = true
		} else {
			fetched[p.ID] = p
		}
	}

	return fetched, gone, nil
}

// readPost reads one post; nil when upstream answers 404 (deleted for good) or has it in a status
// the catalog does not hold.
func (c *Catalog) readPost(ctx context.Context, ref PostRef) (*mapping.Post, error) {
	if ref.Answer != nil {
		// An answer without what the catalog needs (no calshim field) is read again below.
		if p, err := c.decodePost(ref.Type, ref.Answer); err == nil && p.ID == ref.ID {
			return c.held(p), nil
		}
	}

	raw, err := c.client.Post(ctx, ref.Type, ref.ID)
	var ue *cmsclient.Error
	if errors.As(err, &ue) && (ue.Status == http.StatusNotFound ||
		ue.Status == http.StatusUnauthorized || ue.Status == http.StatusForbidden) {
		return nil, nil
	}

	if err != nil {
		return nil, fmt.Errorf("catalog: refresh %s %d: %w", ref.Type, ref.ID, err)
	}

	p, err := c.decodePost(ref.Type, raw)
	if err != nil {
		return nil, fmt.Errorf("catalog: refresh %s %d: %w", ref.Type, ref.ID, err)
	}

	return c.held(p), nil
}

// held returns p, compacted, when the catalog keeps posts of its status, else nil (it leaves the
// catalog).
func (c *Catalog) held(p *mapping.Post) *mapping.Post {
	if !c.holds(p.Status()) {
		return nil
	}

	one := []*mapping.Post{p}
	compactBlocks(one)
	return one[0]
}

// holds reports whether the catalog keeps posts of a status (see statuses).
func (c *Catalog) holds(status string) bool {
	return c.opt.Authenticated || status == "publish"
}

// CatchUp reads into the catalog the posts of a type that a wp/v2 search for text finds (title,
// content or excerpt, every status the catalog holds), so that a check made on the catalog also
// sees posts created elsewhere since the last poll, as the original's duplicate check on create
// asks the database itself.
func (c *Catalog) CatchUp(ctx context.Context, typ, text string) error {
	items, err := c.client.SearchPosts(ctx, typ, c.statuses(), text)
	if err != nil {
		return fmt.Errorf("catalog: search %s: %w", typ, err)
	}

	snap := c.snap.Load()
	var refs []PostRef
	for _, raw := range items {
		var head struct {
			ID int `json:"id"`
		}
		if json.Unmarshal(raw, &head) != nil {
			continue
		}
		if _, known := snap.Post(head.ID); !known {
			refs = append(refs, PostRef{Type: typ, ID: head.ID, Answer: raw})
		}
	}

	if len(refs) == 0 {
		return nil
	}

	return c.Refresh(ctx, false, refs...)
}
