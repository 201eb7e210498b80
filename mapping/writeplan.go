package mapping

import (
	"strconv"
	"time"

	"calshim/mapping/php"
)

// A write is translated here, as a read is: PlanEvent turns a validated v1 event write and the
// catalog's state into the steps the adapter then runs against wp/v2 in order (new terms, venues
// and organizers, an uploaded image), then the save of the event itself and what follows it. The
// plan is a value: nothing here sends anything.

// Arg is one argument of a write: its value, and whether it was sent with a non-null value.
type Arg[T any] struct {
	V  T
	OK bool
}

// EventWrite is a v1 event write that passed validation, its arguments as typed values. Strings
// are as sent (a number as its text); Start, End, Timezone, Website and Image are trimmed.
type EventWrite struct {
	Title, Description, Excerpt, Slug    Arg[string]
	Author                               Arg[int]
	Status, Date, DateUTC                Arg[string]
	Start, End, Timezone, Website, Image Arg[string]
	AllDay, ShowMap, ShowMapLink         Arg[bool]
	HideFromListings, Featured, Sticky   Arg[bool]
	Cost, Categories, Tags               Arg[[]string] // cost rows and term entries, without empty ones
	Venue, Organizers                    Links
}

// Links is an event's venue or organizer argument as entries (adapter/write_linked.go reads
// its shapes). Given but without entries removes them all.
type Links struct {
	Given bool
	// Malformed is a shape the original fails on: a list or CSV string for the venue, a CSV string
	// for organizers.
	Malformed bool
	Items     []LinkItem
}

// LinkItem is one entry of Links: an ID (a scalar, or an {id} object), or a creation payload (an
// object without id) named Name.
type LinkItem struct {
	Object  bool
	ID      string // trimmed; "" when the entry names none (or is not a scalar)
	HasID   bool   // a scalar entry, or an object with a non-empty id
	Name    string // a payload's name, trimmed
	Payload LinkedWrite
}

// WriteState is what a write plan reads of the catalog: pure look-ups of one snapshot.
type WriteState struct {
	Now                          time.Time
	Location                     *time.Location
	SiteTimezone, MultiDayCutoff string
	Types                        PostTypes
	CanPublish                   bool // the writer may publish events
	// Post is the catalog's post of an ID.
	Post func(id int) (*Post, bool)
	// Term finds a category (hierarchical) or tag by ID, slug or name; an ID it does not hold is
	// 0, found.
	Term func(hierarchical bool, item string) (int, bool)
	// Duplicate is the existing venue or organizer a create of that name (and description) is.
	Duplicate func(postType, name, desc string) *Post
	// KnownImage is the attachment an image argument names without asking WordPress.
	KnownImage func(v string) (int, bool)
	// Limit bounds the requests a write may make: planning stops counting past it.
	Limit int
}

// PostTypes are the post types and taxonomy REST bases of the site.
type PostTypes struct {
	Event, Venue, Organizer string
	CategoryBase, TagBase   string
}

// Step is one request (or a few) made before a save: an image to resolve (a URL; in a LinkedPlan
// an ID too), a term to create, or a venue or organizer to create or reuse.
type Step struct {
	ImageURL string
	Term     *TermPlan
	Linked   *LinkedPlan
}

// Refusal is the original's 400 answer to a write it refuses part way (after what came before).
type Refusal struct{ Code, Message string }

// FollowUp is a save that follows the event's own (EventPlan.After), in order: of Post (SavedRef:
// the event just saved), with Write's fields and meta. One without IfDraft completes the event's
// save, as the original saves twice: it is never cut by the write's limit of requests, and its
// refusal is the write's. One with IfDraft is a consequence of the save, which stands: it is sent
// only when the post is a draft or pending in the catalog as it runs (a venue reused by name is
// known only then), once per post, of that post's type, and its refusal leaves the post as it was.
type FollowUp struct {
	Post    Ref
	Write   PostWrite
	IfDraft bool
}

// EventPlan is an event write: Steps in order, then the Save (unless Refusal stops the write after
// the steps), then the saves After it: a new sticky event saved a second time, a UTC end stored
// again alone, and the linked posts of a published event to publish when they are drafts.
type EventPlan struct {
	Steps   []Step
	Refusal *Refusal
	Save    PostWrite
	After   []FollowUp
	// Needs is the number of requests the write makes when it succeeds, counted up to Limit+1
	// before the first is sent, so that a write refused for its size changes nothing: one per step
	// of the plan (an image URL, a new term), for each distinct venue or organizer payload its
	// search of WordPress for a duplicate and its create when the catalog has no post of its name,
	// else its save onto that post when it carries meta or an image, and one per image URL it
	// names; the save, the second saves (After, without IfDraft), and one per draft to publish.
	Needs int
}

