// Command codestats prints the size figures issue 9 tracks for the Go code under a folder: function
// length (median, p90, max), lines longer than a limit, and the share of blank lines inside function
// bodies. vendor/ is left out, and so are test files (_test.go) unless -tests is given. Run it as
// `go run ./scripts/codestats [-tests] [DIR]`.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// funcStat is one function declaration: where it is, how long it is, how many of its body lines are blank.
type funcStat struct {
	name  string
	lines int
	blank int
}

// totals gathers the figures of every file read.
type totals struct {
	files     int
	lines     int
	longLines int
	funcs     []funcStat
}

func main() {
	limit := flag.Int("limit", 100, "a line longer than this many characters counts as long")
	top := flag.Int("top", 5, "how many of the longest functions to list")
	tests := flag.Bool("tests", false, "count test files (_test.go) too")
	flag.Parse()

	root := "."
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}

	t, err := walk(root, *limit, *tests)
	if err != nil {
		fmt.Fprintln(os.Stderr, "codestats:", err)
		os.Exit(1)
	}

	report(t, *limit, *top)
}

// walk reads every .go file below root, test files only when tests is set.
func walk(root string, limit int, tests bool) (*totals, error) {
	t := &totals{}
	fset := token.NewFileSet()

	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}

		if d.IsDir() {
			return skipDir(d.Name())
		}

		if !strings.HasSuffix(path, ".go") || (!tests && strings.HasSuffix(path, "_test.go")) {
			return nil
		}

		return t.addFile(fset, path, limit)
	})

	return t, err
}

// skipDir leaves out vendored and hidden folders.
func skipDir(name string) error {
	if name == "vendor" || (len(name) > 1 && strings.HasPrefix(name, ".")) {
		return filepath.SkipDir
	}

	return nil
}

// addFile counts one file's lines and its functions.
func (t *totals) addFile(fset *token.FileSet, path string, limit int) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}

	f, err := parser.ParseFile(fset, path, src, 0)
	if err != nil {
		return err
	}

	lines := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	t.files++
	t.lines += len(lines)

	for _, l := range lines {
		if utf8.RuneCountInString(l) > limit {
			t.longLines++
		}
	}

	for _, decl := range f.Decls {
		if fd, ok := decl.(*ast.FuncDecl); ok && fd.Body != nil {
			t.funcs = append(t.funcs, measure(fset, path, fd, lines))
		}
	}

	return nil
}

// measure gives a function's length (signature to closing brace) and its blank body lines.
func measure(fset *token.FileSet, path string, fd *ast.FuncDecl, lines []string) funcStat {
	start := fset.Position(fd.Pos()).Line
	open := fset.Position(fd.Body.Lbrace).Line
	end := fset.Position(fd.Body.Rbrace).Line
	s := funcStat{name: fmt.Sprintf("%s:%d %s", path, start, fd.Name.Name), lines: end - start + 1}

	for i := open; i < end-1; i++ {
		if strings.TrimSpace(lines[i]) == "" {
			s.blank++
		}
	}

	return s
}

func report(t *totals, limit, top int) {
	fs := t.funcs
	sort.Slice(fs, func(i, j int) bool { return fs[i].lines < fs[j].lines })

	bodyLines, blank, tenPlus, tenPlusNoBlank := 0, 0, 0, 0
	for _, f := range fs {
		bodyLines += max(f.lines-2, 0)
		blank += f.blank

		if f.lines >= 10 {
			tenPlus++
			if f.blank == 0 {
				tenPlusNoBlank++
			}
		}
	}

	fmt.Printf("files %d, lines %d, functions %d\n", t.files, t.lines, len(fs))
	fmt.Printf("function lines: median %d, p90 %d, max %d\n",
		pct(fs, 50), pct(fs, 90), pct(fs, 100))
	fmt.Printf("lines over %d chars: %d (%.1f%%)\n", limit, t.longLines, share(t.longLines, t.lines))
	fmt.Printf("blank lines in function bodies: %d of %d (%.1f%%)\n", blank, bodyLines, share(blank, bodyLines))
	fmt.Printf("functions of 10+ lines with no blank line: %d of %d\n", tenPlusNoBlank, tenPlus)

	for i := len(fs) - 1; i >= 0 && i >= len(fs)-top; i-- {
		fmt.Printf("  %4d  %s\n", fs[i].lines, fs[i].name)
	}
}

// pct is the p-th percentile (nearest rank) of function lengths sorted ascending.
func pct(fs []funcStat, p int) int {
	if len(fs) == 0 {
		return 0
	}

	rank := (p*len(fs) + 99) / 100
	if rank < 1 {
		rank = 1
	}

	return fs[rank-1].lines
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}

	return 100 * float64(n) / float64(of)
}
