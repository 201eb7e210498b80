package mapping

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The plans of the event writes the original's own tests make (EventInsertionCest,
// EventUpdateCest; test/restv1_event_writes_test.go and test/write_compat_test.go send them to the
// real WordPress), checked on the plan alone.

// planPosts are the catalog of the plan tests: an event, a venue, a draft venue, two organizers (the
// second a draft).
func planPosts() map[int]*Post {
	post := func(id int, typ, status, title string, meta map[string][]string) *Post {
		return &Post{ID: id, Text: TextFields{Type: typ, Status: status, Title: title}.Pack(), Meta: NewMeta(meta)}
	}
	return map[int]*Post{
		10: post(10, "tribe_events", "publish", "Stored", map[string][]string{
			"_EventStartDate": {"2031-01-01 10:00:00"}, "_EventEndDate": {"2031-01-01 11:00:00"},
			"_EventTimezone": {"UTC"}, "_EventAllDay": {"yes"}, "_EventCost": {"5"},
			"_EventVenueID": {"20"}, "_EventOrganizerID": {"30", "31"}}),
		20: post(20, "tribe_venue", "publish", "Blue Note", nil),
		21: post(21, "tribe_venue", "draft", "Draft Hall", nil),
		30: post(30, "tribe_organizer", "publish", "Alice", nil),
		31: post(31, "tribe_organizer", "pending", "Bob", nil),
	}
}

func planState(limit int) WriteState {
	posts := planPosts()
	terms := map[bool]map[string]int{true: {"1": 1, "music": 1, "Music": 1}, false: {"2": 2, "jazz": 2}}
	return WriteState{
		Now: stNow, Location: time.UTC, SiteTimezone: "UTC", MultiDayCutoff: "00:00",
		Types: PostTypes{Event: "tribe_events", Venue: "tribe_venue", Organizer: "tribe_organizer",
			CategoryBase: "tribe_events_cat", TagBase: "tags"},
		CanPublish: true,
		Post:       func(id int) (*Post, bool) { p, ok := posts[id]; return p, ok },
		Term: func(h bool, item string) (int, bool) {
			if id, ok := terms[h][item]; ok {
				return id, true
			}
			if strings.Trim(item, "0123456789") == "" {
				return 0, true // an ID the catalog does not hold
			}
			return 0, false
		},
		Duplicate: func(postType, name, _ string) *Post {
			for _, p := range posts {
				if p.Type() == postType && strings.EqualFold(p.Title(), name) {
					return p
				}
			}
			return nil
		},
		KnownImage: func(v string) (int, bool) {
			if v == "7" {
				return 7, true
			}
			return 0, false
		},
		Limit: limit,
	}
}

func text(v string) Arg[string] { return Arg[string]{V: v, OK: true} }
func flag(v bool) Arg[bool]     { return Arg[bool]{V: v, OK: true} }
func list(v ...string) Arg[[]string] {
	if v == nil {
		v = []string{}
	}
	return Arg[[]string]{V: v, OK: true}
}

// cestEvent is the Cests' usual event: a title, content, 9 to 11 on a day.
func cestEvent() EventWrite {
	return EventWrite{Title: text("An event"), Description: text("An event content"),
		Start: text("2031-02-03 09:00"), End: text("2031-02-03 11:00")}
}