// planner builds an EventPlan; once refused it still counts what the whole write would need.
type planner struct {
	st   WriteState
	plan EventPlan
	// created are the steps of new terms and linked posts by name, so a name given twice is one
	// step.
	created map[string]int
	// payloads are the steps of venue and organizer payloads, so a payload given again is the step
	// it made first (the same post, the same meta).
	payloads map[LinkedWrite]int
}

// add appends a step (unless the write is refused by then); counted tells whether it is one more
// request the write needs at least.
func (pl *planner) add(s Step, counted bool) Ref {
	if counted {
		pl.plan.Needs++
	}
	if pl.plan.Refusal != nil {
		return Ref{}
	}
	pl.plan.Steps = append(pl.plan.Steps, s)
	return Ref{Step: len(pl.plan.Steps) - 1}
}

func (pl *planner) refuse(code, message string) {
	if pl.plan.Refusal == nil {
		pl.plan.Refusal = &Refusal{code, message}
	}
}

func (pl *planner) full() bool { return pl.plan.Needs > pl.st.Limit }

// PlanEvent translates an event write: a create when p is nil, else an update of p (only the
// fields given change).
func PlanEvent(w EventWrite, p *Post, st WriteState) EventPlan {
	pl := &planner{st: st, created: map[string]int{}, payloads: map[LinkedWrite]int{}}
	pl.plan.Needs = 1 // the save
	save := PostWrite{Type: st.Types.Event, Fields: map[string]any{}, Set: map[string]any{}}
	if p != nil {
		save.ID = p.ID
	}
	create := p == nil
	copyFields(save.Fields, []fieldArg{{"title", w.Title}, {"content", w.Description},
		{"excerpt", w.Excerpt}, {"slug", w.Slug}})
	if w.Author.OK {
		save.Fields["author"] = w.Author.V
	}
	status, scaled := ScaleStatus(w.Status, st.CanPublish, create)
	if scaled {
		save.Fields["status"] = status
	}

	PostDates(save.Fields, w.Date, w.DateUTC, st.Now, EventZone(w.Timezone.V, st.Location), false)
	pl.eventDates(w, p, &save)
	eventFlags(w, create, &save)
	eventCost(w.Cost, create, &save)
	// The original creates events from its arguments without the empty ones (array_filter), so an
	// empty website on create leaves no _EventURL row and the event shows its own URL.
	if w.Website.OK && (w.Website.V != "" || !create) {
		save.Set["_EventURL"] = SanitizeURL(w.Website.V)
	}

	save.Image = pl.image(w.Image)
	pl.terms(&save, w.Categories, st.Types.CategoryBase, true)
	pl.terms(&save, w.Tags, st.Types.TagBase, false)
	pl.venue(&save, w.Venue)
	pl.organizers(&save, w.Organizers)
	pl.finish(w, p, save, status == "publish" && scaled)
	return pl.plan
}

// finish sets what follows the save: the second saves and the drafts to publish.
func (pl *planner) finish(w EventWrite, p *Post, save PostWrite, published bool) {
	pl.plan.Save = save
	// A new sticky event is saved a second time, as the original does: its
	// Tribe__Events__API::saveEventMeta makes an inserted event sticky with a wp_update_post of its
	// own, which stores the current time as the modified date (not the post date given) and gives a
	// draft its modified_utc.
	if p == nil && save.Fields["menu_order"] == -1 {
		pl.second(PostWrite{Type: save.Type, Fields: map[string]any{"menu_order": -1}})
	}
	// The UTC end of an event whose end was before its start is stored again alone. The original
	// keeps the UTC end given there (the wall end moves to the start), but the calendar plugin, when
	// active on the CMS, recomputes both UTC dates from the wall times after every wp/v2 update that
	// sets them (Tribe__Events__Editor__Meta::add_utc_dates); a write of the UTC end alone escapes
	// that.
	endUTC, _ := save.Set["_EventEndDateUTC"].(string)
	if endUTC != "" && save.Set["_EventEndDate"] == save.Set["_EventStartDate"] &&
		endUTC != save.Set["_EventStartDateUTC"] {
		pl.second(PostWrite{Type: save.Type, Set: map[string]any{"_EventEndDateUTC": endUTC}})
	}
	if !published {
		return
	}
	// The draft venue and organizers of an event just published are published too, as TEC does
	// (publishAssociatedTypes).
	linked := append(pl.linkRefs(save, p, "_EventVenueID"), pl.linkRefs(save, p, "_EventOrganizerID")...)
	for _, ref := range linked {
		pl.plan.After = append(pl.plan.After, FollowUp{Post: ref, IfDraft: true,
			Write: PostWrite{Fields: map[string]any{"status": "publish"}}})
	}
	pl.plan.Needs += pl.drafts(w, p)
}

