package test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// calendarMeta matches the calendar's meta keys, whoever registers them for REST (the plugin's
// CALENDAR_META).
var calendarMeta = regexp.MustCompile(`^_(Event|Venue|Organizer|tribe_|ecp_custom_)`)

// exposed is one post of the exposure test: its wp/v2 collection, its v1 path and a meta key it
// stores, which privileged callers must still see.
type exposed struct {
	name, collection, v1, key string
	id                        string
}

// What wp/v2 shows anonymous visitors and subscribers of an event, venue or organizer is never more
// than TEC's API v1 shows them: wherever v1 refuses a post (401, 403, 404) or blanks its content,
// wp/v2 answers — single, list, `_fields`, embed context — carry none of the calendar's meta and no
// `calshim` field, with The Events Calendar's block-editor registrations (test/testdata/wordpress)
// and without. calshim's service account and editors still read everything.
func TestWPv2ShowsNoMoreThanV1(t *testing.T) {
	posts := exposureFixtures(t)
	check := func(t *testing.T) {
		for _, p := range posts {
			for _, role := range []string{"", "subscriber"} {
				refused := v1Refuses(t, role, p)
				for _, path := range wpv2Views(p) {
					r := call(t, http.MethodGet, wpJSON(path), as(role), lenient)
					shown := calendarShown(t, r.status, r.raw)
					switch {
					case refused && len(shown) > 0:
						t.Errorf("%s as %q: v1 refuses it, wp/v2 %s shows %v", p.name, role, path, shown)
					case !refused && p.name == "public event" && !strings.Contains(path, "context=embed") &&
						!slices.Contains(shown, p.key):
						t.Errorf("%s as %q: v1 shows it, wp/v2 %s hides %s (shows %v)", p.name, role, path, p.key, shown)
					}
				}
			}
			for _, role := range []string{"reader", "editor"} {
				r := call(t, http.MethodGet, wpJSON("/wp/v2/"+p.collection+"/"+p.id+"?_fields=id,meta,calshim"), as(role), lenient)
				if shown := calendarShown(t, r.status, r.raw); !slices.Contains(shown, "calshim") || !slices.Contains(shown, p.key) {
					t.Errorf("%s as %s: wp/v2 shows %v, want calshim and %s (%d)", p.name, role, shown, p.key, r.status)
				}
			}
		}
	}
	t.Run("without TEC", check)
	t.Run("with TEC's block-editor meta", func(t *testing.T) {
		code, err := os.ReadFile("testdata/wordpress/tec-editor-meta.php")
		if err != nil {
			t.Fatal(err)
		}
		installMuPlugin(t, "tec-editor-meta.php", code)
		public := posts[len(posts)-1]
		r := call(t, http.MethodGet, wpJSON("/wp/v2/tribe_events/"+public.id+"?_fields=meta"), lenient)
		if !strings.Contains(string(r.raw), `"_EventCostDescription"`) {
			t.Fatalf("the stand-in for TEC's registrations is not active: %s", r.raw)
		}
		check(t)
	})
}

// exposureFixtures creates, as the administrator, a password-protected and a draft venue and
// organizer, a password-protected, draft, private and scheduled event that use them, and last a
// public event; it returns once calshim has seen the last, and deletes them all when the test ends.
func exposureFixtures(t *testing.T) []exposed {
	// Registered first, so it runs after the deletions: the tests after this one see the seed alone.
	t.Cleanup(func() { waitSynced(t) })
	day := time.Now().AddDate(0, 0, 6).Format("2006-01-02")
	later := time.Now().AddDate(0, 1, 0).Format("2006-01-02")
	var out []exposed
	create := func(name, collection, v1, status, password, key string, meta map[string]any) string {
		body := map[string]any{"title": "Exposure " + name, "status": status, "password": password,
			"content": "Only for those who may read it.", "meta": meta}
		if status == "future" {
			body["date"] = later + "T09:00:00"
		}
		body["meta"] = registeredForm(t, collection, meta)
		id := strconv.Itoa(int(wp(t, http.MethodPost, "/wp/v2/"+collection, body)["id"].(float64)))
		wpDeleteLater(t, "/wp/v2/"+collection+"/"+id)
		out = append(out, exposed{name: name, collection: collection, v1: v1 + id, key: key, id: id})
		return id
	}
	venue := create("protected venue", "tribe_venue", "/venues/", "publish", "vpass", "_VenueCity",
		map[string]any{"_VenueCity": "Oslo", "_VenuePhone": "555-0100"})
	create("draft venue", "tribe_venue", "/venues/", "draft", "", "_VenueCity", map[string]any{"_VenueCity": "Bergen"})
	organizer := create("protected organizer", "tribe_organizer", "/organizers/", "publish", "opass", "_OrganizerPhone",
		map[string]any{"_OrganizerPhone": "555-0199", "_OrganizerEmail": "hidden@example.com"})
	create("draft organizer", "tribe_organizer", "/organizers/", "draft", "", "_OrganizerPhone",
		map[string]any{"_OrganizerPhone": "555-0198"})
	event := func(name, status, password string) {
		create(name, "tribe_events", "/events/", status, password, "_EventCost", map[string]any{
			"_EventStartDate": day + " 19:00:00", "_EventEndDate": day + " 22:00:00",
			"_EventStartDateUTC": day + " 23:00:00", "_EventEndDateUTC": day + " 23:59:00",
			"_EventTimezone": "America/New_York", "_EventCost": []string{"250"}, "_EventURL": "https://example.com/x",
			"_EventVenueID": []string{venue}, "_EventOrganizerID": []string{organizer}})
	}
	event("protected event", "publish", "epass")
	event("draft event", "draft", "")
	event("private event", "private", "")
	event("scheduled event", "future", "")
	event("public event", "publish", "")
	public := out[len(out)-1]
	eventually(t, "the public event in calshim", func() bool { return get(t, public.v1).status == http.StatusOK })
	return out
}

