// Package docs holds calshim's documentation; its test keeps the links between the pages, and the
// README's set-up commands, true as files move and the Makefile changes.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// pages are the documents whose links are checked, relative to the repository root.
func pages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md", "ARCHITECTURE.md"}
	for _, d := range docs {
		out = append(out, filepath.Join("docs", d))
	}
	return out
}

var (
	inlineLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	scheme     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
)

// proseLines are a Markdown page's lines outside fenced code blocks, with code spans removed: what
// GitHub renders links and headings from.
func proseLines(text string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, codeSpan.ReplaceAllString(line, ""))
		}
	}
	return out
}

// links are the targets of a page's inline links that stay in the repository (no scheme).
func links(text string) []string {
	var out []string
	for _, line := range proseLines(text) {
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			if !scheme.MatchString(m[1]) {
				out = append(out, m[1])
			}
		}
	}
	return out
}

// anchors are the fragment names GitHub gives a page's headings: lower case, punctuation dropped,
// spaces as hyphens, a repeated name numbered from -1.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(text) {
		m := heading.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(line, " ") {
			continue
		}
		slug := strings.Map(func(r rune) rune {
			switch {
			case r == ' ':
				return '-'
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				return unicode.ToLower(r)
			}
			return -1
		}, m[1])
		if n := seen[slug]; n > 0 {
			out[slug+"-"+strconv.Itoa(n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", path))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLinks: every relative link of the README, ARCHITECTURE.md and docs/*.md names a file or directory
// that exists, and a #fragment on a Markdown page names one of its headings.
func TestLinks(t *testing.T) {
	for _, page := range pages(t) {
		for _, target := range links(read(t, page)) {
			file, frag, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
				if _, err := os.Stat(filepath.Join("..", path)); err != nil {
					t.Errorf("%s: link to %s: no file %s", page, target, path)
					continue
				}
			}
			if frag != "" && strings.HasSuffix(path, ".md") && !anchors(read(t, path))[frag] {
				t.Errorf("%s: link to %s: %s has no heading #%s", page, target, path, frag)
			}
		}
	}
}

// TestSetupCommands: the entry points the Makefile's first line names (`make demo`, `make test`) are
// Makefile targets, and the README gives each as a command line of its own, verbatim.
func TestSetupCommands(t *testing.T) {
	makefile := read(t, "Makefile")
	first, _, _ := strings.Cut(makefile, "\n")
	commands := regexp.MustCompile("`(make [a-z-]+)`").FindAllStringSubmatch(first, -1)
	if len(commands) < 2 {
		t.Fatalf("the Makefile's first line names no entry points (`make demo`, `make test`): %q", first)
	}
	readme := "\n" + read(t, "README.md")
	for _, c := range commands {
		target := strings.TrimPrefix(c[1], "make ")
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(target) + `:`).MatchString(makefile) {
			t.Errorf("the Makefile names %q as an entry point but defines no target %s", c[1], target)
		}
		if !strings.Contains(readme, "\n    "+c[1]+"\n") {
			t.Errorf("README.md does not give the set-up command %q on a line of its own", c[1])
		}
	}
}
