package shadow

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Deliberate is a difference calshim makes on purpose (docs/compatibility.md, "Deliberate differences"), with its
// reason. A difference matching one is counted under its name and not reported as a difference.
// Each entry of docs/compatibility.md that a read can show has one here (Reads); the harness in
// scripts/compare adds the writes'.
type Deliberate struct {
	Name   string
	Reason string
	// Noise marks what is no difference at all but the clock between two requests: the shadow counts
	// it as noise, not as deliberate.
	Noise  bool
	Route  *regexp.Regexp          // route template (e.g. "GET /events"); nil: any
	Path   *regexp.Regexp          // generalised JSON path or header:Name; nil: any
	Kinds  string                  // comma-separated kinds; empty: any but status
	When   func(q url.Values) bool // on the request's query; nil: always
	Values func(a, b string) bool  // on the two values; nil: always
	// Statuses is the original's and calshim's status label (StatusLabel) a write step's deliberate
	// difference gives (scripts/compare's writes).
	Statuses [2]string
	Roles    *regexp.Regexp // the callers it concerns; nil: all
}

// Call is what the table reads of a request: its route template ("GET /events/{id}"), the caller
// ("anon" for anonymous; the shadow's only caller) and its query.
type Call struct {
	Route string
	Role  string
	Query url.Values
}

func (d *Deliberate) matches(r Call, q url.Values, df Diff) bool {
	if d.Route != nil && !d.Route.MatchString(r.Route) {
		return false
	}
	if d.Path != nil && !d.Path.MatchString(df.GPath) {
		return false
	}
	if d.Roles != nil && !d.Roles.MatchString(r.Role) {
		return false
	}
	if d.Kinds == "" && df.Kind == "status" {
		return false
	}
	if d.Kinds != "" && !strings.Contains(","+d.Kinds+",", ","+df.Kind+",") {
		return false
	}
	if d.When != nil && !d.When(q) {
		return false
	}

	return d.Values == nil || d.Values(df.fullA, df.fullB)
}

// paramValues collects a parameter given as k=, k[]= or k[n]=, with CSV lists split.
func paramValues(q url.Values, name string) []string {
	var out []string
	for k, vs := range q {
		if k != name && !strings.HasPrefix(k, name+"[") {
			continue
		}
		for _, v := range vs {
			for _, p := range strings.Split(v, ",") {
				if p = strings.TrimSpace(p); p != "" {
					out = append(out, p)
				}
			}
		}
	}

	return out
}

func has(name string) func(url.Values) bool {
	return func(q url.Values) bool { return len(paramValues(q, name)) > 0 }
}

var numericAbbr = regexp.MustCompile(`^[+-]\d+$`)

// Table is a list of deliberate differences.
type Table []*Deliberate

// ByName returns the entry called name, nil when there is none.
func (t Table) ByName(name string) *Deliberate {
	for _, d := range t {
		if d.Name == name {
			return d
		}
	}

	return nil
}

