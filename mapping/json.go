package mapping

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// Object is a JSON object whose keys keep their insertion order. The original's key order is part
// of the contract (clients and golden files compare bodies byte for byte), so every representation
// is built as an Object rather than a Go map.
type Object []KV

// KV is one member of an Object.
type KV struct {
	Key   string
	Value any
}

// Set appends key or, when key is already present, replaces its value in place.
func (o *Object) Set(key string, v any) {
	for i := range *o {
		if (*o)[i].Key == key {
			(*o)[i].Value = v
			return
		}
	}
	*o = append(*o, KV{key, v})
}

// Get returns the value of key.
func (o Object) Get(key string) (any, bool) {
	for _, kv := range o {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// Delete removes key.
func (o *Object) Delete(key string) {
	for i := range *o {
		if (*o)[i].Key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return
		}
	}
}

// Clone returns a shallow copy whose members can be replaced without touching o.
func (o Object) Clone() Object { return append(Object(nil), o...) }

// Raw is JSON that is already encoded (a pre-rendered representation) and is copied as is.
type Raw []byte

// EncodeJSON encodes v the way WordPress' wp_json_encode does with its default flags: "/" escaped
// as "\/", non-ASCII escaped as \uXXXX (UTF-16, surrogate pairs), "<", ">", "&" and "'" left alone.
// Supported values: nil, bool, int, int64, float64, string, []string, []int, []any, []Object,
// Object, Raw.
func EncodeJSON(v any) []byte {
	b, release := EncodeJSONPooled(v)
	out := slices.Clone(b) // one allocation of the exact size, not a chain of doublings
	release()
	return out
}

// EncodeJSONPooled is EncodeJSON into a pooled buffer, for an answer written once and dropped: the
// bytes are valid until release is called, which gives the buffer back.
func EncodeJSONPooled(v any) (b []byte, release func()) {
	buf := encodeBufs.Get().(*[]byte)
	*buf = AppendJSON((*buf)[:0], v)
	return *buf, func() {
		if cap(*buf) <= maxPooledEncoding {
			encodeBufs.Put(buf)
		}
	}
}

// encodeBufs are EncodeJSON's scratch buffers; one larger than maxPooledEncoding is dropped, so
// that a rare huge answer does not stay allocated.
var encodeBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

const maxPooledEncoding = 1 << 20

// AppendJSON appends the encoding of v to b.
func AppendJSON(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case float64:
		return strconv.AppendFloat(b, x, 'g', -1, 64)
	case string:
		return appendString(b, x)
	case Raw:
		return append(b, x...)
	case Object:
		b = append(b, '{')
		for i, kv := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, kv.Key)
			b = append(b, ':')
			b = AppendJSON(b, kv.Value)
		}
		return append(b, '}')
	case []any:
		return appendList(b, len(x), func(b []byte, i int) []byte { return AppendJSON(b, x[i]) })
	case []Object:
		return appendList(b, len(x), func(b []byte, i int) []byte { return AppendJSON(b, x[i]) })
	case []string:
		return appendList(b, len(x), func(b []byte, i int) []byte { return appendString(b, x[i]) })
	case []int:
		return appendList(b, len(x), func(b []byte, i int) []byte {
			return strconv.AppendInt(b, int64(x[i]), 10)
		})
	}

	panic(fmt.Sprintf("mapping: cannot encode %T", v))
}

func appendList(b []byte, n int, item func([]byte, int) []byte) []byte {
	b = append(b, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = item(b, i)
	}

	return append(b, ']')
}

const hexDigits = "0123456789abcdef"

func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for s != "" {
		n := 0 // a run of bytes written as they are, copied at once
		for n < len(s) && plainJSON[s[n]] {
			n++
		}
		b = append(b, s[:n]...)
		if s = s[n:]; s == "" {
			break
		}

		r, size := utf8.DecodeRuneInString(s) // an invalid byte is RuneError of size 1, as range gives
		s = s[size:]
		switch {
		case r == '"' || r == '\\' || r == '/':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r > 0xffff:
			r -= 0x10000
			b = appendU(b, 0xd800+(r>>10))
			b = appendU(b, 0xdc00+(r&0x3ff))
		default: // other control characters and every non-ASCII rune, RuneError included
			b = appendU(b, r)
		}
	}

	return append(b, '"')
}

// plainJSON marks the bytes appendString writes unescaped: printable ASCII but `"`, `\` and `/`
// (escaped as PHP's json_encode does).
var plainJSON = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '/'
	}
	return t
}()

func appendU(b []byte, r rune) []byte {
	return append(b, '\\', 'u',
		hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}
