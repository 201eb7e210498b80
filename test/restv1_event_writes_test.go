package test

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// EventInsertionCest and EventUpdateCest send the same bodies, one to create an event (201), the
// other onto an event of the database (200). The examples both Cests have are written once below.

// eventWriter sends a Cest's body: to POST /events, or onto the example's own fixture event.
type eventWriter struct {
	r      *rig
	target string // "" to create, "/{id}" to update
}

// try sends body as role and returns the answer as it is.
func (w eventWriter) try(t *testing.T, role string, body map[string]any) reply {
	t.Helper()
	res := sendCest(t, role, http.MethodPost, "/events"+w.target, body)
	if res.status < 300 {
		w.r.created("events", res)
	}
	return res
}

// write sends body as role and wants the Cest's success status.
func (w eventWriter) write(t *testing.T, role string, body map[string]any) reply {
	t.Helper()
	res := w.try(t, role, body)
	want := http.StatusCreated
	if w.target != "" {
		want = http.StatusOK
	}
	wantStatus(t, res, want)
	return res
}

// eventCase is one Cest method or example.
type eventCase struct {
	name  string
	owner string  // EventUpdateCest: the role whose event the fixture is ("" = the administrator)
	more  fixture // EventUpdateCest: more of the fixture (its terms)
	run   func(t *testing.T, w eventWriter)
}

// runEventCases runs the cases four at a time; for the update Cest each first gets a fixture event,
// all of them written in one go.
func runEventCases(t *testing.T, r *rig, update bool, cases []eventCase) {
	targets := make([]string, len(cases))
	if update {
		fixtures := make([]fixture, len(cases))
		for i, c := range cases {
			owner := c.owner
			if owner == "" {
				owner = "admin"
			}
			fixtures[i] = eventFixture(fmt.Sprintf("Cest fixture %d", i), merge(fixture{"post_author": userID(owner)}, c.more))
		}
		for i, id := range r.have(t, fixtures...) {
			targets[i] = "/" + id
		}
	}
	examples := make([]example, len(cases))
	for i, c := range cases {
		w := eventWriter{r: r, target: targets[i]}
		examples[i] = example{c.name, func(t *testing.T) { c.run(t, w) }}
	}
	runExamples(t, examples)
}

// cestEvent is the Cests' usual body: a title, content and tomorrow from 9 to 11, in words.
func cestEvent(title string, more map[string]any) map[string]any {
	return merge(map[string]any{"title": title, "description": "An event content", "start_date": "tomorrow 9am",
		"end_date": "tomorrow 11am"}, more)
}

// required is the Cests' body of only the required parameters.
func required() map[string]any {
	return map[string]any{"title": "An event title", "start_date": "tomorrow 9am", "end_date": "tomorrow 11am"}
}

// dates is what the answer shows of an event from start to end.
func dates(start, end time.Time) map[string]string {
	return map[string]string{"start_date": start.Format(time.DateTime), "end_date": end.Format(time.DateTime),
		"utc_start_date": start.UTC().Format(time.DateTime), "utc_end_date": end.UTC().Format(time.DateTime)}
}

// eventInsertionCest is EventInsertionCest, every method; its examples that set the site's time zone
// first are TestRestv1SiteTimezones.
func eventInsertionCest(t *testing.T) {
	r := newRig(t)
	cases := append(sharedEventCases(t, r, false), insertionOnlyCases(t)...)
	runEventCases(t, r, false, cases)
}

// eventUpdateCest is EventUpdateCest, every method; its examples that set the site's time zone first
// are TestRestv1SiteTimezones.
func eventUpdateCest(t *testing.T) {
	r := newRig(t)
	cases := append(sharedEventCases(t, r, true), updateOnlyCases(t, siteTZ(t))...)
	runEventCases(t, r, true, cases)
}

// sharedEventCases are the methods both Cests have, with the examples of the one asked for.
func sharedEventCases(t *testing.T, r *rig, update bool) []eventCase {
	var cases []eventCase
	for _, part := range []func(*testing.T, *rig, bool) []eventCase{eventDateCases, eventFieldCases,
		eventImageCases, eventPresentationCases, eventVenueCases, eventOrganizerCases, eventTermCases} {
		cases = append(cases, part(t, r, update)...)
	}
	return cases
}

// verb is the word the Cests' method names use for what they do.
func verb(update bool, insert, upd string) string {
	if update {
		return upd
	}
	return insert
}

