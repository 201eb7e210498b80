package test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	neturl "net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The model test's checker: clients that list once and then apply deltas, compared with fresh lists;
// replicas compared with each other; Varnish compared with the calshim behind it; the anonymous list
// compared with the model.

// modelFreshness is how long after a step every answer must show it: the poll (1 s), the checksum
// comparison that catches SQL (2 s) and a purge's settle, with room for a loaded machine.
const modelFreshness = 8 * time.Second

// client is one syncing client: a role, a list, its token and its copy of the list by ID.
type client struct {
	role, coll, query string
	token             string
	copy              map[int]json.RawMessage
	restarts          int      // the world's restarts when it took its token
	trail             []string // its last tokens (position@calshim) and deltas, for the findings
}

// took records a client's new token, from calshim target.
func (c *client) took(token string, target, restarts int) {
	c.token, c.restarts = token, restarts
	c.trace(fmt.Sprintf("%d@%d", tokenPos(token), target))
}

// trace adds to the client's trail, unless it repeats its last entry.
func (c *client) trace(entry string) {
	if n := len(c.trail); n > 0 && c.trail[n-1] == entry {
		return
	}
	c.trail = append(c.trail, entry)
	if len(c.trail) > 8 {
		c.trail = c.trail[1:]
	}
}

func (c *client) String() string {
	role := c.role
	if role == "" {
		role = "anonymous"
	}
	return role + " " + c.coll
}

// checkAll runs the checks after step i; all: every client syncs (else a random half, so that
// deltas also span several steps).
func (w *world) checkAll(i int, all bool) {
	deadline := time.Now().Add(modelFreshness)
	for _, c := range w.clients {
		if all || w.rng.IntN(2) == 0 {
			w.converge(c, deadline)
		}
	}
	w.checkReplicasAgree(w.clients[w.rng.IntN(len(w.clients))], deadline)
	w.checkVarnish(deadline)
	w.checkModel(deadline)
	if i%5 == 0 {
		w.checkForged()
	}
}

// listing is one list answer: items by ID, the deleted IDs of a delta, the token; ok false when the
// answer was not a list.
type listing struct {
	items   map[int]json.RawMessage
	deleted []int
	token   string
	status  int
	code    string // the error's code, when not a list
}

// fetch reads every page of a client's list (with token: its delta) from a calshim as its role.
func (w *world) fetch(c *client, base, token string) listing {
	out := listing{items: map[int]json.RawMessage{}}
	q := c.query
	if token != "" {
		q += "&sync_token=" + neturl.QueryEscape(token)
	}
	for page := 1; ; page++ {
		r := call(w.t, http.MethodGet, base+v1+q+"&page="+strconv.Itoa(page), as(c.role), lenient)
		if page > 1 && r.status == http.StatusNotFound {
			return out
		}
		if r.status != http.StatusOK {
			out.status, out.code = r.status, str(at(r.body, "code"))
			return out
		}
		var body map[string]json.RawMessage
		var items []json.RawMessage
		var deleted []int
		if json.Unmarshal(r.raw, &body) != nil || json.Unmarshal(body[c.coll], &items) != nil {
			out.status = -1
			return out
		}
		_ = json.Unmarshal(body["deleted"], &deleted)
		out.deleted = append(out.deleted, deleted...)
		for _, it := range items {
			var head struct{ ID int }
			_ = json.Unmarshal(it, &head)
			out.items[head.ID] = hostless(it)
		}
		if page == 1 {
			out.token, out.status = r.header.Get("X-Calshim-Sync-Token"), r.status
			// A delta ahead of the calshim answers with the token it was given: not where it stands.
			if pos, n := tokenPos(out.token), len(w.stood[base]); pos >= 0 && out.token != token &&
				(n == 0 || w.stood[base][n-1] != pos) {
				w.stood[base] = append(w.stood[base], pos)
			}
		}
		pages, _ := strconv.Atoi(r.header.Get("X-TEC-TotalPages"))
		if page >= pages {
			return out
		}
	}
}

// tokenPos is a token's position in the change log (-1 when the token is not calshim's).
func tokenPos(token string) int64 {
	raw, _ := base64.RawURLEncoding.DecodeString(token)
	parts := strings.Split(string(raw), ".")
	if len(parts) != 4 {
		return -1
	}
	pos, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil {
		return -1
	}
	return pos
}

