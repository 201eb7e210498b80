package adapter

import (
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"calshim/mapping/php"

	"calshim/mapping"
)

// termKind describes categories or tags: the original's Term_Archive_Base and Term_Single_Base are
// thin wrappers of WordPress' terms controller.
type termKind struct {
	collection   string // "categories" / "tags"
	hierarchical bool
	terms        func(r *request) []*mapping.Term
}

var categories = termKind{collection: "categories", hierarchical: true,
	terms: func(r *request) []*mapping.Term { return r.snap.Categories }}
var tags = termKind{collection: "tags",
	terms: func(r *request) []*mapping.Term { return r.snap.Tags }}

// termQuery is a validated term archive query.
type termQuery struct {
	search           string
	include, exclude idList
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
	context, _ := r.params.str("context")
	items := make([]any, 0, to-from)
	for _, t := range matches[from:to] {
		items = append(items, termInContext(ctx.ArchiveTerm(t), context))
	}

	url := r.base() + "/" + k.collection + "/"
	total, pages := len(matches), pg.totalPages(len(matches))
	body := mapping.Object{{Key: "rest_url", Value: url}, {Key: "total", Value: total},
		{Key: "total_pages", Value: pages}, {Key: k.collection, Value: items}}
	// rest_url carries no filters, so the links lose them too, as in the original.
	if pg.num < pages {
		next := withQuery(url, "page="+strconv.Itoa(pg.num+1))
		body = append(body, mapping.KV{Key: "next_rest_url", Value: next})
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

// query reads the sanitized archive arguments.
func (k termKind) query(s *Server, r *request) (*termQuery, page, error) {
	a, err := r.readArgs()
	if err != nil {
		return nil, page{}, err
	}

	q := &termQuery{hideEmpty: true}
	q.search, _ = a.str("search")
	q.include, q.exclude = termIDList(a["include"]), termIDList(a["exclude"])
	if q.include.given {
		q.exclude = idList{} // WP_Term_Query ignores exclude when include is given, even one of no IDs
	}

	q.order, _ = a.str("order")
	q.orderby, _ = a.str("orderby")
	if b := boolArg(a, "hide_empty"); b != nil {
		q.hideEmpty = *b
	}

	if n, ok := a["parent"].(int); ok && k.hierarchical {
		q.parent = &n
	}

	for _, name := range []string{"post", "event"} { // event is an alias of post and wins
		if n, ok := a[name].(int); ok {
			q.post = &n
		}
	}

	if v, ok := a.str("slug"); ok {
		slug := php.SanitizeTitle(v)
		q.slug = &slug
	}

	return q, s.pageOf(r, a), nil
}

func (k termKind) owns(r *request, t *mapping.Term) bool { return slices.Contains(k.terms(r), t) }

// idList is an include or exclude argument as WP_Term_Query reads it: whether it was given at all
// (PHP's ! empty()), and the position of each ID of its wp_parse_id_list, from 1 (MySQL's FIELD).
type idList struct {
	given bool
	pos   map[int]int
}

// termIDList is an include or exclude argument's wp_parse_id_list, with the position of each ID.
func termIDList(v any) idList {
	l := idList{given: !php.Empty(v), pos: map[int]int{}}
	if !l.given {
		return l
	}
	for i, id := range php.ParseIDList(v) {
		l.pos[id] = i + 1
	}
	return l
}

// restricts reports whether an include list limits the terms: WP_Term_Query adds its IN clause only
// when the IDs do not join to "" or "0" (a list of slugs alone lists every term).
func (l idList) restricts() bool {
	_, zero := l.pos[0]
	return len(l.pos) > 1 || len(l.pos) == 1 && !zero
}

func (q *termQuery) match(r *request, t *mapping.Term) bool {
	if q.hideEmpty && t.Count == 0 {
		return false
	}

	if q.search != "" {
		// The database compares with its collation: case and accents do not count ("é" finds "e").
		s := mapping.LikeFold(q.search)
		name, slug := mapping.LikeFold(t.Name), mapping.LikeFold(t.Slug)
		if !strings.Contains(name, s) && !strings.Contains(slug, s) {
			return false
		}
	}

	if q.include.restricts() && q.include.pos[t.ID] == 0 {
		return false
	}

	if q.exclude.pos[t.ID] > 0 {
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
		return slices.Contains(p.Terms[mapping.TaxonomyCategory], t.ID) ||
			slices.Contains(p.Terms[mapping.TaxonomyTag], t.ID)
	}

	return true
}

// termOrder is how get_terms compares two terms: by a number, then by a text, then by ID.
type termOrder struct {
	num  func(t *mapping.Term) int
	text func(t *mapping.Term) string
}

// byNumber orders by a number alone.
func byNumber(num func(t *mapping.Term) int) termOrder {
	return termOrder{num: num, text: func(*mapping.Term) string { return "" }}
}

// byText orders by a text alone.
func byText(text func(t *mapping.Term) string) termOrder {
	return termOrder{num: func(*mapping.Term) int { return 0 }, text: text}
}

// ordering is the termOrder of orderby (default name, compared in lower case).
func (q *termQuery) ordering() termOrder {
	switch php.Strtolower(q.orderby) {
	case "id", "term_id", "none":
		// none: no ORDER BY at all, and MySQL returns the terms by ID.
		return byNumber(func(t *mapping.Term) int { return t.ID })
	case "slug":
		return byText(func(t *mapping.Term) string { return t.Slug })
	case "count":
		return byNumber(func(t *mapping.Term) int { return t.Count })
	case "term_group":
		return byNumber(func(t *mapping.Term) int { return t.TermGroup })
	case "description":
		return byText(func(t *mapping.Term) string { return strings.ToLower(t.Description) })
	case "parent":
		return byNumber(func(t *mapping.Term) int { return t.Parent })
	case "include":
		if q.include.given { // FIELD(term_id, ids): 0 for a term not listed
			return byNumber(func(t *mapping.Term) int { return q.include.pos[t.ID] })
		}
	}

	return byText(func(t *mapping.Term) string { return strings.ToLower(t.Name) })
}

// sort orders terms as get_terms does: by orderby (default name), ASC unless order says desc;
// orderby=none ignores order.
func (q *termQuery) sort(l []*mapping.Term) {
	o := q.ordering()
	desc := q.order != "" && !tokenEqual(q.order, "asc") && !tokenEqual(q.orderby, "none")

	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if desc {
			a, b = b, a
		}
		if o.num(a) != o.num(b) {
			return o.num(a) < o.num(b)
		}
		if o.text(a) != o.text(b) {
			return o.text(a) < o.text(b)
		}
		return l[i].ID < l[j].ID // MySQL's order for ties: by ID, whatever order says
	})
}

