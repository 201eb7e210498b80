package php

import (
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"
)

// This file reproduces the WordPress escaping helpers whose output shows in the representations:
// esc_html, esc_js, esc_url, Antispambot and Wpautop (plain text only). Each says where it differs
// from the original.

// validEntity matches an HTML character reference that WordPress keeps as is when it escapes
// without double-encoding (wp_kses_normalize_entities accepts these; anything else gets "&amp;").
// It differs from WordPress there: any name is kept ("&foo;"), where WordPress keeps only HTML 4's
// entity names and escapes the "&" of others.
var validEntity = regexp.MustCompile(
	`^&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});`)

// wpSpecialchars is WordPress' _wp_specialchars without double encoding: "&" that does not start a
// character reference becomes "&amp;", "<" and ">" are escaped, `"` always and "'" when quotes is
// true.
func wpSpecialchars(s string, quotes bool) string {
	if !strings.ContainsAny(s, `&<>"'`) {
		return s
	}

	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '&':
			if m := validEntity.FindString(s[i:]); m != "" {
				b.WriteString(m)
				i += len(m) - 1
			} else {
				b.WriteString("&amp;")
			}
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			if quotes {
				b.WriteString("&#039;")
			} else {
				b.WriteByte(c)
			}
		default:
			b.WriteByte(c)
		}
	}

	return b.String()
}

// EscHTML is WordPress' esc_html.
func EscHTML(s string) string { return wpSpecialchars(s, true) }

// aposEntity matches the entities esc_js turns back into a plain apostrophe.
var aposEntity = regexp.MustCompile(`(?i)&#(x)?0*(?:27|39);?`)

// EscJS is WordPress' esc_js: HTML-escape (keeping "'"), turn apostrophe entities back into "'",
// strip backslashes, drop "\r", backslash-escape "'" and "\", and write newlines as the two
// characters `\n`. (That is why TEC's JSON-LD descriptions end in a literal backslash-n.)
func EscJS(s string) string {
	s = wpSpecialchars(s, false)
	s = aposEntity.ReplaceAllStringFunc(s, func(m string) string {
		// `(x)?0*(27|39)`: hex 27 or decimal 39 only; "&#x39;" and "&#27;" are other characters.
		hex := len(m) > 2 && (m[2] == 'x' || m[2] == 'X')
		digits := strings.TrimRight(strings.TrimLeft(m[2:], "xX0"), ";")
		if (hex && digits == "27") || (!hex && digits == "39") {
			return "'"
		}

		return m
	})
	s = stripslashes(s)
	s = strings.ReplaceAll(s, "\r", "")
	s = addslashes(s)
	return strings.ReplaceAll(s, "\n", `\n`)
}

// stripslashes is PHP's stripslashes: a backslash escapes the next byte ("\\" → "\"), a lone one is
// dropped.
func stripslashes(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}

	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			if i+1 < len(s) {
				i++
				if s[i] == '0' {
					b.WriteByte(0)
					continue
				}
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}

	return b.String()
}

// addslashes is PHP's addslashes.
func addslashes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteByte(c)
		}
	}

	return b.String()
}

// allowedProtocols is wp_allowed_protocols() of a stock WordPress.
var allowedProtocols = map[string]bool{
	"http": true, "https": true, "ftp": true, "ftps": true, "mailto": true, "news": true,
	"irc": true, "irc6": true, "ircs": true, "gopher": true, "nntp": true, "feed": true,
	"telnet": true, "mms": true, "rtsp": true, "sms": true, "svn": true, "tel": true,
	"fax": true, "xmpp": true, "webcal": true, "urn": true,
}

var (
	urlDisallowed = regexp.MustCompile(`(?i)[^a-z0-9\-~+_.?#=!&;,/:%@$|*'()\[\]\x{80}-\x{10FFFF}]`)
	urlCRLF       = regexp.MustCompile(`%0[dDaA]`)
	phpFileURL    = regexp.MustCompile(`(?i)^[a-z0-9-]+?\.php`)
)

// EscURL is WordPress' esc_url in display context, without its IPv6 bracket handling: invalid
// characters removed, "http://" prepended to scheme-less URLs, "&" written "&#038;" and "'"
// "&#039;", and "" for a scheme WordPress does not allow (javascript:, data:, …).
func EscURL(u string) string {
	if u == "" {
		return ""
	}

	u = strings.ReplaceAll(strings.TrimLeft(u, " \t\n\r\x00\x0B"), " ", "%20")
	u = urlDisallowed.ReplaceAllString(u, "")
	if u == "" {
		return ""
	}

	if !strings.HasPrefix(strings.ToLower(u), "mailto:") {
		for urlCRLF.MatchString(u) {
			u = urlCRLF.ReplaceAllString(u, "")
		}
	}

	u = strings.ReplaceAll(u, ";//", "://")
	relative := strings.ContainsRune("/#?", rune(u[0])) || phpFileURL.MatchString(u)
	if !strings.Contains(u, ":") && !relative {
		u = "http://" + u
	}

	u = wpSpecialchars(u, false) // only "&" can still need escaping: <, >, " were removed above
	u = strings.ReplaceAll(u, "&amp;", "&#038;")
	u = strings.ReplaceAll(u, "'", "&#039;")
	if u[0] != '/' {
		if i := strings.IndexByte(u, ':'); i > 0 && !strings.ContainsAny(u[:i], "/?#") {
			if !allowedProtocols[strings.ToLower(u[:i])] {
				return ""
			}
		}
	}

	return u
}

// Antispambot obfuscates an e-mail address the way WordPress' Antispambot does: each character is
// written either as is or as a decimal character reference, and "@" always as "&#64;". WordPress
// picks with rand() on every call, so two responses of the original never agree; calshim picks from
// an FNV-1a hash of the address instead, so that a body (and its ETag) is stable while keeping the
// same kind of encoding.
func Antispambot(email string) string {
	h := fnv.New64a()
	h.Write([]byte(email))
	seed := h.Sum64()
	var b strings.Builder
	for i, r := range email {
		x := seed + uint64(i)*0x9E3779B97F4A7C15 // splitmix64 step
		x = (x ^ x>>30) * 0xBF58476D1CE4E5B9
		x = (x ^ x>>27) * 0x94D049BB133111EB
		x ^= x >> 31
		if r == '@' || x&1 == 0 {
			b.WriteString("&#" + strconv.Itoa(int(r)) + ";")
		} else {
			b.WriteRune(r)
		}
	}

	return b.String()
}

var blankLines = regexp.MustCompile(`\n\s*\n`)

// Wpautop is WordPress' Wpautop for plain text: paragraphs (separated by blank lines) wrapped in
// <p>…</p> followed by a newline, single line breaks turned into "<br />". Block-level HTML is not
// special-cased: the text it is used on (Post.ExcerptText) carries no block tags.
func Wpautop(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}

	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	var b strings.Builder
	for _, p := range blankLines.Split(strings.Trim(s, "\n")+"\n", -1) {
		p = strings.Trim(p, "\n")
		if strings.TrimSpace(p) == "" {
			continue
		}
		b.WriteString("<p>" + strings.ReplaceAll(p, "\n", "<br />\n") + "</p>\n")
	}

	return b.String()
}
