package cmsclient

import (
	"context"
	"net/http"
	"testing"
)

// The precondition goes with the first write of its object only: not with reads, not with writes
// of other objects, not twice.
func TestIfVersionGoesWithTheFirstWrite(t *testing.T) {
	ctx := WithIfVersion(context.Background(), &IfVersion{Kind: "post", ID: 42, Versions: []string{"a1", "*"}})
	for _, c := range []struct{ method, path, want string }{
		{http.MethodGet, "/wp/v2/tribe_events/42", ""},
		{http.MethodPost, "/wp/v2/tribe_venue", ""},
		{http.MethodPost, "/wp/v2/tribe_venue/142", ""},
		{http.MethodPost, "/wp/v2/tribe_events/42", "post:42:a1,*"},
		{http.MethodDelete, "/wp/v2/tribe_events/42", ""},
	} {
		if got := ifVersionFor(ctx, c.method, c.path); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.method, c.path, got, c.want)
		}
	}
	if got := ifVersionFor(context.Background(), http.MethodPost, "/wp/v2/tribe_events/42"); got != "" {
		t.Errorf("without a precondition: %q", got)
	}
}