// single answers GET /categories/{id} and /tags/{id}: unknown IDs are a 400 on `id`, as the
// original validates them before the handler.
func (k termKind) single(s *Server, r *request) (*response, error) {
	id, _ := strconv.Atoi(r.vars["id"])
	t, ok := r.snap.Term(id)
	if !ok || !k.owns(r, t) {
		return nil, invalidParam("id")
	}

	context, _ := r.params.str("context")
	body, _ := termInContext(r.ctx(true).ArchiveTerm(t), context).(mapping.Object)
	links := r.ctx(true).TermLinks(t, r.snap.Site.Home+"/wp-json/")
	body = append(body, mapping.KV{Key: "_links", Value: links})
	return &response{status: http.StatusOK, body: body}, nil
}

// termInContext filters a term by the request's context as the core terms controller does
// (WP_REST_Controller::filter_response_by_context): embed keeps what its schema marks embeddable
// (and TEC's url and urls, added after); a context the schema does not know keeps nothing, which PHP
// encodes as an empty list.
func termInContext(o mapping.Object, context string) any {
	switch context {
	case "", "view", "edit":
		return o
	case "embed":
		kept := mapping.Object{}
		for _, kv := range o {
			if !slices.Contains([]string{"count", "description", "parent", "meta"}, kv.Key) {
				kept = append(kept, kv)
			}
		}
		return kept
	}
	return []any{}
}
