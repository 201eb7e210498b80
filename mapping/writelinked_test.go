package mapping

import (
	"reflect"
	"testing"
)

// The plans of the venue and organizer writes of the original's Venue and Organizer Insertion and
// Update Cests and of calshim's compatibility tests (test/restv1_linked_writes_test.go and
// test/write_compat_test.go send them to the real WordPress), checked on the plan alone.

// cestVenueMeta is it_should_allow_inserting_optional_meta's venue.
func cestVenueMeta() LinkedWrite {
	return LinkedWrite{Venue: true, Name: text("Cest Venue"), ShowMap: text("false"),
		ShowMapLink: text("false"), Address: text("Venue address"), City: text("Venue city"),
		Country: text("Venue country"), Province: text("Venue province"), State: text("Venue state"),
		Zip: text("Venue zip"), Phone: text("Venue phone"), StateProvince: text("Venue stateprovince"),
		Website: text("venue.com")}
}

// emptyVenueMeta is ..._optional_meta_as_empty's venue: the map flags off, every other field "".
func emptyVenueMeta() LinkedWrite {
	e := text("")
	return LinkedWrite{Venue: true, ShowMap: text("false"), ShowMapLink: text("false"), Address: e,
		City: e, Country: e, Province: e, State: e, Zip: e, Phone: e, StateProvince: e, Website: e}
}

func TestPlanLinked(t *testing.T) {
	venue := planPosts()[20]
	venue.Meta = NewMeta(map[string][]string{"_VenueState": {"IL"}, "_VenueCountry": {"United States"}})
	mapsOn := map[string]any{"_VenueShowMap": "1", "_EventShowMap": "1", "_VenueShowMapLink": "1",
		"_EventShowMapLink": "1"}
	mapsOff := map[string]any{"_VenueShowMap": "false", "_EventShowMap": "false",
		"_VenueShowMapLink": "false", "_EventShowMapLink": "false"}
	with := func(m map[string]any, kv ...any) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	allMeta := with(mapsOff, "_VenueAddress", "Venue address", "_VenueCity", "Venue city",
		"_VenueCountry", "Venue country", "_VenueProvince", "Venue province", "_VenueState", "Venue state",
		"_VenueZip", "Venue zip", "_VenuePhone", "Venue phone", "_VenueURL", "http://venue.com",
		"_VenueStateProvince", "Venue stateprovince")
	allKeys := []string{"_VenueAddress", "_VenueCity", "_VenueCountry", "_VenueProvince", "_VenueState",
		"_VenueZip", "_VenuePhone", "_VenueURL"}
	cases := []struct {
		name string
		w    LinkedWrite
		p    *Post
		want PostWrite
	}{
		{"venue insertion", LinkedWrite{Venue: true, Name: text("Cest Venue")}, nil,
			PostWrite{Type: "tribe_venue", Fields: map[string]any{"title": "Cest Venue", "slug": "Cest Venue",
				"status": "publish"}, Set: with(mapsOn, "_VenueStateProvince", "")}},
		{"organizer post fields", LinkedWrite{Name: text("Cest Organizer"), Author: Arg[int]{V: 3, OK: true},
			Description: text("Organizer description"), Status: text("draft"),
			Date: text("2031-02-03 09:00:00"), DateUTC: text("2031-02-03 14:00:00")}, nil,
			PostWrite{Type: "tribe_organizer", Fields: map[string]any{"title": "Cest Organizer",
				"slug": "Cest Organizer", "content": "Organizer description", "author": 3, "status": "draft",
				"date": "2031-02-03T09:00:00", "date_gmt": "2031-02-03T14:00:00"}, Set: map[string]any{}}},
		{"venue optional meta", cestVenueMeta(), nil, PostWrite{Type: "tribe_venue", Fields: map[string]any{
			"title": "Cest Venue", "slug": "Cest Venue", "status": "publish"}, Set: allMeta}},
		{"venue optional meta as empty on insertion", emptyVenueMeta(), nil, PostWrite{Type: "tribe_venue",
			Fields: map[string]any{"status": "publish"}, Set: with(mapsOff, "_VenueStateProvince", "")}},
		{"organizer optional meta", LinkedWrite{Name: text("O"), Email: text("john@company.com"),
			Phone: text("Organizer phone"), Website: text("http://organizer.com")}, nil,
			PostWrite{Type: "tribe_organizer", Fields: map[string]any{"title": "O", "slug": "O",
				"status": "publish"}, Set: map[string]any{"_OrganizerEmail": "john@company.com",
				"_OrganizerPhone": "Organizer phone", "_OrganizerWebsite": "http://organizer.com"}}},
		{"venue update of nothing", LinkedWrite{Venue: true}, venue,
			PostWrite{Type: "tribe_venue", ID: 20, Fields: map[string]any{}, Set: map[string]any{}}},
		{"venue update of its state", LinkedWrite{Venue: true, State: text("CA")}, venue,
			PostWrite{Type: "tribe_venue", ID: 20, Fields: map[string]any{},
				Set: map[string]any{"_VenueState": "CA", "_VenueStateProvince": "CA"}}},
		{"venue optional meta as empty on update", emptyVenueMeta(), venue, PostWrite{Type: "tribe_venue",
			ID: 20, Fields: map[string]any{}, Set: mapsOff,
			Delete: append(append([]string{}, allKeys...), "_VenueStateProvince")}},
		{"organizer optional meta as empty on update", LinkedWrite{Email: text(""), Phone: text(""),
			Website: text("")}, planPosts()[30], PostWrite{Type: "tribe_organizer", ID: 30,
			Fields: map[string]any{}, Set: map[string]any{},
			Delete: []string{"_OrganizerPhone", "_OrganizerWebsite", "_OrganizerEmail"}}},
		{"publish asked by a contributor", LinkedWrite{Name: text("O"), Status: text("publish")}, nil,
			PostWrite{Type: "tribe_organizer", Fields: map[string]any{"title": "O", "slug": "O",
				"status": "pending"}, Set: map[string]any{}}},
	}
	for _, c := range cases {
		st := planState(40)
		st.CanPublish = c.name != "publish asked by a contributor"
		plan := PlanLinked(c.w, c.p, st)
		if !reflect.DeepEqual(plan.Save, c.want) || len(plan.Steps) != 0 ||
			(plan.Duplicate == nil) != (c.p != nil) {
			t.Errorf("%s:\n got %+v dup %+v\nwant %+v", c.name, plan.Save, plan.Duplicate, c.want)
		}
	}
}

