package test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// wpLogin logs a user in to WordPress as a browser does and returns the cookies and a REST nonce, the
// credentials of WordPress' cookie authentication.
func wpLogin(t *testing.T, user, password string) (cookie, nonce string) {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := url.Values{"log": {user}, "pwd": {password}, "testcookie": {"1"}}
	res := call(t, http.MethodPost, wpEnv["WP_URL"]+"/wp-login.php", formBody(form.Encode()),
		header("Cookie", "wordpress_test_cookie=WP%20Cookie%20check"), via(client), lenient)
	var parts []string
	for _, c := range (&http.Response{Header: res.header}).Cookies() {
		if strings.HasPrefix(c.Name, "wordpress_") {
			parts = append(parts, c.Name+"="+c.Value)
		}
	}
	if len(parts) == 0 {
		t.Fatalf("login as %s: status %d, no cookies (%v)", user, res.status, res.err)
	}
	cookie = strings.Join(parts, "; ")
	res = call(t, http.MethodGet, wpEnv["WP_URL"]+"/wp-admin/admin-ajax.php?action=rest-nonce",
		header("Cookie", cookie), via(client), lenient)
	if res.status != http.StatusOK || len(res.raw) == 0 || len(res.raw) > 20 {
		t.Fatalf("rest nonce: %d %q", res.status, res.raw)
	}
	return cookie, string(res.raw)
}

// WordPress' cookie authentication works through calshim as on WordPress: cookies with a valid nonce
// are the logged-in user, cookies alone are anonymous, a bad nonce is 403 rest_cookie_invalid_nonce.
func TestCookieAuthentication(t *testing.T) {
	cookie, nonce := wpLogin(t, "editor1", "calshim-editor1-login")
	draft := "/wp-json/cal/events/v1/events/" + sid(t, "events", "draft")
	if r := call(t, http.MethodGet, draft, header("Cookie", cookie), header("X-WP-Nonce", nonce)); r.status != http.StatusOK {
		t.Errorf("editor's cookies and nonce: %d %s", r.status, r.raw)
	}
	if r := call(t, http.MethodGet, draft+"?_wpnonce="+nonce, header("Cookie", cookie)); r.status != http.StatusOK {
		t.Errorf("nonce as _wpnonce: %d %s", r.status, r.raw)
	}
	wantError(t, call(t, http.MethodGet, draft, header("Cookie", cookie)), http.StatusForbidden, "event-not-accessible")
	wantError(t, call(t, http.MethodGet, draft, header("Cookie", cookie), header("X-WP-Nonce", "0badc0ffee")),
		http.StatusForbidden, "rest_cookie_invalid_nonce")
	// A write with cookie authentication is the editor's own.
	body := jsonBody(`{"title":"Cookie Auth Event","start_date":"2031-05-01 10:00:00","end_date":"2031-05-01 11:00:00"}`)
	r := call(t, http.MethodPost, "/wp-json/cal/events/v1/events", body, header("Cookie", cookie), header("X-WP-Nonce", nonce))
	if r.status != http.StatusCreated || str(at(r.body, "author")) != wpEnv["WP_EDITOR_USER_ID"] {
		t.Fatalf("cookie write: %d %s", r.status, r.raw)
	}
	del := call(t, http.MethodDelete, "/wp-json/cal/events/v1/events/"+str(at(r.body, "id")), header("Cookie", cookie), header("X-WP-Nonce", nonce))
	if del.status != http.StatusOK {
		t.Errorf("cookie delete: %d %s", del.status, del.raw)
	}
}
