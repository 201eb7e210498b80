package adapter

import (
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"calshim/mapping"
)

// termKind describes categories or tags (reference §3.7): thin wrappers of WordPress' terms controller.
type termKind struct {
	collection   string // "categories" / "tags"
	hierarchical bool
	terms        func(r *request) []*mapping.Term
}

var categories = termKind{collection: "categories", hierarchical: true, terms: func(r *request) []*mapping.Term { return r.snap.Categories }}
var tags = termKind{collection: "tags", terms: func(r *request) []*mapping.Term { return r.snap.Tags }}

// termQuery is a validated term archive query.
type termQuery struct {
	search           string
	include, exclude []int
	order, orderby   string
	hideEmpty        bool
	parent, post     *int
	slug             *string
}

// archive answers GET /categories and GET /tags.
func (k termKind) archive(s *Server, r *request) (*response, error) {
	q, pg, err := k.query(s, r)
	if err != nil {
		return nil, err
	}
	var matches []*mapping.Term
	for _, t := range k.terms(r) {
		if q.match(r, t) {
			matches = append(matches, t)
		}
	}
	q.sort(matches)
	from, to := pg.window(len(matches)) // past the end: an empty list, no 404 (the core controller)
	ctx := r.ctx(false)
	items := make([]any, 0, to-from)
	for _, t := range matches[from:to] {
		items = append(items, ctx.ArchiveTerm(t))
	}
	url := r.base() + "/" + k.collection + "/"
	total, pages := len(matches), pg.totalPages(len(matches))
	body := mapping.Object{{Key: "rest_url", Value: url}, {Key: "total", Value: total}, {Key: "total_pages", Value: pages},
		{Key: k.collection, Value: items}}
	// rest_url carries no filters, so the links lose them too, as in the original.
	if pg.num < pages {
		body = append(body, mapping.KV{Key: "next_rest_url", Value: withQuery(url, "page="+strconv.Itoa(pg.num+1))})
	}
	if pg.num > 1 {
		prev := url
		if pg.num > 2 {
			prev = withQuery(url, "page="+strconv.Itoa(pg.num-1))
		}
		body = append(body, mapping.KV{Key: "previous_rest_url", Value: prev})
	}
	return &response{status: http.StatusOK, body: body, total: &total, totalPages: &pages}, nil
}

// query validates the archive arguments in declaration order.
func (k termKind) query(s *Server, r *request) (*termQuery, page, error) {
	bad := mapping.Object{}
	pg := s.pageArgs(r, &bad)
	q := &termQuery{hideEmpty: true}
	nonEmpty := func(name string) (string, bool) {
		v, ok := r.params[name]
		if !ok {
			return "", false
		}
		str, isStr := v.(string)
		if !isStr || str == "" {
			bad.Set(name, "Invalid parameter.")
			return "", false
		}
		return str, true
	}
	q.search, _ = nonEmpty("search")
	q.exclude = k.termIDs(r, "exclude", &bad)
	q.include = k.termIDs(r, "include", &bad)
	q.order, _ = nonEmpty("order")
	q.orderby, _ = nonEmpty("orderby")
	if v, ok := r.params["hide_empty"]; ok {
		b, valid := wpBool(v)
		if !valid {
			bad.Set("hide_empty", "hide_empty is not of type boolean.")
		}
		q.hideEmpty = b
	}
	if k.hierarchical && r.params.has("parent") {
		n, ok := positiveInt(r.params["parent"])
		t, exists := r.snap.Term(n)
		if !ok || !exists || !k.owns(r, t) {
			bad.Set("parent", "Invalid parameter.")
		}
		q.parent = &n
	}
	for _, name := range []string{"post", "event"} { // event is an alias of post and wins
		if r.params.has(name) {
			n, ok := positiveInt(r.params[name])
			p, exists := r.snap.Post(n)
			if !ok || !exists || p.Type != r.snap.Types().Event {
				bad.Set(name, "Invalid parameter.")
			}
			q.post = &n
		}
	}
	if v, ok := nonEmpty("slug"); ok {
		q.slug = &v
	}
	if len(bad) > 0 {
		return nil, pg, invalidParams(bad)
	}
	return q, pg, nil
}

