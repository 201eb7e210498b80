package adapter

import (
	"reflect"
	"testing"
)

func TestParseQuery(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want Params
	}{
		{"page=2&per_page=5", Params{"page": "2", "per_page": "5"}},
		{"page=1&page=3", Params{"page": "3"}}, // the last scalar wins, as with parse_str
		{"categories[]=music&categories[]=jazz", Params{"categories": []string{"music", "jazz"}}},
		{"status[0]=publish", Params{"status": []string{"publish"}}},
		{"search=jazz+club&start_date=2026-11-21%2000%3A00%3A00", Params{"search": "jazz club", "start_date": "2026-11-21 00:00:00"}},
		{"search=", Params{"search": ""}},
		{"flag", Params{"flag": ""}},
		{"bad=%zz&ok=1", Params{"ok": "1"}}, // undecodable pairs are dropped
		{"&&=x&", Params{}},
	} {
		t.Run(tc.raw, func(t *testing.T) {
			if got := parseQuery(tc.raw); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parseQuery(%q) = %#v, want %#v", tc.raw, got, tc.want)
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
	p := Params{"csv": "17, 18 ,26", "arr": []string{" a", "b "}}
	if got := p.list("csv"); !reflect.DeepEqual(got, []string{"17", "18", "26"}) {
		t.Errorf("list(csv) = %q", got)
	}
	if got := p.list("arr"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("list(arr) = %q", got)
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

// FuzzParseQuery: any query string parses without panicking into scalars or lists only.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"page=2", "a[]=1&a[]=2", "a[b]=c", "%", "=&=", "x=%C3%A9", "a[=1", "a]=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for k, v := range parseQuery(raw) {
			switch v.(type) {
			case string, []string:
			default:
				t.Fatalf("%q: %q has type %T", raw, k, v)
			}
			if k == "" {
				t.Fatalf("%q: empty key", raw)
			}
		}
	})
}