func eventDateCases(t *testing.T, _ *rig, update bool) []eventCase {
	loc := siteTZ(t)
	cases := []eventCase{{name: "it_should_allow_" + verb(update, "inserting", "updating") + "_an_event",
		run: func(t *testing.T, w eventWriter) {
			now := calm(t, loc, time.UTC)
			start, end := strtotime(t, "tomorrow 9am", loc, now), strtotime(t, "tomorrow 11am", loc, now)
			if update { // date('Y-m-d H:i:s', strtotime(...)) in PHP's UTC
				start, end = strtotime(t, "tomorrow 9am", time.UTC, now), strtotime(t, "tomorrow 11am", time.UTC, now)
				start, end = wall(start, loc), wall(end, loc)
			}
			body := cestEvent("An event", map[string]any{"excerpt": "An event excerpt",
				"start_date": start.Format(time.DateTime), "end_date": end.Format(time.DateTime)})
			want := merge(dates(start, end), map[string]string{"title": "An event",
				"description": "<p>An event content</p>", "excerpt": "<p>An event excerpt</p>"})
			if !update {
				body["slug"], want["slug"] = "an-event", "an-event"
			}
			res := w.write(t, "admin", body)
			wantFields(t, res, want)
			if str(at(res.body, "id")) == "" {
				t.Error("no id")
			}
		}}}
	natural := [][2]string{{"tomorrow 9am", "tomorrow 11am"}, {"tomorrow 11am", "tomorrow 1pm"},
		{"next wednesday 4pm", "next wednesday 5pm"}}
	for _, ex := range natural {
		cases = append(cases, eventCase{name: "it_should_allow_to_set_the_start_date_using_natural_language/" +
			ex[0] + "-" + ex[1], run: func(t *testing.T, w eventWriter) {
			now := calm(t, loc)
			res := w.write(t, "admin", map[string]any{"title": "A Cest event", "start_date": ex[0], "end_date": ex[1]})
			wantFields(t, res, merge(dates(strtotime(t, ex[0], loc, now), strtotime(t, ex[1], loc, now)),
				map[string]string{"title": "A Cest event"}))
		}})
	}
	return cases
}

// wall is the same wall time in loc.
func wall(x time.Time, loc *time.Location) time.Time {
	return time.Date(x.Year(), x.Month(), x.Day(), x.Hour(), x.Minute(), x.Second(), 0, loc)
}

// eventTimezoneCases is it_should_allow_specifying_the_timezone_of_the_event_to_{insert,update};
// the update one then moves the event to Europe/Paris. The Cests set the site to Australia/Darwin
// first, to be unlike every example (TestRestv1SiteTimezones).
func eventTimezoneCases(update bool) []eventCase {
	examples := [][3]string{{"tomorrow 9am", "tomorrow 11am", "America/New_York"},
		{"tomorrow 11am", "tomorrow 1pm", "UTC"}, {"2018-01-01 4pm", "2018-01-01 5pm", "Asia/Hong_Kong"},
		{"tomorrow 4pm", "next wednesday 5pm", "Europe/Rome"}}
	if update {
		examples = [][3]string{{"tomorrow 9am", "tomorrow 11am", "Australia/Sydney"},
			{"tomorrow 9am", "tomorrow 11am", "America/New_York"}, {"tomorrow 11am", "tomorrow 1pm", "UTC"},
			{"2018-01-01 4pm", "2018-01-01 5pm", "Asia/Hong_Kong"},
			{"next wednesday 4pm", "next wednesday 5pm", "Europe/Rome"}}
	}
	var cases []eventCase
	for _, ex := range examples {
		cases = append(cases, eventCase{name: "it_should_allow_specifying_the_timezone_of_the_event_to_" +
			verb(update, "insert", "update") + "/" + ex[2], run: func(t *testing.T, w eventWriter) {
			tzs := []string{ex[2]}
			if update {
				tzs = append(tzs, "Europe/Paris")
			}
			for _, tz := range tzs {
				loc, err := time.LoadLocation(tz)
				if err != nil {
					t.Fatal(err)
				}
				now := calm(t, loc)
				res := w.write(t, "admin", map[string]any{"title": "A Cest event", "start_date": ex[0], "end_date": ex[1],
					"timezone": tz})
				wantFields(t, res, merge(dates(strtotime(t, ex[0], loc, now), strtotime(t, ex[1], loc, now)),
					map[string]string{"title": "A Cest event", "timezone": tz}))
			}
		}})
	}
	return cases
}

