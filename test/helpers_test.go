package test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"calshim/internal/testkit/jsontest"
)

// The suite's shared helpers, one place for every topic file: the requests to calshim (call and
// its options; every request of the suite goes through it), the readings of an answer, and the
// rig's own doors (wp, wpPHP: WordPress as the site's owner), each used by several files.

// reply is one HTTP answer.
type reply struct {
	status int
	header http.Header
	raw    []byte
	body   any   // decoded with key order kept (see decodeOrdered)
	err    error // with lenient: why the request failed (status 0)
}

// v1 is the path of calshim's v1 namespace.
const v1 = "/wp-json/cal/events/v1"

// call sends one request and returns the answer: the suite's one way to send one (get, send,
// sendCest and wp are its shorthands). target is a path below calshim's host (v1+"/events") or a
// whole URL (another calshim, a replica, Varnish, WordPress). A request that fails, or an answer that
// is not JSON (the iCal feed and HEAD aside), fails the test, unless the option lenient is given.
// The few requests made otherwise say why where they are: the wait for the suite's calshim before
// any test (main_test.go), a body declared and never sent (envelope_test.go), an administrator's
// browser session (plugin_admin_test.go), reads cut off by a context (varnish_test.go).
func call(t testing.TB, method, target string, opts ...reqOption) reply {
	t.Helper()
	if !strings.HasPrefix(target, "http") {
		target = shim + target
	}
	req, err := http.NewRequest(method, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := outgoing{req: req, client: http.DefaultClient}
	for _, opt := range opts {
		opt(&o)
	}
	r, err := o.send()
	if err != nil && !o.lenient {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	r.err = err
	return r
}

// outgoing is a request call is building, and how it takes a failure.
type outgoing struct {
	req     *http.Request
	client  *http.Client
	lenient bool
}

// reqOption sets something on a request before call sends it.
type reqOption func(*outgoing)

// send sends the request and reads the answer, decoding a JSON body.
func (o *outgoing) send() (reply, error) {
	res, err := o.client.Do(o.req)
	if err != nil {
		return reply{}, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	r := reply{status: res.StatusCode, header: res.Header, raw: raw}
	json := !strings.HasPrefix(res.Header.Get("Content-Type"), "text/calendar") // the feed is not
	if err != nil || len(raw) == 0 || o.req.Method == http.MethodHead || !json {
		return r, err
	}
	if r.body, err = decodeOrdered(raw); err != nil && !o.lenient {
		return r, fmt.Errorf("body is not JSON: %w\n%s", err, raw)
	}
	return r, nil
}

// lenient returns a failed request as status 0 with the error in reply.err, and leaves a body that
// is not JSON undecoded, without failing the test: for requests made from other goroutines, and
// for answers that need not be calshim's JSON.
func lenient(o *outgoing) { o.lenient = true }

// as sends a rig user's credentials: role is "admin", "editor", … as in wp.env ("" is anonymous).
func as(role string) reqOption {
	return func(o *outgoing) {
		if role != "" {
			r := strings.ToUpper(role)
			o.req.SetBasicAuth(wpEnv["WP_"+r+"_USER"], wpEnv["WP_"+r+"_APP_PASSWORD"])
		}
	}
}

// header sets a request header; an empty value leaves it out.
func header(name, value string) reqOption {
	return func(o *outgoing) {
		if value != "" {
			o.req.Header.Set(name, value)
		}
	}
}

// withBody sends body as contentType.
func withBody(contentType string, body []byte) reqOption {
	return func(o *outgoing) {
		o.req.Body, o.req.ContentLength = http.NoBody, int64(len(body)) // 0 with another Body: chunked
		if len(body) > 0 {
			o.req.Body = io.NopCloser(bytes.NewReader(body))
			o.req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		o.req.Header.Set("Content-Type", contentType)
	}
}

// jsonBody sends raw as a JSON body.
func jsonBody(raw string) reqOption { return withBody("application/json", []byte(raw)) }

// formBody sends form as an urlencoded form body.
func formBody(form string) reqOption {
	return withBody("application/x-www-form-urlencoded", []byte(form))
}

// via sends the request with client c (a source address of its own, a timeout).
func via(c *http.Client) reqOption { return func(o *outgoing) { o.client = c } }

// to sends the request to another calshim (a replica, one of the test's own) at base URL base.
func to(base string) reqOption {
	return func(o *outgoing) {
		u, err := url.Parse(base)
		if err != nil {
			panic(err)
		}
		o.req.URL.Scheme, o.req.URL.Host = u.Scheme, u.Host
	}
}

// get is call for GET below the v1 namespace, e.g. get(t, "/events?per_page=5").
func get(t testing.TB, path string, opts ...reqOption) reply {
	t.Helper()
	return call(t, http.MethodGet, v1+path, opts...)
}

// decodeOrdered decodes JSON keeping object key order (clients and the contract care about it).
func decodeOrdered(b []byte) (any, error) { return jsontest.Decode(b) }

// at walks a decoded value along keys (strings for objects, ints for lists); nil when absent.
func at(v any, path ...any) any { return jsontest.At(v, path...) }

// str returns a decoded string or number as text ("" for anything else).
func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return fmt.Sprint(x)
	}
	return ""
}

func keys(v any) []string {
	o, _ := v.(jsontest.Object)
	return o.Keys()
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// wp sends a request to the real WordPress as the administrator, as an editor working in wp-admin
// would change things behind calshim's back.
func wp(t *testing.T, method, path string, body any) map[string]any {
	t.Helper()
	opts := []reqOption{as("admin"), header("Content-Type", "application/json"), lenient}
	if body != nil {
		b, _ := json.Marshal(body)
		opts = append(opts, jsonBody(string(b)))
	}
	r := call(t, method, wpJSON(path), opts...)
	var out map[string]any
	if r.status >= 300 || json.Unmarshal(r.raw, &out) != nil {
		t.Fatalf("WordPress %s %s: %d %s", method, path, r.status, r.raw)
	}
	return out
}

// eventually polls calshim until cond holds, for at most a few poll intervals (the suite runs calshim
// with a 1 s interval).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not seen within 15 s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func id(t testing.TB, group, name string) int {
	t.Helper()
	if seedIDs == nil {
		state := os.Getenv("CALSHIM_STATE")
		if state == "" {
			state = "/tmp/calshim-wp"
		}
		b, err := os.ReadFile(filepath.Join(state, "seed-ids.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &seedIDs); err != nil {
			t.Fatal(err)
		}
	}
	n, ok := seedIDs[group][name]
	if !ok {
		t.Fatalf("seed has no %s %q", group, name)
	}
	return n
}

func sid(t testing.TB, group, name string) string { return strconv.Itoa(id(t, group, name)) }

// wantError asserts an error answer of the original's shape.
func wantError(t *testing.T, r reply, status int, code string) {
	t.Helper()
	if r.status != status || str(at(r.body, "code")) != code {
		t.Fatalf("got %d %s, want %d %s\n%s", r.status, str(at(r.body, "code")), status, code, r.raw)
	}
	if got := str(at(r.body, "data", "status")); got != strconv.Itoa(status) {
		t.Errorf("data.status = %s, want %d", got, status)
	}
	if got := keys(r.body); !slices.Equal(got, []string{"code", "message", "data"}) {
		t.Errorf("error keys = %v", got)
	}
}

func ids(l any) []int {
	var out []int
	for _, e := range list(l) {
		n, _ := strconv.Atoi(str(at(e, "id")))
		out = append(out, n)
	}
	return out
}

// send calls a v1 route as role with a JSON body (a Go value; nil sends none).
func send(t testing.TB, role, method, path string, body any, opts ...reqOption) reply {
	t.Helper()
	opts = append(opts, as(role))
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, jsonBody(string(b)))
	}
	return call(t, method, v1+path, opts...)
}

func wantStatus(t *testing.T, r reply, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d\n%s", r.status, status, r.raw)
	}
}

