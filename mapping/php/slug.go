package php

import (
	"fmt"
	"regexp"
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
	htmlTag       = regexp.MustCompile(`<[^>]*>`)
	octet         = regexp.MustCompile(`%([a-fA-F0-9][a-fA-F0-9])`)
	octetMark     = regexp.MustCompile(`---([a-fA-F0-9][a-fA-F0-9])---`)
	anyEntity     = regexp.MustCompile(`&.+?;`)
	slugForbidden = regexp.MustCompile(`[^%a-z0-9 _-]`)
	spaceRuns     = regexp.MustCompile(`\s+`)
	dashRuns      = regexp.MustCompile(`-+`)
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
// typographic replacements that "save" makes.
func sanitizeTitleWithDashes(s string, save bool) string {
	s = htmlTag.ReplaceAllString(s, "")
	s = octet.ReplaceAllString(s, "---$1---")
	s = strings.ReplaceAll(s, "%", "")
	s = octetMark.ReplaceAllString(s, "%$1")
	if utf8.ValidString(s) {
		s = utf8URIEncode(strings.ToLower(s))
	}

	s = strings.ToLower(s)
	if save {
		s = slugDropped.Replace(slugDashes.Replace(s))
	}
	s = anyEntity.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, ".", "-")
	s = slugForbidden.ReplaceAllString(s, "")
	s = spaceRuns.ReplaceAllString(s, "-")
	s = dashRuns.ReplaceAllString(s, "-")
	return strings.Trim(s, "-")
}

// utf8URIEncode percent-encodes the non-ASCII bytes of s in lower-case hex (utf8_uri_encode without
// its length limit).
func utf8URIEncode(s string) string {
	if isASCII(s) {
		return s
	}

	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < utf8.RuneSelf {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}

	return b.String()
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