// eventFieldCases: bad optional values, author, post dates, generated fields, all-day, cost, website.
func eventFieldCases(t *testing.T, _ *rig, update bool) []eventCase {
	loc := siteTZ(t)
	var cases []eventCase
	for _, bad := range [][2]any{{"author", 23}, {"author", ""}, {"date", "foo"}, {"date_utc", "foo"}, {"website", "foo"}} {
		cases = append(cases, eventCase{name: fmt.Sprint("it_should_return_bad_request_if_trying_to_set_optional_",
			"parameter_to_bad_value/", bad[0], "=", bad[1]), run: func(t *testing.T, w eventWriter) {
			wantStatus(t, w.try(t, "admin", merge(required(), map[string]any{bad[0].(string): bad[1]})), 400)
		}})
	}
	return append(cases,
		eventCase{name: "it_should_allow_to_set_the_event_author", run: func(t *testing.T, w eventWriter) {
			res := w.write(t, "admin", cestEvent("An event title", map[string]any{"author": userID("author")}))
			wantFields(t, res, map[string]string{"author": userID("author")})
		}},
		eventCase{name: "it_should_allow_to_set_the_post_date", run: func(t *testing.T, w eventWriter) {
			now := calm(t, loc)
			date := strtotime(t, "tomorrow 9am", loc, now).Format(time.DateTime)
			given := "tomorrow 9am"
			if update {
				given = date
			}
			res := w.write(t, "admin", cestEvent("An event title", map[string]any{"date": given}))
			wantFields(t, res, map[string]string{"date": date})
		}},
		eventCase{name: "it_should_allow_setting_the_post_gmt_date", run: func(t *testing.T, w eventWriter) {
			now := calm(t, time.UTC)
			res := w.write(t, "admin", cestEvent("An event title", map[string]any{"date_utc": "tomorrow 9am"}))
			wantFields(t, res, map[string]string{"date_utc": strtotime(t, "tomorrow 9am", time.UTC, now).Format(time.DateTime)})
		}},
		// The Cests send the ten generated fields one request each; they are independent, so one
		// request carries them all here.
		eventCase{name: "it_should_not_allow_overriding_generated_fields", run: func(t *testing.T, w eventWriter) {
			generated := map[string]any{"url": "http://example.com", "rest_url": "http://example.com/api/some/path/event",
				"utc_start_date": "foo", "utc_start_date_details": "foo", "utc_end_date": "foo",
				"utc_end_date_details": "foo", "start_date_details": "foo", "end_date_details": "foo",
				"timezone_abbr": "foo", "cost_details": "foo"}
			res := w.write(t, "admin", cestEvent("An event title", merge(generated, map[string]any{"date_utc": "tomorrow 9am"})))
			for k, v := range generated {
				if str(at(res.body, k)) == v {
					t.Errorf("%s overridden: %q", k, v)
				}
			}
		}},
		eventCase{name: "it_should_allow_specifying_if_an_event_is_an_all_day_one", run: func(t *testing.T, w eventWriter) {
			now := calm(t, loc)
			start, end := "tomorrow 00:00:00", "tomorrow 23:59:59"
			if update {
				start, end = "tomorrow 9am", "tomorrow 11am"
			}
			allDay(t, w, loc, now, start, end, "tomorrow 00:00:00", "tomorrow 23:59:59")
		}},
		eventCase{name: "it_should_allow_inserting_a_multiday_all_day_event", run: func(t *testing.T, w eventWriter) {
			allDay(t, w, loc, calm(t, loc), "tomorrow 9am", "+5 days 11am", "tomorrow 00:00:00", "+5 days 23:59:59")
		}},
		eventCase{name: "it_should_allow_setting_the_event_cost_as_a_string", run: func(t *testing.T, w eventWriter) {
			res := w.write(t, "admin", cestEvent("A Cest event", map[string]any{"all_day": true, "cost": "20$"}))
			wantFields(t, res, map[string]string{"cost": "20$", "cost_details.currency_symbol": "$",
				"cost_details.currency_position": "postfix", "cost_details.values.0": "20"})
		}},
		eventCase{name: "it_should_allow_to_insert_the_cost_as_an_array_of_values", run: func(t *testing.T, w eventWriter) {
			res := w.write(t, "admin", cestEvent("A Cest event", map[string]any{"all_day": true, "cost": []string{"0$", "20$", "30$"}}))
			wantFields(t, res, map[string]string{"cost": "Free – 30$", "cost_details.currency_symbol": "$",
				"cost_details.currency_position": "postfix", "cost_details.values.0": "0",
				"cost_details.values.1": "20", "cost_details.values.2": "30"})
		}},
		eventCase{name: "it_should_allow_setting_the_event_website", run: func(t *testing.T, w eventWriter) {
			res := w.write(t, "admin", cestEvent("A Cest event", map[string]any{"all_day": true, "website": "http://example.com"}))
			wantFields(t, res, map[string]string{"website": "http://example.com"})
		}},
	)
}

