package php

import (
	"strings"
	"unicode/utf8"
)

// latin1Folds and latinExtAFolds are WordPress' remove_accents for U+00C0–U+00FF and U+0100–U+017F,
// already lower-cased (sanitize_title lower-cases right after). "" = not folded.
var (
	latin1Folds = strings.Split("a a a a a a ae c e e e e i i i i d n o o o o o  o u u u u y th s "+
		"a a a a a a ae c e e e e i i i i d n o o o o o  o u u u u y th y", " ")
	latinExtAFolds = strings.Split("a a a a a a c c c c c c c c d d d d e e e e e e e e e e "+
		"g g g g g g g g h h h h i i i i i i i i i i ij ij j j k k k l l l l l l l l l l "+
		"n n n n n n n n n o o o o o o oe oe r r r r r r s s s s s s s s t t t t t t "+
		"u u u u u u u u u u u u w w y y y z z z z z z s", " ")
)

// removeAccents folds the Latin letters WordPress' remove_accents knows best (Latin-1 and Latin
// Extended-A, plus "€" → "e"); other characters are left for percent-encoding.
func removeAccents(s string) string {
	if isASCII(s) {
		return s
	}

	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 0xC0 && r <= 0xFF && latin1Folds[r-0xC0] != "":
			b.WriteString(latin1Folds[r-0xC0])
		case r >= 0x100 && r <= 0x17F:
			b.WriteString(latinExtAFolds[r-0x100])
		case r == 'ª':
			b.WriteByte('a')
		case r == 'º':
			b.WriteByte('o')
		case r == '€':
			b.WriteByte('e')
		default:
			b.WriteRune(r)
		}
	}

	return b.String()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}

	return true
}

var (
	// slugDashes and slugDropped are sanitize_title_with_dashes' "save" context replacements
	// (non-breaking space, dashes, wide spaces → "-"; soft hyphen, typographic quotes, ©, ®, °, …, ™,
	// zero-width → "").
	slugDashes = strings.NewReplacer("%c2%a0", "-", "%e2%80%93", "-", "%e2%80%94", "-", "&nbsp;", "-",
		"&#160;", "-", "&ndash;", "-", "&#8211;", "-", "&mdash;", "-", "&#8212;", "-", "/", "-",
		"%e2%80%80", "-", "%e2%80%81", "-", "%e2%80%82", "-", "%e2%80%83", "-", "%e2%80%84", "-",
		"%e2%80%85", "-", "%e2%80%86", "-", "%e2%80%87", "-", "%e2%80%88", "-", "%e2%80%89", "-",
		"%e2%80%8a", "-", "%e2%80%a8", "-", "%e2%80%a9", "-", "%e2%80%af", "-", "%c3%97", "x")
	slugDropped = strings.NewReplacer(
		"%c2%ad", "", "%c2%a1", "", "%c2%bf", "", "%c2%ab", "", "%c2%bb", "",
		"%e2%80%b9", "", "%e2%80%ba", "", "%e2%80%98", "", "%e2%80%99", "", "%e2%80%9c", "",
		"%e2%80%9d", "", "%e2%80%9a", "", "%e2%80%9b", "", "%e2%80%9e", "", "%e2%80%9f", "",
		"%e2%80%a2", "", "%c2%a9", "", "%c2%ae", "", "%c2%b0", "", "%e2%80%a6", "",
		"%e2%84%a2", "", "%c2%b4", "", "%cb%8a", "", "%cc%81", "", "%cd%81", "",
		"%cc%80", "", "%cc%84", "", "%cc%8c", "", "%e2%80%8b", "", "%e2%80%8c", "",
		"%e2%80%8d", "", "%e2%80%8e", "", "%e2%80%8f", "", "%e2%80%aa", "", "%e2%80%ab", "",
		"%e2%80%ac", "", "%e2%80%ad", "", "%e2%80%ae", "", "%ef%bb%bf", "", "%ef%bf%bc", "")
)

// SanitizeTitle is WordPress' sanitize_title (save context, sanitize_title_with_dashes): the slug
// TEC uses to index a non-numeric cost, e.g. "Free" → "free", "Pay what you can!" →
// "pay-what-you-can".
func SanitizeTitle(s string) string {
	return sanitizeTitleWithDashes(removeAccents(s), true)
}

// sanitizeTitleWithDashes is sanitize_title_with_dashes; the "query" context (save false) skips the
// typographic replacements that "save" makes. Its regular expressions are written as loops over the
// bytes, each step one pass: the text comes from clients and stored posts, so its cost must stay
// linear with a small constant (Go's regexp engine took over a microsecond a byte, seconds for a
// slug of a megabyte).
func sanitizeTitleWithDashes(s string, save bool) string {
	s = stripTags(s)  // <[^>]*>
	s = markOctets(s) // %([a-fA-F0-9]{2}) → ---$1---
	s = strings.ReplaceAll(s, "%", "")
	s = unmarkOctets(s) // ---([a-fA-F0-9]{2})--- → %$1
	if utf8.ValidString(s) {
		s = utf8URIEncode(strings.ToLower(s)) // mb_strtolower
	}

	s = Strtolower(s)
	if save {
		s = slugDropped.Replace(slugDashes.Replace(s))
	}
	s = stripEntities(s) // &.+?;
	return slugChars(s)
}