// second adds a save of the event that completes its own.
func (pl *planner) second(w PostWrite) {
	pl.plan.After = append(pl.plan.After, FollowUp{Post: SavedRef, Write: w})
	pl.plan.Needs++
}

// linkRefs are the linked posts of a meta key the event has once saved: those the write gives,
// else the stored ones.
func (pl *planner) linkRefs(save PostWrite, p *Post, key string) []Ref {
	if refs, given := save.Links[key]; given {
		return refs
	}
	if p == nil {
		return nil
	}
	var refs []Ref
	for _, s := range p.Meta.Get(key) {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			refs = append(refs, Ref{ID: n})
		}
	}
	return refs
}

// drafts counts the distinct draft or pending posts named by ID among the venue and organizers the
// event links once written (those given, else the stored ones), up to Limit+1.
func (pl *planner) drafts(w EventWrite, p *Post) int {
	seen := map[string]bool{}
	for _, l := range []struct {
		links Links
		key   string
	}{{w.Venue, "_EventVenueID"}, {w.Organizers, "_EventOrganizerID"}} {
		for _, id := range linkIDs(l.links, p, l.key) {
			if pl.plan.Needs+len(seen) > pl.st.Limit {
				return len(seen)
			}
			if pl.isDraft(id) {
				seen[id] = true
			}
		}
	}
	return len(seen)
}

// linkIDs are the IDs an event write names of a linked kind: given ones, else the stored ones of p.
func linkIDs(l Links, p *Post, key string) []string {
	if !l.Given {
		if p == nil {
			return nil
		}
		return p.Meta.Get(key)
	}
	var ids []string
	for _, it := range l.Items {
		if it.HasID {
			ids = append(ids, it.ID)
		}
	}
	return ids
}

func (pl *planner) isDraft(id string) bool {
	n, ok := php.PositiveInt(id)
	if !ok {
		return false
	}
	p, found := pl.st.Post(n)
	return found && (p.Status() == "draft" || p.Status() == "pending")
}

// fieldArg names the wp/v2 field a text argument fills.
type fieldArg struct {
	target string
	arg    Arg[string]
}

// copyFields copies the plain post fields given; empty values of fields that cannot be cleared
// are skipped, as the original ignores them.
func copyFields(fields map[string]any, args []fieldArg) {
	for _, f := range args {
		if f.arg.OK && f.arg.V != "" {
			fields[f.target] = f.arg.V
		}
	}
}

// ScaleStatus is the original's status scale-back (Base::scale_back_post_status), always judged
// with the event post type's publish capability: publishers get what they ask for (publish by
// default); others get pending instead of publish/future, draft by default. ok is false when
// nothing was asked on an update, which then keeps the status (only given fields change).
func ScaleStatus(status Arg[string], canPublish, create bool) (string, bool) {
	s := status.V
	switch {
	case !status.OK && !create:
		return "", false
	case !status.OK && canPublish:
		return "publish", true
	case !status.OK:
		return "draft", true
	case !canPublish && (s == "publish" || s == "future"):
		return "pending", true
	}
	return s, true
}

// PostDates turns `date` and `date_utc` into wp/v2's date and date_gmt. date is read in loc;
// events keep the wall time the value names (a timestamp's UTC one, as the original), venues and
// organizers express it in loc (inLoc).
func PostDates(fields map[string]any, date, dateUTC Arg[string], now time.Time, loc *time.Location,
	inLoc bool) {
	if date.OK {
		if t, ok := php.ParseTime(date.V, now, loc); ok {
			if inLoc {
				t = t.In(loc)
			}
			fields["date"] = t.Format("2006-01-02T15:04:05")
		}
	}
	if dateUTC.OK {
		if t, ok := php.ParseTime(dateUTC.V, now, time.UTC); ok {
			fields["date_gmt"] = t.UTC().Format("2006-01-02T15:04:05")
		}
	}
}

