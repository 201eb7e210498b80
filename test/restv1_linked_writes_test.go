package test

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"
)

// linkedKind is what VenueInsertionCest/VenueUpdateCest and their organizer twins vary between
// venues and organizers.
type linkedKind struct {
	cest, collection, nameKey string
	fixture                   func(title string) fixture
	meta                      map[string]any    // it_should_allow_{inserting,updating}_optional_meta
	wantMeta                  map[string]string // what the answer then shows
	empty                     map[string]any    // ..._optional_meta_as_empty: these keys then go
	utcFromLocal              bool              // the post-fields example gives a consistent date_utc
	twice, customDups         []map[string]any  // the duplicate-avoiding examples' bodies, in order
}

var linkedKinds = []linkedKind{
	{cest: "Venue", collection: "venues", nameKey: "venue", fixture: venueFixture,
		meta: map[string]any{"show_map": "false", "show_map_link": "false", "address": "Venue address",
			"city": "Venue city", "country": "Venue country", "province": "Venue province", "state": "Venue state",
			"zip": "Venue zip", "phone": "Venue phone", "stateprovince": "Venue stateprovince", "website": "http://venue.com"},
		wantMeta: map[string]string{"show_map": "false", "show_map_link": "false", "address": "Venue address",
			"city": "Venue city", "country": "Venue country", "province": "Venue province", "state": "Venue state",
			"stateprovince": "Venue stateprovince", "zip": "Venue zip", "phone": "Venue phone", "website": "http://venue.com"},
		empty: map[string]any{"show_map": "false", "show_map_link": "false", "address": "", "city": "", "country": "",
			"province": "", "state": "", "zip": "", "phone": "", "stateprovince": "", "website": ""},
		twice: []map[string]any{{"venue": "Cest Twice Venue", "description": "A venue description"},
			{"venue": "Cest Twice Venue", "description": "A venue description"}, {"venue": "Cest Twice Venue"},
			{"venue": "cest twice venue", "description": "a venue description"}},
		customDups: []map[string]any{
			{"venue": "Cest Custom Venue", "description": "A venue description", "address": "A venue address",
				"city": "A venue city", "country": "A venue country", "province": "A venue province", "state": "A venue state",
				"stateprovince": "A venue stateprovince", "zip": "A venue zip", "phone": "11223344"},
			{"venue": "Cest Custom Venue", "description": "A venue description", "address": "A venue address",
				"city": "A venue city", "country": "A venue country", "province": "A venue province", "state": "A venue state",
				"stateprovince": "A venue stateprovince", "zip": "A venue zip", "phone": "11223344"},
			{"venue": "cest custom venue", "country": "a venue country", "province": "a venue province",
				"state": "a venue state", "phone": "11223344"},
			{"venue": "cest custom venue", "description": "a venue description", "phone": "11223344"},
			{"venue": "cest custom venue", "description": "a venue description", "address": "a venue address",
				"city": "a venue city", "country": "a venue country"}}},
	{cest: "Organizer", collection: "organizers", nameKey: "organizer", fixture: organizerFixture, utcFromLocal: true,
		meta: map[string]any{"email": "john@company.com", "phone": "Organizer phone", "website": "http://organizer.com"},
		wantMeta: map[string]string{"email": "john@company.com", "phone": "Organizer phone",
			"website": "http://organizer.com"},
		empty: map[string]any{"email": "", "phone": "", "website": ""},
		twice: []map[string]any{{"organizer": "Cest Twice Organizer", "description": "An organizer description"},
			{"organizer": "Cest Twice Organizer", "description": "An organizer description"},
			{"organizer": "Cest Twice Organizer"},
			{"organizer": "cest twice organizer", "description": "an organizer description"}},
		customDups: []map[string]any{
			{"organizer": "Cest Custom Organizer", "phone": "11223344", "email": "doe@anizer.org", "website": "http://anizer.org"},
			{"organizer": "Cest Custom Organizer", "phone": "11223344", "email": "doe@anizer.org", "website": "http://anizer.org"},
			{"organizer": "Cest Custom Organizer", "email": "doe@anizer.org", "website": "http://anizer.org"},
			{"organizer": "Cest Custom Organizer", "phone": "11223344", "website": "http://anizer.org"},
			{"organizer": "Cest Custom Organizer", "website": "http://anizer.org"}}},
}

