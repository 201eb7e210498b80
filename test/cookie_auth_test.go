package test

import (
	"io"
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
	req, _ := http.NewRequest(http.MethodPost, wpEnv["WP_URL"]+"/wp-login.php", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Cookie", "wordpress_test_cookie=WP%20Cookie%20check")
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var parts []string
	for _, c := range res.Cookies() {
		if strings.HasPrefix(c.Name, "wordpress_") {
			parts = append(parts, c.Name+"="+c.Value)
		}
	}
	if len(parts) == 0 {
		t.Fatalf("login as %s: status %d, no cookies", user, res.StatusCode)
	}
	cookie = strings.Join(parts, "; ")
	req, _ = http.NewRequest(http.MethodGet, wpEnv["WP_URL"]+"/wp-admin/admin-ajax.php?action=rest-nonce", nil)
	req.Header.Set("Cookie", cookie)
	res, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || len(b) == 0 || len(b) > 20 {
		t.Fatalf("rest nonce: %d %q", res.StatusCode, b)
	}
	return cookie, string(b)
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
