package adapter

import (
	"calshim/mapping/php"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// How an event names its venue and organizers (the original: Linked_Post_Base::insert, called by
// Single_Event::prepare_postarr): IDs, {id} objects, creation payloads.

// validLink is the validator of an event's venue / organizer argument: empty; a CSV or list of IDs
// of that type; or objects, each {id} of that type or a creation payload with a non-empty name.
func (k linkedKind) validLink(r *request, v any) bool {
	if php.Empty(v) || allEmpty(v) {
		return true
	}

	if m, ok := v.(map[string]any); ok {
		return k.validObject(r, m)
	}

	for _, item := range items(v) {
		if m, ok := item.(map[string]any); ok {
			if !k.validObject(r, m) {
				return false
			}
		} else if !isPostOf(r, item, k.typ(r)) {
			return false
		}
	}

	return true
}

func (k linkedKind) validObject(r *request, m map[string]any) bool {
	if id, ok := Params(m).given("id"); ok {
		return isPostOf(r, id, k.typ(r))
	}
	name, _ := Params(m).text(k.name)
	return name != ""
}

// allEmpty reports whether v is a list or object whose members are all empty: the original's
// validator filters them out first (array_filter) and then finds nothing to check.
func allEmpty(v any) bool {
	var members []any
	switch x := v.(type) {
	case []any:
		members = x
	case map[string]any:
		for _, m := range x {
			members = append(members, m)
		}
	default:
		return false
	}

	return !slices.ContainsFunc(members, func(m any) bool { return !php.Empty(m) })
}

// linkFromObject links ({id}) or creates (a payload) one venue or organizer named in an event. An
// empty id is no id, as for the original (Linked_Post_Base::insert).
func (t *tx) linkFromObject(k linkedKind, m map[string]any) (int, error) {
	if id, ok := Params(m).given("id"); ok && !php.Empty(id) {
		if !isPostOf(t.r, id, k.typ(t.r)) {
			return 0, newError(http.StatusBadRequest, "invalid-linked-post-id",
				"The provided linked post ID is not valid")
		}
		s, _ := scalar(id)
		n, _ := php.PositiveInt(strings.TrimSpace(s))
		return n, nil
	}

	if k.payloadName(m) == "" {
		return 0, k.notCreated()
	}

	return t.saveLinked(k, nil, Params(m))
}

// payloadName is the name of the venue or organizer an object of an event's argument creates; ""
// when it links one by its id, or names none.
func (k linkedKind) payloadName(m map[string]any) string {
	if id, ok := Params(m).given("id"); ok && !php.Empty(id) {
		return ""
	}
	name, _ := Params(m).text(k.name)
	return name
}

// eventVenue links the event's venue: an ID, an {id} object or a creation payload. Lists (even of
// one ID or object) and CSV strings fail as in the original (Linked_Post_Base::insert takes a list
// for creation data without a name); empty leaves the venue as it is.
func (t *tx) eventVenue(_, meta map[string]any) error {
	v, ok := t.r.params.given("venue")
	if !ok || php.Empty(v) {
		return nil
	}

	var id int
	var err error
	switch x := v.(type) {
	case map[string]any:
		id, err = t.linkFromObject(venues, x)
	case []any:
		err = venues.notCreated()
	default:
		s, _ := scalar(x)
		if strings.Contains(s, ",") || !isPostOf(t.r, x, venues.typ(t.r)) {
			return venues.notCreated()
		}
		id, _ = php.PositiveInt(strings.TrimSpace(s))
	}

	if err != nil {
		return err
	}

	meta["_EventVenueID"] = []string{strconv.Itoa(id)}
	return nil
}

// eventOrganizers links the event's organizers in the order given: IDs, {id} objects, creation
// payloads. "" or [] removes them all; a CSV string fails as in the original, and so does an
// unwrapped object unless its members are empty or organizer IDs.
func (t *tx) eventOrganizers(_, meta map[string]any) error {
	v, ok := t.r.params.given("organizer")
	if !ok {
		return nil
	}

	list, ok := organizerList(v)
	if !ok {
		return organizers.notCreated()
	}

	ids := []string{}
	for _, item := range list {
		var id int
		var err error
		if php.Empty(item) { // Linked_Post_Base::insert: nothing to link
			continue
		}
		if m, isObj := item.(map[string]any); isObj {
			id, err = t.linkFromObject(organizers, m)
		} else if isPostOf(t.r, item, organizers.typ(t.r)) {
			s, _ := scalar(item)
			id, _ = php.PositiveInt(strings.TrimSpace(s))
		} else {
			err = organizers.notCreated()
		}
		if err != nil {
			return err
		}
		ids = append(ids, strconv.Itoa(id))
	}

	meta["_EventOrganizerID"] = ids
	return nil
}

// organizerList is an event's organizer argument as a list of entries; ok is false for a CSV
// string, which the original fails on.
func organizerList(v any) ([]any, bool) {
	switch x := v.(type) {
	case map[string]any:
		// An unwrapped object is a list of entries to the original (Single_Organizer::insert casts
		// it to an array): its members are taken one by one, empty ones skipped.
		return objectEntries(x), true
	case []any:
		return x, true
	}

	if s, _ := scalar(v); strings.Contains(s, ",") {
		return nil, false
	}
	if php.Empty(v) {
		return nil, true
	}
	return []any{v}, true
}

// objectEntries are an object's members in the order of their keys (JSON objects arrive unordered).
func objectEntries(m map[string]any) []any {
	keys := slices.Sorted(maps.Keys(m))
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}
