package main

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"strconv"
	"strings"
)

// Gen draws random GET requests from a seed: the same seed and the same world give the same
// requests.
type Gen struct {
	rng *rand.Rand
	w   *World
}

func newGen(seed uint64, w *World) *Gen {
	return &Gen{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), w: w}
}

func (g *Gen) intn(n int) int {
	if n <= 0 {
		return 0
	}

	return g.rng.IntN(n)
}

func (g *Gen) chance(p float64) bool {
	return g.rng.Float64() < p
}

func pick[T any](g *Gen, l []T) T {
	var zero T
	if len(l) == 0 {
		return zero
	}

	return l[g.intn(len(l))]
}

// routeGen builds the path and query of one route.
type routeGen struct {
	route  string
	weight int
	build  func(g *Gen, q *query) string
}

// query is an ordered, encoded query string under construction.
type query struct {
	parts []string
}

func (q *query) add(k, v string) {
	q.parts = append(q.parts, esc(k)+"="+esc(v))
}

// esc encodes like a browser form, keeping brackets readable and {NS} for the namespace
// placeholder.
func esc(s string) string {
	e := url.QueryEscape(s)
	e = strings.NewReplacer("%5B", "[", "%5D", "]", "%7BNS%7D", "{NS}", "%2F", "/").Replace(e)

	return e
}

var routeGens = []routeGen{
	{"GET /events", 30, (*Gen).eventList},
	{"GET /events/{id}", 10, (*Gen).eventByID},
	{"GET /events/by-slug/{slug}", 7, (*Gen).eventBySlug},
	{"GET /venues", 8, func(g *Gen, q *query) string { return g.linkedList(q, "/venues") }},
	{"GET /venues/{id}", 4, func(g *Gen, q *query) string {
		return g.linkedByID(q, "/venues", g.w.Venues)
	}},
	{"GET /venues/by-slug/{slug}", 3, func(g *Gen, q *query) string {
		return g.linkedBySlug(q, "/venues", g.w.Venues)
	}},
	{"GET /organizers", 8, func(g *Gen, q *query) string { return g.linkedList(q, "/organizers") }},
	{"GET /organizers/{id}", 4, func(g *Gen, q *query) string {
		return g.linkedByID(q, "/organizers", g.w.Organizers)
	}},
	{"GET /organizers/by-slug/{slug}", 3, func(g *Gen, q *query) string {
		return g.linkedBySlug(q, "/organizers", g.w.Organizers)
	}},
	{"GET /categories", 7, func(g *Gen, q *query) string {
		return g.termList(q, "/categories", g.w.Cats)
	}},
	{"GET /categories/{id}", 3, func(g *Gen, q *query) string {
		return g.termByID(q, "/categories", g.w.Cats, g.w.Tags)
	}},
	{"GET /tags", 6, func(g *Gen, q *query) string { return g.termList(q, "/tags", g.w.Tags) }},
	{"GET /tags/{id}", 3, func(g *Gen, q *query) string {
		return g.termByID(q, "/tags", g.w.Tags, g.w.Cats)
	}},
	{"GET /", 2, (*Gen).index},
	{"GET /doc", 2, (*Gen).doc},
}

// Next draws one request: a route by weight, its parameters, a caller, a namespace and an address
// form.
func (g *Gen) Next(filter func(string) bool) *Request {
	rg := g.pickRoute(filter)

	q := &query{}
	path := rg.build(g, q)
	g.extras(q)

	return &Request{Route: rg.route, Method: "GET", Path: path, Query: strings.Join(q.parts, "&"),
		Role: g.role(), NS: pick(g, []string{"cal", "tribe"}), Plain: g.chance(0.3)}
}

func (g *Gen) pickRoute(filter func(string) bool) routeGen {
	total := 0
	for _, rg := range routeGens {
		if filter(rg.route) {
			total += rg.weight
		}
	}

	n := g.intn(total)
	for _, rg := range routeGens {
		if !filter(rg.route) {
			continue
		}
		if n < rg.weight {
			return rg
		}
		n -= rg.weight
	}

	return routeGens[0]
}

