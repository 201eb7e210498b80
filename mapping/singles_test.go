package mapping

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// Expected values below are the original's (The Events Calendar 6.17.2, WordPress 6.x, MariaDB with
// utf8mb4_unicode_520_ci) answers.

func TestEventLDLink(t *testing.T) {
	const home = "http://127.0.0.1:8881"
	for link, want := range map[string]string{
		home + "/event/opening-night-gala/":    home + "/event/opening-night-gala/",
		home + "/?post_type=tribe_events&p=39": home + "/?post_type=tribe_events&p=39%2F/",
		"http://example.com/?p=5&x=":           "http://example.com/?p=5&x=%2F/",
	} {
		if got := eventLDLink(link); got != want {
			t.Errorf("eventLDLink(%q) = %q, want %q", link, got, want)
		}
	}
}

func TestLinkedSearch(t *testing.T) {
	venue := &Post{Text: TextFields{Status: "publish", Title: "Café Zürich &#8211; Łódź",
		Content: "<p>Jazz club</p>"}.Pack(),
		ID: 1, Meta: NewMeta(map[string][]string{"_VenueCity": {"New York"}, "_VenueZip": {"10012"}})}
	keys := []string{"_VenueCity", "_VenueZip"}
	for search, want := range map[string]bool{
		"cafe":           true, // the collation compares "é" equal to "e"
		"CAFÉ":           true, // "É" is no fragment character: "caf" remains
		"zurich lodz":    true,
		"z\u00fcrich":    true,  // "z" and "rich"
		"jazz york":      false, // every fragment in one field
		"york new":       true,
		"@":              false,
		"0 jazz":         true,
		"10012":          true,
		"new-york":       false,
		"æ":              false,
		"trash-me-never": false,
	} {
		if got := NewLinkedSearch(search).Match(venue, keys); got != want {
			t.Errorf("search %q: %v, want %v", search, got, want)
		}
		derived := *venue
		DeriveLinked(&derived, keys)
		if got := NewLinkedSearch(search).Match(&derived, keys); got != want {
			t.Errorf("search %q in the derived text: %v, want %v", search, got, want)
		}
	}

	trashed := &Post{Text: TextFields{Status: "trash", Title: "Jazz"}.Pack(), ID: 3}
	if NewLinkedSearch("jazz").Match(trashed, nil) {
		t.Error("find_like skips trashed posts")
	}
}

// TestLinkedSearchFoldsOnce: a search over posts the catalog derived (DeriveLinked) reads their
// folded text and allocates nothing, whatever its size: the work of a search is a scan of bytes
// already folded, never a fold of every post's text per request.
func TestLinkedSearchFoldsOnce(t *testing.T) {
	for _, size := range []int{1 << 10, 1 << 20} {
		big := strings.Repeat("Café Ünïcode wörds ", size/20)
		p := &Post{Text: TextFields{Status: "draft", Title: big, Content: big}.Pack(), ID: 9,
			Meta: NewMeta(map[string][]string{"_VenueCity": {big}})}
		DeriveLinked(p, VenueSearchMeta)
		q := NewLinkedSearch("cafe unicode zzz")
		if a := testing.AllocsPerRun(3, func() { q.Match(p, VenueSearchMeta) }); a != 0 {
			t.Errorf("%d bytes of text: %.0f allocations per search, want none", size, a)
		}
	}
}

func TestByPostDate(t *testing.T) {
	post := func(id int, status, date string) *Post {
		return &Post{Text: TextFields{Status: status, Date: date}.Pack(), ID: id}
	}
	list := []*Post{post(5, "publish", "d1"), post(11, "draft", "d1"), post(9, "publish", "d1"),
		post(3, "publish", "d0"), post(20, "publish", "d2")}
	order := func(several bool) []int {
		l := slices.Clone(list)
		slices.SortFunc(l, ByPostDate(several))
		var out []int
		for _, p := range l {
			out = append(out, p.ID)
		}
		return out
	}
	if got, want := order(false), []int{20, 11, 9, 5, 3}; !slices.Equal(got, want) {
		t.Errorf("one status: %v, want %v", got, want)
	}

	if got, want := order(true), []int{20, 11, 5, 9, 3}; !slices.Equal(got, want) {
		t.Errorf("several statuses: %v, want %v", got, want)
	}

	l := slices.Clone(list)
	sort.Slice(l, func(i, j int) bool { return NewerFirst(l[i], l[j]) })
	for i, want := range order(false) {
		if l[i].ID != want {
			t.Fatalf("NewerFirst orders %d at %d, ByPostDate(false) %d", l[i].ID, i, want)
		}
	}
}