func TestPlanEventCreateFields(t *testing.T) {
	w := cestEvent()
	w.Excerpt, w.Author, w.Date = text("An excerpt"), Arg[int]{V: 4, OK: true}, text("2031-01-01 08:00")
	w.DateUTC, w.Website = text("2031-01-01 09:00"), text("http://example.com")
	w.Slug = text("") // empty values of fields that cannot be cleared are skipped
	plan := PlanEvent(w, nil, planState(40))

	wantFields := map[string]any{"title": "An event", "content": "An event content", "excerpt": "An excerpt",
		"author": 4, "status": "publish", "date": "2031-01-01T08:00:00", "date_gmt": "2031-01-01T09:00:00"}
	if !reflect.DeepEqual(plan.Save.Fields, wantFields) {
		t.Errorf("fields %v, want %v", plan.Save.Fields, wantFields)
	}
	wantSet := map[string]any{
		"_EventStartDate": "2031-02-03 09:00:00", "_EventEndDate": "2031-02-03 11:00:00",
		"_EventStartDateUTC": "2031-02-03 09:00:00", "_EventEndDateUTC": "2031-02-03 11:00:00",
		"_EventTimezone": "UTC", "_EventTimezoneAbbr": "UTC", "_EventDuration": "7200",
		"_EventShowMap": "", "_EventShowMapLink": "", "_EventURL": "http://example.com"}
	if !reflect.DeepEqual(plan.Save.Set, wantSet) {
		t.Errorf("meta %v, want %v", plan.Save.Set, wantSet)
	}
	if !reflect.DeepEqual(plan.Save.Delete, []string{"_EventAllDay"}) {
		t.Errorf("deleted %v, want _EventAllDay (TEC deletes it on create)", plan.Save.Delete)
	}
	if plan.Needs != 1 || len(plan.Steps) != 0 || plan.Refusal != nil || plan.After != nil {
		t.Errorf("plan %+v, want one save and nothing else", plan)
	}
}

func TestPlanEventDates(t *testing.T) {
	cases := []struct {
		name                 string
		start, end, tz       string
		allDay               bool
		wantStart, wantEnd   string
		wantUTCEnd, wantAbbr string
	}{
		{"natural language", "2031-02-03 9am", "2031-02-03 11am", "", false,
			"2031-02-03 09:00:00", "2031-02-03 11:00:00", "2031-02-03 11:00:00", "UTC"},
		{"time zone of the event", "2031-02-03 16:00", "2031-02-03 17:00", "Asia/Hong_Kong", false,
			"2031-02-03 16:00:00", "2031-02-03 17:00:00", "2031-02-03 09:00:00", "HKT"},
		{"all day", "2031-02-03 16:00", "2031-02-03 17:00", "", true,
			"2031-02-03 00:00:00", "2031-02-03 23:59:59", "2031-02-03 23:59:59", "UTC"},
		{"multiday all day", "2031-02-03", "2031-02-05", "", true,
			"2031-02-03 00:00:00", "2031-02-05 23:59:59", "2031-02-05 23:59:59", "UTC"},
	}
	for _, c := range cases {
		w := EventWrite{Start: text(c.start), End: text(c.end), AllDay: Arg[bool]{V: c.allDay, OK: c.allDay}}
		if c.tz != "" {
			w.Timezone = text(c.tz)
		}
		m := PlanEvent(w, nil, planState(40)).Save.Set
		got := []any{m["_EventStartDate"], m["_EventEndDate"], m["_EventEndDateUTC"], m["_EventTimezoneAbbr"]}
		want := []any{c.wantStart, c.wantEnd, c.wantUTCEnd, c.wantAbbr}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", c.name, got, want)
		}
		if c.allDay && m["_EventAllDay"] != "yes" {
			t.Errorf("%s: _EventAllDay %v, want yes", c.name, m["_EventAllDay"])
		}
	}
}

// TestPlanEventUpdate: only the fields given change; a new time zone alone re-reads the stored
// wall times; the status is kept when not given.
func TestPlanEventUpdate(t *testing.T) {
	st := planState(40)
	stored, _ := st.Post(10)
	plan := PlanEvent(EventWrite{Title: text("New")}, stored, st)
	if !reflect.DeepEqual(plan.Save.Fields, map[string]any{"title": "New"}) || len(plan.Save.Set) != 0 ||
		plan.Save.ID != 10 || plan.Save.Links != nil {
		t.Errorf("title alone: %+v", plan.Save)
	}

	plan = PlanEvent(EventWrite{Timezone: text("Europe/Rome")}, stored, st)
	m := plan.Save.Set
	if m["_EventStartDate"] != "2031-01-01 00:00:00" || m["_EventAllDay"] != "yes" ||
		m["_EventTimezone"] != "Europe/Rome" || m["_EventStartDateUTC"] != "2030-12-31 23:00:00" {
		t.Errorf("time zone alone: %v", m)
	}

	plan = PlanEvent(EventWrite{AllDay: flag(false)}, stored, st)
	if plan.Save.Set["_EventAllDay"] != "no" {
		t.Errorf("all day off on update: %v, want no", plan.Save.Set["_EventAllDay"])
	}
}

