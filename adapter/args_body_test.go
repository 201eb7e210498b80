package adapter

import (
	"calshim/internal/testkit/phptest"
	"encoding/json"
	"errors"
	"net/http"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"calshim/mapping"
	"calshim/mapping/php"
)

func TestReadBody(t *testing.T) {
	for _, tc := range []struct {
		name, ctype, body string
		want              Params
		code              string // expected error code, "" for none
	}{
		{"json object", "application/json", `{"title":"A","all_day":true,"author":3,"venue":{"venue":"V"}}`,
			Params{"title": "A", "all_day": true, "author": json.Number("3"), "venue": map[string]any{"venue": "V"}}, ""},
		{"json with charset", "application/json; charset=utf-8", `{"a":null}`, Params{"a": nil}, ""},
		{"json array is ignored", "application/json", `[1,2]`, nil, ""},
		{"json empty body", "application/json", ``, nil, ""},
		{"json malformed", "application/json", `{"title": "x", `, nil, "rest_invalid_json"},
		{"json trailing garbage", "application/json", `{"a":1} x`, nil, "rest_invalid_json"},
		{"form scalars", "application/x-www-form-urlencoded", "title=Hello+there&cost=20%24", Params{"title": "Hello there", "cost": "20$"}, ""},
		{"form list", "application/x-www-form-urlencoded", "organizer[]=1&organizer[]=2", Params{"organizer": []any{"1", "2"}}, ""},
		{"form nested objects", "application/x-www-form-urlencoded", "venue[venue]=V&venue[city]=C&organizer[0][organizer]=A&organizer[1][id]=5",
			Params{"venue": map[string]any{"venue": "V", "city": "C"}, "organizer": []any{map[string]any{"organizer": "A"}, map[string]any{"id": "5"}}}, ""},
		{"form unclosed bracket (PHP: a_b)", "application/x-www-form-urlencoded", "a[b=1", Params{"a_b": "1"}, ""},
		{"other content type", "text/plain", "title=x", nil, ""},
		{"multipart fields", "multipart/form-data; boundary=XyZ",
			"--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nMulti part\r\n" +
				"--XyZ\r\nContent-Disposition: form-data; name=\"categories[]\"\r\n\r\nmusic\r\n" +
				"--XyZ\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\nPNG\r\n" +
				"--XyZ--\r\n",
			Params{"title": "Multi part", "categories": []any{"music"}}, ""},
		{"multipart malformed", "multipart/form-data; boundary=XyZ", "garbage", Params{}, ""},
		// PHP's json_decode (depth 512) takes 511 nested arrays and objects, not 512: the original
		// answers 400 rest_invalid_json, json_error_code 1 "Maximum stack depth exceeded".
		{"json 511 levels", "application/json", nested(511, "1"), Params{"t": nestedValue(510)}, ""},
		{"json 512 levels", "application/json", nested(512, "1"), nil, "rest_invalid_json"},
		{"json 512 levels, brackets in strings", "application/json", `{"s":"[[{{"}`, Params{"s": "[[{{"}, ""},
		{"json syntax error before the depth", "application/json", `{"a":x,"t":` + nested(600, "1") + `}`, nil, "rest_invalid_json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body))
			req.Header.Set("Content-Type", tc.ctype)
			got, err := readBody(req, DefaultMaxBody, nil)
			if tc.code != "" {
				if ae, ok := err.(*apiError); !ok || ae.Code != tc.code {
					t.Fatalf("err = %v, want %s", err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestMergeParamsBodyWins(t *testing.T) {
	got := mergeParams(Params{"title": "query", "page": "2"}, Params{"title": "body"})
	if got["title"] != "body" || got["page"] != "2" {
		t.Errorf("merge = %#v", got)
	}
}

func TestArgTypes(t *testing.T) {
	for _, tc := range []struct {
		v        any
		typ      string
		want     bool
		wantInt  int
		wantBool bool
	}{
		{"abc", "string", true, 0, false},
		{json.Number("1"), "string", false, 0, false},
		{json.Number("12"), "integer", true, 12, false},
		{"12", "integer", true, 12, false},
		{"12.5", "integer", false, 0, false},
		{"", "integer", false, 0, false},
		{true, "boolean", true, 0, true},
		{"TRUE", "boolean", true, 0, true},
		{"0", "boolean", true, 0, false},
		{json.Number("1"), "boolean", true, 0, true},
		{"yes", "boolean", false, 0, false},
		{"", "boolean", false, 0, false},
	} {
		if got := hasType(tc.v, tc.typ); got != tc.want {
			t.Errorf("hasType(%#v, %s) = %v", tc.v, tc.typ, got)
		}
		if n, ok := asInt(tc.v); tc.typ == "integer" && ok && n != tc.wantInt {
			t.Errorf("asInt(%#v) = %d", tc.v, n)
		}
		if b, ok := asBool(tc.v); tc.typ == "boolean" && ok && b != tc.wantBool {
			t.Errorf("asBool(%#v) = %v", tc.v, b)
		}
	}
}

func TestItems(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want []any
	}{
		{"a, b,c", []any{"a", "b", "c"}},
		{"", []any{}},
		{json.Number("5"), []any{"5"}},
		{[]any{"x", json.Number("2")}, []any{"x", json.Number("2")}},
		{[]string{"x"}, []any{"x"}},
	} {
		if got := items(tc.v); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("items(%#v) = %#v, want %#v", tc.v, got, tc.want)
		}
	}
}

// FuzzReadBody: body parsing never panics, and a body that parses yields only the value types the
// handlers expect; form and multipart bodies hold no more variables, and no deeper, than PHP reads.
func FuzzReadBody(f *testing.F) {
	for _, seed := range []string{`{"title":"x","venue":{"venue":"V"},"organizer":[1,{"id":2}]}`, `{"a":`, `[]`,
		"a[b][]=1&a[b][]=2&c=3", "a[=1&[]=2&a[0][x]=y", "&&a[]=1&a[-3]=2&a[]=3",
		string(multipartBody([2]string{"a[]", "-"}, [2]string{"f", ""}, [2]string{"b.c[d]", "-"}))} {
		for kind := range uint8(len(bodyKinds)) {
			f.Add(seed, kind)
		}
	}
	f.Fuzz(func(t *testing.T, body string, kind uint8) {
		k := bodyKinds[int(kind)%len(bodyKinds)]
		req, _ := http.NewRequest(k.method, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", k.ctype)
		p, err := readBody(req, DefaultMaxBody, nil)
		if err != nil {
			return
		}
		if k.ctype != "application/json" && len(p) > php.MaxInputVars+1 {
			t.Fatalf("%d variables read", len(p))
		}
		for _, v := range p {
			checkValue(t, v, 0, k.ctype != "application/json")
		}
	})
}

var bodyKinds = []struct{ method, ctype string }{
	{http.MethodPost, "application/json"},
	{http.MethodPost, "application/x-www-form-urlencoded"},
	{http.MethodPut, "application/x-www-form-urlencoded"},
	{http.MethodPost, "multipart/form-data; boundary=B"},
}

// checkValue checks a parsed value's types (a form's are strings, lists and maps) and, for form
// values, PHP's nesting limit.
func checkValue(t *testing.T, v any, depth int, form bool) {
	if form && depth > maxInputNesting {
		t.Fatalf("form value nested %d deep", depth)
	}
	switch x := v.(type) {
	case string:
	case nil, bool, json.Number:
		if form {
			t.Fatalf("form value of type %T", v)
		}
	case []any:
		for _, c := range x {
			checkValue(t, c, depth+1, form)
		}
	case map[string]any:
		for _, c := range x {
			checkValue(t, c, depth+1, form)
		}
	default:
		t.Fatalf("unexpected value type %T", v)
	}
}

// nested is a JSON object {"t":[[...inner...]]} with depth levels of arrays and objects in all.
func nested(depth int, inner string) string {
	return `{"t":` + strings.Repeat("[", depth-1) + inner + strings.Repeat("]", depth-1) + `}`
}

// nestedValue is what nested(depth+1, "1") decodes to under "t".
func nestedValue(depth int) any {
	var v any = json.Number("1")
	for range depth {
		v = []any{v}
	}
	return v
}

// TestJSONDepthErrors: which of the two errors WordPress reports, with the original's data members.
func TestJSONDepthErrors(t *testing.T) {
	_, err := parseJSONBody([]byte(nested(512, "1")))
	if string(errorJSON(err)) != `{"code":"rest_invalid_json","message":"Invalid JSON body passed.",`+
		`"data":{"status":400,"json_error_code":1,"json_error_message":"Maximum stack depth exceeded"}}` {
		t.Errorf("too deep: %s", errorJSON(err))
	}
	_, err = parseJSONBody([]byte(`{"a":x,"t":` + nested(600, "1") + `}`))
	if !strings.Contains(string(errorJSON(err)), `"json_error_code":4`) {
		t.Errorf("syntax error first: %s", errorJSON(err))
	}
	_, err = parseJSONBody([]byte(nested(600, "1")[:700]))
	if !strings.Contains(string(errorJSON(err)), `"json_error_code":1`) {
		t.Errorf("too deep before the syntax error: %s", errorJSON(err))
	}
}

func errorJSON(err error) []byte {
	_, body := errorBody(err)
	return mapping.EncodeJSON(body)
}

// errReader fails like a malformed chunked body does.
type errReader struct{}

func (errReader) Read([]byte) (int, error) {
	return 0, errors.New("http: invalid byte in chunk length")
}

// TestUnreadableBody: a body that cannot be read is the client's fault: 400, never a 500.
func TestUnreadableBody(t *testing.T) {
	req, _ := http.NewRequest(http.MethodPost, "/", errReader{})
	req.Header.Set("Content-Type", "application/json")
	_, err := readBody(req, DefaultMaxBody, nil)
	if status, _ := errorBody(err); status != http.StatusBadRequest {
		t.Errorf("got %d %v", status, err)
	}
}

// multipartBody is a multipart/form-data body (boundary "B") of the given parts, each a name and,
// for a file, its filename.
func multipartBody(parts ...[2]string) []byte {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString("--B\r\nContent-Disposition: form-data; name=\"" + p[0] + "\"")
		if p[1] != "-" {
			b.WriteString("; filename=\"" + p[1] + "\"")
		}
		b.WriteString("\r\n\r\n1\r\n")
	}
	b.WriteString("--B--\r\n")
	return []byte(b.String())
}

// TestMultipartLikePHP: what PHP 8.2 puts in $_POST (checked with php -S): field names as in
// forms, a part with a filename (even empty) is a file, the first 1000 fields only, and nothing
// after the 1020th part (max_multipart_body_parts).
func TestMultipartLikePHP(t *testing.T) {
	got := parseMultipart(multipartBody([2]string{"f", ""}, [2]string{"g", "-"}, [2]string{"h.i[j.k]", "-"}), "B")
	if want := (Params{"g": "1", "h_i": map[string]any{"j.k": "1"}}); !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}

	fields := func(prefix, filename string, n int) [][2]string {
		out := make([][2]string, n)
		for i := range out {
			out[i] = [2]string{prefix + strconv.Itoa(i), filename}
		}
		return out
	}
	if got := parseMultipart(multipartBody(fields("v", "-", 1005)...), "B"); len(got) != 1000 {
		t.Errorf("1005 fields: %d read, want 1000", len(got))
	}

	parts := append(fields("f", "a.txt", 1019), [2]string{"last", "-"}, [2]string{"over", "-"})
	if got := parseMultipart(multipartBody(parts...), "B"); !reflect.DeepEqual(got, Params{"last": "1"}) {
		t.Errorf("1019 files and 2 fields: %v, want only last", got)
	}
}

// jsonFaults are bodies and the json_last_error PHP's json_decode gives them (0: decoded), for the
// faults Go's decoder would let pass: bytes that are not UTF-8 and unpaired surrogate escapes, alone
// and against a syntax error or a nesting too deep, whichever comes first.
var jsonFaults = []struct {
	body string
	code int
}{
	{"{\"title\":\"T\xff\"}", 5},
	{`{"title":"\ud800"}`, 10},
	{`{"title":"\udc00"}`, 10},
	{`{"title":"\ud800\u0041"}`, 10},
	{`{"title":"\ud800\udc00"}`, 0},
	{`{"title":"\u00e9 \\ud800 \"` + "\xc3\xa9\"}", 0},
	{"[\"\xff\", }", 5},
	{"[1, }\"\xff\"", 4},
	{`{"a":"\ud800", "b":` + strings.Repeat("[", 600), 10},
	{strings.Repeat("[", 600) + "\"\xff\"", 1},
	{"{\"a\":\"\xc3\"}", 5},
	{`{"a":"\u12"}`, 4},
}

// TestJSONStringFaults: a body PHP cannot decode is WordPress' rest_invalid_json with PHP's error,
// never read (Go's decoder would replace the bad bytes and the write would go on).
func TestJSONStringFaults(t *testing.T) {
	for _, tc := range jsonFaults {
		_, err := parseJSONBody([]byte(tc.body))
		got := 0
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) {
				t.Fatalf("%q: %v", tc.body, err)
			}
			got = ae.Extra[0].Value.(int)
		}
		if got != tc.code {
			t.Errorf("%q: json_error_code %d, want %d", tc.body, got, tc.code)
		}
	}
}

// TestJSONFaultsAsPHP checks the table above against PHP's own json_decode where php is installed
// (make test installs it with WordPress).
func TestJSONFaultsAsPHP(t *testing.T) {
	php, ok := phptest.PHP(t)
	if !ok {
		return // the table is checked against Go alone (TestJSONStringFaults)
	}
	for _, tc := range jsonFaults {
		cmd := exec.Command(php, "-r", `json_decode(stream_get_contents(STDIN), true, 512); echo json_last_error();`)
		cmd.Stdin = strings.NewReader(tc.body)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != strconv.Itoa(tc.code) {
			t.Errorf("%q: php says %s, the table %d", tc.body, out, tc.code)
		}
	}
}
