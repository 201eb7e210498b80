package adapter

import (
	"encoding/base64"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"calshim/mapping"
)

// Delta sync for clients: every answer of the events, venues and organizers lists carries
// X-Calshim-Sync-Token (the catalog instance and the snapshot version it was answered from). The
// same list with sync_token answers only the posts changed since that token that the caller may see
// and that match the query's explicit filters (no default date window), in the list's shape and
// paging, plus "deleted": the IDs that the caller saw matching then and no longer does (trashed,
// deleted, unpublished, hidden, moved out of the filters). The journal keeps no text of earlier
// states, so a search is not tested on them: with `search`, "deleted" also names changed posts that
// matched the other filters then and not the search (a client drops what it does not hold, and the
// caller could list them without the search). A token this calshim cannot answer
// (another site or process, older than the change journal) is 410 calshim_sync_token_expired: the
// client lists afresh.

const (
	syncHeader = "X-Calshim-Sync-Token"
	syncParam  = "sync_token"
)

// syncKind is one of the three lists that sync.
type syncKind struct {
	collection string
	typ        func(r *request) string
	// query validates the list's arguments and returns whether a post matches them now, and whether
	// an earlier state of the journal (catalog.ChangesSince) matched them then.
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
			res.headers = append(res.headers, header{syncHeader, s.syncToken(r)})
			expose(res, syncHeader)
		}
		return res, err
	}
}

// syncToken names the catalog instance and the version of the snapshot answering r.
func (s *Server) syncToken(r *request) string {
	raw := s.catalog(r.lang).SyncEpoch() + "." + strconv.FormatUint(r.snap.Version, 10)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// errSyncExpired is the answer to a token calshim cannot answer.
var errSyncExpired = newError(http.StatusGone, "calshim_sync_token_expired",
	"The sync token has expired or belongs to another site. List again without sync_token.")

// syncSince reads a token: the changed posts since, each with its state then.
func (s *Server) syncSince(r *request) (map[int]*mapping.Post, error) {
	tok, _ := r.params.str(syncParam)
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	epoch, ver, found := strings.Cut(string(raw), ".")
	since, perr := strconv.ParseUint(ver, 10, 64)
	if err != nil || !found || perr != nil {
		return nil, errSyncExpired
	}

	changed, ok := s.catalog(r.lang).ChangesSince(epoch, since, r.snap.Version)
	if !ok {
		return nil, errSyncExpired
	}
	return changed, nil
}

// syncList answers a list with sync_token.
func (s *Server) syncList(r *request, kind syncKind) (*response, error) {
	now, then, pg, err := kind.query(s, r)
	if err != nil {
		return nil, err
	}

	changed, err := s.syncSince(r)
	if err != nil {
		return nil, err
	}

	current, deleted := syncSplit(r, kind.typ(r), changed, now, then)
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
	res.headers = append(res.headers, header{syncHeader, s.syncToken(r)})
	expose(res, syncHeader)
	return res, nil
}

// syncSplit sorts the changed posts of one type into those the caller now sees matching and the IDs
// of those it saw matching before and no longer does.
func syncSplit(r *request, typ string, changed map[int]*mapping.Post,
	now, then func(*mapping.Post) bool) (current []*mapping.Post, deleted []int) {
	deleted = []int{}
	for id, before := range changed {
		p, ok := r.snap.Post(id)
		switch {
		case ok && p.Type() == typ && now(p):
			current = append(current, p)
		case before != nil && before.Type() == typ && then(before):
			deleted = append(deleted, id)
		}
	}

	sort.Ints(deleted)
	return current, deleted
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
			a, err := r.readArgs("/" + k.collection)
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