// name is the body naming a venue or organizer, with more fields.
func (k linkedKind) name(title string, more map[string]any) map[string]any {
	return merge(map[string]any{k.nameKey: title}, more)
}

// postFields is it_should_allow_{inserting,updating}_post_fields_along_with_the_{venue,organizer}:
// the body, and what the answer shows. The venue Cests give date and date_utc for two different
// instants (9am local, 9am UTC): calshim stores the pair WordPress derives from date
// (docs/compatibility.md: "date and date_utc given together"), so their date_utc is not checked.
func (k linkedKind) postFields(t *testing.T, loc *time.Location) (map[string]any, map[string]string) {
	now := calm(t, loc, time.UTC)
	date := strtotime(t, "tomorrow 9am", loc, now)
	utc := strtotime(t, "tomorrow 9am", time.UTC, now)
	if k.utcFromLocal {
		utc = date.In(time.UTC)
	}
	body := k.name("Cest "+k.cest+" Fields", map[string]any{"author": userID("editor"),
		"date": strconv.FormatInt(date.Unix(), 10), "date_utc": strconv.FormatInt(utc.Unix(), 10),
		"description": k.cest + " description", "status": "draft", "timezone": "America/New_York"})
	want := map[string]string{k.nameKey: "Cest " + k.cest + " Fields", "author": userID("editor"),
		"date": date.Format(time.DateTime), "description": "<p>" + k.cest + " description</p>", "status": "draft"}
	if k.utcFromLocal {
		want["date_utc"] = utc.Format(time.DateTime)
	}
	return body, want
}

// badPostFields are it_should_return_400_if_passing_bad_post_field_values' examples.
var badPostFields = [][2]any{{"author", 23}, {"author", "foo"}, {"date", "foo"}, {"date_utc", "foo"},
	{"status", "kinda_thinking_about_it"}}