// Reads is the table of deliberate differences of reads. Writes add theirs (scripts/compare).
var Reads = Table{
	{
		Name: "jsonld-email",
		Reason: "JSON-LD e-mail obfuscation is deterministic in calshim; the original's is random " +
			"per request",
		Path:  regexp.MustCompile(`json_ld.*email`),
		Kinds: "value",
	},
	{
		Name:   "tags-any",
		Reason: "tags with several values matches events with any of them (the original only the first)",
		Route:  regexp.MustCompile(`^GET /events$`),
		When:   func(q url.Values) bool { return len(paramValues(q, "tags")) > 1 },
	},
	{
		Name: "linked-search-totals",
		Reason: "venue/organizer searches count only the matches in total/total_pages and keep " +
			"search in " +
			"rest_url/next_rest_url (the original reports unfiltered totals and drops search)",
		Route: regexp.MustCompile(`^GET /(venues|organizers)$`),
		Path: regexp.MustCompile(`^(header:X-Tec-Total(Pages|pages)?|\$\.(total|total_pages|rest_url|` +
			`next_rest_url|previous_rest_url))$`),
		When: has("search"),
	},

	{
		Name: "namespace-other",
		Reason: "?namespace= naming a namespace calshim does not serve answers 404 (the original " +
			"describes WordPress' other namespaces)",
		Route: regexp.MustCompile(`^GET /$`),
		Kinds: "status",
		When: func(q url.Values) bool {
			ns := q.Get("namespace")
			return ns != "" && ns != "tribe/events/v1" && ns != "cal/events/v1"
		},
	},
	{
		Name: "linked-date-ties",
		Reason: "venues or organizers of several statuses on one date: calshim orders a logged-in " +
			"list by status then ID, MySQL by its query plan (which LIMIT changes)",
		Route: regexp.MustCompile(`^GET /(venues|organizers)$`),
		Path:  regexp.MustCompile(`^\$\.(venues|organizers)\[\]\.`),
		Roles: regexp.MustCompile(`^(editor|admin|reader|author|contributor)$`),
	},
	{
		Name:  "request-time",
		Noise: true,
		Reason: "not a difference: a time computed from \"now\" (default end_date with strict_dates) " +
			"differs by the seconds between the two requests",
		Route:  regexp.MustCompile(`^GET /events$`),
		Kinds:  "value",
		Values: sameButClock,
	},
	{
		Name: "include-order-ties",
		Reason: "terms with orderby=include and an include naming no ID all tie: calshim orders " +
			"them by name, MySQL by its query plan",
		Route: regexp.MustCompile(`^GET /(categories|tags)$`),
		When: func(q url.Values) bool {
			if !strings.EqualFold(q.Get("orderby"), "include") {
				return false
			}
			for _, v := range paramValues(q, "include") {
				if n, err := strconv.Atoi(v); err == nil && n != 0 {
					return false
				}
			}
			return len(paramValues(q, "include")) > 0
		},
	},
	{
		Name:   "doc-servers-port",
		Reason: "/doc keeps the port in servers[0].url (the original drops it)",
		Route:  regexp.MustCompile(`^GET /doc$`),
		Path:   regexp.MustCompile(`^\$\.servers\[\]\.url$`),
		Kinds:  "value",
	},
	{
		Name: "include-ignores-dates",
		Reason: "the spec: with include the date filters are ignored (the original keeps its " +
			"default window)",
		Route: regexp.MustCompile(`^GET /events$`),
		When:  has("include"),
	},
	{
		Name:   "timezone-abbr",
		Reason: "timezone_abbr comes from Go's zone database: numeric where PHP names the zone",
		Path:   regexp.MustCompile(`timezone_abbr$`),
		Kinds:  "value",
		Values: func(a, b string) bool {
			return a != "" && numericAbbr.MatchString(b) && !numericAbbr.MatchString(a)
		},
	},

	{
		Name: "url-form",
		Reason: "docs/compatibility.md, Addressing: URLs in an answer keep the form the request came in on " +
			"(?rest_route=); " +
			"the original always links with pretty permalinks",
		Kinds: "value,header",
		// A link of a list with a window from "now" may differ by the seconds between the requests too.
		Values: func(a, b string) bool {
			pretty := plainToPretty(b)
			return b != "" && pretty != b && (pretty == a || sameButClock(a, pretty))
		},
	},
}

var plainRe = regexp.MustCompile(`/(?:index\.php)?\?rest_route=(/[^&#\s"]*)(?:&([^#\s"]*))?`)

// plainToPretty rewrites ?rest_route= addresses in s to their /wp-json/ form.
func plainToPretty(s string) string {
	return plainRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := plainRe.FindStringSubmatch(m)
		out := "/wp-json" + sub[1]
		if sub[2] != "" {
			out += "?" + sub[2]
		}
		return out
	})
}

// Grant splits diffs into the ones no entry explains and the names of the entries explaining the
// others (one name per difference).
func (t Table) Grant(r Call, diffs []Diff) ([]Diff, []string) {
	q := r.Query

	var kept []Diff
	var names []string
	for _, df := range diffs {
		name := ""
		for _, d := range t {
			if d.matches(r, q, df) {
				name = d.Name
				break
			}
		}

		if name == "" {
			kept = append(kept, df)
		} else {
			names = append(names, name)
		}
	}

	return kept, names
}

var clockRe = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[ +T]\d{2}:\d{2}:\d{2}`)

// sameButClock reports whether a and b (URL-decoded) differ only in date-times at most 5 s apart.
func sameButClock(a, b string) bool {
	if da, err := url.QueryUnescape(a); err == nil {
		a = da
	}
	if db, err := url.QueryUnescape(b); err == nil {
		b = db
	}

	ta, tb := clockRe.FindAllString(a, -1), clockRe.FindAllString(b, -1)
	if a == b || len(ta) != len(tb) || clockRe.ReplaceAllString(a, "T") != clockRe.ReplaceAllString(b, "T") {
		return false
	}

	for i := range ta {
		x, errA := time.Parse("2006-01-02 15:04:05", strings.NewReplacer("+", " ", "T", " ").Replace(ta[i]))
		y, errB := time.Parse("2006-01-02 15:04:05", strings.NewReplacer("+", " ", "T", " ").Replace(tb[i]))
		if errA != nil || errB != nil || x.Sub(y).Abs() > 5*time.Second {
			return false
		}
	}

	return true
}
