package catalog

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strconv"

	"calshim/cmsclient"
	"calshim/mapping"
)

// PostRef names one post to refresh: its post type (REST base) and ID.
type PostRef struct {
	Type string
	ID   int
}

// Client returns the upstream client the catalog reads with. Writes made on behalf of callers go
// through its caller-authenticated methods (cmsclient.Client.Send), never its service credential.
func (c *Catalog) Client() *cmsclient.Client { return c.client }

// Refresh re-reads the given posts and every term from upstream with the service credential and
// publishes a new snapshot at once, so that a write is visible to the next read of this replica
// (read-your-writes) without waiting for the poll. A post upstream no longer has (deleted permanently,
// or in a status the catalog does not hold) leaves the catalog. Featured images the posts now use are
// loaded too.
func (c *Catalog) Refresh(ctx context.Context, refs ...PostRef) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.snap.Load()
	if old == nil {
		return errors.New("catalog: refresh before load")
	}
	posts := maps.Clone(old.posts)
	for _, ref := range refs {
		if err := c.refreshPost(ctx, ref, posts); err != nil {
			return err
		}
	}
	terms, err := c.fetchTerms(ctx)
	if err != nil {
		return err
	}
	media, err := c.fetchMedia(ctx, posts, old.media)
	if err != nil {
		return err
	}
	base := *old
	base.Version++
	c.snap.Store(build(base, posts, terms, media))
	return nil
}

// refreshPost reads one post into posts, or removes it when upstream answers 404 or a status the
// catalog does not hold.
func (c *Catalog) refreshPost(ctx context.Context, ref PostRef, posts map[int]*mapping.Post) error {
	res, err := c.client.Get(ctx, "/wp/v2/"+ref.Type+"/"+strconv.Itoa(ref.ID), url.Values{"context": {"view"}})
	var ue *cmsclient.Error
	if errors.As(err, &ue) && (ue.Status == http.StatusNotFound || ue.Status == http.StatusUnauthorized || ue.Status == http.StatusForbidden) {
		delete(posts, ref.ID)
		return nil
	}
	if err != nil {
		return fmt.Errorf("catalog: refresh %s %d: %w", ref.Type, ref.ID, err)
	}
	p, err := cmsclient.DecodePost(res.Body, c.opt.Types.CategoryBase, c.opt.Types.TagBase)
	if err != nil {
		return fmt.Errorf("catalog: refresh %s %d: %w", ref.Type, ref.ID, err)
	}
	p.Type = ref.Type
	renameTaxonomies(p, c.opt.Types)
	p.SearchText = mapping.SearchText(p)
	if !c.holds(p.Status) {
		delete(posts, p.ID)
		return nil
	}
	posts[p.ID] = p
	return nil
}

// holds reports whether the catalog keeps posts of a status (see statuses).
func (c *Catalog) holds(status string) bool {
	return c.opt.Authenticated || status == "publish"
}