func newEvent(title string) map[string]any {
	return map[string]any{"title": title, "start_date": "2031-03-10 10:00:00", "end_date": "2031-03-10 12:00:00"}
}

// wpJSON is the URL of a REST path on the rig's WordPress.
func wpJSON(path string) string { return wpEnv["WP_URL"] + "/wp-json" + path }

// feedHead reads the change log's head as the service account.
func feedHead(t *testing.T) map[string]any {
	t.Helper()
	r := call(t, http.MethodGet, wpJSON("/calshim/v1/changes"), as("reader"), lenient)
	var h map[string]any
	if r.status != http.StatusOK || json.Unmarshal(r.raw, &h) != nil {
		t.Fatalf("change feed head: %d %s", r.status, r.raw)
	}
	return h
}

// wpGet reads a JSON answer of WordPress as the service account: a list, or the list under key.
func wpGet(t *testing.T, path, key string) []json.RawMessage {
	t.Helper()
	r := call(t, http.MethodGet, wpJSON(path), as("reader"), lenient)
	if r.status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, r.status, r.raw)
	}
	raw := r.raw
	var items []json.RawMessage
	if key != "" {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		raw = m[key]
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return items
}

// wpPHP runs PHP code inside the rig's WordPress with php-cli as the web server's user (as WP-CLI
// would), for changes no REST route makes, and returns what it printed.
func wpPHP(t *testing.T, code string) []byte {
	t.Helper()
	return wpPHPConfigured(t, "", code)
}

