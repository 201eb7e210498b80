package test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The write and authorization assertions of the original's own REST acceptance tests (tests/restv1
// of The Events Calendar): AuthorizationCest, the event, venue, organizer, category and tag
// insertion, update and deletion Cests. Their fixtures (haveEventInDatabase, haveTermInDatabase and
// the like) are written straight into WordPress, as the Cests write theirs, and everything a test
// writes is deleted for good when it ends. Every expectation was checked against the original on the
// same WordPress; the Cest assertions left out are named, with the reason, where they would be.

// rig is what one test wrote into WordPress: its fixtures and what its requests created.
type rig struct {
	mu    sync.Mutex
	posts map[int]string // ID -> v1 collection ("events", "venues", "organizers"; "" for media)
	terms map[int]string // ID -> taxonomy
}

// newRig starts the record of what t writes; it is deleted when t ends.
func newRig(t *testing.T) *rig {
	r := &rig{posts: map[int]string{}, terms: map[int]string{}}
	id(t, "media", "stage") // loads the seed's IDs, which are never deleted
	t.Cleanup(func() { r.clear(t) })
	return r
}

// fixture is a post as the Cests' helpers make it: wp_insert_post's arguments, plus "terms"
// (taxonomy -> term IDs), "organizers" (one _EventOrganizerID row each) and "trash" (trashed after).
// A meta or organizer value "@N" is the ID of the Nth post of the same batch.
type fixture map[string]any

// termFixture is haveTermInDatabase's term: taxonomy, name and wp_insert_term's arguments, plus a
// "count" written into the term's row as that helper does; a "parent" of "@N" is the ID of the Nth
// term of the same batch.
type termFixture struct {
	tax, name string
	args      map[string]any
}

var postCollections = map[string]string{"tribe_events": "events", "tribe_venue": "venues",
	"tribe_organizer": "organizers", "attachment": ""}

// have writes posts into WordPress in one go and waits until calshim knows each of them.
func (r *rig) have(t *testing.T, posts ...fixture) []string {
	t.Helper()
	out := phpJSON(t, posts, `$ids = [];
foreach ( $in as $p ) {
	$ref = function ( $v ) use ( &$ids ) { // "@N": the ID of the batch's Nth post
		return is_string( $v ) && '' !== $v && '@' === $v[0] ? $ids[ (int) substr( $v, 1 ) ] : $v;
	};
	$p['meta_input'] = array_map( $ref, $p['meta_input'] ?? [] );
	$terms = $p['terms'] ?? []; $orgs = array_map( $ref, $p['organizers'] ?? [] ); $trash = ! empty( $p['trash'] );
	unset( $p['terms'], $p['organizers'], $p['trash'] );
	$id = wp_insert_post( $p, true );
	if ( is_wp_error( $id ) ) { fwrite( STDERR, $id->get_error_message() ); exit( 1 ); }
	foreach ( $terms as $tax => $list ) { wp_set_object_terms( $id, $list, $tax ); }
	foreach ( $orgs as $org ) { add_post_meta( $id, '_EventOrganizerID', $org ); }
	if ( $trash ) { wp_trash_post( $id ); }
	$ids[] = $id;
}
$out = $ids;`)
	var ids []int
	if err := json.Unmarshal(out, &ids); err != nil || len(ids) != len(posts) {
		t.Fatalf("fixtures: %v %s", err, out)
	}
	for i, id := range ids {
		r.add(postCollections[str(posts[i]["post_type"])], id)
	}
	waitSynced(t)
	return itoas(ids)
}