func TestPlanEventCost(t *testing.T) {
	cases := []struct {
		name   string
		cost   Arg[[]string]
		update bool
		set    map[string]any
		delete []string
	}{
		{"a string", list("20$"), false, map[string]any{"_EventCost": []string{"20$"},
			"_EventCurrencySymbol": "$", "_EventCurrencyPosition": "postfix"}, []string{"_EventAllDay"}},
		{"an array of values", list("0$", "20$", "30$"), false, map[string]any{
			"_EventCost": []string{"0$", "20$", "30$"}, "_EventCurrencySymbol": "$",
			"_EventCurrencyPosition": "postfix"}, []string{"_EventAllDay"}},
		{"no symbol on update", list("5"), true, map[string]any{"_EventCost": []string{"5"}},
			[]string{"_EventCurrencySymbol", "_EventCurrencyPosition"}},
		{"empty", list(), false, map[string]any{"_EventCost": []string{}}, []string{"_EventAllDay"}},
	}
	for _, c := range cases {
		st := planState(40)
		var p *Post
		if c.update {
			p, _ = st.Post(10)
		}
		save := PlanEvent(EventWrite{Cost: c.cost}, p, st).Save
		for k, v := range c.set {
			if !reflect.DeepEqual(save.Set[k], v) {
				t.Errorf("%s: %s = %#v, want %#v", c.name, k, save.Set[k], v)
			}
		}
		if !reflect.DeepEqual(save.Delete, c.delete) {
			t.Errorf("%s: deleted %v, want %v", c.name, save.Delete, c.delete)
		}
	}
}

// TestPlanEventFlags: presentation meta and the status scale-back (publishers get what they ask,
// others pending instead of publish, draft by default).
func TestPlanEventFlags(t *testing.T) {
	w := EventWrite{ShowMap: flag(true), ShowMapLink: flag(false), HideFromListings: flag(true),
		Featured: flag(false), Sticky: flag(true)}
	plan := PlanEvent(w, nil, planState(40))
	s := plan.Save
	if s.Set["_EventShowMap"] != "1" || s.Set["_EventShowMapLink"] != "" ||
		s.Set["_EventHideFromUpcoming"] != "yes" || s.Fields["menu_order"] != -1 ||
		!reflect.DeepEqual(s.Delete, []string{"_EventAllDay", "_tribe_featured"}) {
		t.Errorf("flags: %+v", s)
	}
	stick := []FollowUp{{Post: SavedRef, Write: PostWrite{Type: "tribe_events", Fields: map[string]any{"menu_order": -1}}}}
	if !reflect.DeepEqual(plan.After, stick) || plan.Needs != 2 {
		t.Errorf("a new sticky event: after %+v needs %d, want its second save", plan.After, plan.Needs)
	}
	if body := plan.After[0].Write.Body(nil); !reflect.DeepEqual(body, map[string]any{"menu_order": -1}) {
		t.Errorf("the sticky second save sends %v", body)
	}

	for _, c := range []struct {
		status     Arg[string]
		canPublish bool
		create     bool
		want       string
		ok         bool
	}{
		{Arg[string]{}, true, true, "publish", true}, {Arg[string]{}, false, true, "draft", true},
		{text("publish"), false, true, "pending", true}, {text("future"), false, false, "pending", true},
		{text("draft"), false, true, "draft", true}, {Arg[string]{}, true, false, "", false},
	} {
		if got, ok := ScaleStatus(c.status, c.canPublish, c.create); got != c.want || ok != c.ok {
			t.Errorf("ScaleStatus(%v, %v, %v) = %q %v, want %q %v", c.status, c.canPublish, c.create,
				got, ok, c.want, c.ok)
		}
	}
}

