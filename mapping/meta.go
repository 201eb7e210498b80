package mapping

import (
	"bytes"
	"encoding/binary"
	"errors"
	"maps"
	"slices"
	"strconv"
	"sync"
)

// Meta is a post's meta rows, stored compactly: a Go map per post weighs many times its rows at
// catalog scale, so a post holds only its values, in key order and row order within a key, and
// shares the key list and row counts (its shape) with every post of the same keys and counts. The
// values are packed into one string, preceded by their ends as little-endian uint32s: two pointers
// per post instead of one per row, for the collector's sake (see Text).
// The zero value has no rows. A Meta is immutable: the "with" methods return a new one.
type Meta struct {
	shape *metaShape
	buf   string // rows × 4 bytes of row ends (counted from the end of that prefix), then the values
}

// metaShape is a sorted key list and where each key's rows end; shared (metaShapes).
type metaShape struct {
	keys []string
	ends []int32
}

// metaShapes interns shapes by signature: a catalog has few distinct ones.
var metaShapes sync.Map // signature → *metaShape

// NewMeta returns the rows of m (key → rows in row order).
func NewMeta(m map[string][]string) Meta {
	if len(m) == 0 {
		return Meta{}
	}

	keys := slices.Sorted(maps.Keys(m))
	rows, size := 0, 0
	for _, k := range keys {
		rows += len(m[k])
		for _, v := range m[k] {
			size += len(v)
		}
	}

	buf := make([]byte, 4*rows, 4*rows+size)
	ends := make([]int32, 0, len(keys))
	row := 0
	for _, k := range keys {
		for _, v := range m[k] {
			buf = append(buf, v...)
			binary.LittleEndian.PutUint32(buf[4*row:], uint32(len(buf)-4*rows))
			row++
		}
		ends = append(ends, int32(row))
	}

	return Meta{shape: internShape(keys, ends), buf: string(buf)}
}

// internShape returns the shared shape of these keys and row ends.
func internShape(keys []string, ends []int32) *metaShape {
	sig := string(appendShapeSig(nil, keys, ends))
	if s, ok := metaShapes.Load(sig); ok {
		return s.(*metaShape)
	}

	s, _ := metaShapes.LoadOrStore(sig, &metaShape{keys: keys, ends: ends})
	return s.(*metaShape)
}

// internShapeOf is internShape of keys given as bytes: they become strings only for a shape not
// interned yet.
func internShapeOf(keys [][]byte, ends []int32) *metaShape {
	if s, ok := metaShapes.Load(string(appendShapeSig(nil, keys, ends))); ok {
		return s.(*metaShape)
	}

	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = string(k)
	}
	return internShape(names, ends)
}

// appendShapeSig appends the signature shapes are interned by.
func appendShapeSig[K string | []byte](sig []byte, keys []K, ends []int32) []byte {
	for i, k := range keys {
		sig = append(sig, k...)
		sig = append(sig, 0)
		sig = strconv.AppendInt(sig, int64(ends[i]), 10)
		sig = append(sig, 0)
	}
	return sig
}

// index returns the position of key in the shape, or -1.
func (m Meta) index(key string) int {
	if m.shape == nil {
		return -1
	}

	i, found := slices.BinarySearch(m.shape.keys, key)
	if !found {
		return -1
	}

	return i
}

// rows returns the row range of key ([from, to) in row order), to = -1 when the key has none.
func (m Meta) rows(key string) (from, to int) {
	i := m.index(key)
	if i < 0 {
		return 0, -1
	}

	if i > 0 {
		from = int(m.shape.ends[i-1])
	}
	return from, int(m.shape.ends[i])
}

// row returns row r's value.
func (m Meta) row(r int) string {
	base := 4 * int(m.shape.ends[len(m.shape.ends)-1])
	from := 0
	if r > 0 {
		from = le32(m.buf, 4*r-4)
	}
	return m.buf[base+from : base+le32(m.buf, 4*r)]
}

// le32 reads the little-endian uint32 at s[i:] (binary.LittleEndian wants a []byte).
func le32(s string, i int) int {
	return int(uint32(s[i]) | uint32(s[i+1])<<8 | uint32(s[i+2])<<16 | uint32(s[i+3])<<24)
}

// Get returns the rows of key (nil when the key has none), as a new slice.
func (m Meta) Get(key string) []string {
	from, to := m.rows(key)
	if to < 0 {
		return nil
	}

	out := make([]string, 0, to-from)
	for r := from; r < to; r++ {
		out = append(out, m.row(r))
	}
	return out
}