// between reports whether a client's token lies between two log rows of a post of its list that the
// client does not see on calshim base now, with no position base was seen standing at between them:
// one poll of base read both rows, so base never stood at the token nor read the post's state there
// (a gap, docs/features.md "Delta sync"). It tells which reason a 410 calshim_sync_token_unknown had.
func (w *world) between(c *client, base string) bool {
	t := tokenPos(c.token)
	if t < 0 {
		return false
	}
	r := call(w.t, http.MethodGet, wpJSON(fmt.Sprintf("/calshim/v1/changes/rows?since=%d&until=%d", max(0, t-500),
		t+500)), as("reader"), lenient)
	var page struct {
		Rows []struct {
			Seq  int64
			ID   int
			Type string
			Term bool
		}
	}
	if r.status != http.StatusOK || json.Unmarshal(r.raw, &page) != nil {
		return false
	}
	typ := map[string]string{"events": "tribe_events", "venues": "tribe_venue", "organizers": "tribe_organizer"}[c.coll]
	last, next := map[int]int64{}, map[int]int64{} // each post's last row up to t, first after it
	for _, row := range page.Rows {
		switch _, found := next[row.ID]; {
		case row.Term || row.Type != typ:
		case row.Seq <= t:
			last[row.ID] = row.Seq
		case !found:
			next[row.ID] = row.Seq
		}
	}
	shown := w.fetch(c, base, "").items
	for id, r1 := range last {
		r2, ok := next[id]
		if _, seen := shown[id]; ok && !seen &&
			!slices.ContainsFunc(w.stood[base], func(p int64) bool { return r1 <= p && p < r2 }) {
			return true
		}
	}
	return false
}

// relist gives a client a fresh full list and its token.
func (w *world) relist(c *client, target int) {
	l := w.fetch(c, w.targets[target], "")
	if l.status != http.StatusOK || l.token == "" {
		w.t.Fatalf("%s: list on calshim %d answered %d, token %q", c, target, l.status, l.token)
	}
	c.copy = l.items
	c.took(l.token, target, w.restarts)
}

