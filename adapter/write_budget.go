package adapter

import (
	"calshim/mapping/php"
	"fmt"
	"net/http"
	"strings"

	"calshim/mapping"
)

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
// theirs, new categories and tags; README, "How writes work", has the counts).
const DefaultWriteMaxUpstream = 40

// writeTooLarge is the answer to a write that needs more requests than the limit.
func writeTooLarge(limit int) error {
	return newError(http.StatusBadRequest, "calshim_write_too_large", fmt.Sprintf(
		"This write needs more than %d requests to WordPress. Send fewer new categories, tags, "+
			"venues, organizers or image URLs at once.", limit))
}

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

// eventNeeds is the least number of requests an event write (p nil: a create) makes with r's
// arguments when it succeeds, counted up to limit+1 (beyond that the exact figure changes
// nothing): the event's save; one per new category or tag name; one per venue or organizer to
// create whose name is neither the catalog's nor given before; one for an image URL the catalog
// does not know; one per draft venue or organizer that a published event publishes.
func eventNeeds(r *request, p *mapping.Post, limit int) int {
	n := 1
	if v, ok := r.params.text("image"); ok {
		if _, known := knownImage(r, v); !known && v != "" {
			n++
		}
	}

	for _, k := range []termKind{categories, tags} {
		n += newTerms(r, k, limit-n)
	}

	for _, k := range []linkedKind{venues, organizers} {
		n += newLinked(r, k, limit-n)
	}

	if status, ok := scaleStatus(r.params, r.viewer, p == nil); ok && status == "publish" {
		n += draftsLinked(r, p, limit-n)
	}

	return n
}

// newTerms counts the distinct names of k given that the catalog does not know, up to limit+1.
func newTerms(r *request, k termKind, limit int) int {
	v, ok := r.params.given(k.collection)
	if !ok {
		return 0
	}

	seen := map[string]bool{}
	for _, s := range termArgs(v) {
		if len(seen) > limit {
			break
		}
		if _, known := k.lookup(r, s); !known {
			seen[s] = true
		}
	}
	return len(seen)
}

// newLinked counts the venues or organizers of k an event write creates, up to limit+1: distinct
// names (as duplicate compares them) that no post of the catalog has.
func newLinked(r *request, k linkedKind, limit int) int {
	seen := map[string]bool{}
	for _, item := range k.linkItems(r) {
		if len(seen) > limit {
			break
		}
		m, isObj := item.(map[string]any)
		if !isObj {
			continue
		}
		name := k.payloadName(m)
		if key := strings.ToLower(name); name != "" && !seen[key] && k.duplicate(r, name, "") == nil {
			seen[key] = true
		}
	}
	return len(seen)
}

// draftsLinked counts the distinct draft or pending venues and organizers an event links once
// written (those given, else the stored ones), up to limit+1: publishing the event publishes them.
func draftsLinked(r *request, p *mapping.Post, limit int) int {
	seen := map[string]bool{}
	for _, k := range []linkedKind{venues, organizers} {
		for _, id := range k.linkIDs(r, p) {
			if len(seen) > limit {
				return len(seen)
			}
			if _, draft := draftPost(r, id); draft {
				seen[id] = true
			}
		}
	}
	return len(seen)
}

// linkItems are the entries of an event's venue or organizer argument: one for the venue, the
// list's for organizers (organizerList).
func (k linkedKind) linkItems(r *request) []any {
	v, ok := r.params.given(k.name)
	if !ok || php.Empty(v) {
		return nil
	}
	if k.name == venues.name {
		return []any{v}
	}
	list, _ := organizerList(v)
	return list
}

// linkIDs are the IDs an event write links of k: those given (scalars and {id} objects), else the
// stored ones of p.
func (k linkedKind) linkIDs(r *request, p *mapping.Post) []string {
	if _, given := r.params.given(k.name); !given {
		if p == nil {
			return nil
		}
		return p.Meta.Get(k.metaKey)
	}

	var ids []string
	for _, item := range k.linkItems(r) {
		if m, isObj := item.(map[string]any); isObj {
			item, _ = Params(m).given("id")
		}
		if s, ok := scalar(item); ok {
			ids = append(ids, strings.TrimSpace(s))
		}
	}
	return ids
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
