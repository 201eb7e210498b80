package adapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"calshim/mapping/php"
)

// DefaultMaxBody bounds a write's body unless configured (limits.max_body_bytes): the largest
// legitimate payload (an event with nested venue and organizers) is a few kilobytes; 1 MiB is
// nginx's client_max_body_size default.
const DefaultMaxBody = 1 << 20

// What decoding a body costs in memory beyond its bytes, for the memory budget (http_request.go):
// Go's JSON decoder makes each value an interface, a string or number a string header besides its
// bytes, and containers grow by doubling, about 110 bytes per value at worst ([0,0,0,…] allocates 55
// times its bytes); a form or multipart body is at most maxBodyParts variables of PHP's array.
const (
	jsonValueCost = 112
	bodyByteCost  = 4 // the body, the decoder's copy, the strings and their growth
	formVarCost   = 256
)

var errInvalidJSON = invalidJSON(4, "Syntax error")

// errJSONUTF8 and errJSONUTF16 are WordPress' answers to a JSON string PHP cannot decode: bytes that
// are not UTF-8, or an escaped UTF-16 surrogate without its pair.
// maxJSONDepth is PHP's json_decode depth limit as WordPress decodes bodies (depth 512: at most 511
// nested arrays and objects).
const maxJSONDepth = 511

// errJSONDepth is WordPress' answer to a body nested deeper than PHP decodes.
var errJSONDepth = invalidJSON(1, "Maximum stack depth exceeded")

// readBody reads a write's body, at most limit bytes (413 past it, from Content-Length before
// reading anything, or where a chunked body passes it), and parses it into parameters, as WordPress
// does: a JSON object when the content type is application/json (malformed → rest_invalid_json; a
// valid non-object is ignored), PHP-style form fields for application/x-www-form-urlencoded (a POST's
// as PHP fills $_POST, other methods' as WordPress' parse_str; the method is the one after _method,
// so an overridden POST counts its variables as parse_str does) and multipart/form-data, nothing for
// other types. JSON values keep their JSON types (json.Number, bool, nil, []any, map[string]any) so
// type checks can tell "1" from 1; form values are strings, []any lists ("a[]=") and map[string]any
// ("a[k]="). take is given the bytes the body will occupy before they are read, then what decoding
// it will take before it is decoded (nil: unbounded, tests); its error refuses the request.
func readBody(req *http.Request, limit int64, take func(int64) error) (Params, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}

	if take == nil {
		take = func(int64) error { return nil }
	}

	raw, err := readLimited(req, limit, take)
	if err != nil {
		return nil, err
	}

	ct, ctParams, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		if err := take(int64(len(raw))*bodyByteCost + int64(jsonValues(raw))*jsonValueCost); err != nil {
			return nil, err
		}
		return parseJSONBody(raw)
	case "application/x-www-form-urlencoded", "multipart/form-data":
		if err := take(int64(len(raw))*bodyByteCost + maxBodyParts*formVarCost); err != nil {
			return nil, err
		}
	}

	switch ct {
	case "application/x-www-form-urlencoded":
		if req.Method == http.MethodPost {
			return parseFormWith(php.EachPostPair, string(raw)), nil
		}
		return parseFormWith(php.EachPair, string(raw)), nil // WordPress' parse_str
	case "multipart/form-data":
		return parseMultipart(raw, ctParams["boundary"]), nil
	}

	return nil, nil
}

// readLimited reads a body of at most limit bytes into one buffer of its size: a declared length
// past the limit is refused before anything is read; a chunked body is read up to one byte past it.
func readLimited(req *http.Request, limit int64, take func(int64) error) ([]byte, error) {
	if req.ContentLength > limit {
		return nil, errBodyTooLarge
	}

	size := req.ContentLength
	if size <= 0 { // unknown (0 with a body is a client-side request's unknown): up to the limit,
		size = 2 * limit // as io.ReadAll grows its buffer
	}

	if err := take(size); err != nil {
		return nil, err
	}

	// A body that cannot be read (a malformed chunked encoding, a connection cut mid-body) is
	// the client's fault. PHP never sees such a request: the web server in front of it refuses it
	// with a bare 400 (PHP's own server drops the connection); this is that 400 with an error body
	// in WordPress' form.
	if req.ContentLength > 0 {
		raw := make([]byte, size)
		if _, err := io.ReadFull(req.Body, raw); err != nil {
			return nil, errUnreadableBody
		}
		return raw, nil
	}

	// Of unknown length: read as it comes (a small chunked body takes little), up to one byte past
	// the limit.
	raw, err := io.ReadAll(io.LimitReader(req.Body, limit+1))
	switch {
	case err != nil:
		return nil, errUnreadableBody
	case int64(len(raw)) > limit:
		return nil, errBodyTooLarge
	}
	return raw, nil
}

