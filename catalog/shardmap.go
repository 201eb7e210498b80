package catalog

import (
	"hash/maphash"
	"iter"
	"reflect"
)

// shardCount is how many maps a shardMap spreads its entries over: a change copies one shard (a
// thousandth of a million posts) and the list of shards, never the whole map.
const shardCount = 1024

// shardMap is a map that snapshots share: changes are made on an edit, which copies the shards it
// writes to and leaves the map it was made from as it was, so that a poll that changes k posts of
// n costs k shards of n/shardCount entries, not a copy of n. Never modify a shardMap in place.
type shardMap[K comparable, V any] struct {
	shards []map[K]V // nil until the first entry
	n      int
	of     func(K) uint64
}

func newShardMap[K comparable, V any](of func(K) uint64) *shardMap[K, V] {
	return &shardMap[K, V]{of: of}
}

func intShard(k int) uint64 { return uint64(k) }

var slugSeed = maphash.MakeSeed()

func stringShard(k string) uint64 { return maphash.String(slugSeed, k) }

// shardMapOf returns a shardMap holding m's entries.
func shardMapOf[K comparable, V any](m map[K]V, of func(K) uint64) *shardMap[K, V] {
	e := newShardMap[K, V](of).edit()
	for k, v := range m {
		e.set(k, v)
	}
	return e.done()
}

// get answers the value of k.
func (m *shardMap[K, V]) get(k K) (V, bool) {
	if m == nil || m.shards == nil {
		var zero V
		return zero, false
	}
	v, ok := m.shards[m.of(k)%shardCount][k]
	return v, ok
}

// len is the number of entries.
func (m *shardMap[K, V]) len() int {
	if m == nil {
		return 0
	}
	return m.n
}

// all yields every entry, in no particular order.
func (m *shardMap[K, V]) all() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		if m == nil {
			return
		}
		for _, s := range m.shards {
			for k, v := range s {
				if !yield(k, v) {
					return
				}
			}
		}
	}
}

// unshared answers, for each shard m does not share with old (those an edit from old to m wrote
// to), m's shard and old's: what a few edits changed, found at the cost of those edits' shards. ok
// is false when the two share no shard (old nil or empty, or a map not made from it): compare them
// whole. Shared shards are equal: shards are never modified once a map is done.
func (m *shardMap[K, V]) unshared(old *shardMap[K, V]) (pairs [][2]map[K]V, ok bool) {
	if m == nil || old == nil || m.shards == nil || old.shards == nil {
		return nil, false
	}
	for i, s := range m.shards {
		if o := old.shards[i]; reflect.ValueOf(s).UnsafePointer() != reflect.ValueOf(o).UnsafePointer() {
			pairs = append(pairs, [2]map[K]V{s, o})
		}
	}
	return pairs, len(pairs) < len(m.shards)
}

// diffKeys answers the keys m holds and old does not (added) and those old holds and m does not
// (removed), from the shards they do not share (unshared); ok as unshared's.
func (m *shardMap[K, V]) diffKeys(old *shardMap[K, V]) (added, removed []K, ok bool) {
	pairs, ok := m.unshared(old)
	for _, p := range pairs {
		for k := range p[0] {
			if _, had := p[1][k]; !had {
				added = append(added, k)
			}
		}
		for k := range p[1] {
			if _, has := p[0][k]; !has {
				removed = append(removed, k)
			}
		}
	}
	return added, removed, ok
}

// toMap copies the entries into a plain map.
func (m *shardMap[K, V]) toMap() map[K]V {
	out := make(map[K]V, m.len())
	for k, v := range m.all() {
		out[k] = v
	}
	return out
}

// shardEdit is a copy of a shardMap being changed: it owns the shards it copied.
type shardEdit[K comparable, V any] struct {
	m     shardMap[K, V]
	owned []bool
}

// edit starts a changed copy of m; m stays as it is.
func (m *shardMap[K, V]) edit() *shardEdit[K, V] {
	e := &shardEdit[K, V]{m: *m}
	if m.shards != nil {
		e.m.shards = append([]map[K]V(nil), m.shards...)
	}
	return e
}

func (e *shardEdit[K, V]) get(k K) (V, bool) { return e.m.get(k) }

// own is k's shard, copied the first time this edit writes to it.
func (e *shardEdit[K, V]) own(k K) map[K]V {
	if e.m.shards == nil {
		e.m.shards = make([]map[K]V, shardCount)
	}
	if e.owned == nil {
		e.owned = make([]bool, shardCount)
	}
	i := e.m.of(k) % shardCount
	if !e.owned[i] {
		s := make(map[K]V, len(e.m.shards[i])+1)
		for k, v := range e.m.shards[i] {
			s[k] = v
		}
		e.m.shards[i], e.owned[i] = s, true
	}
	return e.m.shards[i]
}

func (e *shardEdit[K, V]) set(k K, v V) {
	s := e.own(k)
	if _, had := s[k]; !had {
		e.m.n++
	}
	s[k] = v
}

func (e *shardEdit[K, V]) delete(k K) {
	if _, had := e.get(k); !had {
		return
	}
	delete(e.own(k), k)
	e.m.n--
}

// done is the changed map; the edit must not be used after.
func (e *shardEdit[K, V]) done() *shardMap[K, V] {
	m := e.m
	return &m
}