// TestPlanLinkedDuplicate: a create's save onto a duplicate (TestWriteVenueDuplicateAsOriginal, the
// Cests' duplicate-avoiding examples): the meta given, empty values cleared, the map flags on unless
// given off, the state/province from what is given; no post fields.
func TestPlanLinkedDuplicate(t *testing.T) {
	w := LinkedWrite{Venue: true, Name: text(" compat dup hall "), Description: text("D1"),
		Phone: text("999"), Zip: text("")}
	plan := PlanLinked(w, nil, planState(40))
	want := &DuplicateWrite{Name: "compat dup hall", Description: "D1", Save: PostWrite{Type: "tribe_venue",
		Fields: map[string]any{}, Set: map[string]any{"_VenuePhone": "999", "_VenueShowMap": "1",
			"_EventShowMap": "1", "_VenueShowMapLink": "1", "_EventShowMapLink": "1",
			"_VenueStateProvince": ""}, Delete: []string{"_VenueZip"}}}
	if !reflect.DeepEqual(plan.Duplicate, want) {
		t.Errorf("duplicate %+v, want %+v", plan.Duplicate, want)
	}
	if _, zip := plan.Save.Set["_VenueZip"]; zip || len(plan.Save.Delete) != 0 {
		t.Errorf("create %+v: an empty value is skipped", plan.Save)
	}
}

// TestPlanLinkedImage: an image ID or URL is resolved first (then onto the duplicate too), "" removes
// it.
func TestPlanLinkedImage(t *testing.T) {
	for _, v := range []string{"7", "http://example.com/stage.jpg"} {
		plan := PlanLinked(LinkedWrite{Name: text("O"), Image: text(v)}, nil, planState(40))
		if !reflect.DeepEqual(plan.Steps, []Step{{ImageURL: v}}) || *plan.Save.Image != (Ref{Step: 0}) ||
			plan.Duplicate.Save.Image != plan.Save.Image {
			t.Errorf("image %q: steps %v image %v", v, plan.Steps, plan.Save.Image)
		}
	}
	plan := PlanLinked(LinkedWrite{Image: text("")}, planPosts()[30], planState(40))
	if len(plan.Steps) != 0 || plan.Save.Image == nil || *plan.Save.Image != NoRef {
		t.Errorf("no image: steps %v image %v", plan.Steps, plan.Save.Image)
	}
}

// TestPlanEventNestedPayload: a venue an event creates from a payload is the venue write's own plan,
// a step of the event's.
func TestPlanEventNestedPayload(t *testing.T) {
	payload := LinkedWrite{Venue: true, Name: text("White House"), City: text("Washington")}
	w := EventWrite{Venue: Links{Given: true, Items: []LinkItem{{Object: true, Name: "White House",
		Payload: payload}}}}
	plan := PlanEvent(w, nil, planState(40))
	want := PlanLinked(payload, nil, planState(40))
	if len(plan.Steps) != 1 || !reflect.DeepEqual(plan.Steps[0].Linked, &want) {
		t.Errorf("steps %+v, want the venue's plan %+v", plan.Steps, want)
	}
}

// TestPlanUnlink: trashing a venue or organizer unlinks it from the published events the caller may
// edit that name it (a row written "007" too), the first page of them; the whole key goes.
func TestPlanUnlink(t *testing.T) {
	event := func(id int, status string, rows ...string) *Post {
		return &Post{ID: id, Text: TextFields{Type: "tribe_events", Status: status}.Pack(),
			Meta: NewMeta(map[string][]string{"_EventOrganizerID": rows})}
	}
	events := []*Post{event(1, "publish", "7", "8"), event(2, "draft", "7"), event(3, "publish", "8"),
		event(4, "publish", "007"), event(5, "publish", "7"), event(6, "publish", "7")}
	mayEdit := func(p *Post) bool { return p.ID != 5 }
	for perPage, want := range map[int][]int{10: {1, 4, 6}, 2: {1, 4}, 0: nil} {
		var got []int
		for _, w := range PlanUnlink(events, 7, "_EventOrganizerID", perPage, mayEdit) {
			got = append(got, w.ID)
			body := w.Body(nil)
			if w.Type != "tribe_events" || !reflect.DeepEqual(body, map[string]any{"meta": map[string]any{"_EventOrganizerID": []string{}}}) {
				t.Errorf("event %d: %s %v", w.ID, w.Type, body)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("per page %d: unlinked %v, want %v", perPage, got, want)
		}
	}
}
