package wpfake

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// list answers GET /wp/v2/<base> like wp/v2: filter, order, then page, with X-WP-Total and
// X-WP-TotalPages counting the filtered objects.
func (s *Server) list(w http.ResponseWriter, q url.Values, base string, items []item) {
	isTerm := base == "tribe_events_cat" || base == "tags"
	perPage, err := intParam(q, "per_page", 10)
	if err != nil || perPage < 1 || perPage > 100 {
		s.writeRecorded(w, "error-400-per-page.json") // rest_invalid_param, per_page out of bounds
		return
	}
	page, err := intParam(q, "page", 1)
	if err != nil || page < 1 {
		writeError(w, http.StatusBadRequest, "rest_invalid_param", "Invalid parameter(s): page")
		return
	}
	items, err = s.filter(q, base, isTerm, items)
	if err != nil {
		writeError(w, http.StatusBadRequest, "rest_invalid_param", err.Error())
		return
	}
	if q.Get("orderby") == "id" {
		slices.SortStableFunc(items, func(a, b item) int { return a.id - b.id })
		if q.Get("order") == "desc" {
			slices.Reverse(items)
		}
	}
	s.mu.Lock()
	perPage = min(perPage, s.maxPerPage)
	s.mu.Unlock()
	total := len(items)
	pages := (total + perPage - 1) / perPage
	// WP_REST_Posts_Controller::get_items; term lists just come back empty.
	if !isTerm && page > max(pages, 1) {
		writeError(w, http.StatusBadRequest, "rest_post_invalid_page_number",
			"The page number requested is larger than the number of pages available.")
		return
	}
	from, to := min((page-1)*perPage, total), min(page*perPage, total)
	body, err := encodeItems(items[from:to], q.Get("_fields"))
	if err != nil {
		writeError(w, http.StatusInternalServerError, "wpfake", err.Error())
		return
	}
	w.Header().Set("X-WP-Total", strconv.Itoa(total))
	w.Header().Set("X-WP-TotalPages", strconv.Itoa(pages))
	writeJSON(w, http.StatusOK, body)
}

// single answers GET /wp/v2/<base>/<id>.
func (s *Server) single(w http.ResponseWriter, base, id string, items []item) {
	n, _ := strconv.Atoi(id)
	i := slices.IndexFunc(items, func(x item) bool { return x.id == n })
	if i < 0 {
		writeError(w, http.StatusNotFound, "rest_post_invalid_id", "Invalid post ID.")
		return
	}
	writeJSON(w, http.StatusOK, items[i].raw)
}

func intParam(q url.Values, name string, def int) (int, error) {
	if !q.Has(name) {
		return def, nil
	}
	return strconv.Atoi(q.Get(name))
}

// filter keeps the objects matching status (posts: default publish; media: any), include,
// modified_after and hide_empty.
func (s *Server) filter(q url.Values, base string, isTerm bool, items []item) ([]item, error) {
	var keep []func(item) bool
	if !isTerm && (q.Has("status") || base != "media") {
		statuses := strings.Split(q.Get("status"), ",")
		if !q.Has("status") {
			statuses = []string{"publish"}
		}
		keep = append(keep, func(it item) bool { return slices.Contains(statuses, it.status) })
	}
	if q.Has("include") {
		var ids []int
		for _, f := range strings.Split(q.Get("include"), ",") {
			id, err := strconv.Atoi(f)
			if err != nil {
				return nil, invalidParams("include")
			}
			ids = append(ids, id)
		}
		keep = append(keep, func(it item) bool { return slices.Contains(ids, it.id) })
	}
	if q.Has("modified_after") {
		s.mu.Lock()
		loc := siteLocation(s.index)
		s.mu.Unlock()
		after, err := parseRESTDate(q.Get("modified_after"), loc)
		if err != nil {
			return nil, invalidParams("modified_after")
		}
		// WP_Date_Query "after" is exclusive, at one-second resolution.
		keep = append(keep, func(it item) bool {
			m, err := time.Parse("2006-01-02T15:04:05", it.modified)
			return err == nil && m.After(after)
		})
	}
	if isTerm && q.Get("hide_empty") == "true" {
		keep = append(keep, func(it item) bool { return it.count > 0 })
	}
	var out []item
	for _, it := range items {
		if !slices.ContainsFunc(keep, func(f func(item) bool) bool { return !f(it) }) {
			out = append(out, it)
		}
	}
	return out, nil
}

// parseRESTDate reads an ISO 8601 date as WordPress does for date queries: with an offset as given,
// without one in the site's time zone (WP_Date_Query::build_mysql_datetime).
func parseRESTDate(v string, loc *time.Location) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	return time.ParseInLocation("2006-01-02T15:04:05", v, loc)
}

// siteLocation is the site time zone of the REST index: timezone_string, else gmt_offset hours.
func siteLocation(index Object) *time.Location {
	if name, _ := index["timezone_string"].(string); name != "" {
		if loc, err := time.LoadLocation(name); err == nil {
			return loc
		}
	}
	off := 0.0
	if n, ok := index["gmt_offset"].(json.Number); ok {
		off, _ = n.Float64()
	}
	return time.FixedZone("site", int(off*3600))
}

// encodeItems writes a JSON array of the objects, byte for byte as recorded unless _fields asks for a
// subset of top-level fields.
func encodeItems(items []item, fields string) ([]byte, error) {
	out := [][]byte{}
	for _, it := range items {
		if fields == "" {
			out = append(out, it.raw)
			continue
		}
		o, err := decodeObject(it.raw)
		if err != nil {
			return nil, err
		}
		sub := Object{}
		for _, f := range strings.Split(fields, ",") {
			if v, ok := o[f]; ok {
				sub[f] = v
			}
		}
		b, err := json.Marshal(sub)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return slices.Concat([]byte("["), bytes.Join(out, []byte(",")), []byte("]")), nil
}

// invalidParams is the message of WordPress' rest_invalid_param error, capitalized as WordPress writes it.
func invalidParams(name string) error {
	return errors.New("Invalid parameter(s): " + name)
}
