package mapping

import (
	"time"

	"calshim/mapping/php"
)

// The schema.org data of the single-read context (the json_ld member): Tribe__JSON_LD__Abstract and
// Tribe__Events__JSON_LD__{Event,Venue,Organizer}, without Events Calendar Pro (no venue/organizer
// links, no geo coordinates) and in TEC's default "event" time zone mode.

// jsonLD reports whether the JSON-LD generator produces data for p: single context, the post
// readable by the viewer, and no password required — the generator checks the password cookie, so
// only the single venue and organizer routes, which lift the check for a request with the right
// password (passwordOK), ever show it for a protected post.
func (c *Context) jsonLD(p *Post, passwordOK bool) bool {
	if !c.Single || (p.Protected && !passwordOK) {
		return false
	}
	if c.Readable != nil {
		return c.Readable(p)
	}
	return p.Status() == "publish"
}

// ldBase is the part every JSON-LD object shares: @type, name, description, image, url.
func (c *Context) ldBase(p *Post, typ, url string) Object {
	title := p.Title()
	if p.Status() == "private" {
		title = "Private: " + title // get_the_title
	}

	o := Object{
		{"@type", typ},
		{"name", php.EscJS(title)},
		{"description", php.EscJS(php.Wpautop(p.ExcerptText()))},
	}
	// has_post_thumbnail, then wp_get_attachment_url, which is false for an ID of no attachment.
	if m, ok := c.featuredMedia(p); ok {
		o = append(o, KV{"image", m.URL})
	} else if p.FeaturedMedia > 0 {
		o = append(o, KV{"image", false})
	}

	return append(o, KV{"url", url})
}

// venueLD is the Place of a venue. Its url is "": without Pro, TEC has no venue page to link.
func (c *Context) venueLD(v *Post) Object {
	o := c.ldBase(v, "Place", "")
	region := php.EscHTML(metaOr(v, "_VenueProvince", ""))
	if sp := metaOr(v, "_VenueStateProvince", ""); !php.Empty(sp) {
		region = sp
	} else if php.EscHTML(metaOr(v, "_VenueCountry", "")) == "United States" {
		region = php.EscHTML(metaOr(v, "_VenueState", ""))
	}

	address := filterEmpty(Object{
		{"@type", "PostalAddress"},
		{"streetAddress", php.EscHTML(metaOr(v, "_VenueAddress", ""))},
		{"addressLocality", php.EscHTML(metaOr(v, "_VenueCity", ""))},
		{"addressRegion", region},
		{"postalCode", php.EscHTML(metaOr(v, "_VenueZip", ""))},
		{"addressCountry", php.EscHTML(metaOr(v, "_VenueCountry", ""))},
	})
	return append(o,
		KV{"address", address},
		KV{"telephone", php.EscHTML(metaOr(v, "_VenuePhone", ""))},
		KV{"sameAs", metaOr(v, "_VenueURL", "")},
	)
}

// organizerLD is the Person of an organizer: url is the organizer's website (replacing the
// permalink in place), the e-mail address obfuscated by php.Antispambot.
func (c *Context) organizerLD(o *Post) Object {
	website := php.EscURL(php.EscHTML(metaOr(o, "_OrganizerWebsite", "")))
	ld := c.ldBase(o, "Person", website)
	return append(ld,
		KV{"telephone", php.EscHTML(metaOr(o, "_OrganizerPhone", ""))},
		KV{"email", php.Antispambot(php.EscHTML(metaOr(o, "_OrganizerEmail", "")))},
		KV{"sameAs", website},
	)
}

// eventStatusSchema maps TEC's _tribe_events_status to the schema.org event status.
var eventStatusSchema = map[string]string{
	"canceled":  "https://schema.org/EventCancelled",
	"postponed": "https://schema.org/EventPostponed",
}

