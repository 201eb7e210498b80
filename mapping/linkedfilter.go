package mapping

import (
	"regexp"
	"strings"
)

var linkedSplit = regexp.MustCompile(`[^\p{L}\p{N}-]+`)

// LinkedSearchWords splits a venue or organizer search the way TEC does: on every character that is
// not a letter, a digit or "-"; lowercased.
func LinkedSearchWords(s string) []string {
	var words []string
	for _, w := range linkedSplit.Split(strings.ToLower(s), -1) {
		if w != "" {
			words = append(words, w)
		}
	}
	return words
}

// MatchLinkedSearch reports whether one of the venue's or organizer's fields (title, content, excerpt
// and the given meta keys) contains every word, case-insensitively [TEC: "temple avenue" matches
// "100, Avenue du Temple"]. A search without a word ("@", " ") matches nothing, as in the original.
func MatchLinkedSearch(p *Post, words []string, metaKeys []string) bool {
	fields := []string{p.Title, p.Content, p.Excerpt}
	for _, k := range metaKeys {
		fields = append(fields, p.Meta[k]...)
	}
	for _, f := range fields {
		f = strings.ToLower(f)
		all := true
		for _, w := range words {
			if !strings.Contains(f, w) {
				all = false
				break
			}
		}
		if all && len(words) > 0 {
			return true
		}
	}
	return false
}
