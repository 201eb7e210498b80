package mapping

import (
	"fmt"
	"testing"
	"unicode/utf16"
)

// appendStringByRune is an independent statement of appendString's rules, the fuzz oracle: PHP's
// short escapes (with "\/"), printable ASCII as is, anything else as UTF-16 \u escapes (an invalid
// byte as U+FFFD).
func appendStringByRune(b []byte, s string) []byte {
	short := map[rune]string{'"': `\"`, '\\': `\\`, '/': `\/`, '\n': `\n`, '\r': `\r`, '\t': `\t`,
		'\b': `\b`, '\f': `\f`}
	b = append(b, '"')
	for _, r := range s {
		if e, ok := short[r]; ok {
			b = append(b, e...)
			continue
		}
		if r >= 0x20 && r < 0x80 {
			b = append(b, byte(r))
			continue
		}
		for _, u := range utf16.Encode([]rune{r}) {
			b = fmt.Appendf(b, `\u%04x`, u)
		}
	}
	return append(b, '"')
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", `a"b\c/d`, "tab\tnl\ncr\r\b\f\x00\x1f\x7f", "é€😀",
		"\xff\xfe bad", "\uFFFD", "mixed <p>Caf\u00e9</p> \U0001F389 end"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, want := string(appendString(nil, s)), string(appendStringByRune(nil, s))
		if got != want {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
	})
}
