package mapping

import (
	"strconv"

	"calshim/mapping/php"
)

// Organizer is the v1 representation of an organizer (Post_Repository::get_organizer_data): post
// fields, image, phone, website, email, json_ld in the single context and the global IDs, every
// empty value removed. A password-protected organizer is blanked
// (Main::filter_out_password_protected_data, which also sets the name key "organizer" to [])
// unless Unlocked says the viewer may see it.
func (c *Context) Organizer(p *Post) Object {
	return c.organizer(p, c.passwordOK(p))
}

// organizer renders an organizer; passwordOK is false for organizers nested in an event.
func (c *Context) organizer(p *Post, passwordOK bool) Object {
	o := Object{
		{"id", p.ID},
		{"author", strconv.Itoa(p.Author)},
		{"status", p.Status()},
		{"date", p.Date()},
		{"date_utc", p.DateGMT()},
		{"modified", p.Modified()},
		{"modified_utc", p.ModifiedGMT()},
		{"url", c.permalink(p)},
		{"organizer", php.Trim(p.Title())},
		{"description", php.Trim(p.Content())},
		{"excerpt", php.Trim(p.Excerpt())},
		{"slug", p.Slug()},
		{"image", c.image(p)},
		{"phone", metaOr(p, "_OrganizerPhone", "")},
		{"website", metaOr(p, "_OrganizerWebsite", "")},
		{"email", metaOr(p, "_OrganizerEmail", "")},
	}
	if c.jsonLD(p, passwordOK) {
		o = append(o, KV{"json_ld", c.organizerLD(p)})
	}

	o = filterEmpty(c.globalIDFields(o, p))
	if p.Protected && !passwordOK {
		return Blank(o)
	}

	return o
}
