package catalog

import (
	"reflect"

	"calshim/mapping"
)

// samePost reports whether a re-read post is unchanged, so a poll that re-reads it does not bump the
// catalog version (and so does not invalidate cached responses).
func samePost(a, b *mapping.Post) bool { return reflect.DeepEqual(a, b) }

func sameTerms(a, b map[int]*mapping.Term) bool { return reflect.DeepEqual(a, b) }

func sameTerm(a, b *mapping.Term) bool { return reflect.DeepEqual(a, b) }

func reflectEqualMedia(a, b map[int]*mapping.Media) bool { return reflect.DeepEqual(a, b) }