// haveTerms writes terms into WordPress in one go and waits until calshim knows each of them.
func (r *rig) haveTerms(t *testing.T, terms ...termFixture) []string {
	t.Helper()
	in := make([]map[string]any, len(terms))
	for i, tf := range terms {
		in[i] = map[string]any{"tax": tf.tax, "name": tf.name, "args": tf.args}
	}
	out := phpJSON(t, in, `$ids = [];
foreach ( $in as $tf ) {
	$args = (array) $tf['args']; $count = $args['count'] ?? null; unset( $args['count'] );
	if ( is_string( $args['parent'] ?? null ) && '@' === $args['parent'][0] ) { // an earlier fixture's ID
		$args['parent'] = $ids[ (int) substr( $args['parent'], 1 ) ];
	}
	$term = wp_insert_term( $tf['name'], $tf['tax'], $args );
	if ( is_wp_error( $term ) ) { fwrite( STDERR, $term->get_error_message() ); exit( 1 ); }
	if ( null !== $count ) {
		global $wpdb;
		$wpdb->update( $wpdb->term_taxonomy, [ 'count' => $count ], [ 'term_taxonomy_id' => $term['term_taxonomy_id'] ] );
		clean_term_cache( $term['term_id'], $tf['tax'] );
	}
	$ids[] = $term['term_id'];
}
$out = $ids;`)
	var ids []int
	if err := json.Unmarshal(out, &ids); err != nil || len(ids) != len(terms) {
		t.Fatalf("term fixtures: %v %s", err, out)
	}
	for i, id := range ids {
		r.addTerm(terms[i].tax, id)
	}
	waitSynced(t)
	return itoas(ids)
}

func itoas(ids []int) []string {
	out := make([]string, len(ids))
	for i, n := range ids {
		out[i] = strconv.Itoa(n)
	}
	return out
}

func termCollection(tax string) string {
	if tax == "post_tag" {
		return "tags"
	}
	return "categories"
}

// phpJSON runs code in WordPress with $in decoded from in, and returns $out encoded as JSON.
func phpJSON(t *testing.T, in any, code string) []byte {
	t.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	arg := base64.StdEncoding.EncodeToString(b)
	out := wpPHP(t, "$in = json_decode( base64_decode( '"+arg+"' ), true ); "+code+
		" echo \"\\n@@JSON@@\" . json_encode( $out );")
	i := strings.LastIndex(string(out), "@@JSON@@")
	if i < 0 {
		t.Fatalf("php printed no answer: %s", out)
	}
	return out[i+len("@@JSON@@"):]
}

// waitSynced waits until calshim's catalog has taken in every change WordPress has logged so far
// (fixtures and deletions made behind its back reach it through the change feed, within a poll).
func waitSynced(t *testing.T) {
	t.Helper()
	head, _ := feedHead(t)["head"].(float64)
	eventually(t, "calshim synced", func() bool {
		feed, _ := readyz(t, shim)["sync"].(map[string]any)
		seq, _ := feed["sequence"].(float64)
		return seq >= head // /readyz reports the published snapshot's sequence
	})
}

func (r *rig) add(collection string, id int) {
	if id == 0 || seededID(collection, id) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.posts[id] = collection
}

func (r *rig) addTerm(tax string, id int) {
	if id == 0 || seededID(termCollection(tax), id) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.terms[id] = tax
}

// seededID tells whether id is one of the seed's (never deleted by a test).
func seededID(collection string, id int) bool {
	for _, n := range seedIDs[collection] {
		if n == id {
			return true
		}
	}
	return false
}

// created records what a v1 answer says was made: the post itself and the venue, organizers and
// terms an event answer links.
func (r *rig) created(collection string, res reply) {
	n, _ := strconv.Atoi(str(at(res.body, "id")))
	r.add(collection, n)
	if collection != "events" {
		return
	}
	if v, _ := strconv.Atoi(str(at(res.body, "venue", "id"))); v != 0 {
		r.add("venues", v)
	}
	for _, o := range ids(at(res.body, "organizer")) {
		r.add("organizers", o)
	}
	for _, c := range ids(at(res.body, "categories")) {
		r.addTerm("tribe_events_cat", c)
	}
	for _, g := range ids(at(res.body, "tags")) {
		r.addTerm("post_tag", g)
	}
}

// clear deletes for good everything recorded, in one go, and waits until calshim has dropped it.
func (r *rig) clear(t *testing.T) {
	if len(r.posts)+len(r.terms) == 0 {
		return
	}
	posts, terms := map[string]string{}, map[string]string{}
	for id, c := range r.posts {
		posts[strconv.Itoa(id)] = c
	}
	for id, tax := range r.terms {
		terms[strconv.Itoa(id)] = tax
	}
	phpJSON(t, map[string]any{"posts": posts, "terms": terms}, `
foreach ( (array) $in['posts'] as $id => $c ) {
	'' === $c ? wp_delete_attachment( (int) $id, true ) : wp_delete_post( (int) $id, true );
}
foreach ( (array) $in['terms'] as $id => $tax ) { wp_delete_term( (int) $id, $tax ); }
$out = true;`)
	waitSynced(t)
}

