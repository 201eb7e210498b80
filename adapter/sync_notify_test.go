package adapter

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"calshim/internal/testkit/wpfake"
)

const testSecret = "a-notify-secret-of-the-tests"

// A push notice with the secret makes the catalog poll at once (its interval is an hour here); one
// without it, or with another, is refused and polls nothing.
func TestNotifyPollsAtOnce(t *testing.T) {
	wp := wpfake.New(t)
	cat := fakeCatalog(t, wp)
	opt := testOptions()
	opt.NotifySecret = testSecret
	h := NewServer(cat, zap.NewNop(), opt)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go cat.Run(ctx, nil)

	wp.ResetRequests()
	for _, auth := range []string{"", "Bearer wrong-secret-of-some-length", testSecret} {
		if rec := serve(h, http.MethodPost, notifyPath, asUser(auth)); rec.Code != http.StatusUnauthorized ||
			!strings.Contains(rec.Body.String(), `"calshim_notify_unauthorized"`) {
			t.Errorf("notice with %q: %d %s", auth, rec.Code, rec.Body)
		}
	}
	time.Sleep(50 * time.Millisecond)
	if n := len(wp.Requests()); n != 0 {
		t.Fatalf("refused notices made %d upstream requests", n)
	}

	if rec := serve(h, http.MethodPost, notifyPath, asUser("Bearer "+testSecret)); rec.Code != http.StatusAccepted {
		t.Fatalf("notice: %d %s", rec.Code, rec.Body)
	}
	for deadline := time.Now().Add(5 * time.Second); len(wp.Requests()) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("no poll within 5 s of the notice")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Without a secret there is no notice endpoint: the path answers as any unknown path did before.
func TestNotifyOffWithoutSecret(t *testing.T) {
	h := newTestServer(t)
	rec := serve(h, http.MethodPost, notifyPath, asUser("Bearer "+testSecret))
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), `"rest_no_route"`) {
		t.Errorf("notice without a configured secret: %d %s", rec.Code, rec.Body)
	}
}
