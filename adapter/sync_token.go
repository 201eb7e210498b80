package adapter

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"strings"

	"calshim/catalog"
	"calshim/mapping"
	"calshim/mapping/php"
)

// Delta sync for clients: every answer of the events, venues and organizers lists carries
// X-Calshim-Sync-Token, a position (catalog.SyncPoint: the plugin's change log and a sequence in it,
// which every replica answers; without the feed, this catalog instance and a snapshot version) and
// a hash of the list and its filters. The same list with sync_token answers only the posts changed
// since that position (the change log's rows) that the caller may see and that match the query's
// explicit filters (no default date window), in the list's shape and paging, plus "deleted": the
// changed posts of the list's type that the caller saw matching then, by its own rules, and no
// longer does (trashed, deleted, unpublished, hidden, moved out of the filters): a delta never names
// a post the caller could not see. Changed posts include those the catalog's journal recorded
// without a log row (repairs of rows written around the log) and events whose embedded venue,
// organizer or term changed. What a post was then comes from the catalog's earlier states, which
// keep no text (a search is not tested on them: with `search`, "deleted" also names changed posts
// that matched the other filters then and not the search). A replica whose journal does not reach
// back to the token (restarted since, or a position before its start) does not know them, and
// answers 410 rather than guess; so does one whose poll read two rows of a post around the token
// (or a recent repair of it), unless the caller sees that post now (catalog.Split): that is 410
// calshim_sync_token_unknown, the state there is one this replica never held. A token of
// another site, list or filters, or older than the change log reaches back (its retention, or
// more changes since than sync.max_bytes holds) is 410 calshim_sync_token_expired: the client lists
// afresh. A token ahead of this replica's catalog waits for it (sequence_wait),
// else answers no change and the same token.

const (
	syncHeader = "X-Calshim-Sync-Token"
	syncParam  = "sync_token"
	// syncFormat starts every token: tokens of another format (an older calshim's) expire.
	syncFormat = "2"
)

// syncKind is one of the three lists that sync.
type syncKind struct {
	collection string
	typ        func(r *request) string
	// query validates the list's arguments and returns whether a post matches them now, and whether
	// an earlier state (catalog.Changed.Before) matched them then.
	query  func(s *Server, r *request) (now, then func(p *mapping.Post) bool, pg page, err error)
	render func(c *mapping.Context, p *mapping.Post) mapping.Object
	less   func(a, b *mapping.Post) bool
}

var (
	syncEvents = syncKind{collection: "events",
		typ:   func(r *request) string { return r.snap.Types().Event },
		query: syncEventQuery, render: (*mapping.Context).Event, less: mapping.EventLess}
	syncVenues     = linkedSync(venues)
	syncOrganizers = linkedSync(organizers)
)

// withSync adds the sync token to a list's answers, and answers sync_token requests itself.
func withSync(list handler, kind syncKind) handler {
	return func(s *Server, r *request) (*response, error) {
		if r.params.has(syncParam) {
			return s.syncList(r, kind)
		}

		res, err := list(s, r)
		// `_envelope` copies the headers into the body, which must stay as it was.
		if _, envelope := r.params["_envelope"]; err == nil && !envelope {
			res.headers = append(res.headers, header{syncHeader, s.syncToken(r, kind)})
			expose(res, syncHeader)
		}
		return res, err
	}
}

// syncToken is the token of the answer r gets: the position of its snapshot and its query.
func (s *Server) syncToken(r *request, kind syncKind) string {
	ident, pos := s.catalog(r.lang).SyncPoint(r.snap)
	return syncTokenOf(syncPoint{ident: ident, pos: pos, query: syncQuery(r, kind)})
}

// syncPoint is what a token holds.
type syncPoint struct {
	ident string // the change log's identity, or the catalog instance's
	pos   int64
	query string // syncQuery of the list it was answered for
}