// example is one Cest method (or one example of it).
type example struct {
	name string
	run  func(t *testing.T)
}

// writeSlots bounds the examples in flight, all Cests together: most of a write's time is spent
// waiting for WordPress, which answers a few requests at once.
var writeSlots = make(chan struct{}, 8)

// runExamples runs independent examples as subtests, each in a write slot.
func runExamples(t *testing.T, examples []example) {
	t.Helper()
	var wg sync.WaitGroup
	for _, ex := range examples {
		wg.Add(1)
		writeSlots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-writeSlots }()
			t.Run(ex.name, ex.run)
		}()
	}
	wg.Wait()
}

// runTogether runs groups of examples side by side as subtests; their examples share the slots.
func runTogether(t *testing.T, groups []example) {
	t.Helper()
	var wg sync.WaitGroup
	for _, g := range groups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(g.name, g.run)
		}()
	}
	wg.Wait()
}

// TestRestv1Writes runs the write Cests side by side (each has fixtures and names of its own), so
// that their waits for WordPress and for calshim's change feed overlap. Run one with
// -run 'TestRestv1Writes/EventInsertionCest'.
func TestRestv1Writes(t *testing.T) {
	runTogether(t, []example{
		{"EventInsertionCest", eventInsertionCest},
		{"EventUpdateCest", eventUpdateCest},
		{"VenueAndOrganizerInsertionCests", linkedInsertionCests},
		{"VenueAndOrganizerUpdateCests", linkedUpdateCests},
		{"CategoryAndTagCests", termCests},
		{"AuthorizationCest", authorizationCest},
		{"DeletionCests", deletionCests},
	})
}

// strtotime is what PHP makes of the Cests' date phrases ("tomorrow 9am", "next wednesday 4pm",
// "+5 days 23:59:59", "2018-01-01 4pm": a day, then a time) at now in loc.
func strtotime(t *testing.T, phrase string, loc *time.Location, now time.Time) time.Time {
	t.Helper()
	i := strings.LastIndex(phrase, " ")
	day, clock := phrase[:i], phrase[i+1:]
	n := now.In(loc)
	d := time.Date(n.Year(), n.Month(), n.Day(), 0, 0, 0, 0, loc)
	switch {
	case day == "tomorrow":
		d = d.AddDate(0, 0, 1)
	case strings.HasPrefix(day, "next "):
		step := (weekday(t, day[5:]) - int(d.Weekday()) + 7) % 7
		if step == 0 {
			step = 7
		}
		d = d.AddDate(0, 0, step)
	case strings.HasPrefix(day, "+") && strings.HasSuffix(day, " days"):
		days, err := strconv.Atoi(strings.TrimSuffix(day[1:], " days"))
		if err != nil {
			t.Fatalf("phrase %q: %v", phrase, err)
		}
		d = d.AddDate(0, 0, days)
	default:
		var err error
		if d, err = time.ParseInLocation(time.DateOnly, day, loc); err != nil {
			t.Fatalf("phrase %q: %v", phrase, err)
		}
	}
	h, m, s := clockOf(t, clock)
	return time.Date(d.Year(), d.Month(), d.Day(), h, m, s, 0, loc)
}

func weekday(t *testing.T, name string) int {
	t.Helper()
	for d := time.Sunday; d <= time.Saturday; d++ {
		if strings.EqualFold(d.String(), name) {
			return int(d)
		}
	}
	t.Fatalf("no weekday %q", name)
	return 0
}

// clockOf reads "9am", "1pm" or "23:59:59".
func clockOf(t *testing.T, clock string) (h, m, s int) {
	t.Helper()
	if c, err := time.Parse(time.TimeOnly, clock); err == nil {
		return c.Hour(), c.Minute(), c.Second()
	}
	c, err := time.Parse("3pm", clock)
	if err != nil {
		t.Fatalf("clock %q: %v", clock, err)
	}
	return c.Hour(), 0, 0
}

// calm returns the time now, first waiting out the last seconds of a day in any of locs: the
// Cests' "tomorrow" must be the same day for the test and for the server it asks.
func calm(t *testing.T, locs ...*time.Location) time.Time {
	t.Helper()
	now := time.Now()
	for _, loc := range locs {
		a, b := now.In(loc), now.Add(15*time.Second).In(loc)
		if a.Day() != b.Day() {
			time.Sleep(16 * time.Second)
			return time.Now()
		}
	}
	return now
}

