package php

import (
	"html"
	"strings"
	"testing"
)

func TestEscJS(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<p>Black tie, big band, bubbles.</p>\n", `&lt;p&gt;Black tie, big band, bubbles.&lt;/p&gt;\n`},
		{`Don't say "no"`, `Don\'t say &quot;no&quot;`},
		{"Yesterday&#8217;s Lecture", "Yesterday&#8217;s Lecture"},
		{"Rock &amp; Roll", "Rock &amp; Roll"},
		{"Rock & Roll", "Rock &amp; Roll"},
		{"it&#039;s", `it\'s`},
		{`back\slash`, "backslash"},
		{"a\r\nb", `a\nb`},
	}
	for _, tc := range tests {
		if got := EscJS(tc.in); got != tc.want {
			t.Errorf("EscJS(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestEscURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://jazzsociety.example.org", "https://jazzsociety.example.org"},
		{"", ""},
		{"example.com/a b", "http://example.com/a%20b"},
		{"http://x.example/?a=1&amp;b=2", "http://x.example/?a=1&#038;b=2"},
		{"javascript:alert(1)", ""},
		{"/relative", "/relative"},
		{"mailto:a@b.example", "mailto:a@b.example"},
	}
	for _, tc := range tests {
		if got := EscURL(tc.in); got != tc.want {
			t.Errorf("EscURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestAntispambot(t *testing.T) {
	for _, email := range []string{"hello@jazzsociety.example.org", "info@techcon.example.com", "", "ü@x.example"} {
		got := Antispambot(email)
		if html.UnescapeString(got) != email {
			t.Errorf("Antispambot(%q) = %q decodes to %q", email, got, html.UnescapeString(got))
		}
		if strings.Contains(got, "@") {
			t.Errorf("Antispambot(%q) = %q keeps a plain @", email, got)
		}
		if again := Antispambot(email); again != got {
			t.Errorf("Antispambot(%q) not deterministic: %q then %q", email, got, again)
		}
	}
	if got := Antispambot("hello@jazzsociety.example.org"); !strings.Contains(got, "&#") || strings.Count(got, "&#") > 25 {
		t.Errorf("Antispambot mixes no plain and encoded characters: %q", got)
	}
}

func TestSanitizeTitle(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Free", "free"},
		{"Pay what you can!", "pay-what-you-can"},
		{"Café Entrée", "cafe-entree"},
		{"T.B.A.", "t-b-a"},
		{"免费", "%e5%85%8d%e8%b4%b9"},
		{"<b>Free</b> entry", "free-entry"},
		{"Free – always", "free-always"},
	}
	for _, tc := range tests {
		if got := SanitizeTitle(tc.in); got != tc.want {
			t.Errorf("SanitizeTitle(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if len(latin1Folds) != 64 || len(latinExtAFolds) != 128 {
		t.Errorf("fold tables have %d and %d entries, want 64 and 128", len(latin1Folds), len(latinExtAFolds))
	}
}

func TestWpautop(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"  ", ""},
		{"One line.", "<p>One line.</p>\n"},
		{"a\n\nb", "<p>a</p>\n<p>b</p>\n"},
		{"a\nb", "<p>a<br />\nb</p>\n"},
	}
	for _, tc := range tests {
		if got := Wpautop(tc.in); got != tc.want {
			t.Errorf("Wpautop(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