// seededRand is a generator for a test's classes of input, its seed logged to replay a failure.
func seededRand(t *testing.T) (*rand.Rand, int64) {
	t.Helper()
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(uint64(seed), 0)), seed
}

// wpPHPConfigured is wpPHP with config run before WordPress loads, as wp-config.php is (constants).
func wpPHPConfigured(t *testing.T, config, code string) []byte {
	t.Helper()
	u, _ := url.Parse(wpEnv["WP_URL"])
	script := "$_SERVER['HTTP_HOST'] = '" + u.Hostname() + "'; $_SERVER['REQUEST_URI'] = '/'; " + config +
		" require '/usr/share/wordpress/wp-load.php'; " + code
	cmd := exec.Command("setpriv", "--reuid=www-data", "--regid=www-data", "--init-groups", "--", "php", "-r", script)
	cmd.Dir = os.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("php: %v\n%s", err, out)
	}
	return out
}

// readyz returns calshim's /readyz body (nil when it does not answer).
func readyz(t *testing.T, base string) map[string]any {
	t.Helper()
	res, err := http.Get(base + "/readyz")
	if err != nil {
		return nil
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	if res.StatusCode != http.StatusOK {
		return nil
	}
	return out
}

// syncShim starts a second calshim with the reader credential, a snapshot file and an upstream,
// waits until it is ready and returns its URL, a stop function and its log file.
func syncShim(t *testing.T, snapshot, upstream string) (string, func(), string) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "calshim.log")
	url, stop, err := launch(logPath, "CALSHIM_UPSTREAM_URL="+upstream,
		"CALSHIM_UPSTREAM_USER="+wpEnv["CALSHIM_UPSTREAM_USER"],
		"CALSHIM_UPSTREAM_APP_PASSWORD="+wpEnv["CALSHIM_UPSTREAM_APP_PASSWORD"],
		"CALSHIM_CATALOG_SNAPSHOT="+snapshot, "CALSHIM_CATALOG_POLL_INTERVAL=1s")
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "second calshim ready", func() bool { return readyz(t, url) != nil })
	return url, stop, logPath
}

// logHas tells whether the log at path shows text within 10 s: calshim may answer /readyz before it has
// written the line that says how it got ready (a loaded machine showed the gap).
func logHas(t *testing.T, path, text string) bool {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), text) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// newPublishedEvent creates a published event directly in WordPress and returns its ID; it is deleted
// at the end of the test.
func newPublishedEvent(t *testing.T, title string) string {
	t.Helper()
	day := time.Now().AddDate(0, 0, 4).Format("2006-01-02")
	ev := wp(t, http.MethodPost, "/wp/v2/tribe_events", map[string]any{"title": title, "status": "publish",
		"meta": map[string]any{"_EventStartDate": day + " 10:00:00", "_EventEndDate": day + " 11:00:00",
			"_EventStartDateUTC": day + " 15:00:00", "_EventEndDateUTC": day + " 16:00:00"}})
	id := strconv.Itoa(int(ev["id"].(float64)))
	t.Cleanup(func() {
		call(t, http.MethodDelete, wpJSON("/wp/v2/tribe_events/"+id+"?force=true"), as("admin"), lenient)
	})
	return id
}

// launchOwn starts a calshim of its own against the rig, with extra settings.
func launchOwn(t *testing.T, env ...string) string {
	t.Helper()
	base, stop, err := launch(filepath.Join(t.TempDir(), "calshim.log"), append([]string{
		"CALSHIM_UPSTREAM_URL=" + wpEnv["CALSHIM_UPSTREAM_URL"],
		"CALSHIM_UPSTREAM_USER=" + wpEnv["CALSHIM_UPSTREAM_USER"],
		"CALSHIM_UPSTREAM_APP_PASSWORD=" + wpEnv["CALSHIM_UPSTREAM_APP_PASSWORD"],
		"CALSHIM_CATALOG_SNAPSHOT=none"}, env...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	eventually(t, "calshim ready", func() bool { return readyz(t, base) != nil })
	return base
}

// metricLine is the value of a /metrics line that starts with series, or "".
func metricLine(t *testing.T, base, series string) string {
	r := call(t, http.MethodGet, base+"/metrics", lenient)
	for line := range strings.Lines(string(r.raw)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), series+" "); ok {
			return v
		}
	}
	return ""
}

// wpDeleteLater deletes a post or term for good at the end of the test, straight in WordPress.
func wpDeleteLater(t *testing.T, path string) {
	t.Cleanup(func() { call(t, http.MethodDelete, wpJSON(path+"?force=true"), as("admin"), lenient) })
}

// fromAddr is an HTTP client whose requests leave from a loopback address of its own.
func fromAddr(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	return &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		MaxIdleConnsPerHost: 16,
	}}
}

func sorted(ids ...int) []int { slices.Sort(ids); return ids }
