package catalog

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"calshim/mapping"
)

// blockPosts is how many posts compactBlocks moves into one block.
const blockPosts = 256

// compactBlocks compacts posts decoded together (compact) and moves them, blockPosts at a time,
// into blocks: one array of the posts and one string of their text and meta (mapping.Colocate).
// Every object a post owns is one more for the collector to visit. posts[i] is set to post i's new
// address. A block lives while any of its posts is in the catalog: at worst a catalog whose posts
// have all been replaced one by one keeps twice its size.
func compactBlocks(posts []*mapping.Post) {
	for chunk := range slices.Chunk(posts, blockPosts) {
		block := make([]mapping.Post, len(chunk))
		for i, p := range chunk {
			compact(p)
			block[i] = *p
		}

		mapping.Colocate(block)
		for i := range block {
			chunk[i] = &block[i]
		}
	}
}

// compact makes p share its term lists and linked venues and organizers with other posts (a
// catalog has few distinct ones).
func compact(p *mapping.Post) {
	p.Terms = sharedTerms(p.Terms)
	p.Derived.Venues = sharedIDs(p.Derived.Venues)
	p.Derived.Organizers = sharedIDs(p.Derived.Organizers)
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
