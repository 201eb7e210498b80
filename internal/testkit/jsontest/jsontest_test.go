package jsontest

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestDecodeKeepsMemberOrder(t *testing.T) {
	v, err := Decode([]byte(`{"b":1,"a":[true,null,"x"],"c":{"z":2,"y":3}}`))
	if err != nil {
		t.Fatal(err)
	}

	if got, want := strings.Join(v.(Object).Keys(), ","), "b,a,c"; got != want {
		t.Errorf("keys = %s, want %s", got, want)
	}

	if got := At(v, "c", "y"); got != json.Number("3") {
		t.Errorf(`At(c, y) = %v, want 3`, got)
	}

	if got, want := Text(v), `{"b":1,"a":[true,null,"x"],"c":{"z":2,"y":3}}`; got != want {
		t.Errorf("Text = %s, want %s", got, want)
	}
}

func TestDecodeRejectsTrailingData(t *testing.T) {
	if _, err := Decode([]byte(`{} {}`)); err == nil {
		t.Error("Decode accepted a second value")
	}
}

func TestDiffReportsOrderValuesAndLengths(t *testing.T) {
	want := mustDecode(t, `{"a":1,"b":["x"],"c":"5"}`)

	for _, tc := range []struct {
		name, got string
		diffs     int
	}{
		{"same", `{"a":1,"b":["x"],"c":"5"}`, 0},
		{"key order", `{"b":["x"],"a":1,"c":"5"}`, 1},
		{"value", `{"a":2,"b":["x"],"c":"5"}`, 1},
		{"list length", `{"a":1,"b":[],"c":"5"}`, 1},
		{"number for string", `{"a":1,"b":["x"],"c":5}`, 1},
	} {
		if got := Diff(mustDecode(t, tc.got), want); len(got) != tc.diffs {
			t.Errorf("%s: %d differences %q, want %d", tc.name, len(got), got, tc.diffs)
		}
	}
}

func TestDiffOptions(t *testing.T) {
	got, want := mustDecode(t, `{"a":5,"b":1}`), mustDecode(t, `{"a":"5","b":2}`)
	skipB := func(path string) bool { return path == "/b" }

	if d := (Options{Loose: true, Skip: skipB}).Diff(got, want); len(d) != 0 {
		t.Errorf("loose diff with /b skipped = %q, want none", d)
	}
}

func TestExamplesAreReadable(t *testing.T) {
	ex := MustLoadExample(t, "109-event-gala")
	if ex.Status != 200 || ex.Path == "" || len(ex.Body) == 0 {
		t.Errorf("109-event-gala = status %d, path %q, %d body bytes", ex.Status, ex.Path, len(ex.Body))
	}
}

func mustDecode(t *testing.T, s string) any {
	t.Helper()
	return MustDecode(t, []byte(s))
}
