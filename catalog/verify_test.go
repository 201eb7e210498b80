package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"calshim/catalog"
	"calshim/internal/testkit/wpfake"
)

// The fake plugin's checksums: an object's digest is a hash of its wp/v2 rendering, a range's the
// XOR of its objects', split as the plugin splits ranges.

var sumBases = map[string][]string{
	"posts": {"tribe_events", "tribe_venue", "tribe_organizer"},
	"terms": {"tribe_events_cat", "tags"},
}

func (f *fakeFeed) digest(base string, id int) string {
	b, _ := json.Marshal(f.fake.Item(base, id))
	h := fnv.New64a()
	h.Write(b)
	return strconv.FormatUint(h.Sum64(), 16)
}

// addDigest adds an object's digest to the "digests" of a bulk page or a feed set.
func (f *fakeFeed) addDigest(set map[string]any, base string, id int) {
	d, _ := set["digests"].(map[string]string)
	if d == nil {
		d = map[string]string{}
		set["digests"] = d
	}
	d[strconv.Itoa(id)] = f.digest(base, id)
}

func (f *fakeFeed) checksumAnswer(w http.ResponseWriter, q url.Values) {
	kind := q.Get("kind")
	if kind == "options" {
		writeJSON(w, http.StatusOK, map[string]any{"options": map[string]string{}})
		return
	}
	type obj struct {
		base   string
		id     int
		digest uint64
	}
	var all []obj
	for _, base := range sumBases[kind] {
		for _, id := range f.fake.IDs(base) {
			d, _ := strconv.ParseUint(f.digest(base, id), 16, 64)
			all = append(all, obj{base, id, d})
		}
	}
	slices.SortFunc(all, func(a, b obj) int { return a.id - b.id })
	from, _ := strconv.Atoi(q.Get("from"))
	to := 0
	if len(all) > 0 {
		to = all[len(all)-1].id
	}
	if v := q.Get("to"); v != "" {
		to, _ = strconv.Atoi(v)
	}
	parts, _ := strconv.Atoi(q.Get("parts"))
	answer := map[string]any{"from": from, "to": to, "parts": parts}
	items, sums := []any{}, map[int][2]uint64{}
	for _, o := range all {
		if o.id < from || o.id > to {
			continue
		}
		items = append(items, map[string]any{"id": o.id, "type": o.base, "digest": fmt.Sprintf("%x", o.digest)})
		if parts > 0 {
			p := (o.id - from) * parts / (to - from + 1)
			sums[p] = [2]uint64{sums[p][0] + 1, sums[p][1] ^ o.digest}
		}
	}
	if q.Get("items") != "" {
		answer["items"] = items
	} else {
		ranges := []any{}
		for p, s := range sums {
			ranges = append(ranges, map[string]any{"part": p, "count": s[0], "digest": fmt.Sprintf("%x", s[1])})
		}
		answer["ranges"] = ranges
	}
	writeJSON(w, http.StatusOK, answer)
}

// checksumRequests counts the checksum requests by kind and form, and lists the bulk pages read.
func checksumRequests(fake *wpfake.Server) (ranges, listings map[string]int, bulk []string) {
	ranges, listings = map[string]int{}, map[string]int{}
	for _, r := range fake.Requests() {
		switch r.Path {
		case "/wp-json/calshim/v1/checksums":
			if r.Query.Get("items") != "" {
				listings[r.Query.Get("kind")]++
			} else {
				ranges[r.Query.Get("kind")]++
			}
		case "/wp-json/calshim/v1/bulk":
			bulk = append(bulk, r.Query.Get("type")+" "+r.Query.Get("from")+"-"+r.Query.Get("to"))
		}
	}
	return ranges, listings, bulk
}

// manyEvents adds n copies of an event with IDs from first on (above the recorded ones: the bulk
// load reads the fake's IDs in stored order as ascending).
func manyEvents(fake *wpfake.Server, first, n int) {
	model := fake.Item("tribe_events", fake.IDs("tribe_events")[0])
	objs := make([]wpfake.Object, n)
	for i := range objs {
		o := wpfake.Object{}
		for k, v := range model {
			o[k] = v
		}
		o["id"], o["slug"] = json.Number(strconv.Itoa(first+i)), "copy-"+strconv.Itoa(i)
		objs[i] = o
	}
	fake.AddMany("tribe_events", objs)
}

// manyVerified is a catalog of n (4,000) more events than the recorded ones, loaded, checking at
// every poll.
func manyVerified(t *testing.T, n int) (*wpfake.Server, *catalog.Catalog) {
	fake := wpfake.New(t)
	newFakeFeed(fake)
	manyEvents(fake, 30000, n)
	cat := newCatalog(t, fake, func(o *catalog.Options) { o.VerifyEvery = time.Nanosecond })
	if err := cat.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	return fake, cat
}

