package adapter

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"calshim/adapter/shadow"
)

// Only anonymous reads the client got an answer to go to the original: every class of request
// that writes, carries credentials, a cookie or a nonce, changes its method, uses calshim's own
// parameters or was refused stays home.
func TestShadowEligible(t *testing.T) {
	const path = "/wp-json/cal/events/v1/events"
	for _, tc := range []struct {
		name   string
		method string
		target string
		header [2]string
		status int
		ok     bool
	}{
		{"an anonymous GET", "GET", path + "?per_page=5", [2]string{}, 200, true},
		{"an anonymous GET answered 404", "GET", path + "/99999", [2]string{}, 404, true},
		{"a HEAD", "HEAD", path, [2]string{}, 200, false},
		{"a POST", "POST", path, [2]string{}, 401, false},
		{"credentials", "GET", path, [2]string{"Authorization", "Basic YTpi"}, 200, false},
		{"a cookie", "GET", path, [2]string{"Cookie", "wordpress_logged_in_x=y"}, 200, false},
		{"a nonce header", "GET", path, [2]string{"X-WP-Nonce", "abc"}, 200, false},
		{"a nonce parameter", "GET", path + "?_wpnonce=abc", [2]string{}, 200, false},
		{"a method override parameter", "GET", path + "?_method=DELETE", [2]string{}, 200, false},
		{"a method override header", "GET", path, [2]string{"X-HTTP-Method-Override", "PUT"}, 200, false},
		{"a sync token", "GET", path + "?sync_token=abc", [2]string{}, 200, false},
		{"refused: rate limited", "GET", path, [2]string{}, 429, false},
		{"refused: not ready or busy", "GET", path, [2]string{}, 503, false},
	} {
		req := httptest.NewRequest(tc.method, tc.target, nil)
		if tc.header[0] != "" {
			req.Header.Set(tc.header[0], tc.header[1])
		}
		if got := anonymousRead(req, tc.status); got != tc.ok {
			t.Errorf("%s: eligible %v, want %v", tc.name, got, tc.ok)
		}
	}

	// calshim's own request of a comparison is never compared again.
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req = req.WithContext(shadow.Internal(context.Background()))
	if anonymousRead(req, 200) {
		t.Error("a comparison's own request is eligible")
	}
}
