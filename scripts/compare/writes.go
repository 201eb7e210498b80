package main

import (
	"calshim/adapter/shadow"
	"calshim/internal/testkit/rigenv"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// writeDeliberates are the deliberate differences of writes (docs/compatibility.md); a step names the one it
// exercises.
var writeDeliberates = []*shadow.Deliberate{
	{Name: "update-only-given", Reason: "updates change only the fields given (the original " +
		"resets omitted fields: status, post date, flags, website, cost, image, organizers...)",
		Path: regexp.MustCompile(`^\$\.(date|date_utc|status|website|all_day|show_map|show_map_link|` +
			`stateprovince|hide_from_listings|sticky|featured|cost|cost_details\..*|image(\..*)?|` +
			`organizer(\..*)?|timezone|timezone_abbr|json_ld\..*)$`)},
	{Name: "tag-by-name", Reason: "an existing tag given by name is assigned (the original " +
		"creates a new tag named after the tag's ID)"},
	{Name: "contributor-new-terms", Reason: "terms named in an event that do not exist are " +
		"created with the caller's rights: a contributor gets 403 (the original creates them anyway)",
		Statuses: [2]string{"201", "403 rest_forbidden"}},
	{Name: "anon-unknown-author", Reason: "whether an author ID is a user is for WordPress to " +
		"say, after the permission check: anonymous gets 401 where the original answers 400",
		Statuses: [2]string{"400 rest_invalid_param", "401 rest_forbidden"}},
	{Name: "by-slug-per-object", Reason: "by-slug writes are checked per object by WordPress " +
		"(the original checks only the general capability there)",
		Statuses: [2]string{"200", "403 rest_forbidden"}},
}

// run is one replay of the sequence on one site.
type run struct {
	site    *Site
	ns      string
	seeds   map[string]int // "kind.key" → ID
	env     map[string]string
	created map[string][2]string // step name → ID, slug
	answers []*shadow.Answer
	tok     *tokens
	order   []tokenRef // created objects in order of appearance
}

type tokenRef struct {
	token string
	kind  string
	id    int
}

// tokens maps IDs of one run to names shared by both runs: seeds by their key, new objects by
// order.
type tokens struct {
	ids     map[string]string // "post:123" / "term:7" → token
	maxPost int
	maxTerm int
}

func space(kind string) string {
	if kind == "category" || kind == "tag" {
		return "term"
	}

	return "post"
}

var seedSpace = map[string]string{"categories": "term", "tags": "term"}

func newRun(site *Site, ns string, seeds map[string]int, env map[string]string, w *World) *run {
	t := &tokens{ids: map[string]string{}}
	// Only IDs name objects ("day" is a count of days, which may equal an ID: on 2026-11-26 the day
	// offset 4 took the token of media 4 on one site and not the other, by map order).
	for _, k := range slices.Sorted(maps.Keys(seeds)) {
		kind := strings.SplitN(k, ".", 2)[0]
		if kind == "day" {
			continue
		}

		sp := seedSpace[kind]
		if sp == "" {
			sp = "post"
		}
		t.ids[fmt.Sprintf("%s:%d", sp, seeds[k])] = "S:" + k
	}

	for _, l := range [][]Obj{w.Events, w.Venues, w.Organizers} {
		for _, o := range l {
			t.maxPost = max(t.maxPost, o.ID)
		}
	}
	for _, id := range w.Media {
		t.maxPost = max(t.maxPost, id)
	}
	for _, l := range [][]Obj{w.Cats, w.Tags} {
		for _, o := range l {
			t.maxTerm = max(t.maxTerm, o.ID)
		}
	}

	return &run{site: site, ns: ns, seeds: seeds, env: env, created: map[string][2]string{}, tok: t}
}

var placeholderRe = regexp.MustCompile(`\{\{([a-z_.]+)\}\}`)

// resolve fills a step's placeholders for this run.
func (r *run) resolve(s string) string {
	return placeholderRe.ReplaceAllStringFunc(s, func(m string) string {
		name := m[2 : len(m)-2]
		if strings.HasPrefix(name, "seed.") {
			return strconv.Itoa(r.seeds[strings.TrimPrefix(name, "seed.")])
		}
		if name == "user.author" {
			return r.env["WP_AUTHOR_USER_ID"]
		}
		if base, ok := strings.CutSuffix(name, ".slug"); ok {
			return url.PathEscape(r.created[base][1])
		}
		if c, ok := r.created[name]; ok {
			return c[0]
		}
		return "0"
	})
}

func kindOfPath(p string) string {
	switch {
	case strings.HasPrefix(p, "/events"):
		return "event"
	case strings.HasPrefix(p, "/venues"):
		return "venue"
	case strings.HasPrefix(p, "/organizers"):
		return "organizer"
	case strings.HasPrefix(p, "/categories"):
		return "category"
	case strings.HasPrefix(p, "/tags"):
		return "tag"
	}

	return ""
}

func stepRequest(s Step, path, body string) *Request {
	r := &Request{Route: s.Name, Method: s.Method, Path: path, Role: s.Role, NS: "cal"}
	if s.Method != "GET" && s.Method != "DELETE" || body != "" {
		r.Body = []byte(body)
		r.CType = "application/json"
		if s.Form {
			r.CType = "application/x-www-form-urlencoded"
		}
	}

	return r
}

// play runs every step, recording each answer and the objects created.
func (r *run) play(steps []Step) {
	for _, s := range steps {
		req := stepRequest(s, r.resolve(s.Path), r.resolve(s.Body))
		req.NS = r.ns
		resp := r.site.Do(req)
		r.answers = append(r.answers, resp)

		n, err := shadow.Parse(resp.Body)
		if err != nil {
			continue
		}

		kind := kindOfPath(s.Path)
		seen := 0
		r.scan(n, kind, s.Name, &seen)
		if resp.Status < 300 && s.Method == "POST" && !strings.Contains(s.Path, "{{") {
			r.created[s.Name] = [2]string{lit(n.Get("id")), lit(n.Get("slug"))}
		}
	}
}

var childKind = map[string]string{
	"venue": "venue", "organizer": "organizer", "categories": "category", "tags": "tag",
	"events": "event",
}

// scan names every new ID of a step's answer after the step and its rank in the answer, so that the
// two runs' objects pair up even when one run created less.
func (r *run) scan(n *shadow.Node, kind, step string, seen *int) {
	switch n.Kind {
	case shadow.KArray:
		for _, v := range n.Vals {
			r.scan(v, kind, step, seen)
		}
	case shadow.KObject:
		if id := n.Get("id"); kind != "" && id != nil && id.Kind == shadow.KNumber {
			r.tokenFor(kind, id.Lit, step, seen)
		}
		for i, k := range n.Keys {
			r.scan(n.Vals[i], childKind[k], step, seen)
		}
	}
}

func (r *run) tokenFor(kind, lit, step string, seen *int) {
	id, _ := strconv.Atoi(lit)
	key := space(kind) + ":" + lit
	if _, ok := r.tok.ids[key]; ok {
		return
	}

	limit := r.tok.maxPost
	if space(kind) == "term" {
		limit = r.tok.maxTerm
	}
	if id <= limit {
		return
	}

	tok := step
	if *seen > 0 {
		tok = fmt.Sprintf("%s#%d", step, *seen)
	}
	*seen++
	r.tok.ids[key] = tok
	r.order = append(r.order, tokenRef{token: tok, kind: kind, id: id})
}

var kindBase = map[string]string{
	"event": "/events/", "venue": "/venues/", "organizer": "/organizers/",
	"category": "/categories/", "tag": "/tags/",
}

// readBack reads every created object as the administrator through reader (the writer or the
// original).
func (r *run) readBack(reader *Site, ns string) map[string]*shadow.Answer {
	out := map[string]*shadow.Answer{}
	for _, ref := range r.order {
		path := kindBase[ref.kind] + strconv.Itoa(ref.id)
		req := &Request{Method: "GET", Path: path, Role: "admin", NS: ns}
		out[ref.token] = reader.Do(req)
	}

	return out
}

// cleanup deletes for good what the run created, through WordPress itself (v1 deletes only trash).
func (r *run) cleanup(wp *Site) {
	bases := map[string]string{
		"event": "tribe_events", "venue": "tribe_venue", "organizer": "tribe_organizer",
		"category": "tribe_events_cat", "tag": "tags",
	}
	for i := len(r.order) - 1; i >= 0; i-- {
		ref := r.order[i]
		path := fmt.Sprintf("/wp/v2/%s/%d?force=true", bases[ref.kind], ref.id)
		wp.rawDelete(path)
	}
}

// ---- normalisation of one run's answers ----

// idInText finds IDs in URLs and messages: v1 and wp/v2 paths, query arguments, "ID n".
var idInText = regexp.MustCompile(`(\?id=|[?&]p=|ID |` +
	`/(?:events|venues|organizers|categories|tags|` +
	`tribe_events_cat|tribe_events|tribe_venue|tribe_organizer)/|[?&](?:tribe_events_cat|tags|post|` +
	`parent)=)(\d+)`)

var termRef = regexp.MustCompile(`categories|tags|tribe_events_cat|parent`)

var slugSuffix = regexp.MustCompile(`-\d+(/?)$`)

var recentKeys = map[string]bool{
	"date": true, "date_utc": true, "modified": true, "modified_utc": true,
}

// normalise rewrites the run's IDs into tokens, recent creation/modification dates into <recent>
// and numeric slug suffixes into -#.
func (r *run) normalise(n *shadow.Node, key string, kind string, now time.Time) {
	switch n.Kind {
	case shadow.KNumber:
		sp := space(kind)
		if key == "additional_data" {
			sp = "term"
		}
		isID := key == "id" || key == "term_id" || key == "additional_data"
		if isID || (key == "parent" && sp == "term") {
			if t, ok := r.tok.ids[sp+":"+n.Lit]; ok {
				n.Kind, n.Lit = shadow.KString, "<"+t+">"
			}
		}
	case shadow.KString:
		n.Lit = r.normaliseString(key, n.Lit, now)
	case shadow.KArray:
		for _, v := range n.Vals {
			r.normalise(v, key, kind, now)
		}
	case shadow.KObject:
		r.sameAsID(n, "term_taxonomy_id")
		for i, k := range n.Keys {
			ck := childKind[k]
			if ck == "" {
				ck = kind
			}
			r.normalise(n.Vals[i], k, ck, now)
		}
	}
}

// sameAsID names a numeric field that equals its object's id like the id ("<token>"): each run's new
// terms get their term_taxonomy_id from the same counter as their id.
func (r *run) sameAsID(n *shadow.Node, field string) {
	var id, f *shadow.Node
	for i, k := range n.Keys {
		switch k {
		case "id":
			id = n.Vals[i]
		case field:
			f = n.Vals[i]
		}
	}

	if id == nil || f == nil || id.Kind != shadow.KNumber || f.Kind != shadow.KNumber || id.Lit != f.Lit {
		return
	}

	if t, ok := r.tok.ids["term:"+f.Lit]; ok {
		f.Kind, f.Lit = shadow.KString, "<"+t+">"
	}
}

func (r *run) normaliseString(key, s string, now time.Time) string {
	if recentKeys[key] && isRecent(s, now) {
		return "<recent>"
	}

	s = idInText.ReplaceAllStringFunc(s, func(m string) string {
		sub := idInText.FindStringSubmatch(m)
		sp := "post"
		if termRef.MatchString(sub[1]) {
			sp = "term"
		}
		if t, ok := r.tok.ids[sp+":"+sub[2]]; ok {
			return sub[1] + "<" + t + ">"
		}
		return m
	})

	if key == "slug" || key == "url" {
		s = slugSuffix.ReplaceAllString(s, "-#$1")
	}

	return s
}

func isRecent(s string, now time.Time) bool {
	t, err := time.Parse("2006-01-02 15:04:05", s)
	if err != nil {
		return false
	}

	d := now.Sub(t)

	return d < 48*time.Hour && d > -48*time.Hour
}

// ---- the comparison ----

func runWrites(o *options, orig, cal *Site) error {
	env, err := rigenv.Read(o.env)
	if err != nil {
		return err
	}

	steps := writeSteps()

	a, err := playOn(o, orig, orig, "tribe", env)
	if err != nil {
		return err
	}

	if o.reseed != "" {
		fmt.Fprintf(os.Stderr, "compare: reseeding: %s\n", o.reseed)
		cmd := exec.Command("bash", "-c", o.reseed)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("reseed: %v", err)
		}

		// calshim was restarted: connections kept alive to the old process are dead.
		cal.Client.CloseIdleConnections()
		orig.Client.CloseIdleConnections()
	} else {
		a.cleanup(orig)
		sweep(orig)
	}

	b, err := playOn(o, cal, orig, "cal", env)
	if err != nil {
		return err
	}
	b.cleanup(orig)
	fmt.Fprintf(os.Stderr, "compare: swept %d leftovers\n", sweep(orig))

	results := compareRuns(steps, a, b, hostOf(cal.Base), hostOf(orig.Base))
	rep := buildReport("write sequence", 0, fmt.Sprintf(
		"%d steps, %d objects created on the original, "+
			"%d on calshim", len(steps), len(a.order), len(b.order)), results)

	return emit(o, rep, append(append([]*shadow.Deliberate{}, shadow.Reads...), writeDeliberates...))
}

