package adapter

import (
	"calshim/mapping/php"
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"
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
		{"bad=%zz&ok=1", Params{"bad": "%zz", "ok": "1"}}, // PHP keeps a "%" it cannot decode
		{"&&=x&", Params{}},
	} {
		t.Run(tc.raw, func(t *testing.T) {
			if got := parseForm(tc.raw); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("parseForm(%q) = %#v, want %#v", tc.raw, got, tc.want)
			}
		})
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

// FuzzParseForm: any query string or form body parses without panicking into strings, lists and
// maps only, with no empty names, no more than 1000 variables and no more than 64 levels.
func FuzzParseForm(f *testing.F) {
	for _, s := range []string{"page=2", "a[]=1&a[]=2", "a[b]=c", "%", "=&=", "x=%C3%A9", "a[=1", "a]=1", "a[][b][]=1&a[0]=x"} {
		f.Add(s)
	}

	f.Fuzz(func(t *testing.T, raw string) {
		p := parseForm(raw)
		if len(p) > php.MaxInputVars {
			t.Fatalf("%q: %d variables", raw, len(p))
		}
		for k, v := range p {
			if k == "" {
				t.Fatalf("%q: empty key", raw)
			}
			checkValue(t, v, 0, true)
		}
	})
}

// PHP registers "per.page", "per page" and "per[page" as per_page (the original then pages by 2).
func TestPHPVariableNames(t *testing.T) {
	for key, want := range map[string]string{"per.page": "per_page", "per page": "per_page",
		"per[page": "per_page", " page": "page", "a.b[c.d]": "a_b[c.d]", "a[b.c": "a_b_c", "a\x00b": "a", "x]y": "x]y"} {
		if got := php.VarName(key); got != want {
			t.Errorf("php.VarName(%q) = %q, want %q", key, got, want)
		}
	}

	body := serve(newTestServer(t), http.MethodGet, tribeV1+"/events?per.page=2").Body.String()
	if !strings.Contains(body, `?page=1&per_page=2&`) {
		t.Errorf("per.page=2: %.300s", body[max(0, len(body)-400):])
	}
}

// TestParseFormLikePHP: what PHP 8.2 puts in $_GET for these query strings (each checked with
// php -S and json_encode($_GET)): the next index of "a[]", integer and string keys, names cut at
// a NUL byte, unclosed brackets, and a variable nested deeper than 64 levels dropped whole.
func TestParseFormLikePHP(t *testing.T) {
	deep := func(levels int) string { return "d" + strings.Repeat("[x]", levels) }
	nestedX := func(levels int, v any) any {
		for range levels {
			v = map[string]any{"x": v}
		}
		return v
	}
	for _, tc := range []struct {
		raw  string
		want Params
	}{
		{"a[]=1&a[]=2&a[5]=x&a[]=y&a[-7]=z&a[]=w",
			Params{"a": map[string]any{"0": "1", "1": "2", "5": "x", "6": "y", "-7": "z", "7": "w"}}},
		{"f[05]=1&f[]=2", Params{"f": map[string]any{"05": "1", "0": "2"}}},
		{"g[-7]=z&g[]=w", Params{"g": map[string]any{"-7": "z", "-6": "w"}}},
		{"h[]=1&h[-3]=2&h[]=3", Params{"h": map[string]any{"0": "1", "-3": "2", "1": "3"}}},
		{"i[9223372036854775807]=1&i[]=2", Params{"i": map[string]any{"9223372036854775807": "1"}}},
		{"m[9223372036854775808]=1&m[]=2", Params{"m": map[string]any{"9223372036854775808": "1", "0": "2"}}},
		{"d[y]=1&d[][]=2&d[-5]=3&d[]=4", Params{"d": map[string]any{"y": "1", "0": []any{"2"}, "-5": "3", "1": "4"}}},
		{"c%00d=4&e=%zz&[]=1&%20[x]=2", Params{"c": "4", "e": "%zz"}},
		{"a[b.c=1&x[b%20c[d.e=2&y.z[b.c]=3&%20%20w=4&v[b][c=5&u[b]x[c]=6&t[]=1&t=2&s=1&s[]=2&r[b]=1&r[b][c]=2",
			Params{"a_b_c": "1", "x_b_c_d_e": "2", "y_z": map[string]any{"b.c": "3"}, "w": "4",
				"v": map[string]any{"b": "5"}, "u": map[string]any{"b": "6"}, "t": "2", "s": []any{"2"},
				"r": map[string]any{"b": map[string]any{"c": "2"}}}},
		{"d[y]=1&" + deep(64) + "=2&e=1", Params{"d": map[string]any{"y": "1", "x": nestedX(63, "2")}, "e": "1"}},
		{"d[y]=1&" + deep(65) + "=2&e=1&d[z]=3", Params{"e": "1", "d": map[string]any{"z": "3"}}},
	} {
		if got := parseForm(tc.raw); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseForm(%.80q) = %#v,\nwant %#v", tc.raw, got, tc.want)
		}
	}
}

// TestMaxInputVars: PHP reads 1000 variables of a query string and of a body read by parse_str
// (empty "&&" segments not counted), and 1001 of a POST form body, which counts every segment.
func TestMaxInputVars(t *testing.T) {
	vars := func(n int, sep string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = "v" + strconv.Itoa(i) + "=1"
		}
		return strings.Join(parts, sep)
	}
	for _, tc := range []struct {
		name string
		walk func(string, func(key, val string))
		raw  string
		want int
	}{
		{"query", php.EachPair, vars(1005, "&"), 1000},
		{"query, empty segments", php.EachPair, vars(1005, "&&"), 1000},
		{"POST body", php.EachPostPair, vars(1005, "&"), 1001},
		{"POST body, empty segments", php.EachPostPair, vars(1005, "&&"), 501},
		{"POST body, nameless pairs", php.EachPostPair, "=x&" + strings.ReplaceAll(vars(1005, "&"), "&", "&=x&"), 500},
	} {
		if got := len(parseFormWith(tc.walk, tc.raw)); got != tc.want {
			t.Errorf("%s: %d variables, want %d", tc.name, got, tc.want)
		}
	}

	list := parseFormWith(php.EachPostPair, strings.Repeat("a[]=&", 40000))["a"].([]any)
	if len(list) != php.MaxInputVars+1 {
		t.Errorf("40,000 a[]= in a POST body: %d items, want 1001", len(list))
	}
}
