package mapping

import (
	"strings"
	"testing"
)

// member returns the encoding of one member of an object, "<absent>" when it is missing.
func member(o Object, key string) string {
	v, ok := o.Get(key)
	if !ok {
		return "<absent>"
	}
	return string(EncodeJSON(v))
}

// bareEvent returns an event post with the given meta, linked to nothing.
func bareEvent(id int, kv ...string) *Post {
	return withMeta(event(id, "e", "E", "10:00:00", "15:00:00", "2026-07-04 12:00:00", "2026-07-04 13:00:00",
		"2026-07-04 16:00:00", "2026-07-04 17:00:00", "America/New_York", "EDT"), kv...)
}

func TestEventMembers(t *testing.T) {
	tests := []struct {
		name  string
		post  func() *Post
		key   string
		want  string
		setup func(*Context)
	}{
		{"venue: none", func() *Post { return bareEvent(100) }, "venue", `[]`, nil},
		{"venue: dangling ID", func() *Post { return bareEvent(100, "_EventVenueID", "999") }, "venue", `[]`, nil},
		{"venue: 0 row", func() *Post { return bareEvent(100, "_EventVenueID", "0") }, "venue", `[]`, nil},
		{"venue: several (Pro) → list", func() *Post {
			return bareEvent(100, "_EventVenueID", "9", "_EventVenueID", "999", "_EventVenueID", "8")
		},
			"venue", `[{"id":9,`, nil},
		{"organizer: none", func() *Post { return bareEvent(100) }, "organizer", `[]`, nil},
		{"organizer: dangling skipped, row order kept", func() *Post {
			return bareEvent(100, "_EventOrganizerID", "15", "_EventOrganizerID", "999", "_EventOrganizerID", "14")
		}, "organizer", `[{"id":15,`, nil},
		{"categories: none", func() *Post { return bareEvent(100) }, "categories", `[]`, nil},
		{"all_day yes", func() *Post { return bareEvent(100, "_EventAllDay", "yes") }, "all_day", `true`, nil},
		{"all_day 1", func() *Post { return bareEvent(100, "_EventAllDay", "1") }, "all_day", `true`, nil},
		{"all_day no", func() *Post { return bareEvent(100, "_EventAllDay", "no") }, "all_day", `false`, nil},
		{"show_map absent", func() *Post { p := bareEvent(100); p.Meta = p.Meta.With("_EventShowMap"); return p }, "show_map", `true`, nil},
		{"show_map first row only", func() *Post { return withMeta(bareEvent(100), "_EventShowMap", "1") }, "show_map", `false`, nil},
		{"show_map 0", func() *Post { p := bareEvent(100); p.Meta = p.Meta.With("_EventShowMap", "0"); return p }, "show_map", `false`, nil},
		{"show_map PHP cast: \"false\" is true", func() *Post { p := bareEvent(100); p.Meta = p.Meta.With("_EventShowMap", "false"); return p }, "show_map", `true`, nil},
		{"hide_from_listings yes", func() *Post { return bareEvent(100, "_EventHideFromUpcoming", "yes") }, "hide_from_listings", `true`, nil},
		{"hide_from_listings 1", func() *Post { return bareEvent(100, "_EventHideFromUpcoming", "1") }, "hide_from_listings", `false`, nil},
		{"featured 1", func() *Post { return bareEvent(100, "_tribe_featured", "1") }, "featured", `true`, nil},
		{"featured 1.0", func() *Post { return bareEvent(100, "_tribe_featured", "1.0") }, "featured", `true`, nil},
		{"featured yes", func() *Post { return bareEvent(100, "_tribe_featured", "yes") }, "featured", `false`, nil},
		{"featured 0", func() *Post { return bareEvent(100, "_tribe_featured", "0") }, "featured", `false`, nil},
		{"sticky -1", func() *Post { p := bareEvent(100); p.MenuOrder = -1; return p }, "sticky", `true`, nil},
		{"sticky -2", func() *Post { p := bareEvent(100); p.MenuOrder = -2; return p }, "sticky", `false`, nil},
		{"website absent: permalink", func() *Post { return bareEvent(100) }, "website", `"http:\/\/127.0.0.1:8881\/event\/e\/"`, nil},
		{"website empty", func() *Post { return bareEvent(100, "_EventURL", "") }, "website", `""`, nil},
		{"website escaped", func() *Post { return bareEvent(100, "_EventURL", "http://a.example/?x=1&y=2") }, "website",
			`"http:\/\/a.example\/?x=1&amp;y=2"`, nil},
		{"missing start date: null, epoch details", func() *Post { p := bareEvent(100); p.Meta = p.Meta.With("_EventStartDate"); return p },
			"start_date", `null`, nil},
		{"lineage rows appended", func() *Post { return bareEvent(100, "_tribe_aggregator_global_id_lineage", "other.example?id=7") },
			"global_id_lineage", `["127.0.0.1?id=100","other.example?id=7"]`, nil},
		{"custom fields: none", func() *Post { return bareEvent(100) }, "custom_fields", `[]`, nil},
		{"custom fields: non-empty ones", func() *Post { return bareEvent(100, "_ecp_custom_2", "Black tie", "_ecp_custom_3", "0") },
			"custom_fields", `{"_ecp_custom_2":{"label":"Dress code","value":"Black tie"}}`,
			func(c *Context) {
				c.CustomFields = []CustomField{{"_ecp_custom_2", "Dress code"}, {"_ecp_custom_3", "Seats"}, {"_ecp_custom_4", "Other"}}
			}},
		{"rest_url from Base", func() *Post { return bareEvent(100) }, "rest_url", `"http:\/\/127.0.0.1:8881\/wp-json\/tribe\/events\/v1\/events\/100"`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestContext(false)
			if tc.setup != nil {
				tc.setup(c)
			}
			got := member(c.Event(tc.post()), tc.key)
			if !strings.HasPrefix(got, tc.want) {
				t.Errorf("%s = %s, want %s", tc.key, got, tc.want)
			}
		})
	}
}