// playRun holds a run with its read-backs.
type playRun struct {
	*run
	ownBack  map[string]*shadow.Answer
	origBack map[string]*shadow.Answer
}

// playOn replays the sequence on writer and reads back through writer and through the original.
func playOn(o *options, writer, orig *Site, ns string, env map[string]string) (*playRun, error) {
	w, err := discover(orig)
	if err != nil {
		return nil, err
	}

	seeds, err := loadSeeds(o.seedIDs)
	if err != nil {
		return nil, err
	}

	r := newRun(writer, ns, seeds, env, w)
	r.play(writeSteps())
	fmt.Fprintf(os.Stderr, "compare: %d steps on %s, %d objects created\n", len(r.answers),
		writer.Name,
		len(r.order))

	// Let calshim's catalog and the original settle before reading back.
	time.Sleep(2 * time.Second)

	return &playRun{run: r, ownBack: r.readBack(writer, ns), origBack: r.readBack(orig, "tribe")}, nil
}

func loadSeeds(path string) (map[string]int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}

	var m map[string]map[string]int
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}

	out := map[string]int{}
	for kind, keys := range m {
		for k, id := range keys {
			out[kind+"."+k] = id
		}
	}

	return out, nil
}

// compareRuns compares the answers step by step, then what each site stored, object by object.
func compareRuns(steps []Step, a, b *playRun, calHost, origHost string) []*Result {
	var results []*Result
	now := time.Now()
	norm := shadow.NewNormalizer(calHost, origHost, nsPath("cal"))
	tainted := map[string]string{}

	for i, s := range steps {
		req := stepRequest(s, s.Path, s.Body)
		req.Route = fmt.Sprintf("%03d %s %s %s", i+1, s.Name, s.Method, s.Path)
		res := compareWrite(req, a.answers[i], b.answers[i], a.run, b.run, norm, kindOfPath(s.Path), now)
		res.Diffs, res.Deliberate = excuse(res.Diffs, stepDeliberate(s, tainted), res.Deliberate)
		results = append(results, res)
		for _, t := range s.Taints {
			tainted[t] = s.Deliberate
		}
	}

	results = append(results, compareBacks("stored, read by the original", a, b,
		a.origBack, b.origBack,
		shadow.NewNormalizer(calHost, origHost, nsPath("tribe")), tainted, now)...)

	return append(results, compareBacks("stored, read by the writer", a, b, a.ownBack, b.ownBack, norm,
		tainted, now)...)
}

