package adapter

import (
	"net/http"
	"strings"
	"testing"
)

// unicodeFolds are the non-ASCII runes Go's strings.EqualFold, ToLower or ToUpper take for an ASCII
// letter: the Kelvin sign for k, the long s for s, and the dotless and dotted i.
var unicodeFolds = map[byte]string{'k': "\u212a", 's': "\u017f", 'i': "\u0131", 'I': "\u0130"}

// foldVariants are s with each letter that has a Unicode fold replaced by it, one at a time.
func foldVariants(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if r, ok := unicodeFolds[s[i]]; ok {
			out = append(out, s[:i]+r+s[i+1:])
		}
		if r, ok := unicodeFolds[s[i]-'a'+'A']; ok && s[i] >= 'a' && s[i] <= 'z' {
			out = append(out, s[:i]+r+s[i+1:])
		}
	}
	return out
}

// TestTokensCompareAsASCII: every token calshim reads from a request — the forwarded scheme, the
// overridden method, the namespace in the path — compares ASCII letters without case and nothing
// else, as HTTP (and PHP's byte-wise functions) do: a Unicode fold of a letter is another token.
func TestTokensCompareAsASCII(t *testing.T) {
	h := newTestServer(t)
	events := calV1 + "/events/17"

	for _, proto := range []string{"https", "HTTPS", "hTtPs"} {
		rec := serve(h, http.MethodGet, events, withHeader("X-Forwarded-Proto", proto))
		if !strings.Contains(rec.Body.String(), `"rest_url":"https:`) {
			t.Errorf("X-Forwarded-Proto %q: not taken as https", proto)
		}
	}
	for _, proto := range foldVariants("https") {
		rec := serve(h, http.MethodGet, events, withHeader("X-Forwarded-Proto", proto))
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"rest_url":"http:`) {
			t.Errorf("X-Forwarded-Proto %q: %d, taken as https", proto, rec.Code)
		}
	}

	for _, method := range append(foldVariants("delete"), foldVariants("post")...) {
		rec := serve(h, http.MethodGet, events, withHeader("X-HTTP-Method-Override", method))
		if rec.Code != http.StatusNotFound {
			t.Errorf("X-HTTP-Method-Override %q: %d, want 404 (no such method)", method, rec.Code)
		}
	}

	for _, ns := range foldVariants("cal/events/v1") {
		rec := serve(h, http.MethodGet, "/wp-json/"+ns+"/events/17")
		if rec.Code != http.StatusNotFound {
			t.Errorf("namespace %q: %d, want 404", ns, rec.Code)
		}
	}
	if rec := serve(h, http.MethodGet, "/wp-json/CAL/Events/V1/events/17"); rec.Code != http.StatusOK {
		t.Errorf("the namespace in capitals: %d, want 200 (WordPress matches ASCII without case)", rec.Code)
	}
}

// TestHeadOverrideSendsNoBody: a GET or POST overridden to HEAD is answered without a body and says
// so (Content-Length 0), as WordPress serves nothing; a real HEAD keeps the GET's length.
func TestHeadOverrideSendsNoBody(t *testing.T) {
	h := newTestServer(t)
	for _, opt := range []reqOption{withHeader("X-HTTP-Method-Override", "HEAD"),
		withHeader("X-HTTP-Method-Override", "head")} {
		for _, target := range []string{calV1 + "/events/17", calV1 + "/events?_method=head", calV1 + "/nothing"} {
			rec := serve(h, http.MethodGet, target, opt)
			if rec.Body.Len() != 0 || rec.Header().Get("Content-Length") != "0" {
				t.Errorf("%s: %d, body %d bytes, Content-Length %q; want none, 0", target, rec.Code,
					rec.Body.Len(), rec.Header().Get("Content-Length"))
			}
		}
	}

	get := serve(h, http.MethodGet, calV1+"/events/17")
	head := serve(h, http.MethodHead, calV1+"/events/17")
	if head.Header().Get("Content-Length") != get.Header().Get("Content-Length") || head.Code != get.Code {
		t.Errorf("HEAD: %d %q, GET: %d %q", head.Code, head.Header().Get("Content-Length"), get.Code,
			get.Header().Get("Content-Length"))
	}
}