// One post changed around the change log among thousands: a check descends through the ranges that
// differ only, lists one leaf and refetches that one post; an idle check asks the top level only.
func TestVerifyDescendsIntoWhatDiffers(t *testing.T) {
	fake, cat := manyVerified(t, 4000)

	fake.ResetRequests()
	mustPoll(t, cat)
	ranges, listings, bulk := checksumRequests(fake)
	if ranges["posts"] != 1 || ranges["terms"] != 1 || len(listings) != 0 || len(bulk) != 0 {
		t.Errorf("idle check: ranges %v, listings %v, bulk %v; want the top level of each kind only",
			ranges, listings, bulk)
	}

	id := 32345
	fake.Update("tribe_events", id, func(o wpfake.Object) { calshimField(fake, o)["title"] = "Written by SQL" })
	fake.ResetRequests()
	snap := mustPoll(t, cat)
	if p, _ := snap.Post(id); p == nil || p.Title() != "Written by SQL" {
		t.Fatalf("post %d not repaired: %+v", id, p)
	}
	ranges, listings, bulk = checksumRequests(fake)
	// IDs up to 34,000 in 16 parts: the differing part holds about 2,000 posts; split twice more, its
	// differing part holds few enough (about 8) to list.
	if ranges["posts"] != 3 || listings["posts"] != 1 || ranges["terms"] != 1 || listings["terms"] != 0 {
		t.Errorf("check of one changed post: ranges %v, listings %v", ranges, listings)
	}
	if want := []string{"tribe_events 32345-32345"}; !slices.Equal(bulk, want) {
		t.Errorf("bulk pages read %v, want %v (the one post)", bulk, want)
	}
	if n := cat.Repaired("posts"); n != 1 {
		t.Errorf("repaired posts = %d, want 1", n)
	}

	fake.ResetRequests()
	mustPoll(t, cat)
	if ranges, listings, bulk := checksumRequests(fake); ranges["posts"] != 1 || len(listings)+len(bulk) != 0 {
		t.Errorf("check after the repair: ranges %v, listings %v, bulk %v", ranges, listings, bulk)
	}
}

// A large catalog is compared a slice of IDs per periodic check: each check asks one range of
// posts, the slices cover every ID once per round, and a post changed in any of them is repaired
// within one round.
func TestVerifyBySlices(t *testing.T) {
	defer func(n int) { *catalog.VerifySlice = n }(*catalog.VerifySlice)
	*catalog.VerifySlice = 1000
	fake, cat := manyVerified(t, 4000)
	id := 33999
	fake.Update("tribe_events", id, func(o wpfake.Object) { calshimField(fake, o)["title"] = "Written by SQL" })

	type bound struct{ from, to string } // to "": open
	var bounds []bound
	repairedAt := -1
	snap := cat.Snapshot()
	n := (len(snap.Events) + len(snap.Venues) + len(snap.Organizers) + 999) / 1000
	for poll := range n {
		fake.ResetRequests()
		snap := mustPoll(t, cat)
		for _, r := range fake.Requests() {
			if r.Path == "/wp-json/calshim/v1/checksums" && r.Query.Get("kind") == "posts" &&
				r.Query.Get("items") == "" && len(bounds) == poll {
				bounds = append(bounds, bound{r.Query.Get("from"), r.Query.Get("to")})
			}
		}
		if p, _ := snap.Post(id); repairedAt < 0 && p != nil && p.Title() == "Written by SQL" {
			repairedAt = poll
		}
	}
	if len(bounds) != n || n < 2 {
		t.Fatalf("top-level ranges asked %v, want one per check over %d checks", bounds, n)
	}
	if bounds[0].from != "0" || bounds[n-1].to != "" {
		t.Errorf("slices %v: the first must start at 0 and the last be open", bounds)
	}
	for i := 1; i < n; i++ {
		to, _ := strconv.Atoi(bounds[i-1].to)
		if from, _ := strconv.Atoi(bounds[i].from); from != to+1 {
			t.Errorf("slices %v: slice %d does not start where %d ended", bounds, i, i-1)
		}
	}
	if repairedAt < 0 {
		t.Errorf("post %d, changed by SQL, not repaired within %d checks (slices %v)", id, n, bounds)
	}
}

// Posts added and removed and a term renamed around the change log are repaired too.
func TestVerifyAddsRemovesAndRenames(t *testing.T) {
	fake := wpfake.New(t)
	newFakeFeed(fake)
	cat := newCatalog(t, fake, func(o *catalog.Options) { o.VerifyEvery = time.Nanosecond })
	if err := cat.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	gone := fake.IDs("tribe_venue")[0]
	fake.Delete("tribe_venue", gone)
	manyEvents(fake, 90000, 1)
	term := fake.IDs("tags")[0]
	fake.Update("tags", term, func(o wpfake.Object) { o["name"] = "Renamed by SQL" })

	snap := mustPoll(t, cat)
	if _, ok := snap.Post(gone); ok {
		t.Errorf("venue %d deleted by SQL still served", gone)
	}
	if _, ok := snap.Post(90000); !ok {
		t.Error("event inserted by SQL not served")
	}
	if tm, _ := snap.Term(term); tm == nil || tm.Name != "Renamed by SQL" {
		t.Errorf("term %d not renamed: %+v", term, tm)
	}
	if cat.Repaired("posts") != 2 || cat.Repaired("terms") != 1 {
		t.Errorf("repaired posts %d, terms %d; want 2, 1", cat.Repaired("posts"), cat.Repaired("terms"))
	}
}