// jsonValues counts the values a JSON body can decode into at most: its brackets, commas and
// colons outside strings, plus one.
func jsonValues(raw []byte) int {
	n := 1
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
		case '[', '{', ',', ':':
			n++
		}
	}
	return n
}

// maxBodyParts is PHP's max_multipart_body_parts by default: max_input_vars plus max_file_uploads
// (20). PHP stops reading a multipart body there.
const maxBodyParts = php.MaxInputVars + 20

// parseMultipart reads the fields of a multipart/form-data body as PHP fills $_POST from it
// (rfc1867.c: the same variable names as forms, the first php.MaxInputVars fields, no more than
// maxBodyParts parts); file parts are ignored, as $_POST does. A malformed body yields what was
// read.
func parseMultipart(raw []byte, boundary string) Params {
	root := newFormArray()
	mr := multipart.NewReader(bytes.NewReader(raw), boundary)
	for parts, fields := 0, 0; parts < maxBodyParts; parts++ {
		part, err := mr.NextPart()
		if err != nil {
			break
		}
		if !isFilePart(part) && part.FormName() != "" {
			if fields++; fields > php.MaxInputVars {
				continue
			}
			if val, err := io.ReadAll(part); err == nil {
				root.register(php.VarName(part.FormName()), string(val))
			}
		}
	}

	return root.params()
}

// isFilePart reports whether a part has a filename, even an empty one: PHP takes it for a file.
func isFilePart(part *multipart.Part) bool {
	_, params, _ := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
	_, ok := params["filename"]
	return ok
}

// parseJSONBody decodes a JSON body; an empty body is no parameters.
func parseJSONBody(raw []byte) (Params, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}

	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, end := dec.Token(); end != io.EOF {
			err = errInvalidJSON
		}
	}

	if at, fault := jsonFaultAt(raw); fault != nil && (err == nil || at < syntaxOffset(err, len(raw))) {
		return nil, fault
	}

	if err != nil {
		return nil, errInvalidJSON
	}

	obj, ok := v.(map[string]any)
	if !ok {
		return nil, nil
	}

	return Params(obj), nil
}

// jsonFaultAt returns where PHP's json_decode finds a fault that Go's decoder lets pass, and
// WordPress' answer to it, or -1: an array or object nested past maxJSONDepth, a string holding bytes
// that are not UTF-8 (Go replaces them) or a \u escape of an unpaired UTF-16 surrogate (Go replaces it
// too). PHP's parser reports whichever fault comes first, so the offset is compared with the decoder's.
func jsonFaultAt(raw []byte) (int, *apiError) {
	depth := 0
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			end, at, fault := scanJSONString(raw, i+1)
			if fault != nil {
				return at, fault
			}
			i = end
		case '[', '{':
			if depth++; depth > maxJSONDepth {
				return i, errJSONDepth
			}
		case ']', '}':
			depth--
		}
	}
	return -1, nil
}

// scanJSONString reads the string whose content starts at i: it returns the offset of its closing
// quote (or the body's end), and the first fault in it with its offset.
func scanJSONString(raw []byte, i int) (end, at int, fault *apiError) {
	for i < len(raw) {
		c := raw[i]
		switch {
		case c == '"':
			return i, -1, nil
		case c == '\\' && i+1 < len(raw) && raw[i+1] == 'u':
			n := surrogateEscapes(raw[i:])
			if n < 0 {
				return len(raw), i, errJSONUTF16
			}
			i += n
		case c == '\\':
			i += 2
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError && size == 1 {
				return len(raw), i, errJSONUTF8
			}
			i += size
		}
	}
	return len(raw), -1, nil
}

// surrogateEscapes returns how many bytes the \u escape at the start of b takes (two escapes for a
// surrogate pair), or -1 for a surrogate without its pair. A malformed escape is the decoder's
// syntax error, so it counts as the two bytes of "\u".
func surrogateEscapes(b []byte) int {
	r, ok := hexEscape(b)
	switch {
	case !ok:
		return 2
	case !utf16.IsSurrogate(r):
		return 6
	case r >= 0xDC00: // a low surrogate first
		return -1
	}
	if low, ok := hexEscape(b[6:]); ok && low >= 0xDC00 && low <= 0xDFFF {
		return 12
	}
	return -1
}

// hexEscape reads the rune of a \uXXXX escape at the start of b.
func hexEscape(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[2:6]), 16, 16)
	return rune(n), err == nil
}

