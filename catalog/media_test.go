package catalog_test

import (
	"context"
	"testing"

	"calshim/internal/testkit/wpfake"
)

// Through the plugin's feed, featured images are read from the plugin's attachments by ID (any
// status, as TEC reads them), at the load and when a change shows another image; wp/v2/media, which
// lists only the statuses inherit and private, is not asked.
func TestFeedReadsFeaturedImagesFromThePlugin(t *testing.T) {
	fake := wpfake.New(t)
	feed := newFakeFeed(fake)
	cat := newCatalog(t, fake)
	if err := cat.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if m, ok := cat.Snapshot().Media(4); !ok || len(m.Sizes) != 4 {
		t.Errorf("Media(4) = %+v, %v, want the stage image with 4 sizes", m, ok)
	}

	fake.Clone("media", 4, 98, nil)
	ev := fake.IDs("tribe_events")[1]
	fake.Update("tribe_events", ev, func(o wpfake.Object) { o["featured_media"] = 98 })
	feed.change("tribe_events", ev)
	if _, ok := mustPoll(t, cat).Media(98); !ok {
		t.Error("Media(98), shown by a changed event, not read")
	}
	if n := countPaths(fake); n["/calshim/v1/media"] != 2 || n["/wp/v2/media"] != 0 {
		t.Errorf("attachment requests: plugin %d, wp/v2 %d; want 2, 0", n["/calshim/v1/media"], n["/wp/v2/media"])
	}
}

// A plugin with the feed but older than its media route (404) still gives the featured images,
// through wp/v2/media.
func TestFeedImagesFromAnOlderPlugin(t *testing.T) {
	fake := wpfake.New(t)
	newFakeFeed(fake).noMedia = true
	cat := newCatalog(t, fake)
	if err := cat.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := cat.Snapshot().Media(4); !ok || countPaths(fake)["/wp/v2/media"] != 1 {
		t.Errorf("Media(4) %v after %v", ok, countPaths(fake))
	}
}
