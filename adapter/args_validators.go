package adapter

import (
	"encoding/json"
	"net/url"
	"strings"

	"calshim/catalog"
	"calshim/mapping"
	"calshim/mapping/php"
)

// The validate and sanitize callbacks that the tables of args.go (validators, sanitizers) name, after
// the original's Tribe__Validator__Base, Tribe__Events__Validator__Base and Archive_Base; a callback
// that belongs to one resource's writes lives with them (validLink in write_linked.go, isImage in
// write_image.go).

// isCategoryParent: a category's parent must be an existing category.
func isCategoryParent(r *request, v any) bool {
	s, _ := php.Scalar(v)
	n, ok := php.PositiveInt(s)
	t, exists := r.snap.Term(n)
	return ok && exists && categories.owns(r, t)
}

func isPositiveInt(_ *request, v any) bool {
	s, _ := php.Scalar(v)
	_, ok := php.PositiveInt(s)
	return ok
}

func categoriesOf(s *catalog.Snapshot) []*mapping.Term { return s.Categories }

func tagsOf(s *catalog.Snapshot) []*mapping.Term { return s.Tags }

func organizerType(t catalog.Types) string { return t.Organizer }

// isPositiveIntList is is_positive_int_list: a non-empty list_to_array of positive integers.
func isPositiveIntList(_ *request, v any) bool {
	l := php.ListToArray(v)
	for _, it := range l {
		if !isPositiveInt(nil, it) {
			return false
		}
	}
	return len(l) > 0
}

// isTermOf is is_term_of_taxonomy: every item of the list is a term of the taxonomy (term_exists:
// an integer by ID, text by sanitized slug, then by name).
func isTermOf(terms func(*catalog.Snapshot) []*mapping.Term) func(r *request, v any) bool {
	return func(r *request, v any) bool {
		l := php.ListToArray(v)
		for _, it := range l {
			s, ok := php.Scalar(it)
			if !ok || !mapping.TermExists(terms(r.snap), s, isPHPInt(it)) {
				return false
			}
		}
		return len(l) > 0
	}
}

// isLinkedList is is_venue_id_list / is_organizer_id_list: a non-empty list of numeric IDs of posts
// of the type.
func isLinkedList(typ func(catalog.Types) string) func(r *request, v any) bool {
	return func(r *request, v any) bool {
		l := php.ListToArray(v)
		for _, it := range l {
			s, ok := php.Scalar(it)
			if !ok || !php.IsNumeric(s) {
				return false
			}
			p, found := r.snap.Post(php.Int(s))
			if !found || p.Type() != typ(r.snap.Types()) {
				return false
			}
		}
		return len(l) > 0
	}
}

// isEventID is is_event_id: not empty, and (int) of it is an event.
func isEventID(r *request, v any) bool {
	if php.Empty(v) {
		return false
	}
	p, found := r.snap.Post(php.Int(v))
	return found && p.Type() == r.snap.Types().Event
}

// statusList is Archive_Base::filter_post_status_list: callers without the edit capability may only
// ask for exactly "publish"; the others for registered statuses ("any" is not one).
func statusList(editCap string) func(r *request, v any) bool {
	return func(r *request, v any) bool {
		l := php.ListToArray(v)
		if !r.viewer.can(editCap) {
			return len(l) == 1 && l[0] == "publish"
		}
		for _, it := range l {
			s, ok := it.(string)
			if !ok || !postStatuses[s] {
				return false
			}
		}
		return true
	}
}

// supportsTicketed is supports_ticketed: a truthy value needs Event Tickets, which calshim never
// has.
func supportsTicketed(_ *request, v any) error {
	if !php.TribeTruthy(v) {
		return nil
	}
	return errTicketsNotActive
}

// isPHPInt reports whether a list_to_array item became a PHP integer ("5", not "5.0" or "1e3").
func isPHPInt(v any) bool {
	n, ok := v.(json.Number)
	return ok && !strings.ContainsAny(string(n), ".eE")
}

// The validators of the original (Tribe__Validator__Base and the REST validators).

func nonEmptyString(_ *request, v any) bool { s, ok := v.(string); return ok && s != "" }

func anyString(_ *request, v any) bool { _, ok := v.(string); return ok }

func isTime(r *request, v any) bool {
	s, ok := php.Scalar(v)
	return ok && mapping.ValidDateArg(s, r.now)
}

func isUserID(_ *request, v any) bool { n, ok := asInt(v); return ok && n > 0 }

// postStatuses are the statuses registered on the original's site (get_post_stati): WordPress' own,
// its user-request ones, and The Events Calendar's ignored and aggregator-record statuses.
var postStatuses = map[string]bool{
	"publish": true, "future": true, "draft": true, "pending": true,
	"private": true, "trash": true, "auto-draft": true, "inherit": true,
	"request-pending": true, "request-confirmed": true, "request-failed": true,
	"request-completed": true, "tribe-ignored": true,
	"tribe-ea-success": true, "tribe-ea-failed": true, "tribe-ea-schedule": true,
	"tribe-ea-pending": true, "tribe-ea-draft": true,
}

func isPostStatus(_ *request, v any) bool { s, ok := v.(string); return ok && postStatuses[s] }

func isTimezone(_ *request, v any) bool {
	s, ok := v.(string)
	return ok && mapping.ValidEventTimezone(s)
}

// isURLOrEmpty is TEC's is_url_or_empty: "" or an absolute http(s)/ftp URL with a host.
func isURLOrEmpty(_ *request, v any) bool {
	s, ok := php.Scalar(v)
	if !ok {
		return false
	}
	if s == "" {
		return true
	}
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && u.Host != ""
}

// isImage is the validator of an event's image: the ID of an image attachment, or an http(s) URL
// when the caller may upload files (the original: a contributor sending a URL gets 400). An empty
// string fails.
func isImage(r *request, v any) bool {
	s, ok := v.(string)
	if !ok {
		if n, isNum := v.(json.Number); isNum {
			s = n.String() // passes here, then fails the string type check, as in the original
		} else {
			return false
		}
	}

	s = strings.TrimSpace(s)
	if n, ok := php.PositiveInt(s); ok {
		return isImageAttachment(r, n)
	}

	u, err := url.Parse(s)
	isWeb := err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
	return isWeb && r.viewer.can("upload_files")
}

// isImageOrEmpty is the venue and organizer variant: "" is allowed (and clears the image).
func isImageOrEmpty(r *request, v any) bool {
	if s, ok := v.(string); ok && s == "" {
		return true
	}
	return isImage(r, v)
}

// isImageAttachment asks the CMS (service credential, a read) whether an ID is an image attachment.
func isImageAttachment(r *request, id int) bool {
	if _, ok := r.snap.Media(id); ok {
		return true
	}
	mime, err := r.cms.MediaMimeType(r.gc.Request.Context(), id)
	return err == nil && strings.HasPrefix(mime, "image/")
}