// allDay sends an all-day event from start to end and wants it from wantStart to wantEnd.
func allDay(t *testing.T, w eventWriter, loc *time.Location, now time.Time, start, end, wantStart, wantEnd string) {
	t.Helper()
	s, e := strtotime(t, start, loc, now), strtotime(t, end, loc, now)
	res := w.write(t, "admin", cestEvent("A Cest event", map[string]any{"all_day": true,
		"start_date": s.Format(time.DateTime), "end_date": e.Format(time.DateTime)}))
	wantFields(t, res, merge(dates(strtotime(t, wantStart, loc, now), strtotime(t, wantEnd, loc, now)),
		map[string]string{"title": "A Cest event", "description": "<p>An event content</p>", "all_day": "true"}))
}

// eventImageCases: the image by attachment ID or URL, and the values refused. The Cests' uploaded
// image is the seed's; their unsupported file (featured-image.raw) an attachment of that type.
func eventImageCases(t *testing.T, r *rig, _ bool) []eventCase {
	media, url := sid(t, "media", "stage"), stageURL(t)
	raw := r.have(t, fixture{"post_type": "attachment", "post_status": "inherit", "post_title": "featured-image",
		"post_mime_type": "application/octet-stream", "guid": wpEnv["WP_URL"] + "/wp-content/uploads/featured-image.raw"})[0]
	post := "1" // havePostInDatabase: the rig's "Hello world!" post
	image := func(v any) map[string]any {
		return cestEvent("A Cest event", map[string]any{"all_day": true, "image": v})
	}
	var cases []eventCase
	for _, bad := range []string{"http://example.localhost/some-image.png", "foo bar", "23"} {
		cases = append(cases, eventCase{name: "it_should_return_bad_request_if_trying_to_set_image_to_bad_value/" + bad,
			run: func(t *testing.T, w eventWriter) { wantStatus(t, w.try(t, "admin", image(bad)), 400) }})
	}
	return append(cases,
		eventCase{name: "it_should_return_bad_request_if_trying_to_set_image_to_non_supported_image_type",
			run: func(t *testing.T, w eventWriter) { wantStatus(t, w.try(t, "admin", image(raw)), 400) }},
		eventCase{name: "it_should_return_bad_request_if_trying_to_set_image_to_id_of_non_attachment",
			run: func(t *testing.T, w eventWriter) { wantStatus(t, w.try(t, "admin", image(post)), 400) }},
		eventCase{name: "it_should_allow_setting_the_image_passing_its_attachment_id", run: func(t *testing.T, w eventWriter) {
			wantFields(t, w.write(t, "admin", image(media)), map[string]string{"image.id": media})
		}},
		eventCase{name: "it_should_allow_setting_the_image_setting_passing_a_valid_url", run: func(t *testing.T, w eventWriter) {
			if res := w.write(t, "admin", image(url)); str(at(res.body, "image", "id")) == "" {
				t.Errorf("no image: %s", res.raw)
			}
		}},
	)
}

// presentationMeta is it_should_allow_inserting_presentation_meta_to_users_that_can_...'s examples.
var presentationMeta = []string{"show_map", "show_map_link", "hide_from_listings", "sticky", "featured"}

// eventPresentationCases: the presentation flags as an editor and as an author (on the author's own
// event), and who may publish. The Cests send each of the five flags in a request of its own; they
// are independent, so one request carries them all here.
func eventPresentationCases(_ *testing.T, _ *rig, update bool) []eventCase {
	var cases []eventCase
	for _, role := range []string{"editor", "author"} {
		method := map[string]string{"editor": "publish_posts_and_edit_other_posts", "author": "publish_posts"}[role]
		owner := map[string]string{"editor": "", "author": "author"}[role]
		cases = append(cases, eventCase{name: "it_should_allow_inserting_presentation_meta_to_users_that_can_" + method,
			owner: owner, run: func(t *testing.T, w eventWriter) {
				flags, want := map[string]any{}, map[string]string{}
				for _, key := range presentationMeta {
					flags[key], want[key] = true, "true"
				}
				wantFields(t, w.write(t, role, cestEvent("A Cest event", flags)), want)
			}})
	}
	for _, role := range []string{"admin", "editor", "author"} {
		cases = append(cases, eventCase{name: "it_should_allow_a_user_that_can_publish_to_set_status_to_publish/" + role,
			owner: role, run: func(t *testing.T, w eventWriter) {
				res := w.write(t, role, cestEvent("A Cest event", map[string]any{"status": "publish"}))
				stored := send(t, "admin", http.MethodGet, "/events/"+str(at(res.body, "id")), nil)
				wantFields(t, stored, map[string]string{"status": "publish"})
			}})
	}
	return cases
}