// syntaxOffset is where decoding failed: the syntax error's offset, else the end of the body.
func syntaxOffset(err error, size int) int {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return int(se.Offset)
	}
	return size
}

// parseForm reads a query string as PHP fills $_GET (php.EachPair; register for the key syntax).
func parseForm(raw string) Params {
	return parseFormWith(php.EachPair, raw)
}

// parseFormWith reads the pairs walk yields into PHP arrays, and those into Params: maps keyed
// 0..n-1 become lists.
func parseFormWith(walk func(string, func(key, val string)), raw string) Params {
	root := newFormArray()
	walk(raw, root.register)
	return root.params()
}

// formArray is a PHP array being filled from request variables: its values are strings or
// *formArray, and next is the index "a[]" takes (PHP's nNextFreeElement: one past the largest
// integer key, starting from the first one even when negative, else 0).
type formArray struct {
	m    map[string]any
	next int64
}

// noNext is PHP's nNextFreeElement before any integer key: "a[]" then takes 0.
const noNext = math.MinInt64

func newFormArray() *formArray { return &formArray{m: map[string]any{}, next: noNext} }

// register is php_register_variable_ex: val goes under key ("a", "a[b]", "a[]", "a[b][][c]"); a
// key with no name is dropped, and one nested too deep drops its whole variable, as in PHP.
func (a *formArray) register(key, val string) {
	name, path, ok := splitFormKey(key)
	if !ok {
		delete(a.m, name)
		return
	}

	if name == "" {
		return
	}

	cur, idx := a, name
	for _, next := range path {
		if cur = cur.child(idx); cur == nil {
			return
		}
		idx = next
	}

	cur.put(idx, val)
}

// child is the array at key k ("" appends a new one), replacing a string there; nil when an
// append finds no free index.
func (a *formArray) child(k string) *formArray {
	if c, ok := a.m[k].(*formArray); ok {
		return c
	}

	c := newFormArray()
	if !a.put(k, c) {
		return nil
	}

	return c
}

// put sets a.m[k] = v, k "" appending; it reports false when an append finds no free index (the
// largest integer key is PHP's maximum), which PHP drops.
func (a *formArray) put(k string, v any) bool {
	if k == "" {
		n := a.next
		if n == noNext {
			n = 0
		}
		k = strconv.FormatInt(n, 10)
		if _, taken := a.m[k]; taken {
			return false
		}
	}

	if n, ok := phpIntKey(k); ok && n >= a.next {
		a.next = n
		if n < math.MaxInt64 {
			a.next = n + 1
		}
	}

	a.m[k] = v
	return true
}

// phpIntKey reports whether PHP stores array key k as an integer: a canonical decimal ("7", "-7";
// not "07", "-0", "+7" or one past the 64-bit range).
func phpIntKey(k string) (int64, bool) {
	digits := strings.TrimPrefix(k, "-")
	if digits == "" || digits[0] == '0' && (len(digits) > 1 || k != digits) {
		return 0, false
	}

	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}

	n, err := strconv.ParseInt(k, 10, 64)
	return n, err == nil
}

// params converts the array to Params: nested arrays keyed 0..n-1 become []any, others
// map[string]any.
func (a *formArray) params() Params {
	out := make(Params, len(a.m))
	for k, v := range a.m {
		out[k] = formValue(v)
	}
	return out
}

func formValue(v any) any {
	c, ok := v.(*formArray)
	if !ok {
		return v
	}

	m := map[string]any(c.params())
	list := make([]any, len(m))
	for i := range list {
		item, ok := m[strconv.Itoa(i)]
		if !ok {
			return m
		}
		list[i] = item
	}

	return list
}

// splitFormKey splits a variable name (phpVarName's) into its name and bracketed path: "a[b][]" is
// "a" and ["b", ""] ("" appends). What follows the last "]" that is not another "[" is ignored, as
// PHP does; ok is false past maxInputNesting levels.
func splitFormKey(key string) (name string, path []string, ok bool) {
	i := strings.IndexByte(key, '[')
	if i < 0 {
		return key, nil, true
	}

	name, rest := key[:i], key[i:]
	for strings.HasPrefix(rest, "[") {
		if len(path) == maxInputNesting {
			return name, nil, false
		}
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			break
		}
		path = append(path, rest[1:j])
		rest = rest[j+1:]
	}

	return name, path, true
}

// mergeParams applies WordPress' precedence, first found wins: body (JSON or form), then query.
func mergeParams(query, body Params) Params {
	out := Params{}
	for k, v := range query {
		out[k] = v
	}
	for k, v := range body {
		out[k] = v
	}
	return out
}