// role: anonymous a third of the time, a wrong application password now and then, else a real role.
func (g *Gen) role() string {
	switch {
	case g.chance(0.35):
		return "anon"
	case g.chance(0.06):
		return "badpass"
	}

	return pick(g, roles[1:len(roles)-1])
}

// extras adds, rarely, what no route declares: unknown parameters, context, _fields, a repeated
// page.
func (g *Gen) extras(q *query) {
	if g.chance(0.03) {
		q.add("foo", "bar")
	}
	if g.chance(0.03) {
		q.add("context", pick(g, []string{"view", "edit", "embed", "bogus"}))
	}
	if g.chance(0.02) {
		q.add("_fields", pick(g, []string{"id,title", "id", "events", "total,rest_url"}))
	}
}

// params adds n distinct parameters drawn from gens.
func (g *Gen) params(q *query, gens map[string]func(*query, string)) {
	names := sortedKeys(gens)
	n := pick(g, []int{0, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5})

	for i := 0; i < n && len(names) > 0; i++ {
		j := g.intn(len(names))
		gens[names[j]](q, names[j])
		names = append(names[:j], names[j+1:]...)
	}
}

// ---- value generators ----

func (g *Gen) intParam(valid ...string) func(*query, string) {
	return func(q *query, k string) {
		switch {
		case g.chance(0.6):
			q.add(k, pick(g, valid))
		case g.chance(0.8):
			q.add(k, pick(g, []string{"", "0", "-1", "-5", "99999999999999999999", "1.5", "1e3", " 2",
				"abc", "0x10", "+3", "007"}))
		default:
			q.add(k+"[]", pick(g, valid))
		}
	}
}

func (g *Gen) boolParam() func(*query, string) {
	return func(q *query, k string) {
		if g.chance(0.05) {
			q.add(k+"[]", "1")
			return
		}

		q.add(k, pick(g, []string{"true", "false", "1", "0", "yes", "no", "on", "off", "", "maybe", "2",
			"TRUE", "-1", "true", "false", "1", "0"}))
	}
}

func (g *Gen) strParam(vals ...string) func(*query, string) {
	return func(q *query, k string) {
		if g.chance(0.04) {
			q.add(k+"[]", pick(g, vals))
			return
		}

		q.add(k, pick(g, vals))
	}
}

// dateValues mixes absolute dates around the data, relative formats, timestamps and garbage.
func (g *Gen) dateValue() string {
	ev := pick(g, g.w.Events)
	day := ""
	if len(ev.Start) >= 10 {
		day = ev.Start[:10]
	}

	switch g.intn(4) {
	case 0:
		return pick(g, []string{day, ev.Start, day + " 23:59:59", day + "T12:00:00", day + " 00:00"})
	case 1:
		return pick(g, []string{"now", "today", "tomorrow", "yesterday", "-1 week", "+1 week",
			"-1 month", "+2 months", "next monday", "last day of this month", "midnight", "noon",
			"first day of next month", "+1 day 10:00"})
	case 2:
		return g.timestamp(ev.Start)
	}

	return pick(g, []string{"", "0", "garbage", "2026-13-45", "2026-02-30", "2026-11-23 25:00:00",
		"2026", "2026-11", "31/12/2026", "12/31/2026", "2026-11-23+05:00", "1 1", "1000-01-01",
		"9999-12-31 23:59:59"})
}

func (g *Gen) timestamp(start string) string {
	var y, mo, d int
	fmt.Sscanf(start, "%d-%d-%d", &y, &mo, &d)

	// Days since the epoch, UTC midnight, plus a random hour: a plausible, data-relative timestamp.
	days := daysFromCivil(y, mo, d)
	ts := int64(days)*86400 + int64(g.intn(24))*3600

	return pick(g, []string{strconv.FormatInt(ts, 10), "@" + strconv.FormatInt(ts, 10)})
}

// daysFromCivil is Howard Hinnant's days_from_civil.
func daysFromCivil(y, m, d int) int {
	if m <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy

	return era*146097 + doe - 719468
}

func (g *Gen) dateParam() func(*query, string) {
	return func(q *query, k string) { q.add(k, g.dateValue()) }
}

