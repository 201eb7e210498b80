package catalog

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unique"

	"calshim/mapping"
)

// internMax is the length up to which meta values are shared between posts: the short ones repeat
// (flags, IDs, durations, currencies, zone names); dates and texts mostly do not, and interning a
// distinct string costs more than it saves.
const internMax = 16

// compact makes p share what it has in common with other posts, before it is published: its post
// type and status, its short meta values, its term lists, and equal dates.
func compact(p *mapping.Post) {
	p.Type, p.Status = intern(p.Type), intern(p.Status)
	if p.Modified == p.Date {
		p.Modified = p.Date
	}

	if p.ModifiedGMT == p.DateGMT {
		p.ModifiedGMT = p.DateGMT
	}

	p.Meta.Intern(func(s string) string {
		if len(s) > internMax {
			return s
		}
		return intern(s)
	})
	p.Terms = sharedTerms(p.Terms)
	if start, _ := p.MetaFirst("_EventStartDate"); start == p.Derived.Start {
		p.Derived.Start = start // a restored post's Derived is decoded apart from its meta
	}

	if end, _ := p.MetaFirst("_EventEndDate"); end == p.Derived.End {
		p.Derived.End = end
	}
}

func intern(s string) string { return unique.Make(s).Value() }

// termSets shares equal term maps between posts (a catalog has few distinct combinations); posts
// never modify their maps.
var termSets sync.Map // signature → map[string][]int

func sharedTerms(terms map[string][]int) map[string][]int {
	if len(terms) == 0 {
		return terms
	}

	var sig strings.Builder
	for _, role := range slices.Sorted(maps.Keys(terms)) {
		sig.WriteString(role)
		for _, id := range terms[role] {
			sig.WriteByte(',')
			sig.WriteString(strconv.Itoa(id))
		}
		sig.WriteByte(';')
	}

	shared, _ := termSets.LoadOrStore(sig.String(), terms)
	return shared.(map[string][]int)
}