// cestVenues are the venue Cests' venueDataProvider.
var cestVenues = []map[string]any{
	{"venue": "White House", "address": "1600 Pennsylvania Ave NW", "city": "Washington, DC", "country": "United States",
		"state": "DC", "province": "", "stateProvince": "DC", "zip": "20500", "phone": "+1 202-456-1111",
		"description": "Home and office of the United States president", "website": "http://whitehouse.gov",
		"show_map": true, "show_map_link": true},
	{"venue": "Parliament Hill", "address": "Wellington St", "city": "Ottawa", "country": "Canada", "state": "",
		"province": "ON", "stateProvince": "ON", "zip": "K1A 0A9", "phone": "+1 613-992-4793",
		"description": "Home of the Parliament of Canada", "website": "http://parl.ca", "show_map": true, "show_map_link": true},
	{"venue": "Union Buildings", "address": "Government Avenue", "city": "Pretoria", "country": "South Africa",
		"state": "", "province": "Gauteng", "stateProvince": "Gauteng", "zip": "0002", "phone": "+27 12 300 5200",
		"description": "Official seat of the South African government", "website": "http://www.thepresidency.gov.za",
		"show_map": true, "show_map_link": true},
	{"venue": "Palais de l‘Élysée", "address": "55 Rue du Faubourg Saint-Honoré", "city": "Paris", "country": "France",
		"state": "", "province": "Île-de-France", "stateProvince": "Île-de-France", "zip": "75008",
		"phone": "+33 1 42 92 81 00", "description": "Official residence of the President of France",
		"website": "http://www.elysee.fr", "show_map": true, "show_map_link": true},
}

// eventVenueCases: an existing venue by ID, or one created with the event.
func eventVenueCases(t *testing.T, _ *rig, update bool) []eventCase {
	bluenote := sid(t, "venues", "bluenote")
	cases := []eventCase{{name: "it_should_allow_inserting_an_existing_venue_id_with_the_event",
		run: func(t *testing.T, w eventWriter) {
			wantFields(t, w.write(t, "admin", cestEvent("A Cest event", map[string]any{"venue": bluenote})),
				map[string]string{"venue.id": bluenote})
		}}}
	for _, v := range cestVenues {
		if update { // the update Cest runs beside the insertion one: venues of its own
			v = merge(v, map[string]any{"venue": str(v["venue"]) + " U"})
		}
		cases = append(cases, eventCase{name: "it_should_allow_inserting_a_venue_along_with_the_event/" + str(v["venue"]),
			run: func(t *testing.T, w eventWriter) {
				res := w.write(t, "admin", cestEvent("A Cest event", map[string]any{"venue": v}))
				want := map[string]string{"venue.stateprovince": str(v["stateProvince"]), "venue.show_map": "true",
					"venue.show_map_link": "true"}
				for _, k := range []string{"venue", "address", "city", "country", "state", "province", "zip", "phone", "website"} {
					want["venue."+k] = str(v[k])
				}
				if update {
					want["venue.description"] = "<p>" + str(v["description"]) + "</p>"
				}
				if str(at(res.body, "venue", "id")) == "" {
					t.Errorf("no venue id: %s", res.raw)
				}
				wantFields(t, res, want)
			}})
	}
	return cases
}