func TestEventKeyOrderIsFixed(t *testing.T) {
	want := "id global_id global_id_lineage author status date date_utc modified modified_utc url rest_url title " +
		"description excerpt slug image all_day start_date start_date_details end_date end_date_details utc_start_date " +
		"utc_start_date_details utc_end_date utc_end_date_details timezone timezone_abbr cost cost_details website " +
		"show_map show_map_link hide_from_listings sticky featured categories tags venue organizer custom_fields"
	c, _ := newTestContext(false)
	if got := strings.Join(keys(c.Event(&Post{ID: 1, Meta: Meta{}})), " "); got != want {
		t.Errorf("keys of an empty event:\n  %s\nwant\n  %s", got, want)
	}
}

func TestEventJSONLD(t *testing.T) {
	tests := []struct {
		name string
		post func() *Post
		key  string
		want string
	}{
		{"DST date: July in New York", func() *Post { return bareEvent(100) }, "startDate", `"2026-07-04T12:00:00-04:00"`},
		{"pseudo zone", func() *Post { p := bareEvent(100); p.Meta = p.Meta.With("_EventTimezone", "UTC+5.5"); return p },
			"startDate", `"2026-07-04T12:00:00+05:30"`},
		{"no zone: site zone", func() *Post { p := bareEvent(100); p.Meta = p.Meta.With("_EventTimezone"); return p },
			"endDate", `"2026-07-04T13:00:00-04:00"`},
		{"no cost: no offers", func() *Post { return bareEvent(100) }, "offers", `<absent>`},
		{"currency code", func() *Post { return bareEvent(100, "_EventCost", "6,50", "_EventCurrencyCode", "EUR") },
			"offers", `{"@type":"Offer","price":"6,50","priceCurrency":"EUR",`},
		{"range price stays text", func() *Post { return bareEvent(100, "_EventCost", "0", "_EventCost", "30") },
			"offers", `{"@type":"Offer","price":"Free \u2013 30",`},
		{"dangling venue: location false", func() *Post { return bareEvent(100, "_EventVenueID", "999") }, "location", `false`},
		{"draft venue hidden from visitors: location false", func() *Post { return bareEvent(100, "_EventVenueID", "11") }, "location", `false`},
		{"first organizer only", func() *Post { return bareEvent(100, "_EventOrganizerID", "14", "_EventOrganizerID", "12") },
			"organizer", `{"@type":"Person","name":"City Parks Department",`},
		{"cancelled", func() *Post { return bareEvent(100, "_tribe_events_status", "canceled") }, "eventStatus", `"https:\/\/schema.org\/EventCancelled"`},
		{"apostrophe escaped for JS", func() *Post {
			p := bareEvent(100)
			p.EditText(func(f *TextFields) { f.Title = "Bob's <Party>" })
			return p
		},
			"name", `"Bob\\'s &lt;Party&gt;"`},
		{"texturized title kept", func() *Post {
			p := bareEvent(100)
			p.EditText(func(f *TextFields) { f.Title = "Yesterday&#8217;s Lecture" })
			return p
		},
			"name", `"Yesterday&#8217;s Lecture"`},
		{"no excerpt text: empty description", func() *Post { p := bareEvent(100); p.EditText(func(f *TextFields) { f.ExcerptText = "" }); return p }, "description", `""`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, cat := newTestContext(true)
			draft := withMeta(seeded(11, "tribe_venue", "old-warehouse", "Old Warehouse", "13:54:20", "18:54:20"), "_VenueCity", "Brooklyn")
			draft.EditText(func(f *TextFields) { f.Status = "draft" })
			cat.posts[11] = draft
			ld, ok := c.Event(tc.post()).Get("json_ld")
			if !ok {
				t.Fatal("no json_ld")
			}
			if got := member(ld.(Object), tc.key); !strings.HasPrefix(got, tc.want) {
				t.Errorf("json_ld.%s = %s, want %s", tc.key, got, tc.want)
			}
		})
	}
}

func TestEventJSONLDOnlyWhenVisible(t *testing.T) {
	tests := []struct {
		name     string
		single   bool
		status   string
		readable func(*Post) bool
		want     bool
	}{
		{"list context", false, "publish", nil, false},
		{"single, published", true, "publish", nil, true},
		{"single, draft, visitor", true, "draft", nil, false},
		{"single, draft, logged in", true, "draft", func(*Post) bool { return true }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestContext(tc.single)
			c.Readable = tc.readable
			p := bareEvent(100)
			p.EditText(func(f *TextFields) { f.Status = tc.status })
			if _, got := c.Event(p).Get("json_ld"); got != tc.want {
				t.Errorf("json_ld present = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPrivateTitleInJSONLD(t *testing.T) {
	c, _ := newTestContext(true)
	c.Readable = func(*Post) bool { return true }
	p := bareEvent(100)
	p.EditText(func(f *TextFields) { f.Status = "private" })
	ld, _ := c.Event(p).Get("json_ld")
	if got, want := member(ld.(Object), "name"), `"Private: E"`; got != want {
		t.Errorf("name = %s, want %s", got, want)
	}
}
