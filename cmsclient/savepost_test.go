package cmsclient_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"calshim/cmsclient"
)

// metaSchema is the meta part of OPTIONS /wp/v2/tribe_events where the calendar plugin declares
// some of its keys.
const metaSchema = `{"schema":{"properties":{"meta":{"properties":{"_EventAllDay":{"type":"boolean"},
	"_VenueShowMap":{"type":"boolean"},"_EventVenueID":{"type":"array","items":{"type":"number"}},
	"_EventCost":{"type":"string"},"_EventURL":{"type":"string"}}}}}}`

// schemaServer answers the schema, and a save with the post saved; saves counts the saves.
func schemaServer(t *testing.T, saves *int) *cmsclient.Client {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodOptions:
			_, _ = fmt.Fprint(w, metaSchema)
		case http.MethodPost:
			*saves++
			_, _ = fmt.Fprint(w, `{"id":42,"title":{"raw":"Saved"}}`)
		}
	}))
	t.Cleanup(srv.Close)
	return newClient(srv.URL + "/wp-json")
}

// TestPostBody: meta goes in the declared types (a boolean from "yes", numbers from ID rows, a
// single string from a list), undeclared keys as they are; a create sends no deletions; Kept is
// sent for a declared string key the save does not set.
func TestPostBody(t *testing.T) {
	c := schemaServer(t, new(int))
	meta := map[string]any{"_EventAllDay": "yes", "_VenueShowMap": "false", "_EventVenueID": []string{"12", "x"},
		"_EventCost": []string{"$5", "$10"}, "_EventURL": nil, "_EventOrganizerID": []string{"3"}}
	for _, tc := range []struct {
		name string
		save cmsclient.PostSave
		want string
	}{
		{"update", cmsclient.PostSave{Type: "tribe_events", ID: 7, Body: map[string]any{"meta": meta}},
			"map[meta:map[_EventAllDay:true _EventCost:$5 _EventOrganizerID:[3] _EventURL:<nil> " +
				"_EventVenueID:[12] _VenueShowMap:false]]"},
		{"create", cmsclient.PostSave{Type: "tribe_events", Body: map[string]any{"meta": meta}},
			"map[meta:map[_EventAllDay:true _EventCost:$5 _EventOrganizerID:[3] _EventVenueID:[12] " +
				"_VenueShowMap:false]]"},
		{"deletions", cmsclient.PostSave{Type: "tribe_events", ID: 7, Body: map[string]any{"meta": map[string]any{
			"_EventAllDay": nil, "_EventCost": []string{}}}}, "map[meta:map[_EventAllDay:false _EventCost:<nil>]]"},
		{"kept", cmsclient.PostSave{Type: "tribe_events", ID: 7, Body: map[string]any{"title": "x"},
			Kept: map[string]string{"_EventCost": "$5 - $10", "_Undeclared": "y"}},
			"map[meta:map[_EventCost:$5 - $10] title:x]"},
		{"kept but given", cmsclient.PostSave{Type: "tribe_events", ID: 7,
			Body: map[string]any{"meta": map[string]any{"_EventCost": "1"}}, Kept: map[string]string{"_EventCost": "2"}},
			"map[meta:map[_EventCost:1]]"},
		{"no meta", cmsclient.PostSave{Type: "tribe_events", ID: 7, Body: map[string]any{"title": "x"},
			Kept: map[string]string{}}, "map[title:x]"},
	} {
		body, err := c.PostBody(context.Background(), tc.save)
		if err != nil || fmt.Sprint(body) != tc.want {
			t.Errorf("%s: %v %v\nwant %s", tc.name, body, err, tc.want)
		}
	}
	if fmt.Sprint(meta["_EventAllDay"]) != "yes" {
		t.Errorf("the caller's meta changed: %v", meta)
	}
}

// TestSavePostAs: a save answers the saved post's ID and WordPress' answer.
func TestSavePostAs(t *testing.T) {
	saves := 0
	c := schemaServer(t, &saves)
	saved, err := c.SavePostAs(context.Background(), cmsclient.Credentials{Authorization: "Basic x"},
		cmsclient.PostSave{Type: "tribe_events", Body: map[string]any{"title": "Saved"}})
	if err != nil || saved.ID != 42 || string(saved.Answer) != `{"id":42,"title":{"raw":"Saved"}}` || saves != 1 {
		t.Errorf("saved %+v, err %v, %d saves", saved, err, saves)
	}
}