// VenueInsertionCest and OrganizerInsertionCest, every method; the duplicate examples are the
// Cests' sequences, under names of their own.
func linkedInsertionCests(t *testing.T) {
	r, loc, media := newRig(t), siteTZ(t), sid(t, "media", "stage")
	image := stageURL(t)
	var examples []example
	for _, k := range linkedKinds {
		create := func(t *testing.T, body map[string]any) reply {
			res := sendCest(t, "admin", http.MethodPost, "/"+k.collection, body)
			r.created(k.collection, res)
			wantStatus(t, res, http.StatusCreated)
			return res
		}
		c := k.cest + "InsertionCest/"
		examples = append(examples,
			example{c + "it_should_return_401_if_user_cannot_insert_" + k.collection, func(t *testing.T) {
				wantError(t, sendCest(t, "", http.MethodPost, "/"+k.collection, k.name("A "+k.nameKey, nil)), 401, "rest_forbidden")
			}},
			example{c + "it_should_allow_inserting_a_" + k.nameKey, func(t *testing.T) {
				res := create(t, k.name("Cest "+k.cest+" Plain", nil))
				wantFields(t, res, map[string]string{k.nameKey: "Cest " + k.cest + " Plain"})
			}},
			example{c + "it_should_allow_inserting_post_fields_along_with_the_" + k.nameKey, func(t *testing.T) {
				body, want := k.postFields(t, loc)
				res := create(t, body)
				wantFields(t, res, want)
				wantFields(t, send(t, "admin", http.MethodGet, "/"+k.collection+"/"+str(at(res.body, "id")), nil),
					map[string]string{"status": "draft"})
			}},
			example{c + "it_should_return_400_if_" + k.nameKey + "_is_empty", func(t *testing.T) {
				wantStatus(t, sendCest(t, "admin", http.MethodPost, "/"+k.collection, k.name("", nil)), 400)
			}},
			example{c + "it_should_allow_inserting_optional_meta_along_with_the_" + k.nameKey, func(t *testing.T) {
				wantFields(t, create(t, k.name("Cest "+k.cest+" Meta", k.meta)), k.wantMeta)
			}},
			example{c + "it_should_allow_inserting_the_image_as_an_attachment_id_along_with_the_" + k.nameKey,
				func(t *testing.T) {
					res := create(t, k.name("Cest "+k.cest+" Image ID", map[string]any{"image": id(t, "media", "stage")}))
					wantFields(t, res, map[string]string{"image.id": media})
				}},
			example{c + "it_should_allow_inserting_th_image_as_a_url_along_with_the_" + k.nameKey, func(t *testing.T) {
				res := create(t, k.name("Cest "+k.cest+" Image URL", map[string]any{"image": image}))
				wantFields(t, res, map[string]string{"image.id": media})
			}},
			example{c + "it_should_avoid_inserting_a_" + k.nameKey + "_with_identical_fields_twice", func(t *testing.T) {
				wantSameID(t, create, k.twice)
			}},
			example{c + "it_should_avoid_inserting_duplicates_when_providing_custom_fields_information",
				func(t *testing.T) { wantSameID(t, create, k.customDups) }},
		)
		for _, bad := range badPostFields {
			examples = append(examples, example{c + "it_should_return_400_if_passing_bad_post_field_values/" +
				fmt.Sprint(bad[0], "=", bad[1]), func(t *testing.T) {
				body := k.name("Cest "+k.cest+" Bad", map[string]any{bad[0].(string): bad[1]})
				res := sendCest(t, "admin", http.MethodPost, "/"+k.collection, body)
				r.created(k.collection, res)
				wantStatus(t, res, 400)
			}})
		}
	}
	runExamples(t, examples)
}

// wantSameID creates each body in turn and wants every answer to name the first one's ID.
func wantSameID(t *testing.T, create func(*testing.T, map[string]any) reply, bodies []map[string]any) {
	t.Helper()
	first := str(at(create(t, bodies[0]).body, "id"))
	for i, b := range bodies[1:] {
		if got := str(at(create(t, b).body, "id")); got != first {
			t.Errorf("post %d: id %s, want the first one's %s", i+2, got, first)
		}
	}
}

