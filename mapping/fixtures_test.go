package mapping

import "strconv"

// The test catalog: the posts, terms and media of the recorded site (spec/examples/seed.json) as
// the calshim catalog would hold them, so that rendering them must give the recorded responses.

const (
	testHome = "http://127.0.0.1:8881"
	testBase = testHome + "/wp-json/tribe/events/v1" // the recording's namespace
)

// catalog is a Lookup over maps.
type catalog struct {
	posts map[int]*Post
	terms map[int]*Term
	media map[int]*Media
}

func (c *catalog) Post(id int) (*Post, bool)   { p, ok := c.posts[id]; return p, ok }
func (c *catalog) Term(id int) (*Term, bool)   { t, ok := c.terms[id]; return t, ok }
func (c *catalog) Media(id int) (*Media, bool) { m, ok := c.media[id]; return m, ok }

// newTestContext returns a context over a fresh test catalog, as an anonymous visitor sees it.
func newTestContext(single bool) (*Context, *catalog) {
	cat := newTestCatalog()
	return &Context{
		Site:   Site{Home: testHome, Timezone: "America/New_York", DefaultCurrencySymbol: "$", DefaultCurrencyCode: "USD"},
		Base:   testBase,
		Single: single,
		Lookup: cat,
	}, cat
}

func newTestCatalog() *catalog {
	cat := &catalog{posts: map[int]*Post{}, terms: map[int]*Term{}, media: map[int]*Media{4: stageImage()}}
	for _, t := range testTerms() {
		cat.terms[t.ID] = t
	}

	for _, p := range append(append(testVenues(), testOrganizers()...), testEvents()...) {
		cat.posts[p.ID] = p
	}

	return cat
}

func stageImage() *Media {
	up := testHome + "/wp-content/uploads/2026/11/"
	size := func(name string, w, h, fs int) MediaSize {
		return MediaSize{Name: name, Width: w, Height: h, MimeType: "image/png", Filesize: fs,
			URL: up + "stage-" + strconv.Itoa(w) + "x" + strconv.Itoa(h) + ".png"}
	}
	return &Media{ID: 4, URL: up + "stage.png", File: "2026/11/stage.png", Width: 1200, Height: 800, Filesize: 4588,
		Sizes: []MediaSize{size("medium", 300, 200, 763), size("large", 1024, 683, 4382),
			size("thumbnail", 150, 150, 489), size("medium_large", 768, 512, 2736)}}
}

func testTerms() []*Term {
	cat := func(id int, name, slug, desc string, parent, count int, link string) *Term {
		return &Term{ID: id, Name: name, Slug: slug, Taxonomy: TaxonomyCategory, Description: desc, Parent: parent,
			Count: count, TermTaxonomyID: id, Link: testHome + "/events/category/" + link}
	}
	tag := func(id int, name, desc string, count int) *Term {
		return &Term{ID: id, Name: name, Slug: name, Taxonomy: TaxonomyTag, Description: desc, Count: count,
			TermTaxonomyID: id, Link: testHome + "/tag/" + name + "/"}
	}
	return []*Term{
		cat(2, "Music", "music", "Concerts, gigs and recitals", 0, 7, "music/"),
		cat(3, "Jazz", "jazz", "Jazz in all its forms", 2, 4, "music/jazz/"),
		cat(4, "Technology", "technology", "Talks, meetups and conferences about tech", 0, 9, "technology/"),
		cat(5, "Workshops", "workshops", "Hands-on learning sessions", 0, 6, "workshops/"),
		cat(6, "Family", "family", "", 0, 7, "family/"),
		tag(7, "free", "", 9), tag(8, "outdoor", "", 7), tag(9, "online", "", 4), tag(10, "kids", "", 7),
		tag(11, "networking", "", 6), tag(12, "charity", "Proceeds go to good causes", 3),
	}
}

// seeded returns a published post created on the seeding day at the given time (site and UTC).
func seeded(id int, typ, slug, title, local, utc string) *Post {
	base := map[string]string{"tribe_venue": "/venue/", "tribe_organizer": "/organizer/", "tribe_events": "/event/"}[typ]
	return &Post{Text: TextFields{Type: typ, Status: "publish", Date: "2026-11-22 " + local,
		DateGMT: "2026-11-22 " + utc, Modified: "2026-11-22 " + local, ModifiedGMT: "2026-11-22 " + utc,
		Slug: slug, Link: testHome + base + slug + "/", Title: title}.Pack(),
		ID: id, Author: 1, Terms: map[string][]int{}}
}

// withContent sets the rendered content (the_content adds a trailing newline) and its excerpt text.
func withContent(p *Post, text string) *Post {
	p.EditText(func(f *TextFields) { f.Content = "<p>" + text + "</p>\n" })
	p.EditText(func(f *TextFields) { f.ExcerptText = text })
	return p
}

func withMeta(p *Post, kv ...string) *Post {
	for i := 0; i+1 < len(kv); i += 2 {
		p.Meta = p.Meta.Added(kv[i], kv[i+1])
	}
	return p
}

