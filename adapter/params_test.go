package adapter

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParseForm(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want Params
	}{
		{"page=2&per_page=5", Params{"page": "2", "per_page": "5"}},
		{"page=1&page=3", Params{"page": "3"}}, // the last scalar wins, as with parse_str
		{"categories[]=music&categories[]=jazz", Params{"categories": []any{"music", "jazz"}}},
		{"status[0]=publish", Params{"status": []any{"publish"}}},
		{"venue[city]=Paris&venue[zip]=75001", Params{"venue": map[string]any{"city": "Paris", "zip": "75001"}}},
		{"organizer[0][organizer]=X", Params{"organizer": []any{map[string]any{"organizer": "X"}}}},
		{"search=jazz+club&start_date=2026-11-21%2000%3A00%3A00", Params{"search": "jazz club", "start_date": "2026-11-21 00:00:00"}},
		{"search=", Params{"search": ""}},
		{"flag", Params{"flag": ""}},
		{"bad=%zz&ok=1", Params{"ok": "1"}}, // undecodable pairs are dropped
		{"&&=x&", Params{}},
	} {
		t.Run(tc.raw, func(t *testing.T) {
			if got := parseForm(tc.raw); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parseForm(%q) = %#v, want %#v", tc.raw, got, tc.want)
			}
		})
	}
}

func TestPositiveInt(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want int
		ok   bool
	}{
		{"1", 1, true}, {"2.0", 2, true}, {"+3", 3, true}, {" 4 ", 4, true},
		{"0", 0, false}, {"-1", 0, false}, {"1.5", 0, false}, {"abc", 0, false}, {"", 0, false},
		{"1e3", 1000, true}, {"1e30", 0, false}, {[]string{"1"}, 0, false}, {nil, 0, false},
	} {
		got, ok := positiveInt(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("positiveInt(%#v) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParamList(t *testing.T) {
	p := Params{"csv": "17, 18 ,26", "arr": []any{" a", "b ", json.Number("7"), []any{"nested"}},
		"map": map[string]any{"b": "2", "a": "1"}}
	if got := p.list("csv"); !reflect.DeepEqual(got, []string{"17", "18", "26"}) {
		t.Errorf("list(csv) = %q", got)
	}

	if got := p.list("arr"); !reflect.DeepEqual(got, []string{"a", "b", "7", ""}) {
		t.Errorf("list(arr) = %q", got)
	}

	if got := p.list("map"); !reflect.DeepEqual(got, []string{"1", "2"}) {
		t.Errorf("list(map) = %q", got)
	}

	if got := p.list("none"); got != nil {
		t.Errorf("list(none) = %q", got)
	}
}

func TestPHPURLEncode(t *testing.T) {
	if got, want := phpURLEncode("2026-11-21 00:00:00,a~b/é"), "2026-11-21+00%3A00%3A00%2Ca%7Eb%2F%C3%A9"; got != want {
		t.Errorf("phpURLEncode = %q, want %q", got, want)
	}
}

// FuzzParseForm: any query string or form body parses without panicking into strings, lists and
// maps only, with no empty names.
func FuzzParseForm(f *testing.F) {
	for _, s := range []string{"page=2", "a[]=1&a[]=2", "a[b]=c", "%", "=&=", "x=%C3%A9", "a[=1", "a]=1", "a[][b][]=1&a[0]=x"} {
		f.Add(s)
	}

	var check func(t *testing.T, raw string, v any)
	check = func(t *testing.T, raw string, v any) {
		switch x := v.(type) {
		case string:
		case []any:
			for _, c := range x {
				check(t, raw, c)
			}
		case map[string]any:
			for _, c := range x {
				check(t, raw, c)
			}
		default:
			t.Fatalf("%q: value of type %T", raw, v)
		}
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for k, v := range parseForm(raw) {
			if k == "" {
				t.Fatalf("%q: empty key", raw)
			}
			check(t, raw, v)
		}
	})
}

// PHP registers "per.page", "per page" and "per[page" as per_page (the original then pages by 2).
func TestPHPVariableNames(t *testing.T) {
	for key, want := range map[string]string{"per.page": "per_page", "per page": "per_page",
		"per[page": "per_page", " page": "page", "a.b[c.d]": "a_b[c.d]", "a[b.c": "a_b.c", "x]y": "x]y"} {
		if got := phpVarName(key); got != want {
			t.Errorf("phpVarName(%q) = %q, want %q", key, got, want)
		}
	}

	body := serveGET(newTestServer(t), v1+"/events?per.page=2").Body.String()
	if !strings.Contains(body, `?page=1&per_page=2&`) {
		t.Errorf("per.page=2: %.300s", body[max(0, len(body)-400):])
	}
}