// stripTags removes what <[^>]*> matches: from each "<" to the next ">"; past the last ">" nothing.
func stripTags(s string) string {
	var b []byte
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			break
		}
		b = append(b, s[:i]...)
		s = s[i+j+1:]
	}
	if b == nil {
		return s
	}
	return string(append(b, s...))
}

// markOctets replaces each "%" and two hex digits by "---", the digits, "---".
func markOctets(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b = append(b, "---"...)
			b = append(b, s[i+1], s[i+2])
			b = append(b, "---"...)
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// unmarkOctets replaces each "---", two hex digits, "---" by "%" and the digits, leftmost first.
func unmarkOctets(s string) string {
	if !strings.Contains(s, "---") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if i+8 <= len(s) && s[i:i+3] == "---" && isHex(s[i+3]) && isHex(s[i+4]) && s[i+5:i+8] == "---" {
			b = append(b, '%', s[i+3], s[i+4])
			i += 7
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// stripEntities removes what &.+?; matches: an "&", at least one character, then the nearest ";",
// none of them a line feed ("." does not match one). Where no ";" comes before the next line feed,
// no "&" before that line feed matches either, so the scan jumps there: one pass.
func stripEntities(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	b := make([]byte, 0, len(s))
	semi := -1 // the nearest ";" found so far (len(s): none left), so each byte is searched once
	for i := 0; i < len(s); {
		if s[i] != '&' || i+1 >= len(s) || s[i+1] == '\n' {
			b = append(b, s[i])
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i+1:])
		from := i + 1 + size
		if semi < from {
			if semi = strings.IndexByte(s[from:], ';'); semi < 0 {
				semi = len(s)
			} else {
				semi += from
			}
		}
		end := semi // where the match would end, or where the search ended
		nl := strings.IndexByte(s[i+1:end], '\n')
		switch {
		case end < len(s) && nl < 0:
			i = end + 1 // removed
		case nl >= 0: // no match for any "&" before the line feed
			b = append(b, s[i:i+1+nl]...)
			i += 1 + nl
		default: // no ";" left: nothing more matches
			return string(append(b, s[i:]...))
		}
	}
	return string(b)
}

// slugChars ends sanitize_title_with_dashes: "." becomes "-", what [^%a-z0-9 _-] matches goes,
// runs of white space (only " " is left of \s) and then of "-" become one "-", and the ends lose
// their "-".
func slugChars(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' || c == ' ' || c == '-':
			if len(b) == 0 || b[len(b)-1] != '-' {
				b = append(b, '-')
			}
		case c == '%' || c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b = append(b, c)
		}
	}
	return strings.Trim(string(b), "-")
}

// utf8URIEncode percent-encodes the non-ASCII bytes of s in lower-case hex (utf8_uri_encode without
// its length limit).
func utf8URIEncode(s string) string {
	if isASCII(s) {
		return s
	}

	const hex = "0123456789abcdef"
	b := make([]byte, 0, 3*len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < utf8.RuneSelf {
			b = append(b, c)
		} else {
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}

	return string(b)
}

// QuerySlug turns the {slug} of a by-slug route into the post_name WordPress' get_page_by_path
// looks up: decoded once more (urldecode), re-encoded (rawurlencode) and sanitized in the "query"
// context of sanitize_title, so "Opening Night Gala", "Opening-Night-Gala" and "opening+night+gala"
// all find "opening-night-gala", while "gala!" keeps its "%21" and finds nothing. single is false
// when the path has several parts ("a/b" from an encoded slash): a flat post type never matches
// those.
func QuerySlug(raw string) (slug string, single bool) {
	path := rawURLEncode(URLDecode(raw))
	path = strings.ReplaceAll(path, "%2F", "/")
	path = strings.ReplaceAll(path, "%20", " ")
	parts := strings.Split(strings.Trim(path, "/"), "/")
	return sanitizeTitleWithDashes(parts[len(parts)-1], false), len(parts) == 1
}

// URLDecode is PHP's urldecode: "+" is a space, %XX a byte, any other "%" stays (PHP never rejects
// a query string).
func URLDecode(s string) string {
	if !strings.ContainsAny(s, "+%") {
		return s // most request values: no copy
	}

	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '+':
			b.WriteByte(' ')
		case s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// URLEncode is PHP's urlencode: a space is "+", every byte but A-Z a-z 0-9 - _ . is upper-case %XX.
func URLEncode(s string) string { return percentEncode(s, false) }

// rawURLEncode is PHP's rawurlencode: every byte but A-Z a-z 0-9 - _ . ~ as upper-case %XX.
func rawURLEncode(s string) string { return percentEncode(s, true) }

func percentEncode(s string, raw bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.' || raw && c == '~':
			b.WriteByte(c)
		case c == ' ' && !raw:
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