// TestPlanEventEndBeforeStart: the wall end moves to the start, the UTC end given is stored again.
func TestPlanEventEndBeforeStart(t *testing.T) {
	plan := PlanEvent(EventWrite{Start: text("2031-02-03 11:00"), End: text("2031-02-03 09:00")}, nil,
		planState(40))
	if plan.Save.Set["_EventEndDate"] != plan.Save.Set["_EventStartDate"] || len(plan.After) != 1 ||
		plan.After[0].Post != SavedRef || plan.After[0].IfDraft {
		t.Fatalf("end before start: %v, after %+v", plan.Save.Set, plan.After)
	}
	body := plan.After[0].Write.Body(nil)
	if !reflect.DeepEqual(body, map[string]any{"meta": map[string]any{"_EventEndDateUTC": "2031-02-03 09:00:00"}}) {
		t.Errorf("the UTC end's second save sends %v", body)
	}
}

func TestPlanEventImage(t *testing.T) {
	cases := []struct {
		image string
		want  *Ref
		steps []Step
	}{
		{"7", &Ref{ID: 7}, nil},
		{"", &NoRef, nil},
		{"http://example.com/a.png", &Ref{Step: 0}, []Step{{ImageURL: "http://example.com/a.png"}}},
	}
	for _, c := range cases {
		plan := PlanEvent(EventWrite{Image: text(c.image)}, nil, planState(40))
		if !reflect.DeepEqual(plan.Save.Image, c.want) || !reflect.DeepEqual(plan.Steps, c.steps) ||
			plan.Needs != 1+len(c.steps) {
			t.Errorf("image %q: %v %v needs %d", c.image, plan.Save.Image, plan.Steps, plan.Needs)
		}
	}
}

// TestPlanEventTerms: IDs, slugs and names of existing terms, unknown IDs skipped, new names created
// once however often given, empty removes them all.
func TestPlanEventTerms(t *testing.T) {
	w := EventWrite{Categories: list("1", "Music", "99", "New", "New"), Tags: list("jazz", "New")}
	plan := PlanEvent(w, nil, planState(40))
	want := map[string][]Ref{
		"tribe_events_cat": {{ID: 1}, {ID: 1}, {Step: 0}, {Step: 0}},
		"tags":             {{ID: 2}, {Step: 1}},
	}
	named := map[string]any{"name": "New"}
	steps := []Step{{Term: &TermPlan{Base: "tribe_events_cat", Fields: named}},
		{Term: &TermPlan{Base: "tags", Fields: named}}}
	if !reflect.DeepEqual(plan.Save.Terms, want) || !reflect.DeepEqual(plan.Steps, steps) || plan.Needs != 3 {
		t.Errorf("terms %v steps %v needs %d", plan.Save.Terms, plan.Steps, plan.Needs)
	}

	plan = PlanEvent(EventWrite{Tags: list()}, nil, planState(40))
	if refs, ok := plan.Save.Terms["tags"]; !ok || len(refs) != 0 {
		t.Errorf("empty tags: %v, want an empty assignment", plan.Save.Terms)
	}
}

