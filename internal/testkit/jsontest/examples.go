package jsontest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Example is one recorded response of the original (The Events Calendar 6.17.2): the request and what
// it answered, as stored in internal/testkit/testdata/examples/<name>.json.
type Example struct {
	Name          string            `json:"name"`
	Method        string            `json:"method"`
	Path          string            `json:"path"`
	Status        int               `json:"status"`
	Headers       map[string]string `json:"headers"`
	Body          json.RawMessage   `json:"body"`
	BodyRawPrefix string            `json:"body_raw_prefix"`
}

// ExamplesDir is the folder of the recorded examples, wherever the test runs from.
func ExamplesDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return filepath.Join("internal", "testkit", "testdata", "examples")
	}

	return filepath.Join(filepath.Dir(file), "..", "testdata", "examples")
}

// ExampleFiles lists the paths of every recorded example.
func ExampleFiles() ([]string, error) {
	return filepath.Glob(filepath.Join(ExamplesDir(), "*.json"))
}

// LoadExample reads one example file.
func LoadExample(path string) (Example, error) {
	var ex Example

	b, err := os.ReadFile(path)
	if err != nil {
		return ex, err
	}

	err = json.Unmarshal(b, &ex)

	return ex, err
}

// MustLoadExample reads the example called name ("109-event-gala") or fails the test.
func MustLoadExample(tb testing.TB, name string) Example {
	tb.Helper()

	ex, err := LoadExample(filepath.Join(ExamplesDir(), name+".json"))
	if err != nil {
		tb.Fatalf("example %s: %v", name, err)
	}

	return ex
}
