package mapping

import (
	"strconv"
	"strings"

	"calshim/mapping/php"
)

// LinkedWrite is a venue or organizer write that passed validation: the route's arguments, or a
// payload nested in an event write. Name, Description, Status, Date and DateUTC are as sent (a
// number as its text); the others are trimmed.
type LinkedWrite struct {
	Venue                                    bool // else an organizer
	Name, Description, Status, Date, DateUTC Arg[string]
	Author                                   Arg[int]
	Image, Website, Phone, Email             Arg[string]
	Address, City, Country, Province, State  Arg[string]
	Zip, StateProvince, ShowMap, ShowMapLink Arg[string]
}

// LinkedPlan is a venue or organizer write: Steps (an image to resolve), then Save. A create
// carries Duplicate: when a post of its name exists (the adapter asks WordPress when the catalog
// has none), Duplicate's save goes onto that post instead.
type LinkedPlan struct {
	Steps     []Step
	Save      PostWrite
	Duplicate *DuplicateWrite
}

// DuplicateWrite is the original's answer to creating a venue or organizer that exists already
// (same title, and same description when Description is not ""): the meta and image given saved
// onto it as on create, its post fields left as they are (Tribe__Events__Venue::create with
// avoid_duplicates, then save_meta). Save.ID is the duplicate's, the adapter's to fill.
type DuplicateWrite struct {
	Name, Description string
	Save              PostWrite
}

// PlanLinked translates a venue or organizer write: a create when p is nil, else an update of p
// (only the fields given change). Empty strings clear meta fields; post title and content are
// never cleared (the original ignores empty values there).
func PlanLinked(w LinkedWrite, p *Post, st WriteState) LinkedPlan {
	create := p == nil
	save := PostWrite{Type: st.Types.Organizer, Fields: map[string]any{}}
	if w.Venue {
		save.Type = st.Types.Venue
	}
	if !create {
		save.ID = p.ID
	}
	copyFields(save.Fields, []fieldArg{{"title", w.Name}, {"content", w.Description}})
	if title, ok := save.Fields["title"]; ok && create {
		// The original names the post after its title (Tribe__Events__Venue::create sets
		// post_name), so a draft has its slug too; WordPress sanitizes it as sanitize_title does.
		save.Fields["slug"] = title
	}
	if w.Author.OK {
		save.Fields["author"] = w.Author.V
	}
	if status, ok := ScaleStatus(w.Status, st.CanPublish, create); ok {
		save.Fields["status"] = status
	}
	PostDates(save.Fields, w.Date, w.DateUTC, st.Now, st.Location, true)
	var plan LinkedPlan
	switch {
	case !w.Image.OK:
	case w.Image.V == "":
		none := NoRef // a copy: plans never share a Ref
		save.Image = &none
	default: // an ID or a URL, resolved when the write runs (after a duplicate search)
		plan.Steps = []Step{{ImageURL: w.Image.V}}
		save.Image = &Ref{Step: 0}
	}
	linkedMeta(w, p, create, &save)
	plan.Save = save
	if create {
		dup := PostWrite{Type: save.Type, Fields: map[string]any{}, Image: save.Image}
		linkedMeta(w, nil, false, &dup)
		plan.Duplicate = &DuplicateWrite{Name: strings.TrimSpace(w.Name.V),
			Description: strings.TrimSpace(w.Description.V), Save: dup}
	}
	return plan
}

// linkedMeta sets the meta of a venue or organizer (the original: Single_Venue::prepare_postarr and
// Single_Organizer::prepare_postarr); the website is URL-sanitized. p is the post updated (nil when
// its meta is written as on create); blank skips the empty values, as a new post has nothing to
// clear.
func linkedMeta(w LinkedWrite, p *Post, blank bool, save *PostWrite) {
	save.Set = map[string]any{}
	fields := []fieldArg{{"_OrganizerPhone", w.Phone}, {"_OrganizerWebsite", w.Website},
		{"_OrganizerEmail", w.Email}}
	if w.Venue {
		fields = []fieldArg{{"_VenueAddress", w.Address}, {"_VenueCity", w.City},
			{"_VenueCountry", w.Country}, {"_VenueProvince", w.Province}, {"_VenueState", w.State},
			{"_VenueZip", w.Zip}, {"_VenuePhone", w.Phone}, {"_VenueURL", w.Website}}
	}
	for _, f := range fields {
		v := f.arg.V
		switch {
		case !f.arg.OK || blank && v == "":
		case v == "":
			save.Delete = append(save.Delete, f.target)
		case f.target == "_VenueURL" || f.target == "_OrganizerWebsite":
			save.Set[f.target] = SanitizeURL(v)
		default:
			save.Set[f.target] = v
		}
	}
	if w.Venue {
		venueMaps(w, p, save)
	}
}

// venueMaps stores the venue's map flags ("1" or the string "false", on by default; mirrored into
// the _EventShowMap keys as TEC does) and its derived state/province.
func venueMaps(w LinkedWrite, p *Post, save *PostWrite) {
	for _, f := range []struct {
		arg                Arg[string]
		venueKey, eventKey string
	}{
		{w.ShowMap, "_VenueShowMap", "_EventShowMap"},
		{w.ShowMapLink, "_VenueShowMapLink", "_EventShowMapLink"},
	} {
		if !f.arg.OK && p != nil {
			continue
		}
		flag := "1"
		if f.arg.OK && !php.TribeTruthy(f.arg.V) {
			flag = "false"
		}
		save.Set[f.venueKey], save.Set[f.eventKey] = flag, flag
	}

	if w.StateProvince.OK && w.StateProvince.V != "" {
		save.Set["_VenueStateProvince"] = w.StateProvince.V
		return
	}
	if p != nil && !w.State.OK && !w.Province.OK && !w.Country.OK {
		return
	}
	field := func(a Arg[string], key string) string {
		if a.OK || p == nil {
			return a.V
		}
		v, _ := p.MetaFirst(key)
		return v
	}
	sp := StateProvince(field(w.State, "_VenueState"), field(w.Province, "_VenueProvince"),
		field(w.Country, "_VenueCountry"))
	if sp == "" && p != nil {
		save.Delete = append(save.Delete, "_VenueStateProvince")
		return
	}
	save.Set["_VenueStateProvince"] = sp
}

// PlanUnlink is what trashing a venue or organizer (id, stored under metaKey) does to the events that
// point at it, as TEC does: each published one that mayEdit allows, the first perPage of them (one
// page of events, like the original), loses the whole key (for organizers the event's other
// organizers too). The site's page size bounds these saves, not the write's limit of requests.
func PlanUnlink(events []*Post, id int, metaKey string, perPage int, mayEdit func(*Post) bool) []PostWrite {
	var saves []PostWrite
	for _, e := range events {
		if len(saves) >= perPage || e.Status() != "publish" || !linksTo(e, metaKey, id) || !mayEdit(e) {
			continue
		}
		saves = append(saves, PostWrite{Type: e.Type(), ID: e.ID, Set: map[string]any{metaKey: []string{}}})
	}
	return saves
}

// linksTo reports whether an event's rows of metaKey name id.
func linksTo(e *Post, metaKey string, id int) bool {
	for _, v := range e.Meta.Get(metaKey) {
		if n, err := strconv.Atoi(v); err == nil && n == id {
			return true
		}
	}
	return false
}