// excuse moves the differences a step's deliberate difference explains under its name: every
// difference but a status one, or only those at its Path when it has one; a status difference only
// when it is the pair of statuses it declares.
func excuse(diffs []shadow.Diff, name string, names []string) ([]shadow.Diff, []string) {
	d := writeDeliberate(name)
	if d == nil {
		return diffs, names
	}

	var kept []shadow.Diff
	for _, df := range diffs {
		if explains(d, df) {
			names = append(names, name)
		} else {
			kept = append(kept, df)
		}
	}

	return kept, names
}

func writeDeliberate(name string) *shadow.Deliberate {
	for _, d := range writeDeliberates {
		if d.Name == name {
			return d
		}
	}

	return nil
}

func explains(d *shadow.Deliberate, df shadow.Diff) bool {
	if df.Kind == "status" {
		return d.Statuses[0] != "" && df.A == d.Statuses[0] && df.B == d.Statuses[1]
	}

	return d.Path == nil || d.Path.MatchString(df.GPath)
}

// stepDeliberate is the deliberate difference a step exercises: its own, else that of an earlier
// step which changed an object this one works on.
func stepDeliberate(s Step, tainted map[string]string) string {
	if s.Deliberate != "" {
		return s.Deliberate
	}

	for token, name := range tainted {
		if strings.Contains(s.Path, "{{"+token+"}}") || strings.Contains(s.Path, "{{"+token+".") {
			return name
		}
	}

	return ""
}

