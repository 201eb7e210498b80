package shadow

import (
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// Answer is what one side answered to a request; Err is set when no answer came.
type Answer struct {
	Status  int
	Headers map[string]string // the compared headers (Compared), canonical names
	Body    []byte
	Err     string
}

// Compared are the headers a client of the v1 API reads: the totals, the REST API's discovery link
// and the content type. The others (CORS, caching, ETag, request IDs) describe the transport, and
// calshim sets them on purpose.
var Compared = []string{"X-Tec-Total", "X-Tec-Totalpages", "Link", "Content-Type"}

// Headers keeps the compared headers of h.
func Headers(h http.Header) map[string]string {
	out := map[string]string{}
	for _, k := range Compared {
		if v, ok := h[k]; ok {
			out[k] = strings.Join(v, ", ")
		}
	}

	return out
}

// Diff is one difference between the original's answer (A) and calshim's (B).
type Diff struct {
	Path  string `json:"path"`     // exact JSON path, "$status" or "header:Name"
	GPath string `json:"gpath"`    // path with array indexes generalised, the cluster key
	Kind  string `json:"kind"`     // status, header, type, value, key-order, missing, extra, length, text
	A     string `json:"original"` // the values, shortened for reports
	B     string `json:"calshim"`
	fullA string // the whole values, for the deliberate-difference checks
	fullB string
}

// maxDiffs bounds the differences kept per answer (a different list would otherwise list every
// field).
const maxDiffs = 40

// Normalizer rewrites calshim's answer into the original's terms: its host:port and, when the
// request went through cal/events/v1, its namespace.
type Normalizer struct {
	Pairs [][2]string // from → to, applied in order to every string, key and text body
}

// NewNormalizer rewrites calshim's prefix calPrefix (its host:port, or a whole REST root) into the
// original's origPrefix, and calshim's namespace ns ("cal/events/v1") into the original's.
func NewNormalizer(calPrefix, origPrefix, ns string) *Normalizer {
	n := &Normalizer{Pairs: [][2]string{{calPrefix, origPrefix}}}
	if ns != Namespace {
		n.Pairs = append(n.Pairs, [2]string{ns, Namespace})
		n.Pairs = append(n.Pairs, [2]string{strings.ReplaceAll(ns, "/", `\/`), strings.ReplaceAll(Namespace, "/", `\/`)})
	}

	return n
}

// Namespace is the original's namespace, which calshim also serves as an alias.
const Namespace = "tribe/events/v1"

// Then adds a later rewrite of from into to (a host after a whole root).
func (n *Normalizer) Then(from, to string) *Normalizer {
	n.Pairs = append(n.Pairs, [2]string{from, to})
	return n
}

// Str rewrites one string.
func (n *Normalizer) Str(s string) string {
	for _, p := range n.Pairs {
		s = strings.ReplaceAll(s, p[0], p[1])
	}

	return s
}

// Apply rewrites every string and key of the tree in place.
func (n *Normalizer) Apply(node *Node) {
	if node == nil {
		return
	}

	if node.Kind == KString {
		node.Lit = n.Str(node.Lit)
	}
	for i := range node.Keys {
		node.Keys[i] = n.Str(node.Keys[i])
	}
	for _, v := range node.Vals {
		n.Apply(v)
	}
}

var indexRe = regexp.MustCompile(`\[\d+\]`)

// Generalise replaces a path's array indexes by [].
func Generalise(path string) string {
	return indexRe.ReplaceAllString(path, "[]")
}

func newDiff(path, kind, a, b string) Diff {
	return Diff{Path: path, GPath: Generalise(path), Kind: kind, A: a, B: b}
}

// StatusLabel is the status with the error code of the body, when it has one.
func StatusLabel(r *Answer) string {
	if r.Err != "" {
		return "ERR " + r.Err
	}

	label := fmt.Sprint(r.Status)
	if n, err := Parse(r.Body); err == nil {
		if c := n.Get("code"); c != nil && c.Kind == KString {
			label += " " + c.Lit
		}
	}

	return label
}

// Compare lists the differences of two answers to the same request: the original's (a) and
// calshim's (b), rewritten by norm. A different status is reported alone: the bodies then differ as
// a matter of course.
func Compare(a, b *Answer, norm *Normalizer) []Diff {
	if a.Err != "" || b.Err != "" || a.Status != b.Status {
		la, lb := StatusLabel(a), StatusLabel(b)
		if la == lb {
			return nil
		}
		return []Diff{newDiff("$status", "status", la, lb)}
	}

	diffs := CompareHeaders(a.Headers, b.Headers, norm)

	return append(diffs, CompareBodies(a.Body, b.Body, norm)...)
}

// CompareHeaders lists the differences of two sets of headers.
func CompareHeaders(a, b map[string]string, norm *Normalizer) []Diff {
	var diffs []Diff
	for _, k := range slices.Sorted(maps.Keys(a)) {
		bv, ok := b[k]
		switch {
		case !ok:
			diffs = append(diffs, newDiff("header:"+k, "missing", a[k], "<absent>"))
		case norm.Str(bv) != a[k]:
			d := newDiff("header:"+k, "header", a[k], bv)
			d.fullA, d.fullB = a[k], norm.Str(bv)
			diffs = append(diffs, d)
		}
	}

	for _, k := range slices.Sorted(maps.Keys(b)) {
		if _, ok := a[k]; !ok {
			diffs = append(diffs, newDiff("header:"+k, "extra", "<absent>", b[k]))
		}
	}

	return diffs
}

// CompareBodies compares JSON in order; a body that is not JSON is compared as text.
func CompareBodies(a, b []byte, norm *Normalizer) []Diff {
	na, errA := Parse(a)
	nb, errB := Parse(b)

	if errA != nil || errB != nil {
		ta, tb := string(a), norm.Str(string(b))
		if ta == tb {
			return nil
		}
		return []Diff{newDiff("$", "text", cut(ta, 160), cut(tb, 160))}
	}

	norm.Apply(nb)

	var diffs []Diff
	DiffNodes("$", na, nb, &diffs)

	return diffs
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}

	return s
}

