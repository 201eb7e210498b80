package adapter

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"go.uber.org/zap"

	"calshim/catalog"
	"calshim/cmsclient"
	"calshim/mapping"
	"calshim/mapping/php"
)

// refreshTimeout bounds the read-back after a write; it runs even when the client has gone away, so
// the catalog never misses a change that was made.
const refreshTimeout = 20 * time.Second

// tx is one write request's conversation with the CMS: every call carries the caller's credentials,
// and every post it touches is re-read into the catalog when it ends (done), whether the write as a
// whole succeeded or not — a venue created before the event was refused is in the CMS, so it is in
// the catalog too.
type tx struct {
	s       *Server
	r       *request
	cat     *catalog.Catalog
	touched []catalog.PostRef
	// terms is set when the write may have changed terms or their counts; done then reloads them.
	terms bool
	// spent counts the requests the write has made of WordPress and of image hosts; limit bounds
	// it (below).
	spent, limit int
	// created is what this write created in WordPress, in order: undo removes it when a later step
	// fails.
	created []created
}

// created is one post (an attachment's base is "media") or term a write created.
type created struct {
	term bool
	base string
	id   int
}

func (s *Server) begin(r *request) *tx {
	limit := s.opt.WriteMaxUpstream
	if limit <= 0 {
		limit = DefaultWriteMaxUpstream
	}
	return &tx{s: s, r: r, cat: s.catalog(r.lang), limit: limit}
}

// call makes one typed call of the request's CMS client (r.cms, the adapter's one way to it) as the
// caller: it spends one request of the write's budget and translates WordPress' refusal.
func (t *tx) call(do func(ctx context.Context, c *cmsclient.Client, creds cmsclient.Credentials) error) error {
	if err := t.spend(); err != nil {
		return err
	}
	err := do(t.r.gc.Request.Context(), t.r.cms, t.r.viewer.creds)
	var ue *cmsclient.Error
	if errors.As(err, &ue) && ue.Created != nil {
		// WordPress refused a create after it inserted the object (wp/v2 keeps a post whose meta
		// or terms it then refuses): undo removes it with the rest.
		types := t.r.snap.Types()
		term := ue.Created.Base == types.CategoryBase || ue.Created.Base == types.TagBase
		t.created = append(t.created, created{term: term, base: ue.Created.Base, id: ue.Created.ID})
	}
	if err != nil {
		return t.upstreamError(err)
	}
	return nil
}

// savePost creates (id 0) or updates a post of a type with a wp/v2 body and returns its ID.
func (t *tx) savePost(postType string, id int, body map[string]any) (int, error) {
	var saved *cmsclient.SavedPost
	err := t.call(func(ctx context.Context, c *cmsclient.Client, creds cmsclient.Credentials) (err error) {
		saved, err = c.SavePostAs(ctx, creds, t.postSave(postType, id, body))
		return err
	})
	if err != nil {
		return 0, err
	}

	if id == 0 {
		t.created = append(t.created, created{base: postType, id: saved.ID})
	}
	t.touch(postType, saved.ID, saved.Answer)
	return saved.ID, nil
}

// undo deletes, as the caller and newest first, what this write created before a step failed (new
// venues, organizers, terms, an uploaded image, the event itself when a follow-up of its creation
// failed): the original makes the event in one request, which leaves nothing behind when it fails.
// The requests are not counted against the write's limit, and run even when the client has gone
// away. One that fails is logged: that object stays, as WordPress refused to remove it. Nothing is
// undone when the failed step's outcome is unknown (err is cmsclient.ErrWriteUnknown, answered 504):
// that step may have made an event that links what came before, which must not be deleted under it;
// the answer tells the client to read again.
func (t *tx) undo(err error) {
	if errors.Is(err, cmsclient.ErrWriteUnknown) {
		if len(t.created) > 0 {
			t.s.log.Warn("a write's outcome is unknown: what it created before is kept",
				zap.Int("created", len(t.created)), zap.Error(err))
		}
		t.created = nil
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.r.gc.Request.Context()), refreshTimeout)
	defer cancel()
	for i := len(t.created) - 1; i >= 0; i-- {
		c, client, creds := t.created[i], t.r.cms, t.r.viewer.creds
		var derr error
		if c.term {
			derr = client.DeleteTermAs(ctx, creds, c.base, c.id)
		} else {
			derr = client.DeletePostAs(ctx, creds, c.base, c.id)
		}
		if derr != nil {
			t.s.log.Warn("undoing a failed write: WordPress kept what it created",
				zap.String("base", c.base), zap.Int("id", c.id), zap.Error(derr))
		}
	}
	t.created = nil
}

// postSave is a save of a post as cmsclient sends it. An update of an event keeps its stored cost
// (PostSave.Kept): the calendar plugin, when active on the CMS, would otherwise store it again from
// its formatted display ("$5 - $10" would become "5 – 10"; Tribe__Events__Editor__Meta::update_cost).
func (t *tx) postSave(postType string, id int, body map[string]any) cmsclient.PostSave {
	s := cmsclient.PostSave{Type: postType, ID: id, Body: body}
	if id == 0 || postType != t.r.snap.Types().Event {
		return s
	}
	s.Kept = map[string]string{}
	if p, ok := t.r.snap.Post(id); ok {
		if cost, ok := p.MetaFirst("_EventCost"); ok {
			s.Kept["_EventCost"] = cost
		}
	}
	return s
}