// VenueUpdateCest and OrganizerUpdateCest, every method, each on fixtures of its own.
func linkedUpdateCests(t *testing.T) {
	r, loc, media := newRig(t), siteTZ(t), sid(t, "media", "stage")
	image := stageURL(t)
	var fixtures []fixture
	for _, k := range linkedKinds {
		for i := range 7 {
			fixtures = append(fixtures, k.fixture(fmt.Sprintf("Cest %s Fixture %d", k.cest, i)))
		}
		fixtures = append(fixtures, k.fixture("Cest "+k.cest+" 1"), k.fixture("Cest "+k.cest+" 2"))
	}
	all := r.have(t, fixtures...)
	var examples []example
	for n, k := range linkedKinds {
		f := all[9*n : 9*n+9]
		path := func(i int) string { return "/" + k.collection + "/" + f[i] }
		update := func(t *testing.T, i int, body map[string]any) reply {
			res := sendCest(t, "admin", http.MethodPost, path(i), body)
			wantStatus(t, res, http.StatusOK)
			return res
		}
		c := k.cest + "UpdateCest/"
		examples = append(examples,
			example{c + "it_should_return_401_if_user_cannot_update_" + k.collection, func(t *testing.T) {
				wantError(t, sendCest(t, "", http.MethodPost, path(0), k.name("A "+k.nameKey, nil)), 401, "rest_forbidden")
			}},
			example{c + "it_should_allow_updating_a_" + k.nameKey, func(t *testing.T) {
				wantFields(t, update(t, 0, k.name("Cest "+k.cest+" Renamed", nil)),
					map[string]string{k.nameKey: "Cest " + k.cest + " Renamed"})
			}},
			example{c + "it_should_allow_updating_post_fields_along_with_the_" + k.nameKey, func(t *testing.T) {
				body, want := k.postFields(t, loc)
				wantFields(t, update(t, 1, body), want)
				wantFields(t, send(t, "admin", http.MethodGet, path(1), nil), map[string]string{"status": "draft"})
			}},
			example{c + "it_should_return_400_if_" + k.nameKey + "_is_empty", func(t *testing.T) {
				wantStatus(t, sendCest(t, "admin", http.MethodPost, path(2), k.name("", nil)), 400)
			}},
			example{c + "it_should_allow_updating_optional_meta_along_with_the_" + k.nameKey, func(t *testing.T) {
				wantFields(t, update(t, 3, k.name("Cest "+k.cest+" Meta", k.meta)), k.wantMeta)
			}},
			example{c + "it_should_allow_updating_optional_meta_as_empty_along_with_the_" + k.nameKey, func(t *testing.T) {
				res := update(t, 4, k.name("Cest "+k.cest+" Empty", k.empty))
				for key := range k.empty {
					if want := k.wantMeta[key]; want == "false" {
						wantFields(t, res, map[string]string{key: "false"})
					} else if slices.Contains(keys(res.body), key) {
						t.Errorf("%s still in the answer: %q", key, str(at(res.body, key)))
					}
				}
				wantFields(t, res, map[string]string{k.nameKey: "Cest " + k.cest + " Empty"})
			}},
			example{c + "it_should_allow_updating_the_image_as_an_attachment_id_along_with_the_" + k.nameKey,
				func(t *testing.T) {
					res := update(t, 5, k.name("Cest "+k.cest+" Image ID", map[string]any{"image": id(t, "media", "stage")}))
					wantFields(t, res, map[string]string{"image.id": media})
				}},
			example{c + "it_should_allow_updating_th_image_as_a_url_along_with_the_" + k.nameKey, func(t *testing.T) {
				res := update(t, 6, k.name("Cest "+k.cest+" Image URL", map[string]any{"image": image}))
				wantFields(t, res, map[string]string{"image.id": media})
			}},
			example{c + "it_should_allow_updating_a_" + k.nameKey + "_to_match_an_existing_one", func(t *testing.T) {
				update(t, 8, k.name("Cest "+k.cest+" 1", nil))
				for _, i := range []int{7, 8} {
					wantFields(t, send(t, "admin", http.MethodGet, path(i), nil),
						map[string]string{"id": f[i], k.nameKey: "Cest " + k.cest + " 1"})
				}
			}},
		)
		if k.nameKey == "organizer" {
			examples = append(examples, example{c + "it_should_allow_updating_without_optional_meta_along_with_the_organizer",
				func(t *testing.T) {
					res := update(t, 2, k.name("Cest Organizer Kept", nil))
					for _, key := range []string{"id", "organizer", "email", "phone", "website"} {
						if !slices.Contains(keys(res.body), key) {
							t.Errorf("%s missing: %s", key, res.raw)
						}
					}
				}})
		}
		for _, bad := range badPostFields {
			examples = append(examples, example{c + "it_should_return_400_if_passing_bad_post_field_values/" +
				fmt.Sprint(bad[0], "=", bad[1]), func(t *testing.T) {
				wantStatus(t, sendCest(t, "admin", http.MethodPost, path(2),
					k.name("Cest "+k.cest+" Bad", map[string]any{bad[0].(string): bad[1]})), 400)
			}})
		}
	}
	runExamples(t, examples)
}
