package memo

import (
	"strconv"
	"sync"
	"testing"
)

func TestGetComputesOnce(t *testing.T) {
	m := New[int](10)
	calls := 0
	f := func(s string) int { calls++; return len(s) }
	for range 3 {
		if got := m.Get("abcd", f); got != 4 {
			t.Fatalf("Get = %d, want 4", got)
		}
	}
	if calls != 1 {
		t.Errorf("f called %d times, want 1", calls)
	}
}

func TestBounded(t *testing.T) {
	m := New[string](100)
	for i := range 1000 {
		k := strconv.Itoa(i)
		if got := m.Get(k, func(s string) string { return s + "!" }); got != k+"!" {
			t.Fatalf("Get(%q) = %q", k, got)
		}
		if m.Used() > 100 {
			t.Fatalf("%d keys held after %d, bound 100", m.Used(), i+1)
		}
	}
}

func TestConcurrent(t *testing.T) {
	m := New[int](50)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				k := strconv.Itoa((i * (g + 1)) % 120)
				if got := m.Get(k, func(s string) int { n, _ := strconv.Atoi(s); return n * 2 }); strconv.Itoa(got/2) != k {
					t.Errorf("Get(%q) = %d", k, got)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestSizedBudget(t *testing.T) {
	m := NewSized(1000, func(k string, v []byte) int64 { return int64(len(k) + len(v)) })
	for i := range 500 {
		k := strconv.Itoa(i)
		v := m.Get(k, func(s string) []byte { return make([]byte, 90) })
		if len(v) != 90 {
			t.Fatalf("Get(%q) has %d bytes", k, len(v))
		}
		if m.Used() > 1000 {
			t.Fatalf("%d bytes held, budget 1000", m.Used())
		}
	}
	calls := 0
	for range 3 {
		m.Get("hot", func(string) []byte { calls++; return []byte("x") })
	}
	if calls != 1 {
		t.Errorf("a key seen since the last drop was computed %d times", calls)
	}
}