// refs returns a reference to an object of l: its ID mostly, else its slug or name.
func (g *Gen) ref(l []Obj) string {
	o := pick(g, l)
	switch {
	case g.chance(0.65):
		return strconv.Itoa(o.ID)
	case g.chance(0.5):
		return o.Slug
	}

	return o.Name
}

// listParam gives 1-3 references, valid or not, as k=, CSV, k[]= or k[n]=.
func (g *Gen) listParam(l []Obj) func(*query, string) {
	return func(q *query, k string) {
		n := 1 + g.intn(3)
		vals := make([]string, n)
		for i := range vals {
			if g.chance(0.8) {
				vals[i] = g.ref(l)
			} else {
				vals[i] = pick(g, []string{"0", "-1", "999999", "abc", "", "1.5", " 3"})
			}
		}

		switch g.intn(4) {
		case 0:
			q.add(k, vals[0])
		case 1:
			q.add(k, strings.Join(vals, pick(g, []string{",", ", "})))
		case 2:
			for _, v := range vals {
				q.add(k+"[]", v)
			}
		default:
			for i, v := range vals {
				q.add(fmt.Sprintf("%s[%d]", k, i), v)
			}
		}
	}
}

func (g *Gen) statusParam() func(*query, string) {
	return func(q *query, k string) {
		vals := []string{"publish", "draft", "pending", "private", "future", "trash", "any",
			"publish,draft", "draft,private", "bogus", "", "PUBLISH", "inherit", "auto-draft", "publish"}
		if g.chance(0.1) {
			q.add(k+"[]", "publish")
			q.add(k+"[]", pick(g, vals))
			return
		}

		q.add(k, pick(g, vals))
	}
}

func (g *Gen) searchValues() []string {
	vals := []string{"jazz", "Jazz", "gala", "@", "%", "_", "a", "", "night", "zzz", "'", `"`, "<b>",
		"é", "london", "San Francisco", "music", "coding", "the", "2026", "-", "*"}
	for i := 0; i < 3; i++ {
		words := strings.Fields(pick(g, g.w.Events).Name)
		if len(words) > 0 {
			vals = append(vals, words[0])
		}
	}

	return vals
}

func ids(l []Obj) []string {
	out := make([]string, 0, len(l))
	for _, o := range l {
		out = append(out, strconv.Itoa(o.ID))
	}

	return out
}

func pageParams(g *Gen, gens map[string]func(*query, string)) {
	gens["page"] = g.intParam("1", "1", "2", "3", "5", "100")
	gens["per_page"] = g.intParam("1", "2", "5", "10", "20", "50", "51", "100")
}

// ---- routes ----

func (g *Gen) eventList(q *query) string {
	gens := map[string]func(*query, string){}
	pageParams(g, gens)

	for _, k := range []string{"start_date", "end_date", "starts_before", "starts_after",
		"ends_before", "ends_after"} {
		gens[k] = g.dateParam()
	}

	gens["strict_dates"] = g.boolParam()
	gens["search"] = g.strParam(g.searchValues()...)
	gens["categories"] = g.listParam(g.w.Cats)
	gens["tags"] = g.listParam(g.w.Tags)
	gens["venue"] = g.listParam(g.w.Venues)
	gens["organizer"] = g.listParam(g.w.Organizers)
	gens["featured"] = g.boolParam()
	gens["status"] = g.statusParam()
	gens["geoloc"] = g.boolParam()
	gens["geoloc_lat"] = g.strParam("40.7", "-73.9", "0", "abc", "", "91", "1e2", "51.5")
	gens["geoloc_lng"] = g.strParam("40.7", "-73.9", "0", "abc", "", "181", "-0.12")
	gens["include"] = g.listParam(g.w.Events)
	gens["post_parent"] = g.intParam(append(ids(g.w.Events[:min(3, len(g.w.Events))]), "0")...)
	gens["ticketed"] = g.boolParam()

	g.params(q, gens)

	return "/events"
}