// converge applies deltas to a client's copy until it equals a fresh list of the same calshim, or the
// deadline passes (a finding). A delta naming in deleted an ID the client never held is a finding.
func (w *world) converge(c *client, deadline time.Time) {
	target := w.rng.IntN(len(w.targets))
	base := w.targets[target]
	for {
		d := w.fetch(c, base, c.token)
		if d.status == http.StatusGone && d.code == "calshim_sync_token_unknown" {
			// The replica never held the state of a post the client does not see now at the token:
			// two rows of it read in one poll, which another replica may have shown between (a gap),
			// or a recent repair in place. 410 rather than a guess (docs/features.md, "Delta sync"):
			// counted, not a finding; every other 410 is one.
			w.unknown++
			w.t.Logf("step %d: %s: 410 calshim_sync_token_unknown on calshim %d for token %d (%s)", w.stepNo, c, target,
				tokenPos(c.token), map[bool]string{true: "between two rows of one of its polls",
					false: "no gap in the log rows around it: a repair nearby"}[w.between(c, base)])
			w.relist(c, target)
			return
		}
		if d.status == http.StatusGone { // a restarted replica too: its snapshot file keeps its journal
			w.note("token-expired", "%s: its own token (taken %s) answered 410 on calshim %d (tokens %v)", c,
				map[bool]string{true: "before a restart", false: "since the last restart"}[c.restarts != w.restarts], target,
				c.trail)
			w.relist(c, target)
			return
		}
		if d.status != http.StatusOK {
			w.note("delta-failed", "%s: delta on calshim %d answered %d", c, target, d.status)
			return
		}
		if len(d.items) > 0 || len(d.deleted) > 0 {
			c.trace(fmt.Sprintf("delta %d@%d: %v, deleted %v", tokenPos(c.token), target, slices.Sorted(maps.Keys(d.items)),
				d.deleted))
		}
		for _, id := range d.deleted {
			if _, held := c.copy[id]; !held {
				w.note("deleted-never-held", "%s: delta on calshim %d lists %d in deleted, never in the client's copy",
					c, target, id)
			}
			delete(c.copy, id)
		}
		for id, it := range d.items {
			c.copy[id] = it
		}
		c.took(d.token, target, c.restarts)
		fresh := w.fetch(c, base, "")
		diff := diffCopies(c.copy, fresh.items)
		if diff == "" {
			return
		}
		if time.Now().After(deadline) {
			w.note("delta-diverged", "%s on calshim %d: copy from deltas vs fresh list: %s (tokens %v)", c, target, diff,
				c.trail)
			w.relist(c, target)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// calshimHost is the address of a calshim or of Varnish in links (JSON-escaped or not).
var calshimHost = regexp.MustCompile(`127\.0\.0\.1:[0-9]+`)

// hostless is an answer with the links' address left out: each calshim and Varnish answer with
// their own in rest_url and the links.
func hostless(raw []byte) []byte { return calshimHost.ReplaceAll(raw, []byte("calshim")) }

// diffCopies says how a client's copy differs from a fresh list ("" when equal).
func diffCopies(have, want map[int]json.RawMessage) string {
	var out []string
	for id, it := range want {
		got, ok := have[id]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%d missing", id))
		case !bytes.Equal(got, it):
			out = append(out, fmt.Sprintf("%d differs (%s)", id, firstDiff(got, it)))
		}
	}
	for id := range have {
		if _, ok := want[id]; !ok {
			out = append(out, fmt.Sprintf("%d should be gone", id))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// firstDiff names the fields of two JSON objects that differ, with the copy's and the list's value.
func firstDiff(a, b json.RawMessage) string {
	var x, y map[string]json.RawMessage
	_ = json.Unmarshal(a, &x)
	_ = json.Unmarshal(b, &y)
	var out []string
	for k, v := range y {
		if !bytes.Equal(x[k], v) {
			out = append(out, fmt.Sprintf("%s: %.80s vs %.80s", k, x[k], v))
		}
	}
	slices.Sort(out)
	if len(out) > 2 {
		out = out[:2]
	}
	return strings.Join(out, ", ")
}

// checkReplicasAgree asks both replicas the same client token: once they answer the same next token
// (they stand at the same position), their deleted lists must be the same, and the items both send
// too (one may re-send a post it repaired from SQL lately that the other repaired before the token).
func (w *world) checkReplicasAgree(c *client, deadline time.Time) {
	for {
		a, b := w.fetch(c, w.targets[0], c.token), w.fetch(c, w.targets[1], c.token)
		if a.status == http.StatusOK && b.status == http.StatusOK && a.token == b.token {
			slices.Sort(a.deleted)
			slices.Sort(b.deleted)
			both := func(l listing) map[int]json.RawMessage {
				out := map[int]json.RawMessage{}
				for id, it := range l.items {
					if _, ok := a.items[id]; ok {
						if _, ok := b.items[id]; ok {
							out[id] = it
						}
					}
				}
				return out
			}
			if diff := diffCopies(both(a), both(b)); !slices.Equal(a.deleted, b.deleted) || diff != "" {
				w.note("replicas-disagree", "%s: one token, same position: deleted %v vs %v, items: %s", c,
					a.deleted, b.deleted, diff)
			}
			return
		}
		if time.Now().After(deadline) {
			return // they never stood at one position meanwhile (changes went on): nothing to compare
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkVarnish compares Varnish's anonymous answers with the edge calshim's own, and wants the
// calshim surrogate key on every answer a shared cache may keep.
func (w *world) checkVarnish(deadline time.Time) {
	paths := []string{"/wp-json/", v1 + modelQuery("events"), v1 + modelQuery("venues"), v1 + modelQuery("organizers")}
	for id, m := range w.events {
		if m != nil && m.status == "publish" {
			paths = append(paths, v1+"/events/"+strconv.Itoa(id))
		}
	}
	for _, p := range paths {
		for {
			direct := call(w.t, http.MethodGet, w.edge+p, lenient)
			if strings.Contains(direct.header.Get("Cache-Control"), "s-maxage") &&
				!slices.Contains(strings.Fields(direct.header.Get("xkey")), "calshim") {
				w.note("no-calshim-key", "%s is cacheable (%s) without the calshim key", p,
					direct.header.Get("Cache-Control"))
			}
			cached := call(w.t, http.MethodGet, w.varnish+p, lenient)
			if p == "/wp-json/" {
				break // its date defaults follow the clock: only its keys are checked
			}
			if cached.status == direct.status && bytes.Equal(hostless(cached.raw), hostless(direct.raw)) {
				break
			}
			if time.Now().After(deadline) {
				w.note("varnish-stale", "%s: Varnish answers %d %.120s, calshim %d %.120s", p, cached.status,
					cached.raw, direct.status, direct.raw)
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// checkModel wants the anonymous events list of every calshim to hold exactly the published events
// WordPress holds.
func (w *world) checkModel(deadline time.Time) {
	var want []int
	for id, m := range w.events {
		if m != nil && m.status == "publish" {
			want = append(want, id)
		}
	}
	slices.Sort(want)
	anon := &client{coll: "events", query: modelQuery("events")}
	for i, base := range w.targets {
		for {
			var got []int
			for id := range w.fetch(anon, base, "").items {
				got = append(got, id)
			}
			slices.Sort(got)
			if slices.Equal(got, want) {
				break
			}
			if time.Now().After(deadline) {
				w.note("model-mismatch", "calshim %d lists %v anonymously, WordPress has published %v", i, got, want)
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// checkForged sends tokens no calshim made: the right log and list at positions 0 and 1, which the
// anonymous client never stood at: the answer is 410, or a list without any deleted ID.
func (w *world) checkForged() {
	for _, c := range w.clients {
		if c.role != "" {
			continue
		}
		raw, err := base64.RawURLEncoding.DecodeString(c.token)
		parts := strings.Split(string(raw), ".")
		if err != nil || len(parts) != 4 {
			w.t.Fatalf("token %q is not calshim's format", c.token)
		}
		for _, pos := range []string{"0", "1"} {
			parts[2] = pos
			forged := base64.RawURLEncoding.EncodeToString([]byte(strings.Join(parts, ".")))
			for i, base := range w.targets {
				d := w.fetch(c, base, forged)
				if d.status != http.StatusGone && len(d.deleted) > 0 {
					w.note("forged-token-ids", "%s: a token forged at position %s answers %d with deleted %v on calshim %d",
						c, pos, d.status, d.deleted, i)
				}
			}
		}
	}
}