// eventDates writes the date meta (the fields of EventDates) when any of the date arguments is
// given. On update the missing ones come from the stored event, so a new time zone alone re-reads
// the stored wall times in it and keeps the UTC values consistent.
func (pl *planner) eventDates(w EventWrite, p *Post, save *PostWrite) {
	start, end, tz, allDay := w.Start.V, w.End.V, w.Timezone.V, w.AllDay.V
	if p != nil {
		if !w.Start.OK && !w.End.OK && !w.Timezone.OK && !w.AllDay.OK {
			return
		}
		start, end = keep(w.Start, p, "_EventStartDate"), keep(w.End, p, "_EventEndDate")
		tz = keep(w.Timezone, p, "_EventTimezone")
		if !w.AllDay.OK {
			v, _ := p.MetaFirst("_EventAllDay")
			allDay = php.TribeTruthy(v) // as the read side reads it
		}
	}

	st := pl.st
	loc := EventZone(tz, st.Location)
	s, _ := php.ParseTime(start, st.Now, loc)
	e, _ := php.ParseTime(end, st.Now, loc)
	d := NewEventDates(s, e, allDay, tz, st.SiteTimezone, st.MultiDayCutoff, st.Location)
	m := save.Set
	m["_EventStartDate"], m["_EventEndDate"] = d.Start, d.End
	m["_EventStartDateUTC"], m["_EventEndDateUTC"] = d.StartUTC, d.EndUTC
	m["_EventTimezone"], m["_EventTimezoneAbbr"] = d.Timezone, d.Abbr
	switch {
	case d.AllDay:
		m["_EventAllDay"] = "yes"
	case p == nil: // TEC deletes it on create and writes "no" on update
		save.Delete = append(save.Delete, "_EventAllDay")
	default:
		m["_EventAllDay"] = "no"
	}
	if d.Duration >= 0 {
		m["_EventDuration"] = strconv.Itoa(d.Duration)
	}
}

// keep returns the given value, or the stored meta when it was not given.
func keep(a Arg[string], p *Post, key string) string {
	if a.OK {
		return a.V
	}
	stored, _ := p.MetaFirst(key)
	return stored
}

// eventFlags stores show_map, show_map_link, hide_from_listings, featured and sticky as TEC does:
// "1"/"" for the map flags (created events default to off: Single_Event::prepare_postarr stores
// tribe_is_truthy of the absent flag), "yes" or no row for hidden, "1" or no row for featured,
// menu_order -1 for sticky.
func eventFlags(w EventWrite, create bool, save *PostWrite) {
	for _, f := range []struct {
		arg Arg[bool]
		key string
	}{{w.ShowMap, "_EventShowMap"}, {w.ShowMapLink, "_EventShowMapLink"}} {
		if f.arg.OK || create {
			save.Set[f.key] = map[bool]string{true: "1", false: ""}[f.arg.V]
		}
	}
	setOrDelete(save, w.HideFromListings, "_EventHideFromUpcoming", "yes")
	setOrDelete(save, w.Featured, "_tribe_featured", "1")
	if w.Sticky.OK {
		save.Fields["menu_order"] = 0
		if w.Sticky.V {
			save.Fields["menu_order"] = -1
		}
	}
}

// setOrDelete stores on as key's row when a given flag is on, and deletes the key when it is off.
func setOrDelete(save *PostWrite, flag Arg[bool], key, on string) {
	switch {
	case !flag.OK:
	case flag.V:
		save.Set[key] = on
	default:
		save.Delete = append(save.Delete, key)
	}
}

// eventCost stores the cost rows raw and the currency symbol and position parsed from them.
func eventCost(cost Arg[[]string], create bool, save *PostWrite) {
	if !cost.OK {
		return
	}
	rows := cost.V
	if rows == nil {
		rows = []string{}
	}
	save.Set["_EventCost"] = rows
	if sym, pos, ok := CostCurrency(rows); ok {
		save.Set["_EventCurrencySymbol"], save.Set["_EventCurrencyPosition"] = sym, pos
	} else if !create {
		save.Delete = append(save.Delete, "_EventCurrencySymbol", "_EventCurrencyPosition")
	}
}

// image is the event's featured image: an ID the catalog knows, else a URL to resolve; "" removes
// it.
func (pl *planner) image(v Arg[string]) *Ref {
	switch {
	case !v.OK:
		return nil
	case v.V == "":
		none := NoRef // a copy: plans never share a Ref
		return &none
	}
	if id, known := pl.st.KnownImage(v.V); known {
		return &Ref{ID: id}
	}
	ref := pl.add(Step{ImageURL: v.V}, true)
	return &ref
}

