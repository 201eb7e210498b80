package catalog_test

import (
	"context"
	"testing"
	"time"

	"calshim/internal/testkit/wpfake"
)

// A request may wait for the first load, and for a change log sequence: both return as soon as the
// catalog gets there, and give up when their context ends.
func TestWaitLoadedAndSequence(t *testing.T) {
	fake := wpfake.New(t)
	feed := newFakeFeed(fake)
	cat := newCatalog(t, fake)
	if _, ok := cat.Sequence(); ok {
		t.Fatal("a catalog not loaded has a sequence")
	}

	short, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if cat.WaitLoaded(short) != nil {
		t.Fatal("WaitLoaded returned a snapshot before any load")
	}

	go func() { time.Sleep(50 * time.Millisecond); _ = cat.Load(context.Background()) }()
	if cat.WaitLoaded(context.Background()) == nil {
		t.Fatal("WaitLoaded returned no snapshot")
	}

	start, _ := cat.Sequence()
	ev := fake.IDs("tribe_events")[0]
	feed.change("tribe_events", ev)
	short2, cancel2 := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel2()
	if got, ok := cat.WaitSequence(short2, start+1); !ok || got != start {
		t.Errorf("before a poll: WaitSequence = %d, %v; want %d, true", got, ok, start)
	}

	go func() { time.Sleep(50 * time.Millisecond); _ = cat.Poll(context.Background()) }()
	if got, ok := cat.WaitSequence(context.Background(), start+1); !ok || got != start+1 {
		t.Errorf("after a poll: WaitSequence = %d, %v; want %d, true", got, ok, start+1)
	}
}