// trashPost moves a post to the trash (wp/v2 DELETE without force, which answers the trashed post).
func (t *tx) trashPost(postType string, id int) error {
	var answer json.RawMessage // nil on an unknown outcome: the refresh reads the post again
	err := t.call(func(ctx context.Context, c *cmsclient.Client, creds cmsclient.Credentials) error {
		trashed, err := c.TrashPostAs(ctx, creds, postType, id)
		if err == nil {
			answer = trashed.Answer
		}
		return err
	})

	t.touch(postType, id, answer)
	return err
}

// touch marks a post for the refresh; its terms' counts may change with it. answer is WordPress'
// answer to the call that changed it, when there is one: the post as it now is (the calshim field
// included, since the caller may edit it), so the refresh need not read it again.
func (t *tx) touch(postType string, id int, answer json.RawMessage) {
	t.touched = append(t.touched, catalog.PostRef{Type: postType, ID: id, Answer: answer})
	if p, ok := t.r.snap.Post(id); ok &&
		(len(p.Terms[mapping.TaxonomyCategory]) > 0 || len(p.Terms[mapping.TaxonomyTag]) > 0) {
		t.terms = true
	}
}

// done re-reads what the write touched (and every term) into the catalog and points the request at
// the new snapshot, so the response and the next read show the write. err is the write's own
// outcome: it wins over a failed refresh, which is logged (the next poll catches up).
func (t *tx) done(err error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.r.gc.Request.Context()), refreshTimeout)
	defer cancel()
	rerr := t.cat.Refresh(ctx, t.terms, t.touched...)
	if rerr != nil {
		t.s.log.Warn("catalog refresh after write failed",
			zap.String("route", traceOf(t.r.gc).route), zap.Error(rerr))
	}

	t.r.snap = t.cat.Snapshot()
	t.stampSequence(ctx)
	if err != nil {
		return err
	}

	return rerr
}

// upstreamError translates a refused wp/v2 call into the original's vocabulary: refusals become
// rest_forbidden (401 without credentials, 403 with), an unknown author the original's invalid
// `author`, other WordPress errors keep their code, message and status (term_exists with term_id).
func (t *tx) upstreamError(err error) error {
	var ue *cmsclient.Error
	if !errors.As(err, &ue) {
		return err
	}

	switch {
	case ue.Status == http.StatusUnauthorized || ue.Status == http.StatusForbidden:
		return forbidden(t.r.viewer)
	case ue.Code == "rest_invalid_author":
		return invalidParam("author")
	case ue.Code == "term_exists":
		e := fromUpstream(ue)
		e.Extra = mapping.Object{{Key: "term_id", Value: ue.DataInt("term_id")}}
		if len(ue.AdditionalData) > 0 {
			e.Trailer = mapping.Object{{Key: "additional_data", Value: mapping.Raw(ue.AdditionalData)}}
		}
		return e
	case ue.Code == "rest_invalid_param":
		e := fromUpstream(ue)
		e.Status = http.StatusBadRequest
		return e
	case ue.Code == errPreconditionFailed.Code: // the plugin refused If-Match (http_precondition.go)
		return errPreconditionFailed
	}

	e := fromUpstream(ue)
	// An error WordPress raised without data (duplicate_term_slug) answers "data": null, as there.
	e.NoData = len(ue.Data) == 0 || string(ue.Data) == "null"
	return e
}

// What one write may make calshim ask of others. Each new category or tag, each venue or organizer
// created with an event, each image URL costs one or more requests to WordPress (or to an image
// host), so a body listing thousands of them would hold WordPress for minutes on one request of
// calshim. A write makes at most a limit of them (Options.WriteMaxUpstream): an event write's
// arguments tell how many it needs at least, which is checked before anything is sent, so a write
// refused that way changed nothing; and every request is counted as it is made (tx.spend), which
// stops what the arguments could not tell (an image URL per nested organizer, a duplicate found
// only by asking WordPress). Not counted: the schemas of the post types' meta (cached for every
// write), and the read-back of what the write touched (tx.done: at most one read per post touched).

// DefaultWriteMaxUpstream is the limit when Options.WriteMaxUpstream is 0: a little above what the
// largest legitimate write needs (an event with an image URL, a new venue and new organizers with
// theirs, new categories and tags; docs/how-it-works.md, "Requests per write", has the counts).
const DefaultWriteMaxUpstream = 40

// spend counts one request the write is about to make; past the limit the write stops there.
func (t *tx) spend() error {
	if t.spent >= t.limit {
		return writeTooLarge(t.limit)
	}
	t.spent++
	return nil
}

// afford refuses, before it makes any, a write that needs at least n more requests than it may.
func (t *tx) afford(n int) error {
	if t.spent+n > t.limit {
		return writeTooLarge(t.limit)
	}
	return nil
}

// draftPost is the draft or pending post of the catalog that id names.
func draftPost(r *request, id string) (*mapping.Post, bool) {
	n, ok := php.PositiveInt(id)
	if !ok {
		return nil, false
	}
	p, found := r.snap.Post(n)
	return p, found && (p.Status() == "draft" || p.Status() == "pending")
}
