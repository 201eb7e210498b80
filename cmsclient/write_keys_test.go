package cmsclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"calshim/cmsclient"
)

// TestWriteKeys: a write carries a key of 32 hex digits; its answer lost (the connection cut), it
// is sent again with the same key until an answer comes, at most 4 times, when the REST index says
// the plugin keys writes (write_keys); an older plugin gets it once (a create sent twice would be
// made twice). A write never answered is ErrWriteUnknown; reads carry no key.
func TestWriteKeys(t *testing.T) {
	for _, tc := range []struct {
		name      string
		writeKeys bool
		lost      int // answers lost before one comes
		attempts  int
		unknown   bool
	}{
		{"keyed, answered at once", true, 0, 1, false},
		{"keyed, two answers lost", true, 2, 3, false},
		{"keyed, every answer lost", true, 10, 4, true},
		{"older plugin, answer lost", false, 1, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var keys []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/wp-json/" {
					index := `{"name":"x","home":"http://x","calshim":{"version":"1"}}`
					if tc.writeKeys {
						index = `{"name":"x","home":"http://x","calshim":{"version":"1","write_keys":1}}`
					}
					_, _ = w.Write([]byte(index))
					return
				}
				mu.Lock()
				keys = append(keys, r.Header.Get(cmsclient.WriteKeyHeader))
				n := len(keys)
				mu.Unlock()
				if r.Method != http.MethodGet && n <= tc.lost {
					if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
						conn.Close()
					}
					return
				}
				w.WriteHeader(http.StatusCreated)
				_, _ = w.Write([]byte(`{"id":7}`))
			}))
			defer srv.Close()
			c := newClient(srv.URL + "/wp-json")
			c.WritePause = time.Millisecond
			if _, err := c.Site(context.Background()); err != nil {
				t.Fatal(err)
			}
			creds := cmsclient.Credentials{Authorization: "Basic eDp5"}
			_, err := c.Send(context.Background(), http.MethodPost, "/wp/v2/tribe_events", nil, creds, map[string]any{})
			if got := errors.Is(err, cmsclient.ErrWriteUnknown); got != tc.unknown {
				t.Errorf("error %v, unknown %v, want %v", err, got, tc.unknown)
			}
			sent := func() []string { mu.Lock(); defer mu.Unlock(); return keys[:len(keys):len(keys)] }
			if got := sent(); len(got) != tc.attempts {
				t.Errorf("sent %d times, want %d", len(got), tc.attempts)
			}
			for _, k := range sent() {
				if len(k) != 32 || k != sent()[0] {
					t.Errorf("keys %q: want one key of 32 hex digits", sent())
				}
			}
			n := len(sent())
			if _, err := c.Send(context.Background(), http.MethodGet, "/wp/v2/users/me", nil, creds, nil); err != nil ||
				len(sent()) != n+1 || sent()[n] != "" {
				t.Errorf("a read: %v, keys %q", err, sent()[n:])
			}
		})
	}
}
