package main

import (
	"bytes"
	"calshim/adapter/shadow"
	"calshim/internal/testkit/rigenv"
	"context"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// Cred is a user name with its application password; the zero value is anonymous.
type Cred struct {
	User, Pass string
}

// roleEnv names the wp.env variables of each role's user and application password.
var roleEnv = map[string][2]string{
	"admin":       {"WP_ADMIN_USER", "WP_ADMIN_APP_PASSWORD"},
	"reader":      {"WP_READER_USER", "WP_READER_APP_PASSWORD"},
	"subscriber":  {"WP_SUBSCRIBER_USER", "WP_SUBSCRIBER_APP_PASSWORD"},
	"contributor": {"WP_CONTRIBUTOR_USER", "WP_CONTRIBUTOR_APP_PASSWORD"},
	"author":      {"WP_AUTHOR_USER", "WP_AUTHOR_APP_PASSWORD"},
	"editor":      {"WP_EDITOR_USER", "WP_EDITOR_APP_PASSWORD"},
}

// roles lists every caller the harness plays, in a fixed order (deterministic generation).
var roles = []string{
	"anon", "admin", "reader", "subscriber", "contributor", "author", "editor", "badpass",
}

// loadCreds reads the rig's wp.env into a role → credential map.
func loadCreds(path string) (map[string]Cred, error) {
	env, err := rigenv.Read(path)
	if err != nil {
		return nil, err
	}

	creds := map[string]Cred{"anon": {}}
	for role, keys := range roleEnv {
		creds[role] = Cred{User: env[keys[0]], Pass: env[keys[1]]}
	}

	// A well-formed application password that is not the admin's: WordPress' incorrect_password.
	creds["badpass"] = Cred{User: env["WP_ADMIN_USER"], Pass: "abcd EFGH ijkl MNOP qrst UVWX"}

	return creds, nil
}

// Request is one call, independent of the site it is sent to.
type Request struct {
	Route  string // template, e.g. "GET /events/{id}"
	Method string
	Path   string // below the namespace, e.g. "/events/17"
	Query  string // encoded query string, without "?"
	Role   string
	NS     string // namespace used on calshim: cal or tribe (the original always gets tribe)
	Plain  bool   // ?rest_route= form instead of /wp-json/
	Body   []byte
	CType  string
}

// nsPath is the namespace path of a short name.
func nsPath(ns string) string {
	return ns + "/events/v1"
}

// URL is the request's address on base (scheme://host:port) through namespace ns.
func (r *Request) URL(base, ns string) string {
	route := "/" + nsPath(ns) + r.Path
	query := strings.ReplaceAll(r.Query, "{NS}", nsPath(ns))
	if r.Plain {
		u := base + "/?rest_route=" + route
		if query != "" {
			u += "&" + query
		}
		return u
	}

	u := base + "/wp-json" + route
	if query != "" {
		u += "?" + query
	}

	return u
}

// Label is the short form of the request shown in reports: role, method and calshim's path.
func (r *Request) Label() string {
	u := r.URL("", r.NS)
	if r.Method != "GET" {
		u = r.Method + " " + u
	}
	if r.Role != "anon" {
		u = "[" + r.Role + "] " + u
	}

	return u
}

// Site is one server under comparison.
type Site struct {
	Name    string
	Base    string
	NS      func(*Request) string
	Client  *http.Client
	Creds   map[string]Cred
	Timeout time.Duration
}

// Do sends r to the site and reads the whole answer; a transport error becomes Response.Err.
func (s *Site) Do(r *Request) *shadow.Answer {
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout)
	defer cancel()

	var body io.Reader
	if r.Body != nil {
		body = bytes.NewReader(r.Body)
	}

	req, err := http.NewRequestWithContext(ctx, r.Method, r.URL(s.Base, s.NS(r)), body)
	if err != nil {
		return &shadow.Answer{Err: err.Error()}
	}

	if r.CType != "" {
		req.Header.Set("Content-Type", r.CType)
	}
	if c := s.Creds[r.Role]; c.User != "" {
		req.SetBasicAuth(c.User, c.Pass)
	}

	resp, err := s.Client.Do(req)
	if err != nil {
		return &shadow.Answer{Err: err.Error()}
	}
	defer resp.Body.Close()

	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return &shadow.Answer{Status: resp.StatusCode, Err: "reading body: " + err.Error()}
	}

	return &shadow.Answer{Status: resp.StatusCode, Headers: shadow.Headers(resp.Header), Body: data}
}

// sortedKeys returns the keys of a string map in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)

	return keys
}

// hostOf returns host:port of a base URL.
func hostOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}

	return u.Host
}

// newSite builds a site with its own client; redirects are not followed (a 301 is an answer).
func newSite(name, base string, creds map[string]Cred, timeout time.Duration,
	ns func(*Request) string) *Site {
	client := &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport:     &http.Transport{MaxIdleConnsPerHost: 8},
	}

	return &Site{Name: name, Base: strings.TrimRight(base, "/"), NS: ns, Client: client, Creds: creds,
		Timeout: timeout}
}

// getRaw GETs a path of the site outside the v1 namespace (WordPress' own routes) as role.
func (s *Site) getRaw(path, role string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout)
	defer cancel()

	req, err := http.NewRequestWithContext(ctx, "GET", s.Base+path, nil)
	if err != nil {
		return nil, err
	}
	if c := s.Creds[role]; c.User != "" {
		req.SetBasicAuth(c.User, c.Pass)
	}

	resp, err := s.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()

	return io.ReadAll(resp.Body)
}

// rawDelete sends DELETE to a WordPress route (outside v1) as the administrator; errors are ignored
// (clean-up only).
func (s *Site) rawDelete(path string) {
	ctx, cancel := context.WithTimeout(context.Background(), s.Timeout)
	defer cancel()

	req, err := http.NewRequestWithContext(ctx, "DELETE", s.Base+"/wp-json"+path, nil)
	if err != nil {
		return
	}
	if c := s.Creds["admin"]; c.User != "" {
		req.SetBasicAuth(c.User, c.Pass)
	}

	if resp, err := s.Client.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
