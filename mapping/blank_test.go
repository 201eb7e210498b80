package mapping

import (
	"strings"
	"testing"
)

func TestVenueRemovesEmptyValues(t *testing.T) {
	c, _ := newTestContext(false)
	p := withMeta(seeded(60, "tribe_venue", "bare", "Bare Hall", "10:00:00", "15:00:00"),
		"_VenueCity", "Springfield", "_VenueZip", "0", "_VenueAddress", "", "_VenueShowMap", "false")
	p.Author = 0
	got := strings.Join(keys(c.Venue(p)), " ")
	want := "id status date date_utc modified modified_utc url venue slug city show_map show_map_link global_id global_id_lineage"
	if got != want {
		t.Errorf("keys = %s\nwant   %s", got, want)
	}

	if v := member(c.Venue(p), "show_map"); v != "false" {
		t.Errorf("show_map = %s, want false (TEC truthiness of \"false\")", v)
	}
}

func TestOrganizerRemovesEmptyValues(t *testing.T) {
	c, _ := newTestContext(true)
	p := withMeta(seeded(61, "tribe_organizer", "solo", "Solo", "10:00:00", "15:00:00"), "_OrganizerEmail", "a@b.example")
	p.Author = 0
	got := strings.Join(keys(c.Organizer(p)), " ")
	want := "id status date date_utc modified modified_utc url organizer slug email json_ld global_id global_id_lineage"
	if got != want {
		t.Errorf("keys = %s\nwant   %s", got, want)
	}
}

func TestPasswordBlanking(t *testing.T) {
	protect := func(p *Post) *Post {
		p.Protected = true
		p.EditText(func(f *TextFields) { f.Password = "pw" })
		return p
	}
	right := func(p *Post) bool { return p.Password() == "pw" }
	tests := []struct {
		name     string
		single   bool
		unlocked func(*Post) bool
		render   func(c *Context, cat *catalog) Object
		want     string
	}{
		{"venue in a list", false, nil,
			func(c *Context, cat *catalog) Object { return c.Venue(protect(cat.posts[5])) },
			`{"id":5,"author":"1","status":"publish","date":"2026-11-22 13:54:20","date_utc":"2026-11-22 18:54:20",` +
				`"modified":"2026-11-22 13:54:20","modified_utc":"2026-11-22 18:54:20",` +
				`"url":"http:\/\/127.0.0.1:8881\/venue\/blue-note-jazz-club\/","venue":[],"description":"",` +
				`"slug":"blue-note-jazz-club","image":false,"address":"","city":"","country":"","state":"NY","zip":"",` +
				`"phone":"","website":"","stateprovince":"","show_map":null,"show_map_link":null,` +
				`"global_id":"127.0.0.1?id=5","global_id_lineage":["127.0.0.1?id=5"]}`},
		{"venue single with the right password: json_ld, nothing blanked", true, right,
			func(c *Context, cat *catalog) Object { return c.Venue(protect(cat.posts[7])) },
			`{"id":7,"author":"1","status":"publish","date":"2026-11-22 13:54:20","date_utc":"2026-11-22 18:54:20",` +
				`"modified":"2026-11-22 13:54:20","modified_utc":"2026-11-22 18:54:20",` +
				`"url":"http:\/\/127.0.0.1:8881\/venue\/royal-festival-hall\/","venue":"Royal Festival Hall",` +
				`"description":"<p>Concert hall on the South Bank of the Thames.<\/p>","slug":"royal-festival-hall",` +
				`"address":"Belvedere Rd","city":"London","country":"United Kingdom","province":"Greater London",` +
				`"zip":"SE1 8XX","website":"https:\/\/southbank.example.co.uk","stateprovince":"Greater London",` +
				`"json_ld":{"@type":"Place","name":"Royal Festival Hall",` +
				`"description":"&lt;p&gt;Concert hall on the South Bank of the Thames.&lt;\/p&gt;\\n","url":"",` +
				`"address":{"@type":"PostalAddress","streetAddress":"Belvedere Rd","addressLocality":"London",` +
				`"addressRegion":"Greater London","postalCode":"SE1 8XX","addressCountry":"United Kingdom"},` +
				`"telephone":"","sameAs":"https:\/\/southbank.example.co.uk"},"show_map":true,"show_map_link":true,` +
				`"global_id":"127.0.0.1?id=7","global_id_lineage":["127.0.0.1?id=7"]}`},
		{"organizer single without password: no json_ld, blanked", true, nil,
			func(c *Context, cat *catalog) Object { return c.Organizer(protect(cat.posts[14])) },
			`{"id":14,"author":"1","status":"publish","date":"2026-11-22 13:54:20","date_utc":"2026-11-22 18:54:20",` +
				`"modified":"2026-11-22 13:54:20","modified_utc":"2026-11-22 18:54:20",` +
				`"url":"http:\/\/127.0.0.1:8881\/organizer\/city-parks-department\/","organizer":[],` +
				`"slug":"city-parks-department","phone":"","global_id":"127.0.0.1?id=14","global_id_lineage":["127.0.0.1?id=14"]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, cat := newTestContext(tc.single)
			c.Unlocked = tc.unlocked
			if got := string(EncodeJSON(tc.render(c, cat))); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// TestNestedProtectedVenueAlwaysBlanked: the original checks the password cookie for linked posts,
// so a request's password (or edit rights) never unlocks a venue or organizer nested in an event.
func TestNestedProtectedVenueAlwaysBlanked(t *testing.T) {
	c, cat := newTestContext(true)
	c.Unlocked = func(*Post) bool { return true }
	cat.posts[5].Protected = true
	cat.posts[12].Protected = true
	ev := c.Event(cat.posts[17])
	venue, _ := ev.Get("venue")
	if got := member(venue.(Object), "venue"); got != "[]" {
		t.Errorf("nested venue name = %s, want []", got)
	}

	if got := member(venue.(Object), "json_ld"); got != "<absent>" {
		t.Errorf("nested venue json_ld = %s, want none", got)
	}

	orgs, _ := ev.Get("organizer")
	if got := member(orgs.([]Object)[0], "email"); got != `""` {
		t.Errorf("nested organizer email = %s, want \"\"", got)
	}

	ld, _ := ev.Get("json_ld")
	if got := member(ld.(Object), "location"); got != "false" {
		t.Errorf("json_ld.location = %s, want false", got)
	}
}

func TestBlankKeepsAbsentKeysAbsent(t *testing.T) {
	in := Object{{"id", 1}, {"title", "T"}, {"details", Object{{"phone", "1"}, {"state", "NY"}}}, {"list", []any{Object{{"email", "x"}}}}}
	got := string(EncodeJSON(Blank(in)))
	want := `{"id":1,"title":"T","details":{"phone":"","state":"NY"},"list":[{"email":""}]}`
	if got != want {
		t.Errorf("Blank = %s, want %s", got, want)
	}

	if got := string(EncodeJSON(in)); got != `{"id":1,"title":"T","details":{"phone":"1","state":"NY"},"list":[{"email":"x"}]}` {
		t.Errorf("Blank modified its input: %s", got)
	}
}