// First returns the first row of key and whether the key has rows.
func (m Meta) First(key string) (string, bool) {
	from, to := m.rows(key)
	if to <= from {
		return "", false
	}
	return m.row(from), true
}

// Has reports whether key has rows.
func (m Meta) Has(key string) bool { return m.index(key) >= 0 }

// Len is the number of keys.
func (m Meta) Len() int {
	if m.shape == nil {
		return 0
	}
	return len(m.shape.keys)
}

// Map returns the rows as a map (a copy).
func (m Meta) Map() map[string][]string {
	out := make(map[string][]string, m.Len())
	for i := range m.Len() {
		out[m.shape.keys[i]] = m.Get(m.shape.keys[i])
	}
	return out
}

// With returns m with key's rows replaced (nil rows: the key removed).
func (m Meta) With(key string, rows ...string) Meta {
	all := m.Map()
	delete(all, key)
	if rows != nil {
		all[key] = rows
	}
	return NewMeta(all)
}

// Added returns m with one row appended to key's rows.
func (m Meta) Added(key, row string) Meta {
	return m.With(key, append(m.Get(key), row)...)
}

// GobEncode writes the rows (the snapshot file keeps posts through gob): the number of keys, then
// each key, its number of rows and the rows, as length-prefixed strings and varints.
func (m Meta) GobEncode() ([]byte, error) {
	b := binary.AppendUvarint(nil, uint64(m.Len()))
	for i := range m.Len() {
		rows := m.Get(m.shape.keys[i])
		b = appendMetaString(b, m.shape.keys[i])
		b = binary.AppendUvarint(b, uint64(len(rows)))
		for _, r := range rows {
			b = appendMetaString(b, r)
		}
	}

	return b, nil
}

func appendMetaString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// GobDecode reads what GobEncode wrote. Its keys come in ascending order, each once: they are packed
// as they come, without a map (a restart decodes the meta of every post); rows in any other order
// go through NewMeta.
func (m *Meta) GobDecode(b []byte) error {
	r := metaReader{b: b}
	n := r.uvarint()
	var keys [][]byte
	var ends []int32
	rows, size, ascending := 0, 0, true
	for i := uint64(0); i < n && r.err == nil; i++ {
		key := r.bytes()
		ascending = ascending && (i == 0 || bytes.Compare(keys[len(keys)-1], key) < 0)
		keys = append(keys, key)
		count := r.uvarint()
		for j := uint64(0); j < count && r.err == nil; j++ {
			size += len(r.bytes())
			rows++
		}
		ends = append(ends, int32(rows))
	}

	switch {
	case r.err != nil:
		return r.err
	case !ascending:
		return m.gobDecodeMap(b)
	case n == 0:
		*m = Meta{}
		return nil
	}

	buf := make([]byte, 4*rows, 4*rows+size)
	r = metaReader{b: b}
	r.uvarint()
	row := 0
	for range n {
		r.bytes()
		for range r.uvarint() {
			buf = append(buf, r.bytes()...)
			binary.LittleEndian.PutUint32(buf[4*row:], uint32(len(buf)-4*rows))
			row++
		}
	}

	*m = Meta{shape: internShapeOf(keys, ends), buf: string(buf)}
	return nil
}

// gobDecodeMap reads GobEncode's rows into a map for NewMeta (a later key replaces an equal one).
func (m *Meta) gobDecodeMap(b []byte) error {
	r := metaReader{b: b}
	n := r.uvarint()
	all := make(map[string][]string, min(n, 1024))
	for i := uint64(0); i < n && r.err == nil; i++ {
		key := r.string()
		count := r.uvarint()
		rows := make([]string, 0, min(count, 1024))
		for j := uint64(0); j < count && r.err == nil; j++ {
			rows = append(rows, r.string())
		}
		all[key] = rows
	}

	if r.err != nil {
		return r.err
	}

	*m = NewMeta(all)
	return nil
}

// metaReader reads GobEncode's varints and strings, remembering the first error.
type metaReader struct {
	b   []byte
	err error
}

func (r *metaReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("mapping: truncated meta")
		return 0
	}

	r.b = r.b[n:]
	return v
}

func (r *metaReader) string() string { return string(r.bytes()) }

// bytes reads a length-prefixed string as a slice of the input.
func (r *metaReader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.err = errors.New("mapping: truncated meta")
		return nil
	}

	s := r.b[:n]
	r.b = r.b[n:]
	return s
}