// TestPlanEventLinks: the venue and organizers by ID, {id} object or payload, and the shapes the
// original refuses, after the steps before them.
func TestPlanEventLinks(t *testing.T) {
	id := func(s string) LinkItem { return LinkItem{ID: s, HasID: true} }
	obj := func(s string) LinkItem { return LinkItem{Object: true, ID: s, HasID: true} }
	payload := func(name string) LinkItem {
		return LinkItem{Object: true, Name: name, Payload: LinkedWrite{Name: text(name)}}
	}
	links := func(items ...LinkItem) Links { return Links{Given: true, Items: items} }
	cases := []struct {
		name       string
		venue, org Links
		links      map[string][]Ref
		steps      int
		needs      int
		refusal    string
	}{
		{"existing venue", links(id("20")), Links{}, map[string][]Ref{"_EventVenueID": {{ID: 20}}}, 0, 1, ""},
		{"venue object", links(obj("20")), Links{}, map[string][]Ref{"_EventVenueID": {{ID: 20}}}, 0, 1, ""},
		{"venue payload", links(LinkItem{Object: true, Name: "White House"}), Links{},
			map[string][]Ref{"_EventVenueID": {{Step: 0}}}, 1, 3, ""}, // search, create, save
		{"venue payload of a known name", links(LinkItem{Object: true, Name: "blue note"}), Links{},
			map[string][]Ref{"_EventVenueID": {{Step: 0}}}, 1, 1, ""},
		{"venue list", Links{Given: true, Malformed: true}, Links{}, nil, 0, 1, "could-not-create-venue"},
		{"venue of another type", links(id("30")), Links{}, nil, 0, 1, "could-not-create-venue"},
		{"venue object of another type", links(obj("30")), Links{}, nil, 0, 1, "invalid-linked-post-id"},
		{"venue payload without name", links(LinkItem{Object: true}), Links{}, nil, 0, 1,
			"could-not-create-venue"},
		{"organizers", Links{}, links(id("30"), obj("31"), payload("Carol"), payload("carol")),
			map[string][]Ref{"_EventOrganizerID": {{ID: 30}, {ID: 31}, {Step: 0}, {Step: 1}}}, 2, 6, ""}, // and the pending one published
		{"no organizers", Links{}, links(), map[string][]Ref{"_EventOrganizerID": {}}, 0, 1, ""},
		{"organizer CSV", Links{}, Links{Given: true, Malformed: true}, nil, 0, 1, "could-not-create-organizer"},
		{"refused part way, counted whole", Links{}, links(payload("Dan"), id("20"), payload("Eve")),
			nil, 1, 5, "could-not-create-organizer"},
		{"a payload given again is one step", Links{}, links(payload("Carol"), payload("Carol"), payload("Carol")),
			map[string][]Ref{"_EventOrganizerID": {{Step: 0}, {Step: 0}, {Step: 0}}}, 1, 3, ""},
	}
	for _, c := range cases {
		plan := PlanEvent(EventWrite{Venue: c.venue, Organizers: c.org}, nil, planState(40))
		refusal := ""
		if plan.Refusal != nil {
			refusal = plan.Refusal.Code
		}
		if refusal != c.refusal || len(plan.Steps) != c.steps || plan.Needs != c.needs ||
			c.refusal == "" && !reflect.DeepEqual(plan.Save.Links, c.links) {
			t.Errorf("%s: links %v steps %d needs %d refusal %q", c.name, plan.Save.Links,
				len(plan.Steps), plan.Needs, refusal)
		}
	}
}

// TestPlanEventCostsUpdatesOfExisting: payloads naming a venue or organizer the catalog holds save
// onto it; each distinct one with meta is a request counted before the first is sent, so a write
// naming one existing organizer thousands of times with other fields is refused whole.
func TestPlanEventCostsUpdatesOfExisting(t *testing.T) {
	var items []LinkItem
	for i := range 2000 {
		w := LinkedWrite{Name: text("Alice"), Phone: text(strconv.Itoa(i))}
		items = append(items, LinkItem{Object: true, Name: "Alice", Payload: w})
	}
	plan := PlanEvent(EventWrite{Organizers: Links{Given: true, Items: items}}, nil, planState(40))
	if plan.Needs <= 40 {
		t.Errorf("2,000 saves onto an existing organizer: needs %d, within the limit of 40", plan.Needs)
	}

	same := []LinkItem{items[0], items[0], items[0]}
	plan = PlanEvent(EventWrite{Organizers: Links{Given: true, Items: same}}, nil, planState(40))
	if plan.Needs != 2 || len(plan.Steps) != 1 {
		t.Errorf("one payload thrice: needs %d in %d steps, want 2 in 1", plan.Needs, len(plan.Steps))
	}
}