// A featured image ID of no attachment: get_featured_image still answers, with url false.
func TestImageOfUnknownAttachment(t *testing.T) {
	c, cat := newTestContext(true)
	p := cat.posts[17]
	p.FeaturedMedia = 99999
	got := string(EncodeJSON(c.Event(p)))
	for _, want := range []string{
		`"image":{"url":false,"id":99999,"extension":""}`, // the event's image
		`"image":false,"url"`,                             // its json_ld's
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in %.400s", want, got)
		}
	}
}

func TestChildTermUpLinkOrder(t *testing.T) {
	c, cat := newTestContext(false)
	got := string(EncodeJSON(c.TermLinks(cat.terms[3], "http://example.com/wp-json/")))
	want := `"up":[{"embeddable":true,"href":"http:\/\/example.com\/wp-json\/wp\/v2\/`
	if !strings.Contains(got, want) {
		t.Errorf("up link: %s", got)
	}
}

// An event without dates: its JSON-LD dates are the current UTC wall-clock time read in the event's
// zone (the original answered "2026-11-23T19:47:41-05:00" at 19:47:41 UTC).
func TestJSONLDDatesOfAnEventWithoutDates(t *testing.T) {
	c, cat := newTestContext(true)
	c.Now = func() time.Time { return time.Date(2026, 11, 23, 19, 47, 41, 0, time.UTC) }
	p := cat.posts[17]
	p.Meta = p.Meta.With("_EventStartDate")
	p.Meta = p.Meta.With("_EventEndDate")
	p.Meta = p.Meta.With("_EventTimezone")
	got := string(EncodeJSON(c.Event(p)))
	want := `"startDate":"2026-11-23T19:47:41-05:00","endDate":"2026-11-23T19:47:41-05:00"`
	if !strings.Contains(got, want) {
		t.Errorf("missing %s in %.600s", want, got)
	}
}

// A private post that the viewer may not read links plainly, as the original's url shows it to an
// author listing another user's private event: http://127.0.0.1:8881/?post_type=tribe_events&p=57.
func TestPrivatePermalinkByViewer(t *testing.T) {
	p := &Post{Text: TextFields{Type: "tribe_events", Status: "private",
		Link: "http://127.0.0.1:8881/event/board-meeting/"}.Pack(), ID: 57}
	c := &Context{Site: Site{Home: "http://127.0.0.1:8881"}}
	if got := c.permalink(p); got != "http://127.0.0.1:8881/?post_type=tribe_events&p=57" {
		t.Errorf("may not read: %s", got)
	}
	c.MayRead = func(*Post) bool { return true }
	if got := c.permalink(p); got != p.Link() {
		t.Errorf("may read: %s", got)
	}
}

// Event searches compare as the database's collation does: "é" finds every "e" (the original's
// search=é lists 32 of 32 events with an "e"), "CAFE" finds "Café".
func TestEventSearchFolds(t *testing.T) {
	p := &Post{Text: TextFields{Title: "Café Concert", Content: "<p>Jazz</p>"}.Pack()}
	for _, search := range []string{"é", "CAFE", "café"} {
		if !matchSearch(p, SearchWords(search), false) {
			t.Errorf("search %q does not find %q", search, p.Title())
		}
	}
	if matchSearch(p, SearchWords("ü"), false) {
		t.Error(`search "ü" finds a post without u`)
	}
}
