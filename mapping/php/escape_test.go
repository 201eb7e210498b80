package php

import (
	"html"
	"strings"
	"testing"
)

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

// TestFoldTables checks remove_accents' tables are whole (their answers are in TestRules).
func TestFoldTables(t *testing.T) {
	if len(latin1Folds) != 64 || len(latinExtAFolds) != 128 {
		t.Errorf("fold tables have %d and %d entries, want 64 and 128", len(latin1Folds), len(latinExtAFolds))
	}
}
