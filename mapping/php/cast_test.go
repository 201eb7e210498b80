package php

import (
	"strconv"
	"testing"
)

// FuzzCasts checks the casts against each other on any string: never a panic, a positive int is
// the string's (int) and numerically equal to it, a canonical integer casts to itself, and
// urldecode undoes urlencode.
func FuzzCasts(f *testing.F) {
	for _, s := range []string{"1e3", "1e3abc", " 12 ", "-9223372036854775809", "0x1p4", "%zz+", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Int(s)
		if p, ok := PositiveInt(s); ok && (p != n || p < 1 || float64(p) != Float(s)) {
			t.Fatalf("PositiveInt(%q) = %d; Int %d, Float %v", s, p, n, Float(s))
		}
		if want, err := strconv.ParseInt(s, 10, 64); err == nil && n != int(want) {
			t.Fatalf("Int(%q) = %d, want %d", s, n, want)
		}
		if got := URLDecode(URLEncode(s)); got != s {
			t.Fatalf("URLDecode(URLEncode(%q)) = %q", s, got)
		}
	})
}