// terms assigns categories or tags: IDs of existing terms (unknown IDs skipped), else slugs or
// names, created when missing; a name given again is the term it named first. Given but empty
// removes them all; absent leaves them.
func (pl *planner) terms(save *PostWrite, names Arg[[]string], base string, hierarchical bool) {
	if !names.OK {
		return
	}
	refs := []Ref{}
	for _, s := range names.V {
		if pl.full() {
			break
		}
		if id, found := pl.st.Term(hierarchical, s); found {
			if id != 0 {
				refs = append(refs, Ref{ID: id})
			}
			continue
		}
		create := PlanTerm(TermWrite{Hierarchical: hierarchical, Name: Arg[string]{s, true}}, pl.st.Types)
		refs = append(refs, pl.once(base+"\x00"+s, Step{Term: &create}))
	}
	if save.Terms == nil {
		save.Terms = map[string][]Ref{}
	}
	save.Terms[base] = refs
}

// once adds a step that creates what key names, or refers to the step that does already.
func (pl *planner) once(key string, s Step) Ref {
	if i, done := pl.created[key]; done {
		return Ref{Step: i}
	}
	ref := pl.add(s, true)
	if pl.plan.Refusal == nil {
		pl.created[key] = ref.Step
	}
	return ref
}

// notCreated is the refusal of a venue or organizer argument the original cannot link.
func (pl *planner) notCreated(name string) {
	pl.refuse("could-not-create-"+name, "The "+name+" could not be created from the provided data")
}

// venue links the event's venue: an ID, an {id} object or a creation payload. Lists (even of one
// ID or object) and CSV strings fail as in the original; not given or empty leaves the venue.
func (pl *planner) venue(save *PostWrite, l Links) {
	if !l.Given || len(l.Items) == 0 && !l.Malformed {
		return
	}
	if l.Malformed {
		pl.notCreated("venue")
		return
	}
	if ref, ok := pl.link(l.Items[0], pl.st.Types.Venue, "venue"); ok {
		setLinks(save, "_EventVenueID", []Ref{ref})
	}
}

// organizers links the event's organizers in the order given; none removes them all.
func (pl *planner) organizers(save *PostWrite, l Links) {
	if !l.Given {
		return
	}
	if l.Malformed {
		pl.notCreated("organizer")
		return
	}
	refs := []Ref{}
	for _, it := range l.Items {
		if pl.full() {
			return
		}
		// Past a refused entry the rest is still counted: the write's size is judged whole.
		ref, _ := pl.link(it, pl.st.Types.Organizer, "organizer")
		refs = append(refs, ref)
	}
	setLinks(save, "_EventOrganizerID", refs)
}

func setLinks(save *PostWrite, key string, refs []Ref) {
	if save.Links == nil {
		save.Links = map[string][]Ref{}
	}
	save.Links[key] = refs
}

// link is one entry of a venue or organizer argument (Linked_Post_Base::insert): an ID of that
// type, an {id} object of that type, or a payload creating one (reusing the existing one of its
// name). ok is false when the write is refused there.
func (pl *planner) link(it LinkItem, postType, name string) (Ref, bool) {
	if it.HasID {
		n, ok := php.PositiveInt(it.ID)
		if p, found := pl.st.Post(n); ok && found && p.Type() == postType {
			return Ref{ID: n}, true
		}
		if it.Object {
			pl.refuse("invalid-linked-post-id", "The provided linked post ID is not valid")
		} else {
			pl.notCreated(name)
		}
		return Ref{}, false
	}
	if !it.Object || it.Name == "" {
		pl.notCreated(name)
		return Ref{}, false
	}
	// Each payload is its own step (a name given again finds the first one as its duplicate and
	// saves its own meta onto it), and a payload given again is the step it made first.
	if i, again := pl.payloads[it.Payload]; again {
		return Ref{Step: i}, true
	}
	create := PlanLinked(it.Payload, nil, pl.st)
	pl.plan.Needs += linkedNeeds(create, pl.st.Duplicate(postType, it.Name, "") != nil, pl.st)
	ref := pl.add(Step{Linked: &create}, false)
	if pl.plan.Refusal == nil {
		pl.payloads[it.Payload] = ref.Step
	}
	return ref, true
}

// linkedNeeds is what a venue or organizer payload costs WordPress (tx.saveLinked): with a post of
// its name in the catalog, the save of its meta and image onto it when it carries any; else the
// search of WordPress for one and the create; and an image URL to resolve.
func linkedNeeds(plan LinkedPlan, exists bool, st WriteState) int {
	n := 2
	if d := plan.Duplicate.Save; exists {
		n = 0
		if len(d.Set) > 0 || len(d.Delete) > 0 || d.Image != nil {
			n = 1
		}
	}
	for _, s := range plan.Steps {
		if _, known := st.KnownImage(s.ImageURL); s.ImageURL != "" && !known {
			n++
		}
	}
	return n
}
