package main

import (
	"fmt"
	"sort"
	"strings"

	"calshim/adapter/shadow"
)

// Obj is a post or term known to the original: enough to address it and to name it.
type Obj struct {
	ID     int
	Slug   string
	Name   string
	Status string
	Start  string // events: start_date
}

// World is what the original lists at start; request generation draws its IDs and slugs from it.
type World struct {
	Events, Venues, Organizers, Cats, Tags []Obj
	Media                                  []int
}

var postStatuses = []string{"publish", "draft", "pending", "private", "future", "trash"}

// discover reads every event (each status), venue, organizer, category and tag as the
// administrator.
func discover(s *Site) (*World, error) {
	w := &World{}

	var err error
	for _, st := range postStatuses {
		q := "status=" + st + "&start_date=2000-01-01&end_date=2100-01-01"
		if w.Events, err = collect(s, w.Events, "/events", "events", q); err != nil {
			return nil, err
		}
		if w.Venues, err = collect(s, w.Venues, "/venues", "venues", "status="+st); err != nil {
			return nil, err
		}
		if w.Organizers, err = collect(s, w.Organizers, "/organizers", "organizers",
			"status="+st); err != nil {
			return nil, err
		}
	}

	if w.Cats, err = collect(s, nil, "/categories", "categories", "hide_empty=0"); err != nil {
		return nil, err
	}
	if w.Tags, err = collect(s, nil, "/tags", "tags", "hide_empty=0"); err != nil {
		return nil, err
	}

	w.Media = discoverMedia(s)
	for _, l := range []*[]Obj{&w.Events, &w.Venues, &w.Organizers, &w.Cats, &w.Tags} {
		sortObjs(l)
	}

	return w, nil
}

// collect pages through a list of the original as the administrator, adding what it has not seen.
func collect(s *Site, into []Obj, path, key, query string) ([]Obj, error) {
	seen := map[int]bool{}
	for _, o := range into {
		seen[o.ID] = true
	}

	for page := 1; page < 100; page++ {
		r := &Request{Method: "GET", Path: path, Role: "admin", NS: "tribe",
			Query: fmt.Sprintf("%s&per_page=50&page=%d", query, page)}
		resp := s.Do(r)
		if resp.Err != "" {
			return nil, fmt.Errorf("discover %s: %s", path, resp.Err)
		}
		if resp.Status != 200 {
			return into, nil
		}

		n, err := shadow.Parse(resp.Body)
		if err != nil {
			return nil, fmt.Errorf("discover %s: %v", path, err)
		}

		items := n.Get(key)
		if items == nil || len(items.Vals) == 0 {
			return into, nil
		}
		for _, it := range items.Vals {
			o := objOf(it, key)
			if !seen[o.ID] {
				seen[o.ID] = true
				into = append(into, o)
			}
		}
	}

	return into, nil
}

func objOf(it *shadow.Node, key string) Obj {
	o := Obj{}
	fmt.Sscan(lit(it.Get("id")), &o.ID)
	o.Slug = lit(it.Get("slug"))
	o.Status = lit(it.Get("status"))
	o.Start = lit(it.Get("start_date"))

	for _, k := range []string{"name", "title", "venue", "organizer"} {
		if v := it.Get(k); v != nil && v.Kind == shadow.KString {
			o.Name = v.Lit
			break
		}
	}

	return o
}

func lit(n *shadow.Node) string {
	if n == nil {
		return ""
	}

	return n.Lit
}

// discoverMedia asks WordPress itself for a few attachment IDs (IDs that are no event).
func discoverMedia(s *Site) []int {
	body, err := s.getRaw("/wp-json/wp/v2/media?per_page=10", "admin")
	if err != nil {
		return nil
	}

	n, err := shadow.Parse(body)
	if err != nil || n.Kind != shadow.KArray {
		return nil
	}

	var ids []int
	for _, it := range n.Vals {
		var id int
		fmt.Sscan(lit(it.Get("id")), &id)
		ids = append(ids, id)
	}
	sort.Ints(ids)

	return ids
}

func sortObjs(l *[]Obj) {
	sort.Slice(*l, func(i, j int) bool { return (*l)[i].ID < (*l)[j].ID })
}

// Summary is one line per kind, for the report's head.
func (w *World) Summary() string {
	return fmt.Sprintf("events %d, venues %d, organizers %d, categories %d, tags %d, media %d",
		len(w.Events), len(w.Venues), len(w.Organizers), len(w.Cats), len(w.Tags), len(w.Media))
}

// slugs returns the non-empty slugs of a list.
func slugs(l []Obj) []string {
	var out []string
	for _, o := range l {
		if strings.TrimSpace(o.Slug) != "" {
			out = append(out, o.Slug)
		}
	}

	return out
}
