// Package memo remembers the results of pure, costly functions of strings that repeat from request
// to request (a date's scan, an event's cost rows, an event's rendering), within a budget.
package memo

import (
	"strings"
	"sync"
	"sync/atomic"
)

// Memo maps keys to the results of one pure function, within a budget: a number of keys (New) or
// of bytes (NewSized). When the budget is spent the memo is dropped at once and fills again, which
// needs no bookkeeping per hit (an LRU would need a lock on every read) and costs only
// recomputations after a drop.
type Memo[V any] struct {
	budget int64
	cost   func(key string, v V) int64
	cur    atomic.Pointer[table[V]]
}

type table[V any] struct {
	m    sync.Map // string → V
	used atomic.Int64
}

// New returns an empty memo of at most keys keys.
func New[V any](keys int) *Memo[V] {
	return NewSized(int64(keys), func(string, V) int64 { return 1 })
}

// NewSized returns an empty memo whose entries cost what cost says, at most budget in all.
func NewSized[V any](budget int64, cost func(key string, v V) int64) *Memo[V] {
	m := &Memo[V]{budget: budget, cost: cost}
	m.cur.Store(new(table[V]))
	return m
}

// Get returns f(key), from memory when key was seen since the last drop. f must depend on key
// alone, and what it returns must not be modified by callers (it is shared).
func (m *Memo[V]) Get(key string, f func(string) V) V {
	t := m.cur.Load()
	if v, ok := t.m.Load(key); ok {
		return v.(V)
	}

	v := f(key)
	if t.used.Add(m.cost(key, v)) > m.budget {
		m.cur.CompareAndSwap(t, new(table[V]))
		return v
	}

	t.m.Store(strings.Clone(key), v) // key may be a slice of a larger string (a request body)
	return v
}

// Used is the part of the budget the entries held take.
func (m *Memo[V]) Used() int64 {
	return min(m.cur.Load().used.Load(), m.budget)
}