func testVenues() []*Post {
	venue := func(id int, slug, title string) *Post {
		return seeded(id, "tribe_venue", slug, title, "13:54:20", "18:54:20")
	}
	bluenote := withMeta(withContent(venue(5, "blue-note-jazz-club", "Blue Note Jazz Club"), "Legendary Greenwich Village jazz club."),
		"_VenueAddress", "131 W 3rd St", "_VenueCity", "New York", "_VenueCountry", "United States",
		"_VenueProvince", "", "_VenueState", "NY", "_VenueZip", "10012", "_VenuePhone", "+1 212-475-8592",
		"_VenueURL", "https://bluenote.example.com", "_VenueStateProvince", "NY",
		"_VenueShowMap", "1", "_VenueShowMapLink", "1")
	bluenote.FeaturedMedia = 4
	return []*Post{
		bluenote,
		withMeta(venue(6, "moscone-center", "Moscone Center"),
			"_VenueAddress", "747 Howard St", "_VenueCity", "San Francisco", "_VenueCountry", "United States",
			"_VenueState", "CA", "_VenueZip", "94103", "_VenuePhone", "+1 415-974-4000",
			"_VenueURL", "https://moscone.example.com", "_VenueStateProvince", "CA",
			"_VenueShowMap", "1", "_VenueShowMapLink", "false"),
		withMeta(withContent(venue(7, "royal-festival-hall", "Royal Festival Hall"), "Concert hall on the South Bank of the Thames."),
			"_VenueAddress", "Belvedere Rd", "_VenueCity", "London", "_VenueCountry", "United Kingdom",
			"_VenueProvince", "Greater London", "_VenueZip", "SE1 8XX", "_VenueURL", "https://southbank.example.co.uk",
			"_VenueStateProvince", "Greater London"),
		withMeta(venue(8, "sydney-opera-house", "Sydney Opera House"),
			"_VenueAddress", "Bennelong Point", "_VenueCity", "Sydney", "_VenueCountry", "Australia",
			"_VenueZip", "2000", "_VenuePhone", "+61 2 9250 7111", "_VenueStateProvince", "NSW"),
		withMeta(venue(9, "millennium-park", "Millennium Park"),
			"_VenueAddress", "201 E Randolph St", "_VenueCity", "Chicago", "_VenueCountry", "United States",
			"_VenueState", "IL", "_VenueZip", "60602", "_VenueStateProvince", "IL",
			"_VenueShowMap", "false", "_VenueShowMapLink", "1"),
		withMeta(venue(10, "tokyo-international-forum", "Tokyo International Forum"),
			"_VenueAddress", "3-5-1 Marunouchi, Chiyoda-ku", "_VenueCity", "Tokyo", "_VenueCountry", "Japan",
			"_VenueState", "", "_VenueZip", "100-0005", "_VenuePhone", "", "_VenueURL", "https://forum.example.jp",
			"_VenueStateProvince", ""),
	}
}

func testOrganizers() []*Post {
	org := func(id int, slug, title string) *Post {
		return seeded(id, "tribe_organizer", slug, title, "13:54:20", "18:54:20")
	}
	return []*Post{
		withMeta(withContent(org(12, "jazz-society-of-new-york", "Jazz Society of New York"), "Non-profit promoting live jazz since 1985."),
			"_OrganizerPhone", "+1 212-555-0100", "_OrganizerWebsite", "https://jazzsociety.example.org",
			"_OrganizerEmail", "hello@jazzsociety.example.org"),
		withMeta(org(13, "techcon-events-ltd", "TechCon Events Ltd"),
			"_OrganizerPhone", "", "_OrganizerWebsite", "https://techcon.example.com", "_OrganizerEmail", "info@techcon.example.com"),
		withMeta(org(14, "city-parks-department", "City Parks Department"), "_OrganizerPhone", "+1 312-555-0199"),
		withMeta(withContent(org(15, "sydney-arts-collective", "Sydney Arts Collective"), "Community arts organisation."),
			"_OrganizerWebsite", "https://sydarts.example.au", "_OrganizerEmail", "team@sydarts.example.au"),
	}
}

// event returns a seeded event with its dates, time zone and the meta TEC's create writes.
func event(id int, slug, title, local, utc, start, end, startUTC, endUTC, tz, abbr string) *Post {
	p := withContent(seeded(id, "tribe_events", slug, title, local, utc), title+": details, line-up and practical information.")
	return withMeta(p, "_EventStartDate", start, "_EventEndDate", end, "_EventStartDateUTC", startUTC,
		"_EventEndDateUTC", endUTC, "_EventTimezone", tz, "_EventTimezoneAbbr", abbr,
		"_EventShowMap", "", "_EventShowMapLink", "")
}