// eventOrganizerCases: existing organizers by ID, new ones, both, and the images of new ones. The
// Cests' new organizers are all "Organizer A" and the like; here each example names its own.
func eventOrganizerCases(t *testing.T, _ *rig, update bool) []eventCase {
	jazzsoc, techcon := sid(t, "organizers", "jazzsoc"), sid(t, "organizers", "techcon")
	sfx := verb(update, "", " U") // the update Cest runs beside the insertion one: names of its own
	url := stageURL(t)
	organizers := func(t *testing.T, w eventWriter, given any, n int) reply {
		t.Helper()
		res := w.write(t, "admin", cestEvent("A Cest event", map[string]any{"organizer": given}))
		if got := list(at(res.body, "organizer")); len(got) != n {
			t.Fatalf("%d organizers, want %d: %s", len(got), n, res.raw)
		}
		return res
	}
	named := func(names ...string) []map[string]any {
		var out []map[string]any
		for _, n := range names {
			out = append(out, map[string]any{"organizer": n + sfx})
		}
		return out
	}
	return []eventCase{
		{name: "it_should_allow_linking_the_inserted_event_to_an_existing_organizer", run: func(t *testing.T, w eventWriter) {
			wantFields(t, organizers(t, w, jazzsoc, 1), map[string]string{"organizer.0.id": jazzsoc})
		}},
		{name: "it_should_allow_linking_the_event_to_multiple_existing_organizers", run: func(t *testing.T, w eventWriter) {
			wantFields(t, organizers(t, w, []string{jazzsoc, techcon}, 2),
				map[string]string{"organizer.0.id": jazzsoc, "organizer.1.id": techcon})
		}},
		{name: "it_should_allow_creating_the_event_organizer_while_inserting_the_event", run: func(t *testing.T, w eventWriter) {
			if res := organizers(t, w, named("Organizer A One"), 1); str(at(res.body, "organizer", 0, "id")) == "" {
				t.Errorf("no id: %s", res.raw)
			}
		}},
		{name: "it_should_allow_creating_multiple_event_organizers_while_inserting_the_event",
			run: func(t *testing.T, w eventWriter) {
				organizers(t, w, named("Organizer A Three", "Organizer B Three", "Organizer C Three"), 3)
			}},
		{name: "it_should_allow_creating_multiple_organizers_and_linking_existing_ones_while_inserting_the_event",
			run: func(t *testing.T, w eventWriter) {
				given := []map[string]any{{"organizer": "Organizer A Mixed" + sfx}, {"id": jazzsoc}, {"id": techcon},
					{"organizer": "Organizer C Mixed" + sfx}}
				got := ids(at(organizers(t, w, given, 4).body, "organizer"))
				if !slices.Contains(got, id(t, "organizers", "jazzsoc")) || !slices.Contains(got, id(t, "organizers", "techcon")) {
					t.Errorf("organizers %v lack the existing ones", got)
				}
			}},
		{name: "it_should_allow_setting_the_linked_posts_images_when_creating_them_with_the_event",
			run: func(t *testing.T, w eventWriter) {
				res := w.write(t, "admin", cestEvent("A Cest event", map[string]any{
					"venue": map[string]any{"venue": "Cest Images Venue" + sfx, "image": url},
					"organizer": []map[string]any{{"organizer": "Organizer A Images" + sfx, "image": url},
						{"organizer": "Organizer C Images" + sfx, "image": url}}}))
				wantFields(t, res, map[string]string{"venue.image.url": url, "organizer.0.image.url": url,
					"organizer.1.image.url": url})
			}},
	}
}

// eventTermCases: categories and tags by ID, created by name, both, and none.
func eventTermCases(t *testing.T, _ *rig, update bool) []eventCase {
	var cases []eventCase
	sfx := verb(update, "", " U") // the update Cest runs beside the insertion one: terms of its own
	for _, k := range []struct{ key, group, a, b, csv, added string }{
		{"categories", "categories", "technology", "workshops", "Cest Cat One,Cest Cat Two", "Technology Cest"},
		{"tags", "tags", "free", "outdoor", "cest tag one,cest tag two", "free cest"},
	} {
		a, b := sid(t, k.group, k.a), sid(t, k.group, k.b)
		tax := map[string]string{"categories": "tribe_events_cat", "tags": "post_tag"}[k.key]
		terms := func(t *testing.T, w eventWriter, given any, n int) reply {
			t.Helper()
			res := w.write(t, "admin", cestEvent("A Cest event", map[string]any{k.key: given}))
			if got := list(at(res.body, k.key)); len(got) != n {
				t.Fatalf("%d %s, want %d: %s", len(got), k.key, n, res.raw)
			}
			return res
		}
		cases = append(cases,
			eventCase{name: "it_should_allow_assigning_existing_event_" + k.key + "_to_an_inserted_event",
				run: func(t *testing.T, w eventWriter) {
					wantFields(t, terms(t, w, []string{a, b}, 2), map[string]string{k.key + ".0.id": a, k.key + ".1.id": b})
				}},
			eventCase{name: "it_should_allow_creating_event_" + k.key + "_while_inserting_an_event",
				run: func(t *testing.T, w eventWriter) { terms(t, w, strings.ReplaceAll(k.csv, ",", sfx+",")+sfx, 2) }},
			eventCase{name: "it_should_allow_no_event_" + k.key + "_while_inserting_an_event",
				more: fixture{"terms": map[string]any{tax: []int{id(t, k.group, k.a), id(t, k.group, k.b)}}},
				run:  func(t *testing.T, w eventWriter) { terms(t, w, "", 0) }},
			eventCase{name: "it_should_allow_assigning_existing_" + k.key + "_and_creating_new_" + k.key + "_while_inserting_an_event",
				run: func(t *testing.T, w eventWriter) {
					wantFields(t, terms(t, w, []string{a, k.added + sfx}, 2), map[string]string{k.key + ".0.id": a})
				}},
		)
	}
	return cases
}