func (k termKind) owns(r *request, t *mapping.Term) bool { return slices.Contains(k.terms(r), t) }

// termIDs resolves include/exclude: every item must be a term of the taxonomy by ID, slug or name.
func (k termKind) termIDs(r *request, name string, bad *mapping.Object) []int {
	if !r.params.has(name) {
		return nil
	}
	ids := []int{}
	for _, item := range r.params.list(name) {
		i := slices.IndexFunc(k.terms(r), func(t *mapping.Term) bool {
			return strconv.Itoa(t.ID) == item || t.Slug == item || t.Name == item
		})
		if i < 0 {
			bad.Set(name, "Invalid parameter.")
			return nil
		}
		ids = append(ids, k.terms(r)[i].ID)
	}
	return ids
}

func (q *termQuery) match(r *request, t *mapping.Term) bool {
	if q.hideEmpty && t.Count == 0 {
		return false
	}
	if q.search != "" {
		s := strings.ToLower(q.search)
		if !strings.Contains(strings.ToLower(t.Name), s) && !strings.Contains(strings.ToLower(t.Slug), s) {
			return false
		}
	}
	if q.include != nil && !slices.Contains(q.include, t.ID) {
		return false
	}
	if slices.Contains(q.exclude, t.ID) {
		return false
	}
	if q.parent != nil && t.Parent != *q.parent {
		return false
	}
	if q.slug != nil && t.Slug != *q.slug {
		return false
	}
	if q.post != nil {
		p, _ := r.snap.Post(*q.post)
		return slices.Contains(p.Terms[mapping.TaxonomyCategory], t.ID) || slices.Contains(p.Terms[mapping.TaxonomyTag], t.ID)
	}
	return true
}

// sort orders terms as get_terms does: by orderby (default name), ASC unless order says desc.
func (q *termQuery) sort(l []*mapping.Term) {
	key := func(t *mapping.Term) string { return strings.ToLower(t.Name) }
	num := func(t *mapping.Term) int { return 0 }
	switch strings.ToLower(q.orderby) {
	case "id", "term_id", "none":
		num = func(t *mapping.Term) int { return t.ID }
		key = func(*mapping.Term) string { return "" }
	case "slug":
		key = func(t *mapping.Term) string { return t.Slug }
	case "count":
		num = func(t *mapping.Term) int { return t.Count }
		key = func(*mapping.Term) string { return "" }
	case "term_group":
		num = func(t *mapping.Term) int { return t.TermGroup }
		key = func(*mapping.Term) string { return "" }
	case "description":
		key = func(t *mapping.Term) string { return strings.ToLower(t.Description) }
	case "parent":
		num = func(t *mapping.Term) int { return t.Parent }
		key = func(*mapping.Term) string { return "" }
	case "include":
		if q.include != nil {
			num = func(t *mapping.Term) int { return slices.Index(q.include, t.ID) }
			key = func(*mapping.Term) string { return "" }
		}
	}
	desc := q.order != "" && !strings.EqualFold(q.order, "asc")
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if desc {
			a, b = b, a
		}
		if num(a) != num(b) {
			return num(a) < num(b)
		}
		return key(a) < key(b)
	})
}

// single answers GET /categories/{id} and /tags/{id}: unknown IDs are a 400 on `id`, as the original
// validates them before the handler.
func (k termKind) single(s *Server, r *request) (*response, error) {
	id, _ := strconv.Atoi(r.vars["id"])
	t, ok := r.snap.Term(id)
	if !ok || !k.owns(r, t) {
		return nil, invalidParam("id")
	}
	body := r.ctx(true).ArchiveTerm(t)
	body = append(body, mapping.KV{Key: "_links", Value: r.ctx(true).TermLinks(t, r.snap.Site.Home+"/wp-json/")})
	return &response{status: http.StatusOK, body: body}, nil
}