func (g *Gen) eventByID(q *query) string {
	id := g.someID(g.w.Events, g.w.Venues, g.w.Organizers)

	if g.chance(0.12) {
		q.add("password", pick(g, []string{"letmein", "wrong", ""}))
	}

	return "/events/" + id
}

// someID is mostly an ID of own, else one of another kind, an attachment, none, or a padded one.
func (g *Gen) someID(own []Obj, other ...[]Obj) string {
	switch {
	case g.chance(0.72):
		return strconv.Itoa(pick(g, own).ID)
	case g.chance(0.35):
		return strconv.Itoa(pick(g, pick(g, other)).ID)
	case g.chance(0.3) && len(g.w.Media) > 0:
		return strconv.Itoa(pick(g, g.w.Media))
	case g.chance(0.5):
		return pick(g, []string{"0", "999999", "1", "99999999999999999999"})
	}

	return "0" + strconv.Itoa(pick(g, own).ID)
}

func (g *Gen) someSlug(own []Obj, other []Obj) string {
	s := pick(g, slugs(own))
	switch {
	case g.chance(0.72):
		return s
	case g.chance(0.3):
		return strings.ToUpper(s[:min(1, len(s))]) + s[min(1, len(s)):]
	case g.chance(0.3):
		return pick(g, slugs(other))
	case g.chance(0.3):
		return strings.ToUpper(s)
	}

	return pick(g, []string{"no-such-slug", "caf%C3%A9", "a%20b", "123", s + "-2", "%25", "x.y"})
}

func (g *Gen) eventBySlug(q *query) string {
	return "/events/by-slug/" + g.someSlug(g.w.Events, g.w.Venues)
}

func (g *Gen) linkedList(q *query, path string) string {
	gens := map[string]func(*query, string){}
	pageParams(g, gens)

	gens["search"] = g.strParam(g.searchValues()...)
	gens["event"] = g.intParam(append(ids(g.w.Events), "0", "999999")...)
	gens["has_events"] = g.boolParam()
	gens["only_with_upcoming"] = g.boolParam()
	gens["status"] = g.statusParam()

	g.params(q, gens)

	return path
}

func (g *Gen) linkedByID(q *query, path string, own []Obj) string {
	return path + "/" + g.someID(own, g.w.Events, g.w.Venues, g.w.Organizers)
}

func (g *Gen) linkedBySlug(q *query, path string, own []Obj) string {
	return path + "/by-slug/" + g.someSlug(own, g.w.Events)
}

func (g *Gen) termList(q *query, path string, own []Obj) string {
	gens := map[string]func(*query, string){}
	pageParams(g, gens)

	gens["search"] = g.strParam(append(g.searchValues(), "mus", "Jazz", "tech")...)
	gens["exclude"] = g.listParam(own)
	gens["include"] = g.listParam(own)
	gens["order"] = g.strParam("asc", "desc", "ASC", "DESC", "", "bogus")
	gens["orderby"] = g.strParam("name", "slug", "id", "count", "term_group", "description", "include",
		"slug__in", "include_slugs", "none", "term_id", "parent", "bogus", "")
	gens["hide_empty"] = g.boolParam()
	gens["post"] = g.intParam(append(ids(g.w.Events), "0", "999999")...)
	gens["event"] = g.intParam(append(ids(g.w.Events), "0", "999999")...)
	gens["slug"] = g.strParam(append(slugs(own), "no-such", "", pick(g, slugs(own))+","+
		pick(g, slugs(own)))...)
	if path == "/categories" {
		gens["parent"] = g.intParam(append(ids(own), "0", "999999")...)
	}

	g.params(q, gens)

	return path
}

func (g *Gen) termByID(q *query, path string, own, other []Obj) string {
	return path + "/" + g.someID(own, other, g.w.Events)
}

func (g *Gen) index(q *query) string {
	if g.chance(0.5) {
		q.add("namespace", pick(g, []string{"{NS}", "{NS}", "wp/v2", "", "bogus/v1", "tribe/events/v1"}))
	}
	if g.chance(0.3) {
		q.add("context", pick(g, []string{"view", "edit", "embed", "bogus", ""}))
	}

	return ""
}

func (g *Gen) doc(q *query) string {
	return "/doc"
}