func syncTokenOf(p syncPoint) string {
	raw := syncFormat + "." + p.ident + "." + strconv.FormatInt(p.pos, 10) + "." + p.query
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// parseSyncToken reads a token; false for anything calshim did not make.
func parseSyncToken(tok string) (syncPoint, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	parts := strings.Split(string(raw), ".")
	if err != nil || len(parts) != 4 || parts[0] != syncFormat || parts[1] == "" || len(parts[3]) != syncQueryLen {
		return syncPoint{}, false
	}
	pos, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || pos < 0 {
		return syncPoint{}, false
	}
	return syncPoint{ident: parts[1], pos: pos, query: parts[3]}, true
}

// syncQueryLen is the length of syncQuery's hash, in hex digits.
const syncQueryLen = 16

// syncSkipped are the arguments that do not choose which posts a list holds: paging, the token,
// the addressing form's route, and how the answer is shaped.
var syncSkipped = []string{"page", "per_page", syncParam, "rest_route", "_envelope", "_method", "_fields",
	"_embed", "_jsonp"}

// syncQuery names the list and filters of r: a hash of the collection, the language and the query's
// other arguments in a canonical order, so that a token is only answered for the query it was
// taken from (a client holding another list's posts would be told the wrong changes).
func syncQuery(r *request, kind syncKind) string {
	var args []string
	php.EachPair(r.gc.Request.URL.RawQuery, func(k, v string) {
		if !slices.Contains(syncSkipped, k) {
			args = append(args, k+"="+v)
		}
	})
	slices.Sort(args)
	h := sha256.Sum256([]byte(kind.collection + "\x00" + r.lang + "\x00" + strings.Join(args, "\x00")))
	return hex.EncodeToString(h[:syncQueryLen/2])
}

// syncSince reads r's token: the changed posts since it (nil: the token is ahead of this replica's
// catalog, which did not catch up within the sequence wait; the token then stays as it is) and the
// token of the answer. r's snapshot may move on to the one that caught up.
func (s *Server) syncSince(r *request, kind syncKind) (map[int]catalog.Changed, string, error) {
	tok, _ := r.params.str(syncParam)
	p, ok := parseSyncToken(tok)
	if !ok || p.query != syncQuery(r, kind) {
		return nil, "", errSyncExpired
	}

	cat := s.catalog(r.lang)
	if ident, pos := cat.SyncPoint(r.snap); ident == p.ident && p.pos > pos {
		ctx, cancel := context.WithTimeout(r.gc.Request.Context(), s.opt.SequenceWait)
		cat.WaitSequence(ctx, p.pos)
		cancel()
		r.snap = cat.Snapshot()
		if _, pos := cat.SyncPoint(r.snap); p.pos > pos {
			return nil, tok, nil
		}
	}

	changed, err := cat.ChangesSince(r.gc.Request.Context(), p.ident, p.pos, r.snap)
	if errors.Is(err, catalog.ErrSyncExpired) {
		return nil, "", errSyncExpired
	}
	if err != nil {
		return nil, "", err
	}
	return changed, s.syncToken(r, kind), nil
}

// syncList answers a list with sync_token.
func (s *Server) syncList(r *request, kind syncKind) (*response, error) {
	now, then, pg, err := kind.query(s, r)
	if err != nil {
		return nil, err
	}

	changed, next, err := s.syncSince(r, kind)
	if err != nil {
		return nil, err
	}

	current, deleted, err := catalog.Split(r.snap, kind.typ(r), changed, now, then)
	if err != nil { // catalog.ErrSyncUnknown
		return nil, errSyncUnknown
	}
	slices.SortFunc(current, func(a, b *mapping.Post) int { return orderOf(kind.less, a, b) })
	from, to := pg.window(len(current))
	ctx := r.ctx(false)
	items := make([]any, 0, to-from)
	for _, p := range current[from:to] {
		items = append(items, kind.render(ctx, p))
	}

	body := mapping.Object{{Key: kind.collection, Value: items}, {Key: "deleted", Value: deleted}}
	archiveLinks(r.base()+"/"+kind.collection+"/", syncLinkArgs(r, pg), nil, pg, len(current), &body)
	res := archiveResponse(body, len(current), pg)
	res.headers = append(res.headers, header{syncHeader, next})
	expose(res, syncHeader)
	return res, nil
}

func orderOf(less func(a, b *mapping.Post) bool, a, b *mapping.Post) int {
	switch {
	case less(a, b):
		return -1
	case less(b, a):
		return 1
	}
	return 0
}

// syncLinkArgs are the request's own arguments for rest_url and the paging links, page first.
func syncLinkArgs(r *request, pg page) []queryArg {
	args := []queryArg{{"page", strconv.Itoa(pg.num)}}
	for _, a := range parseQuery(r.gc.Request.URL.RawQuery) {
		if a.key != "page" && a.key != "rest_route" {
			args = append(args, a)
		}
	}
	return args
}

// syncEventQuery is the events list's query without the default date window: only the date bounds
// the request gives apply.
func syncEventQuery(s *Server, r *request) (now, then func(p *mapping.Post) bool, pg page, err error) {
	f, _, pg, err := s.eventQuery(r)
	if err != nil {
		return nil, nil, page{}, err
	}

	for _, b := range []struct {
		arg   string
		bound *string
	}{{"start_date", &f.StartMin}, {"end_date", &f.EndMax}, {"starts_before", &f.StartsBefore},
		{"starts_after", &f.StartsAfter}, {"ends_before", &f.EndsBefore}, {"ends_after", &f.EndsAfter}} {
		if !r.params.has(b.arg) {
			*b.bound = ""
		}
	}

	textless := *f
	textless.Search = nil
	return func(p *mapping.Post) bool { return mapping.MatchEvent(p, f) },
		func(p *mapping.Post) bool { return mapping.MatchEvent(p, &textless) }, pg, nil
}

// linkedSync is the sync of the venues or organizers list.
func linkedSync(k linkedKind) syncKind {
	return syncKind{collection: k.collection, typ: k.typ, render: k.render, less: mapping.NewerFirst,
		query: func(s *Server, r *request) (now, then func(p *mapping.Post) bool, pg page, err error) {
			a, err := r.readArgs()
			if err != nil {
				return nil, nil, page{}, err
			}

			var event *mapping.Post
			if n, ok := a["event"].(int); ok {
				event, _ = r.snap.Post(n)
			}

			statuses := statusesOf(r, statusArg(r, a, k.cap("edit")), k.cap("edit"))
			var search *mapping.LinkedSearch
			if v, ok := a.str("search"); ok {
				q := mapping.NewLinkedSearch(v)
				search = &q
			}

			linked := k.linkedIDs(r, a, event, statuses)
			then = func(p *mapping.Post) bool {
				return slices.Contains(statuses, p.Status()) && (linked == nil || linked[p.ID])
			}
			return func(p *mapping.Post) bool {
				return then(p) && (search == nil || search.Match(p, k.searchMeta))
			}, then, s.pageOf(r, a), nil
		}}
}