// insertionOnlyCases are EventInsertionCest's methods EventUpdateCest does not have.
func insertionOnlyCases(t *testing.T) []eventCase {
	url := stageURL(t)
	cases := []eventCase{
		{name: "it_should_return_401_if_user_cannot_insert_events", run: func(t *testing.T, w eventWriter) {
			wantError(t, w.try(t, "", cestEvent("A Cest event", map[string]any{"excerpt": "An event excerpt"})), 401, "rest_forbidden")
		}},
		{name: "it_should_prevent_setting_the_image_setting_passing_a_valid_url_but_not_authorized",
			run: func(t *testing.T, w eventWriter) {
				res := w.try(t, "contributor", cestEvent("A Cest event", map[string]any{"all_day": true, "image": url}))
				wantFields(t, res, map[string]string{"code": "rest_invalid_param", "data.status": "400"})
			}},
		{name: "it_should_set_the_event_permalink_if_not_set", run: func(t *testing.T, w eventWriter) {
			res := w.write(t, "admin", cestEvent("A Cest event", map[string]any{"all_day": true}))
			wantFields(t, res, map[string]string{"website": str(at(res.body, "url"))})
		}},
		{name: "it_should_set_the_post_status_to_draft_if_user_cannot_publish_posts", run: func(t *testing.T, w eventWriter) {
			res := w.write(t, "contributor", cestEvent("A Cest event", map[string]any{"status": "publish"}))
			wantFields(t, send(t, "admin", http.MethodGet, "/events/"+str(at(res.body, "id")), nil),
				map[string]string{"status": "pending"})
		}},
		{name: "should_not_hide_event_from_listings_w_falsy_hide_from_listings", run: func(t *testing.T, w eventWriter) {
			res := w.write(t, "editor", cestEvent("A Cest event", map[string]any{"hide_from_listings": "false"}))
			wantFields(t, res, map[string]string{"hide_from_listings": "false"})
			if m := hideMeta(t, res); m == "yes" {
				t.Errorf("_EventHideFromUpcoming = %q", m)
			}
		}},
	}
	for _, v := range []any{true, "true"} {
		cases = append(cases, eventCase{name: fmt.Sprintf("should_hide_events_w_truthy_hide_from_listings/%#v", v),
			run: func(t *testing.T, w eventWriter) {
				res := w.write(t, "editor", cestEvent("A Cest event", map[string]any{"hide_from_listings": v}))
				wantFields(t, res, map[string]string{"hide_from_listings": "true"})
				if m := hideMeta(t, res); m != "yes" {
					t.Errorf("_EventHideFromUpcoming = %q", m)
				}
			}})
	}
	for _, ex := range [][2]string{{"title", ""}, {"start_date", ""}, {"start_date", "not a strtotime parsable string"},
		{"end_date", ""}, {"end_date", "not a strtotime parsable string"}} {
		cases = append(cases, eventCase{name: "it_should_mark_bad_request_if_required_param_is_missing_or_bad/" + ex[0] +
			"=" + ex[1], run: func(t *testing.T, w eventWriter) {
			wantStatus(t, w.try(t, "admin", merge(required(), map[string]any{ex[0]: ex[1]})), 400)
		}})
	}
	for _, missing := range []string{"title", "start_date", "end_date"} {
		cases = append(cases, eventCase{name: "it_should_mark_bad_request_if_required_param_is_missing_or_bad/no_" + missing,
			run: func(t *testing.T, w eventWriter) {
				body := required()
				delete(body, missing)
				wantStatus(t, w.try(t, "admin", body), 400)
			}})
	}
	return cases
}

// hideMeta is the event's stored _EventHideFromUpcoming.
func hideMeta(t *testing.T, res reply) string {
	t.Helper()
	m, _ := wp(t, http.MethodGet, "/wp/v2/tribe_events/"+str(at(res.body, "id"))+"?context=edit", nil)["meta"].(map[string]any)
	return fmt.Sprint(m["_EventHideFromUpcoming"])
}

