package adapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"calshim/mapping"
)

// maxBody bounds a write's body: the largest legitimate payload (an event with nested venue and
// organizers) is a few kilobytes.
const maxBody = 1 << 20

var errInvalidJSON = &apiError{
	Status:  http.StatusBadRequest,
	Code:    "rest_invalid_json",
	Message: "Invalid JSON body passed.",
	Extra: mapping.Object{
		{Key: "json_error_code", Value: 4},
		{Key: "json_error_message", Value: "Syntax error"},
	},
}

var errUnreadableBody = newError(http.StatusBadRequest, "rest_invalid_body",
	"The request body could not be read.")

// maxJSONDepth is PHP's json_decode depth limit as WordPress decodes bodies (depth 512: at most 511
// nested arrays and objects).
const maxJSONDepth = 511

// errJSONDepth is WordPress' answer to a body nested deeper than PHP decodes.
var errJSONDepth = &apiError{
	Status:  http.StatusBadRequest,
	Code:    "rest_invalid_json",
	Message: "Invalid JSON body passed.",
	Extra: mapping.Object{
		{Key: "json_error_code", Value: 1},
		{Key: "json_error_message", Value: "Maximum stack depth exceeded"},
	},
}

// readBody parses a write's body into parameters, as WordPress does: a JSON object when the content
// type is application/json (malformed → rest_invalid_json; a valid non-object is ignored),
// PHP-style form fields for application/x-www-form-urlencoded, nothing for other types. JSON values
// keep their JSON types (json.Number, bool, nil, []any, map[string]any) so type checks can tell "1"
// from 1; form values are strings, []any lists ("a[]=") and map[string]any ("a[k]=").
func readBody(req *http.Request) (Params, error) {
	if req.Body == nil {
		return nil, nil
	}

	raw, err := io.ReadAll(io.LimitReader(req.Body, maxBody+1))
	if err != nil {
		// A body that cannot be read (a malformed chunked encoding, a connection cut mid-body) is
		// the client's fault. PHP never sees such a request: the web server in front of it refuses
		// it with a bare 400 (PHP's own server drops the connection); this is that 400 with an error
		// body in WordPress' form.
		return nil, errUnreadableBody
	}

	if len(raw) > maxBody {
		return nil, newError(http.StatusRequestEntityTooLarge, "rest_request_too_large",
			"The request body is too large.")
	}

	ct, ctParams, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		return parseJSONBody(raw)
	case "application/x-www-form-urlencoded":
		return parseForm(string(raw)), nil
	case "multipart/form-data":
		return parseMultipart(raw, ctParams["boundary"]), nil
	}

	return nil, nil
}

// parseMultipart reads the fields of a multipart/form-data body as PHP fills $_POST from it (same
// key syntax as forms); file parts are ignored, as $_POST does. A malformed body yields what was
// read.
func parseMultipart(raw []byte, boundary string) Params {
	root := map[string]any{}
	mr := multipart.NewReader(bytes.NewReader(raw), boundary)
	for {
		part, err := mr.NextPart()
		if err != nil {
			break
		}
		if part.FileName() == "" && part.FormName() != "" {
			if val, err := io.ReadAll(part); err == nil {
				name, path := splitFormKey(part.FormName())
				setForm(root, name, path, string(val))
			}
		}
		// The part reads from an in-memory buffer: closing it only skips to the next part and
		// has no failure worth reporting.
		_ = part.Close()
	}

	for k, v := range root {
		root[k] = listify(v)
	}

	return Params(root)
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

	if deep := tooDeepAt(raw); deep >= 0 && (err == nil || deep < syntaxOffset(err, len(raw))) {
		return nil, errJSONDepth
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

// tooDeepAt returns the offset where raw opens its (maxJSONDepth+1)th nested array or object, or
// -1. PHP's parser reports whichever comes first, too deep or a syntax error, so the offset is
// compared with the decoder's.
func tooDeepAt(raw []byte) int {
	depth, inString, escaped := 0, false, false
	for i, c := range raw {
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			if depth++; depth > maxJSONDepth {
				return i
			}
		case c == ']' || c == '}':
			depth--
		}
	}

	return -1
}

// syntaxOffset is where decoding failed: the syntax error's offset, else the end of the body.
func syntaxOffset(err error, size int) int {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return int(se.Offset)
	}
	return size
}

// parseForm is PHP's parse_str: "a=1", "a[]=1&a[]=2" (a list), "a[k]=v" and deeper nesting
// ("organizer[0][organizer]=X"). Lists whose keys are 0..n-1 become []any.
func parseForm(raw string) Params {
	root := map[string]any{}
	eachPair(raw, func(key, val string) {
		name, path := splitFormKey(key)
		setForm(root, name, path, val)
	})
	for k, v := range root {
		root[k] = listify(v)
	}
	return Params(root)
}

// splitFormKey splits "a[b][]" into "a" and ["b", ""]. A key without a closing bracket is taken
// whole, as PHP does.
func splitFormKey(key string) (string, []string) {
	i := strings.IndexByte(key, '[')
	if i <= 0 {
		return key, nil
	}

	name, rest := key[:i], key[i:]
	var path []string
	for strings.HasPrefix(rest, "[") {
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			break
		}
		path = append(path, rest[1:j])
		rest = rest[j+1:]
	}

	if len(path) == 0 {
		return key, nil
	}

	return name, path
}

// setForm stores val at m[name][path...]; "" path members append (PHP's next numeric index).
func setForm(m map[string]any, name string, path []string, val string) {
	if len(path) == 0 {
		m[name] = val
		return
	}

	child, ok := m[name].(map[string]any)
	if !ok {
		child = map[string]any{}
		m[name] = child
	}

	key := path[0]
	if key == "" {
		key = strconv.Itoa(nextIndex(child))
	}

	setForm(child, key, path[1:], val)
}

func nextIndex(m map[string]any) int {
	n := 0
	for k := range m {
		if i, err := strconv.Atoi(k); err == nil && i >= n {
			n = i + 1
		}
	}
	return n
}

// listify turns maps keyed 0..n-1 into lists, recursively.
func listify(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}

	for k, c := range m {
		m[k] = listify(c)
	}

	list := make([]any, len(m))
	for i := range list {
		c, ok := m[strconv.Itoa(i)]
		if !ok {
			return m
		}
		list[i] = c
	}

	return list
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
