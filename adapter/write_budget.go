package adapter

import (
	"calshim/mapping"
	"calshim/mapping/php"
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