func testEvents() []*Post {
	gala := withMeta(event(17, "opening-night-gala", "Opening Night Gala", "13:54:21", "18:54:21",
		"2026-11-25 19:00:00", "2026-11-25 23:00:00", "2026-11-26 00:00:00", "2026-11-26 04:00:00", "America/New_York", "EST"),
		"_EventAllDay", "no", "_EventCost", "25", "_EventCurrencySymbol", "$", "_EventCurrencyPosition", "prefix",
		"_EventURL", "https://gala.example.com", "_tribe_featured", "1", "_EventVenueID", "5", "_EventOrganizerID", "12")
	gala.EditText(func(f *TextFields) {
		f.Excerpt, f.ExcerptText = "<p>Black tie, big band, bubbles.</p>\n", "Black tie, big band, bubbles."
	})
	gala.FeaturedMedia = 4
	gala.Terms = map[string][]int{TaxonomyCategory: {2}, TaxonomyTag: {11}}

	winterfest := withMeta(event(20, "winter-jazz-festival", "Winter Jazz Festival", "13:54:21", "18:54:21",
		"2027-01-06 12:00:00", "2027-01-09 23:00:00", "2027-01-06 17:00:00", "2027-01-10 04:00:00", "America/New_York", "EST"),
		"_EventCost", "25-75", "_tribe_featured", "1", "_EventVenueID", "5", "_EventOrganizerID", "12", "_EventOrganizerID", "14")
	winterfest.Terms = map[string][]int{TaxonomyCategory: {3, 2}, TaxonomyTag: {11}}

	devsummit := withMeta(event(21, "devsummit-west", "DevSummit West", "13:54:21", "18:54:21",
		"2026-09-23 09:00:00", "2026-09-25 17:00:00", "2026-09-23 16:00:00", "2026-09-26 00:00:00", "America/Los_Angeles", "PDT"),
		"_EventCost", "199", "_EventVenueID", "6", "_EventOrganizerID", "13")
	devsummit.Terms = map[string][]int{TaxonomyCategory: {4}, TaxonomyTag: {11}}

	aipanel := withMeta(event(24, "ai-ethics-panel-online", "AI Ethics Panel (online)", "13:54:21", "18:54:21",
		"2026-11-27 15:00:00", "2026-11-27 16:30:00", "2026-11-27 15:00:00", "2026-11-27 16:30:00", "UTC", "UTC"),
		"_EventCost", "Free", "_EventURL", "https://stream.example.com/ai-ethics")
	aipanel.Terms = map[string][]int{TaxonomyCategory: {4}, TaxonomyTag: {9, 7}}

	donor := withMeta(event(38, "private-donor-dinner", "Private Donor Dinner", "13:54:23", "18:54:23",
		"2026-12-10 19:00:00", "2026-12-10 22:00:00", "2026-12-11 00:00:00", "2026-12-11 03:00:00", "America/New_York", "EST"),
		"_EventCost", "250", "_EventVenueID", "5", "_EventOrganizerID", "12")
	donor.EditText(func(f *TextFields) {
		f.Modified, f.ModifiedGMT, f.Password = "2026-11-22 13:54:25", "2026-11-22 18:54:25", "letmein"
	})
	donor.Protected = true
	donor.Terms = map[string][]int{TaxonomyTag: {12}}

	members := withMeta(event(40, "annual-members-meeting", "Annual Members Meeting", "13:54:23", "18:54:23",
		"2026-12-17 18:00:00", "2026-12-17 20:00:00", "2026-12-17 23:00:00", "2026-12-18 01:00:00", "America/New_York", "EST"),
		"_EventCost", "Free")
	members.MenuOrder = -1
	members.Terms = map[string][]int{TaxonomyTag: {11}}

	funrun := withMeta(event(42, "charity-5k-fun-run", "Charity 5K Fun Run", "13:54:23", "18:54:23",
		"2026-12-27 08:00:00", "2026-12-27 11:00:00", "2026-12-27 06:00:00", "2026-12-27 09:00:00", "UTC+2", "UTC+2"),
		"_EventCost", "Free")
	funrun.Terms = map[string][]int{TaxonomyTag: {12, 8}}

	coding := event(43, "kids-coding-club", "Kids Coding Club", "13:54:23", "18:54:23",
		"2026-11-24 16:00:00", "2026-11-24 17:30:00", "2026-11-24 21:00:00", "2026-11-24 22:30:00", "America/New_York", "EST")
	coding.Terms = map[string][]int{TaxonomyCategory: {5}, TaxonomyTag: {10}}

	webinar := withMeta(event(59, "transatlantic-webinar", "Transatlantic Webinar", "13:54:25", "18:54:25",
		"2026-12-03 16:00:00", "2026-12-03 17:00:00", "2026-12-03 16:00:00", "2026-12-03 17:00:00", "Europe/London", "GMT"),
		"_EventCost", "Free", "_EventOrganizerID", "13", "_EventOrganizerID", "12")
	webinar.Terms = map[string][]int{TaxonomyTag: {9}}

	return []*Post{gala, winterfest, devsummit, aipanel, donor, members, funrun, coding, webinar}
}