// updateOnlyCases are EventUpdateCest's methods EventInsertionCest does not have.
func updateOnlyCases(t *testing.T, loc *time.Location) []eventCase {
	jazzsoc, bluenote := sid(t, "organizers", "jazzsoc"), sid(t, "venues", "bluenote")
	return []eventCase{
		{name: "it_should_return_401_if_user_cannot_update_events", run: func(t *testing.T, w eventWriter) {
			wantError(t, w.try(t, "", cestEvent("A Cest event", map[string]any{"excerpt": "An event excerpt"})), 401, "rest_forbidden")
		}},
		{name: "it_should_allow_updating_an_event_slug", run: func(t *testing.T, w eventWriter) {
			now := calm(t, time.UTC)
			start := wall(strtotime(t, "tomorrow 9am", time.UTC, now), loc)
			end := wall(strtotime(t, "tomorrow 11am", time.UTC, now), loc)
			res := w.write(t, "admin", cestEvent("An event", map[string]any{"slug": "an-interesting-event",
				"excerpt": "An event excerpt", "start_date": start.Format(time.DateTime), "end_date": end.Format(time.DateTime)}))
			wantFields(t, res, merge(dates(start, end), map[string]string{"title": "An event", "slug": "an-interesting-event",
				"description": "<p>An event content</p>", "excerpt": "<p>An event excerpt</p>"}))
		}},
		// The Cest's ID that does not exist is 2389; here 999999.
		{name: "it_should_mark_not_found_if_id_does_not_exist", run: func(t *testing.T, w eventWriter) {
			wantStatus(t, sendCest(t, "admin", http.MethodPost, "/events/999999", cestEvent("An event title", nil)), 404)
		}},
		{name: "should_allow_removing_the_venue_from_an_event", run: func(t *testing.T, w eventWriter) {
			body := map[string]any{"title": "A Cest event", "description": "An event content", "venue": bluenote}
			event := str(at(w.write(t, "admin", body).body, "id"))
			// The Cest clears the _EventVenueID meta itself before it sends venue 0 (the original keeps
			// the venue for a venue 0 alone).
			wpPHP(t, "update_post_meta( "+event+", '_EventVenueID', 0 );")
			eventually(t, "venue cleared", func() bool {
				return len(keys(at(send(t, "admin", http.MethodGet, "/events/"+event, nil).body, "venue"))) == 0
			})
			res := w.write(t, "admin", map[string]any{"title": "A Cest event", "venue": 0})
			if v := at(res.body, "venue"); len(list(v)) != 0 || len(keys(v)) != 0 {
				t.Errorf("venue still there: %s", res.raw)
			}
		}},
		// should_allow_removing_the_organizer_from_an_event: only its first half. Its second request
		// sends venue [] and organizer [], which a form body (http_build_query) leaves out: the
		// original unlinks the organizers of every update that does not name them; calshim's updates
		// change only the fields given (docs/compatibility.md, "Updates change only the fields given").
		{name: "should_allow_removing_the_organizer_from_an_event", run: func(t *testing.T, w eventWriter) {
			body := map[string]any{"title": "A Cest event", "description": "An event content", "organizer": jazzsoc}
			res := w.write(t, "admin", body)
			if got := ids(at(res.body, "organizer")); len(got) != 1 || strconv.Itoa(got[0]) != jazzsoc {
				t.Errorf("organizers %v, want [%s]", got, jazzsoc)
			}
		}},
	}
}

// The examples of EventInsertionCest and EventUpdateCest that set the site's time zone first, as
// their Cests do (and put it back): it_should_allow_to_set_the_start_date_using_natural_language
// with the site in America/Juneau, Australia/Sydney and Atlantic/Reykjavik ("tomorrow" is then the
// site's tomorrow), and it_should_allow_specifying_the_timezone_of_the_event_to_{insert,update}
// with the site in Australia/Darwin.
func TestRestv1SiteTimezones(t *testing.T) {
	r := newRig(t)
	old := str(wp(t, http.MethodGet, "/wp/v2/settings", nil)["timezone"])
	setTZ := func(tz string) {
		wp(t, http.MethodPost, "/wp/v2/settings", map[string]any{"timezone": tz})
		eventually(t, "site time zone "+tz, func() bool { return readyz(t, shim)["timezone"] == tz })
	}
	defer setTZ(old)
	w := eventWriter{r: r}
	for _, tz := range []string{"America/Juneau", "Australia/Sydney", "Atlantic/Reykjavik"} {
		t.Run("EventInsertionCest/it_should_allow_to_set_the_start_date_using_natural_language/"+tz, func(t *testing.T) {
			setTZ(tz)
			loc, err := time.LoadLocation(tz)
			if err != nil {
				t.Fatal(err)
			}
			now := calm(t, loc)
			res := w.write(t, "admin", map[string]any{"title": "A Cest event", "start_date": "tomorrow 9am",
				"end_date": "tomorrow 11am"})
			wantFields(t, res, merge(dates(strtotime(t, "tomorrow 9am", loc, now), strtotime(t, "tomorrow 11am", loc, now)),
				map[string]string{"title": "A Cest event"}))
		})
	}
	setTZ("Australia/Darwin")
	runTogether(t, []example{
		{"EventInsertionCest", func(t *testing.T) { runEventCases(t, r, false, eventTimezoneCases(false)) }},
		{"EventUpdateCest", func(t *testing.T) { runEventCases(t, r, true, eventTimezoneCases(true)) }},
	})
}