// DiffNodes appends the differences below path. Objects that carry different "id"s are different
// records: one value difference on the id stands for all of their fields.
func DiffNodes(path string, a, b *Node, out *[]Diff) {
	if len(*out) >= maxDiffs {
		return
	}

	if a.Kind != b.Kind {
		d := newDiff(path, "type", a.Short(120), b.Short(120))
		d.fullA, d.fullB = a.Short(1<<20), b.Short(1<<20)
		*out = append(*out, d)
		return
	}

	switch a.Kind {
	case KArray:
		diffArrays(path, a, b, out)
	case KObject:
		diffObjects(path, a, b, out)
	default:
		if a.Lit != b.Lit {
			d := newDiff(path, "value", a.Short(120), b.Short(120))
			if a.Kind == KString && (len(a.Lit) > 100 || len(b.Lit) > 100) {
				d.A, d.B = around(a.Lit, b.Lit)
			}
			d.fullA, d.fullB = a.Lit, b.Lit
			*out = append(*out, d)
		}
	}
}

func diffArrays(path string, a, b *Node, out *[]Diff) {
	if len(a.Vals) != len(b.Vals) {
		*out = append(*out, newDiff(path, "length", fmt.Sprint(len(a.Vals)), fmt.Sprint(len(b.Vals))))
	}

	for i := 0; i < len(a.Vals) && i < len(b.Vals); i++ {
		DiffNodes(fmt.Sprintf("%s[%d]", path, i), a.Vals[i], b.Vals[i], out)
	}
}

func diffObjects(path string, a, b *Node, out *[]Diff) {
	if ia, ib := a.Get("id"), b.Get("id"); ia != nil && ib != nil && ia.Lit != ib.Lit {
		*out = append(*out, newDiff(path+".id", "value", ia.Short(60), ib.Short(60)))
		return
	}

	commonA := keyDiffs(path, a, b, "missing", out)
	commonB := keyDiffs(path, b, a, "extra", out)

	if strings.Join(commonA, ",") != strings.Join(commonB, ",") {
		*out = append(*out, newDiff(path, "key-order", cut(strings.Join(commonA, ","), 160),
			cut(strings.Join(commonB, ","), 160)))
	}

	for _, k := range commonA {
		DiffNodes(path+"."+k, a.Get(k), b.Get(k), out)
	}
}

// keyDiffs reports the keys of x that y lacks (kind missing or extra) and returns the common ones
// in x's order. More than three such keys make one difference at "path.*" listing them, so that an
// answer of another shape is one cluster, not one per field.
func keyDiffs(path string, x, y *Node, kind string, out *[]Diff) []string {
	var common, lacking []string
	var first *Node
	for i, k := range x.Keys {
		if y.Get(k) != nil {
			common = append(common, k)
			continue
		}
		if first == nil {
			first = x.Vals[i]
		}
		lacking = append(lacking, k)
	}

	switch {
	case len(lacking) > 3:
		keys := cut(strings.Join(lacking, ","), 160)
		*out = append(*out, sideDiff(path+".*", kind, keys))
	case len(lacking) > 0:
		for _, k := range lacking {
			*out = append(*out, sideDiff(path+"."+k, kind, x.Get(k).Short(80)))
		}
	}

	return common
}

// sideDiff is a difference present on one side only: the original's (missing) or calshim's (extra).
func sideDiff(path, kind, val string) Diff {
	if kind == "missing" {
		return newDiff(path, kind, val, "<absent>")
	}

	return newDiff(path, kind, "<absent>", val)
}

// around shows two long strings from a little before their first difference, so that the
// difference is in view.
func around(a, b string) (string, string) {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}

	from := max(0, p-40)
	show := func(s string) string {
		out := s[min(from, len(s)):min(len(s), p+80)]
		if from > 0 {
			out = "…" + out
		}
		if p+80 < len(s) {
			out += "…"
		}
		return out
	}

	return show(a), show(b)
}
