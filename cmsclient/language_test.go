package cmsclient_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"calshim/cmsclient"
	"calshim/internal/testkit/wpfake"
)

// A multilingual CMS gets the language on every request of a language variant's client (the catalog of
// that language reads through it), and other clients never send it.
func TestDefaultQueryOnEveryRequest(t *testing.T) {
	wp := wpfake.New(t)
	de := cmsclient.New(wp.Root, "", "", 5*time.Second)
	de.SetDefaultQuery("lang", "de")
	plain := cmsclient.New(wp.Root, "", "", 5*time.Second)
	ctx := context.Background()
	if _, err := de.Site(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := de.ListAll(ctx, "/wp/v2/tribe_events", url.Values{"status": {"publish"}}); err != nil {
		t.Fatal(err)
	}
	deRequests := len(wp.Requests())
	if _, _, err := plain.ListAll(ctx, "/wp/v2/tribe_venue", nil); err != nil {
		t.Fatal(err)
	}
	for i, r := range wp.Requests() {
		got, want := r.Query.Get("lang"), "de"
		if i >= deRequests {
			want = ""
		}
		if got != want {
			t.Errorf("request %d %s: lang = %q, want %q", i, r, got, want)
		}
	}
	if deRequests < 2 {
		t.Errorf("only %d requests recorded", deRequests)
	}
}
