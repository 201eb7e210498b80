package mapping

import (
	"maps"
	"slices"
	"strconv"
)

// A save of a post as a write plan holds it (PostWrite), its references to existing posts or to the
// results of the plan's steps (Ref), and the wp/v2 body it becomes once they are known (Body).

// Ref is a post or term a write names: an existing ID, or the result of a step of the plan; NoRef
// names none (a featured image removed).
type Ref struct {
	ID   int
	Step int // index in the plan's Steps when ID is 0; -1: none; SavedStep: the save's own post
}

// NoRef is the Ref of nothing: it resolves to 0 whatever the steps gave.
var NoRef = Ref{Step: -1}

// SavedStep is the Step of SavedRef.
const SavedStep = -2

// SavedRef names the post of the plan's save (a new event's ID is known once it is saved).
var SavedRef = Ref{Step: SavedStep}

// Resolve is the ID a Ref names, given the steps' results (done, by step) and the ID of the plan's
// saved post.
func (r Ref) Resolve(done []int, saved int) int {
	switch {
	case r.ID != 0:
		return r.ID
	case r.Step == SavedStep:
		return saved
	case r.Step >= 0 && r.Step < len(done):
		return done[r.Step]
	}
	return 0
}

// PostWrite is one wp/v2 save of a post: its fields, the meta to set and to delete, its image,
// its terms (by taxonomy REST base) and linked posts (by meta key), the last two as Refs.
type PostWrite struct {
	Type   string
	ID     int            // 0 creates
	Fields map[string]any // wp/v2 post fields: title, content, excerpt, slug, status, date, …
	Set    map[string]any // meta values: a string, or rows
	Delete []string       // meta keys removed
	Image  *Ref           // featured_media: ID 0 removes it
	Terms  map[string][]Ref
	Links  map[string][]Ref
}

// Body is the save as a wp/v2 body, with the steps' results (done) in place of their refs: meta
// deletions are null values, linked posts rows of IDs, terms lists of IDs (without 0).
func (w PostWrite) Body(done []int) map[string]any {
	body := maps.Clone(w.Fields)
	if body == nil {
		body = map[string]any{}
	}
	if w.Image != nil {
		body["featured_media"] = w.Image.Resolve(done, 0)
	}
	for base, refs := range w.Terms {
		body[base] = slices.DeleteFunc(resolve(refs, done), func(id int) bool { return id == 0 })
	}
	if w.Set == nil {
		return body
	}

	meta := maps.Clone(w.Set)
	for _, key := range w.Delete {
		meta[key] = nil
	}
	for key, refs := range w.Links {
		rows := []string{}
		for _, id := range resolve(refs, done) {
			rows = append(rows, strconv.Itoa(id))
		}
		meta[key] = rows
	}
	body["meta"] = meta
	return body
}

// resolve is Resolve of each ref, in a plan where no ref names the saved post.
func resolve(refs []Ref, done []int) []int {
	ids := make([]int, len(refs))
	for i, ref := range refs {
		ids[i] = ref.Resolve(done, 0)
	}
	return ids
}