// eventLD is the Event of an event: dates with the event's UTC offset, its first venue and first
// organizer (false when that post cannot be shown), an offer when it has a cost.
func (c *Context) eventLD(p *Post, cost EventCost) Object {
	link := eventLDLink(p.Link())
	o := append(Object{{"@context", "http://schema.org"}}, c.ldBase(p, "Event", link)...)
	status := "https://schema.org/EventScheduled"
	if s, ok := eventStatusSchema[metaOr(p, "_tribe_events_status", "")]; ok {
		status = s
	}

	tz := metaOr(p, "_EventTimezone", "")
	if php.Empty(tz) {
		tz = c.siteTimezone()
	}

	o = append(o,
		KV{"eventAttendanceMode", "https://schema.org/OfflineEventAttendanceMode"},
		KV{"eventStatus", status},
		KV{"startDate", jsonLDDate(c.ldWallTime(p, "_EventStartDate"), tz)},
		KV{"endDate", jsonLDDate(c.ldWallTime(p, "_EventEndDate"), tz)},
	)
	if id := firstMetaID(p, "_EventVenueID"); id > 0 {
		o = append(o, KV{"location", c.linkedLD(id, c.venueLD)})
	}

	if id := firstMetaID(p, "_EventOrganizerID"); id > 0 {
		o = append(o, KV{"organizer", c.linkedLD(id, c.organizerLD)})
	}

	if cost.Price != "" {
		o = append(o, KV{"offers", Object{
			{"@type", "Offer"},
			{"price", cost.Price},
			{"priceCurrency", c.currencyCode(p)},
			{"url", link},
			{"category", "primary"},
			{"availability", "inStock"},
			{"validFrom", validFrom(p.Date())},
		}})
	}

	return append(o, KV{"performer", "Organization"})
}

// linkedLD is the JSON-LD of a linked venue or organizer, or false (PHP's reset of an empty array)
// when the post is unknown or its JSON-LD cannot be shown.
func (c *Context) linkedLD(id int, ld func(*Post) Object) any {
	p, ok := c.Lookup.Post(id)
	if !ok || !c.jsonLD(p, false) {
		return false
	}
	return ld(p)
}

// firstMetaID is the first row of key as a post ID (tribe_get_venue_id, tribe_get_organizer_id), 0
// when it is absent or not a positive number.
func firstMetaID(p *Post, key string) int {
	v, _ := p.MetaFirst(key)
	return php.Int(v)
}

// currencyCode is the ISO 4217 code of an event's offer: _EventCurrencyCode, else TEC's
// defaultCurrencyCode option, else USD.
func (c *Context) currencyCode(p *Post) string {
	if code := metaOr(p, "_EventCurrencyCode", ""); code != "" {
		return code
	}
	if c.Site.DefaultCurrencyCode != "" {
		return c.Site.DefaultCurrencyCode
	}
	return "USD"
}

// siteTimezone is wp_timezone_string: the site's zone, "UTC+0" when none is set.
func (c *Context) siteTimezone() string {
	if c.Site.Timezone == "" {
		return "UTC+0"
	}
	return c.Site.Timezone
}

// validFrom is the offer's validFrom: the day of the post date (site time) at 00:00 UTC, as
// strtotime(get_the_date()) gives it; the Unix epoch when the date cannot be read.
func validFrom(postDate string) string {
	t, ok := parseStoredDate(postDate)
	if !ok {
		t = time.Unix(0, 0).UTC()
	}
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC).Format(isoLayout)
}

// ldWallTime is the wall time the JSON-LD dates start from: the stored one, or, for an event
// without one, the current UTC wall-clock time (tribe_get_start_date formats "now" in PHP's UTC
// default zone), which to_utc then reads as a time of the event's zone.
func (c *Context) ldWallTime(p *Post, key string) string {
	if v, ok := p.MetaFirst(key); ok {
		return v
	}

	now := time.Now
	if c.Now != nil {
		now = c.Now
	}

	return now().UTC().Format(DBDateTimeLayout)
}