func compareBacks(title string, a, b *playRun, backA, backB map[string]*shadow.Answer, norm *shadow.Normalizer,
	tainted map[string]string, now time.Time) []*Result {
	refs := append([]tokenRef{}, a.order...)
	for _, ref := range b.order {
		if _, ok := backA[ref.token]; !ok {
			refs = append(refs, ref)
		}
	}

	var results []*Result
	for _, ref := range refs {
		ra, rb := backA[ref.token], backB[ref.token]
		if ra == nil {
			ra = &shadow.Answer{Err: "not created on the original's run"}
		}
		if rb == nil {
			rb = &shadow.Answer{Err: "not created on calshim's run"}
		}

		req := &Request{Method: "GET", Path: kindBase[ref.kind] + "<" + ref.token + ">", Role: "admin",
			NS: "tribe"}
		req.Route = title + ": " + ref.kind + " " + ref.token
		res := compareWrite(req, ra, rb, a.run, b.run, norm, ref.kind, now)
		// "ev_x#1" is the first object step ev_x created besides its own.
		name := tainted[strings.SplitN(ref.token, "#", 2)[0]]
		if name != "" && (ra.Err != "" || rb.Err != "") {
			// Only one run has it, because of a deliberate difference of the step that made it.
			res.Diffs, res.Deliberate = nil, append(res.Deliberate, name)
		}
		res.Diffs, res.Deliberate = excuse(res.Diffs, name, res.Deliberate)
		results = append(results, res)
	}

	return results
}