// TestPlanEventPublishesDrafts: a published event publishes its draft venue and organizers, given
// or stored; each counts one request.
func TestPlanEventPublishesDrafts(t *testing.T) {
	st := planState(40)
	w := EventWrite{Status: text("publish"), Venue: Links{Given: true, Items: []LinkItem{{ID: "21", HasID: true}}}}
	published := func(plan EventPlan) []Ref {
		var refs []Ref
		for _, f := range plan.After {
			if f.IfDraft && reflect.DeepEqual(f.Write.Body(nil), map[string]any{"status": "publish"}) {
				refs = append(refs, f.Post)
			}
		}
		return refs
	}
	plan := PlanEvent(w, nil, st)
	if !reflect.DeepEqual(published(plan), []Ref{{ID: 21}}) || plan.Needs != 2 {
		t.Errorf("given draft venue: publish %v needs %d", published(plan), plan.Needs)
	}

	stored, _ := st.Post(10)
	plan = PlanEvent(EventWrite{Status: text("publish")}, stored, st)
	if !reflect.DeepEqual(published(plan), []Ref{{ID: 20}, {ID: 30}, {ID: 31}}) || plan.Needs != 2 {
		t.Errorf("stored links: publish %v needs %d, want the pending organizer counted", published(plan), plan.Needs)
	}

	if plan = PlanEvent(EventWrite{Status: text("draft")}, stored, st); plan.After != nil {
		t.Errorf("draft event: after %v", plan.After)
	}
}

// TestPlanEventLimit: past the limit planning stops, the count past it.
func TestPlanEventLimit(t *testing.T) {
	names := make([]string, 1000)
	for i := range names {
		names[i] = "tag" + strings.Repeat("x", i)
	}
	plan := PlanEvent(EventWrite{Tags: list(names...)}, nil, planState(5))
	if plan.Needs != 6 || len(plan.Steps) != 5 {
		t.Errorf("needs %d, %d steps; want 6 and 5", plan.Needs, len(plan.Steps))
	}
}

// FuzzPlanEvent: any arguments that reach the plan give a plan, never a panic, within the limit.
func FuzzPlanEvent(f *testing.F) {
	f.Add("2031-02-03 9am", "tomorrow", "Europe/Rome", "5$", "New,music", "20", true)
	f.Fuzz(func(t *testing.T, start, end, tz, cost, tags, venue string, object bool) {
		w := EventWrite{Start: text(start), End: text(end), Timezone: text(tz), Cost: list(cost),
			Tags: list(strings.Split(tags, ",")...), Status: text("publish"),
			Venue: Links{Given: true, Items: []LinkItem{{Object: object, ID: venue, HasID: !object, Name: venue}}}}
		st := planState(5)
		stored, _ := st.Post(10)
		for _, p := range []*Post{nil, stored} {
			if plan := PlanEvent(w, p, st); len(plan.Steps) > st.Limit+1 {
				t.Fatalf("%d steps past the limit", len(plan.Steps))
			}
		}
	})
}

// A removed featured image is 0 on the wire whatever the steps before the save gave: an event
// write with image "" and a new category sent the category's ID as featured_media.
func TestSaveBodyRemovesImage(t *testing.T) {
	none := NoRef
	w := PostWrite{Fields: map[string]any{}, Image: &none,
		Terms: map[string][]Ref{"tribe_events_cat": {{Step: 0}}}}
	body := w.Body([]int{77})
	if body["featured_media"] != 0 {
		t.Errorf("featured_media = %v, want 0", body["featured_media"])
	}
	if cats, _ := body["tribe_events_cat"].([]int); len(cats) != 1 || cats[0] != 77 {
		t.Errorf("categories = %v, want [77]", body["tribe_events_cat"])
	}
}
