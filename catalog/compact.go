package catalog

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"calshim/mapping"
)

// compact makes p share what it has in common with other posts, before it is published: its term
// lists and linked venues and organizers (a catalog has few distinct ones), and its start and end
// with its own meta (a restored post's Derived is decoded apart from its meta). Its text and meta
// are each one packed string already (mapping.Text, mapping.Meta): every object a post owns is one
// more for the collector to visit.
func compact(p *mapping.Post) {
	p.Terms = sharedTerms(p.Terms)
	p.Derived.Venues = sharedIDs(p.Derived.Venues)
	p.Derived.Organizers = sharedIDs(p.Derived.Organizers)
	if start, _ := p.MetaFirst("_EventStartDate"); start == p.Derived.Start {
		p.Derived.Start = start
	}

	if end, _ := p.MetaFirst("_EventEndDate"); end == p.Derived.End {
		p.Derived.End = end
	}
}

// idLists shares equal ID lists between posts; posts never modify them.
var idLists sync.Map // signature → []int

func sharedIDs(ids []int) []int {
	if len(ids) == 0 {
		return ids
	}

	sig := make([]byte, 0, 8*len(ids))
	for _, id := range ids {
		sig = strconv.AppendInt(append(sig, ','), int64(id), 10)
	}

	shared, _ := idLists.LoadOrStore(string(sig), ids)
	return shared.([]int)
}

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