// compareWrite compares two answers after each run's IDs, dates and slugs were normalised.
func compareWrite(req *Request, ra, rb *shadow.Answer, a, b *run, norm *shadow.Normalizer, kind string,
	now time.Time) *Result {
	res := &Result{Req: req, StatusA: shadow.StatusLabel(ra), StatusB: shadow.StatusLabel(rb)}
	if ra.Err != "" || rb.Err != "" || ra.Status != rb.Status {
		res.Diffs = shadow.Compare(ra, rb, norm)
		return res
	}

	res.Diffs = shadow.CompareHeaders(ra.Headers, rb.Headers, norm)

	na, errA := shadow.Parse(ra.Body)
	nb, errB := shadow.Parse(rb.Body)
	if errA != nil || errB != nil {
		res.Diffs = append(res.Diffs, shadow.CompareBodies(ra.Body, rb.Body, norm)...)
		return res
	}

	norm.Apply(nb)
	a.normalise(na, "", kind, now)
	b.normalise(nb, "", kind, now)
	shadow.DiffNodes("$", na, nb, &res.Diffs)

	var names []string
	res.Diffs, names = filterDeliberate(req, res.Diffs, shadow.Reads)
	res.Deliberate = append(res.Deliberate, names...)

	return res
}

// sweep deletes for good, through WordPress, every post and term the write sequence may have left
// (titles and names starting with "Harness"), also those of half-failed writes that no answer
// named.
func sweep(wp *Site) int {
	n := 0
	for _, t := range []string{"tribe_events", "tribe_venue", "tribe_organizer"} {
		for _, st := range []string{"any", "trash"} {
			path := "/wp-json/wp/v2/" + t + "?search=Harness&context=edit&per_page=100&status=" + st
			n += sweepList(wp, t, path, "title")
		}
	}

	for _, t := range []string{"tribe_events_cat", "tags"} {
		n += sweepList(wp, t, "/wp-json/wp/v2/"+t+"?search=harness&per_page=100&hide_empty=false", "name")
	}

	return n
}

func sweepList(wp *Site, base, path, field string) int {
	body, err := wp.getRaw(path, "admin")
	if err != nil {
		return 0
	}

	list, err := shadow.Parse(body)
	if err != nil || list.Kind != shadow.KArray {
		return 0
	}

	n := 0
	for _, it := range list.Vals {
		name := it.Get(field)
		if name != nil && name.Kind == shadow.KObject {
			name = name.Get("raw")
		}
		if !strings.HasPrefix(strings.ToLower(lit(name)), "harness") {
			continue
		}

		wp.rawDelete(fmt.Sprintf("/wp/v2/%s/%s?force=true", base, lit(it.Get("id"))))
		n++
	}

	return n
}