// sendCest sends params as the Cests' sendPOST/sendPUT do: a form body built as PHP's
// http_build_query builds it (true is "1", false "0", lists and objects as key[0], key[name], an empty
// list nothing at all).
func sendCest(t testing.TB, role, method, path string, params map[string]any) reply {
	t.Helper()
	form := url.Values{}
	for k, v := range params {
		phpQuery(form, k, reflect.ValueOf(v))
	}
	return call(t, method, v1+path, as(role), formBody(form.Encode()))
}

func phpQuery(form url.Values, key string, v reflect.Value) {
	switch v.Kind() {
	case reflect.Invalid:
	case reflect.Interface, reflect.Pointer:
		phpQuery(form, key, v.Elem())
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			phpQuery(form, key+"["+strconv.Itoa(i)+"]", v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			phpQuery(form, key+"["+fmt.Sprint(k.Interface())+"]", v.MapIndex(k))
		}
	case reflect.Bool:
		form.Set(key, map[bool]string{true: "1", false: "0"}[v.Bool()])
	default:
		form.Set(key, fmt.Sprint(v.Interface()))
	}
}

// userID is a rig user's ID.
func userID(role string) string { return wpEnv["WP_"+strings.ToUpper(role)+"_USER_ID"] }

// siteTZ is the site's time zone, in which calshim and the original read dates given without one.
func siteTZ(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(str(readyz(t, shim)["timezone"]))
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// stageURL is the file URL of the seed's image.
func stageURL(t *testing.T) string {
	t.Helper()
	return str(wp(t, http.MethodGet, "/wp/v2/media/"+sid(t, "media", "stage"), nil)["source_url"])
}

// wantFields asserts the answer's values at the given keys ("image.id", "organizer.0.id" reach into
// it), as seeResponseContainsJson does.
func wantFields(t *testing.T, r reply, want map[string]string) {
	t.Helper()
	for k, v := range want {
		var path []any
		for _, p := range strings.Split(k, ".") {
			if n, err := strconv.Atoi(p); err == nil {
				path = append(path, n)
			} else {
				path = append(path, p)
			}
		}
		if got := str(at(r.body, path...)); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}

// eventFixture is haveEventInDatabase's event: tomorrow from 9 to 11, by the administrator unless
// more says otherwise.
func eventFixture(title string, more fixture) fixture {
	when := time.Now().AddDate(0, 0, 1)
	day := when.Format(time.DateOnly)
	f := fixture{"post_type": "tribe_events", "post_status": "publish", "post_title": title,
		"post_author": userID("admin"), "meta_input": map[string]any{
			"_EventStartDate": day + " 09:00:00", "_EventEndDate": day + " 11:00:00",
			"_EventStartDateUTC": day + " 14:00:00", "_EventEndDateUTC": day + " 16:00:00",
			"_EventTimezone": "America/New_York", "_EventDuration": "7200"}}
	for k, v := range more {
		f[k] = v
	}
	return f
}

// venueFixture and organizerFixture are haveVenueInDatabase's and haveOrganizerInDatabase's.
func venueFixture(title string) fixture {
	u := strings.ToLower(strings.ReplaceAll(title, " ", "-"))
	return fixture{"post_type": "tribe_venue", "post_status": "publish", "post_title": title,
		"post_content": title + " description", "post_excerpt": title + " excerpt",
		"meta_input": map[string]any{"_EventShowMap": "1", "_EventShowMapLink": "1",
			"_VenueAddress": u + " address", "_VenueCity": u + " city", "_VenueCountry": u + " country",
			"_VenueProvince": u + " province", "_VenueState": u + " state", "_VenueZip": u + " zip",
			"_VenuePhone": u + " phone", "_VenueURL": u + " url", "_VenueStateProvince": u + " state_province"}}
}

func organizerFixture(title string) fixture {
	u := strings.ToLower(strings.ReplaceAll(title, " ", "-"))
	return fixture{"post_type": "tribe_organizer", "post_status": "publish", "post_title": title,
		"post_content": title + " description", "post_excerpt": title + " excerpt",
		"meta_input": map[string]any{"_OrganizerPhone": u + " phone", "_OrganizerWebsite": u + " website",
			"_OrganizerEmail": u + " email"}}
}

// AuthorizationCest, all 15 methods: who may edit and delete whose events, venues and organizers.
// The Cest logs in with cookies and a nonce; the rig's users send application passwords.
func authorizationCest(t *testing.T) {
	r := newRig(t)
	contributor := fixture{"post_author": userID("contributor")}
	draft := fixture{"post_author": userID("contributor"), "post_status": "draft"}
	f := r.have(t, eventFixture("Admin Event", nil), eventFixture("Contributor Event", contributor),
		eventFixture("Draft Contributor Event", draft), eventFixture("Draft Contributor Event", draft),
		eventFixture("Admin Event", nil), eventFixture("Admin Event", nil),
		venueFixture("Admin Venue"), organizerFixture("Admin Organizer"))
	adminEv, ownEv, ownDraft, ownDraft2, adminEv2, adminEv3, venue, organizer := f[0], f[1], f[2], f[3], f[4],
		f[5], f[6], f[7]
	title := func(s string) map[string]any { return map[string]any{"title": s} }
	for _, tc := range []struct {
		name, role, method, path string
		body                     map[string]any
		status                   int
	}{
		{"contributor_cannot_edit_admin_event", "contributor", "PUT", "/events/" + adminEv, title("Hacked Title"), 403},
		{"contributor_cannot_edit_own_published_event", "contributor", "PUT", "/events/" + ownEv, title("Updated Title"), 403},
		{"contributor_cannot_delete_admin_event", "contributor", "DELETE", "/events/" + adminEv + "?force=1", nil, 403},
		{"contributor_cannot_delete_own_published_event", "contributor", "DELETE", "/events/" + ownEv + "?force=1", nil, 403},
		{"contributor_can_edit_own_draft_event", "contributor", "PUT", "/events/" + ownDraft, title("Updated Draft Title"), 200},
		{"contributor_can_delete_own_draft_event", "contributor", "DELETE", "/events/" + ownDraft2 + "?force=1", nil, 200},
		{"editor_can_edit_other_events", "editor", "PUT", "/events/" + adminEv2, title("Edited by Editor"), 200},
		{"editor_can_delete_other_events", "editor", "DELETE", "/events/" + adminEv3 + "?force=1", nil, 200},
		{"contributor_cannot_edit_admin_venue", "contributor", "PUT", "/venues/" + venue, map[string]any{"venue": "Hacked Venue"}, 403},
		{"contributor_cannot_delete_admin_venue", "contributor", "DELETE", "/venues/" + venue + "?force=1", nil, 403},
		{"contributor_cannot_edit_admin_organizer", "contributor", "PUT", "/organizers/" + organizer, map[string]any{"organizer": "Hacked Organizer"}, 403},
		{"contributor_cannot_delete_admin_organizer", "contributor", "DELETE", "/organizers/" + organizer + "?force=1", nil, 403},
		{"unauthenticated_cannot_edit_event", "", "PUT", "/events/" + adminEv, title("Tampered"), 401},
		{"unauthenticated_cannot_delete_event", "", "DELETE", "/events/" + adminEv + "?force=1", nil, 401},
		{"unauthenticated_cannot_edit_draft_event", "", "PUT", "/events/" + ownDraft, title("Tampered Draft"), 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := sendCest(t, tc.role, tc.method, tc.path, tc.body)
			if res.status != tc.status || res.body == nil {
				t.Errorf("%d %.300s, want %d", res.status, res.raw, tc.status)
			}
		})
	}
	if got := str(at(send(t, "admin", http.MethodGet, "/events/"+adminEv, nil).body, "title")); got != "Admin Event" {
		t.Errorf("refused edits changed the admin's event: title %q", got)
	}
}

// EventDeletionCest, VenueDeletionCest and OrganizerDeletionCest, every method. The Cests' "ID that
// does not exist" is 23, an event of the rig's seed: 999999 here.
func deletionCests(t *testing.T) {
	r := newRig(t)
	trashed := fixture{"trash": true}
	linked := merge(eventFixture("", nil)["meta_input"].(map[string]any), map[string]any{"_EventVenueID": "@9"})
	f := r.have(t, eventFixture("Deletion Event", nil), eventFixture("Deletion Event", nil),
		eventFixture("Trashed Event", trashed),
		venueFixture("Deletion Venue"), venueFixture("Deletion Venue Two"), merge(venueFixture("Trashed Venue"), trashed),
		organizerFixture("Deletion Organizer"), organizerFixture("Deletion Organizer Two"),
		merge(organizerFixture("Trashed Organizer"), trashed),
		venueFixture("Unlinked Venue"), organizerFixture("Unlinked Organizer"),
		eventFixture("Linked Event", fixture{"organizers": []string{"@10"}, "meta_input": linked}))
	for _, tc := range []struct {
		name, role, path string
		status           int
		id               string // the deleted ID the answer names
	}{
		{"EventDeletionCest/it_should_return_404_if_trying_to_delete_non_existent_event_id", "admin", "/events/999999", 404, ""},
		{"EventDeletionCest/it_should_return_401_if_user_cannot_delete_events", "", "/events/" + f[0], 401, ""},
		{"EventDeletionCest/it_should_return_200_when_deleting_event", "admin", "/events/" + f[1], 200, f[1]},
		{"EventDeletionCest/it_should_return_410_when_re_deleting_a_deleted_event", "admin", "/events/" + f[2], 410, ""},
		{"VenueDeletionCest/it_should_return_400_if_trying_to_delete_venue_passing_bad_venue_id", "", "/venues/999999", 400, ""},
		{"VenueDeletionCest/it_should_return_401_if_user_cannot_delete_venues", "", "/venues/" + f[3], 401, ""},
		{"VenueDeletionCest/it_should_return_200_when_deleting_venue", "admin", "/venues/" + f[4], 200, f[4]},
		{"VenueDeletionCest/it_should_return_410_when_re_deleting_a_deleted_venue", "admin", "/venues/" + f[5], 410, ""},
		{"OrganizerDeletionCest/it_should_return_400_if_trying_to_delete_organizer_passing_bad_organizer_id", "", "/organizers/999999", 400, ""},
		{"OrganizerDeletionCest/it_should_return_401_if_user_cannot_delete_organizers", "", "/organizers/" + f[6], 401, ""},
		{"OrganizerDeletionCest/it_should_return_200_when_deleting_organizer", "admin", "/organizers/" + f[7], 200, f[7]},
		{"OrganizerDeletionCest/it_should_return_410_when_re_deleting_a_deleted_organizer", "admin", "/organizers/" + f[8], 410, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := sendCest(t, tc.role, http.MethodDelete, tc.path, nil)
			if res.status != tc.status || res.body == nil || (tc.id != "" && str(at(res.body, "id")) != tc.id) {
				t.Errorf("%d %.300s, want %d", res.status, res.raw, tc.status)
			}
		})
	}
	t.Run("VenueDeletionCest/it_should_remove_the_venue_from_related_events_when_deleting_it", func(t *testing.T) {
		wantUnlinked(t, f[11], "venues", "_EventVenueID", f[9])
	})
	t.Run("OrganizerDeletionCest/it_should_remove_the_organizer_from_related_events_when_deleting_it",
		func(t *testing.T) { wantUnlinked(t, f[11], "organizers", "_EventOrganizerID", f[10]) })
}

// wantUnlinked is VenueDeletionCest's and OrganizerDeletionCest's
// it_should_remove_the_{venue,organizer}_from_related_events_when_deleting_it: deleting the linked
// post removes the event's meta row that names it.
func wantUnlinked(t *testing.T, ev, collection, key, linked string) {
	t.Helper()
	meta := func() []string {
		m, _ := wp(t, http.MethodGet, "/wp/v2/tribe_events/"+ev+"?context=edit", nil)["meta"].(map[string]any)
		var out []string
		switch v := m[key].(type) {
		case []any:
			for _, x := range v {
				out = append(out, fmt.Sprint(x))
			}
		default:
			out = append(out, fmt.Sprint(v))
		}
		return out
	}
	if !slices.Contains(meta(), linked) {
		t.Fatalf("fixture not linked: %s %v", key, meta())
	}
	wantStatus(t, sendCest(t, "admin", http.MethodDelete, "/"+collection+"/"+linked, nil), 200)
	if got := meta(); slices.Contains(got, linked) {
		t.Errorf("event still linked: %s %v", key, got)
	}
}

// merge returns a copy of a with b's entries added.
func merge[M ~map[string]V, V any](a M, b map[string]V) M {
	out := M{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