// registeredForm puts each meta value in the form the active registration of the key takes, as
// wp/v2's schema of the collection declares it (OPTIONS): the calshim plugin registers _EventCost
// and the linked IDs as arrays, The Events Calendar (when it is active) some of them as single
// values, and WordPress refuses the other form (400 rest_invalid_type). A key the schema does not
// declare keeps its value.
func registeredForm(t *testing.T, collection string, meta map[string]any) map[string]any {
	t.Helper()
	schema, _ := wp(t, http.MethodOptions, "/wp/v2/"+collection, nil)["schema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	metaSchema, _ := props["meta"].(map[string]any)
	keys, _ := metaSchema["properties"].(map[string]any)
	out := map[string]any{}
	for k, v := range meta {
		out[k] = v
		decl, _ := keys[k].(map[string]any)
		if decl == nil {
			continue
		}
		list, isList := v.([]string)
		switch typ := schemaType(decl["type"]); {
		case typ == "array" && !isList:
			out[k] = []any{v}
		case typ == "integer" && isList && len(list) > 0:
			n, err := strconv.Atoi(list[0])
			if err != nil {
				t.Fatalf("%s: %q is no integer for %s's registration", k, list[0], collection)
			}
			out[k] = n
		case typ != "array" && typ != "" && isList && len(list) > 0:
			out[k] = list[0]
		}
	}
	return out
}

// schemaType is a JSON schema's type: "string", or the first not null of ["string", "null"].
func schemaType(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok && s != "null" {
				return s
			}
		}
	}
	return ""
}

// v1Refuses reports whether calshim's v1 refuses the post to role ("" anonymous) or blanks its content.
func v1Refuses(t *testing.T, role string, p exposed) bool {
	r := call(t, http.MethodGet, "/wp-json/cal/events/v1"+p.v1, as(role))
	return r.status != http.StatusOK || str(at(r.body, "description")) == ""
}

// wpv2Views are the wp/v2 answers that may carry the post: single and list, whole or trimmed with
// `_fields`, in the view and embed contexts.
func wpv2Views(p exposed) []string {
	single, list := "/wp/v2/"+p.collection+"/"+p.id, "/wp/v2/"+p.collection+"?include="+p.id
	return []string{single, single + "?_fields=meta", single + "?_fields=meta,calshim", single + "?context=embed",
		list, list + "&_fields=id,meta,calshim", list + "&context=embed"}
}

// calendarShown lists what of the calendar's storage a wp/v2 answer (an item or a list) shows: the
// `calshim` field and the calendar's meta keys. Refusals show nothing.
func calendarShown(t *testing.T, status int, raw []byte) []string {
	t.Helper()
	if status != http.StatusOK {
		return nil
	}
	var items []map[string]any
	if json.Unmarshal(raw, &items) != nil {
		var item map[string]any
		if err := json.Unmarshal(raw, &item); err != nil {
			t.Fatalf("wp/v2 answer is not JSON: %v\n%s", err, raw)
		}
		items = []map[string]any{item}
	}
	var shown []string
	for _, item := range items {
		if _, ok := item["calshim"]; ok {
			shown = append(shown, "calshim")
		}
		meta, _ := item["meta"].(map[string]any)
		for k := range meta {
			if calendarMeta.MatchString(k) {
				shown = append(shown, k)
			}
		}
	}
	sort.Strings(shown)
	return shown
}

// installMuPlugin writes a test-only plugin into the rig's must-use plugins for the rest of the test
// (WordPress loads every PHP file there on each request) and removes it afterwards.
func installMuPlugin(t *testing.T, name string, code []byte) {
	t.Helper()
	dir := strings.TrimSpace(string(wpPHP(t, "echo WPMU_PLUGIN_DIR;")))
	dst := filepath.Join(dir, "calshim-test-"+name)
	if err := os.WriteFile(dst, code, 0o644); err != nil {
		t.Fatalf("cannot install %s into the rig's mu-plugins: %v", name, err)
	}
	t.Cleanup(func() { _ = os.Remove(dst) })
}
