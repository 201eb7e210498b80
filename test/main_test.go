// Package test is calshim's black-box suite: it starts the real binary against the real WordPress that
// `make test` starts and seeds (scripts/wp-up.sh, scripts/wp-seed.sh), and checks behaviour over HTTP only.
package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"calshim/internal/testkit/jsontest"
	"calshim/internal/testkit/rigenv"
)

var (
	shim   string            // base URL of the running calshim, e.g. http://127.0.0.1:41234
	wpEnv  map[string]string // the rig's wp.env (URL and credentials)
	shimLn string            // calshim's log file
)

func TestMain(m *testing.M) {
	stop, err := startShim()
	if err != nil {
		fmt.Fprintln(os.Stderr, "test: cannot start calshim against the local WordPress:", err)
		fmt.Fprintln(os.Stderr, "test: run `make test` (it starts and seeds WordPress first)")
		os.Exit(1)
	}
	code := m.Run()
	stop()
	if code != 0 {
		if b, err := os.ReadFile(shimLn); err == nil {
			lines := strings.Split(string(b), "\n")
			fmt.Fprintln(os.Stderr, "--- last calshim log lines ---")
			fmt.Fprintln(os.Stderr, strings.Join(lines[max(0, len(lines)-30):], "\n"))
		}
	}
	os.Exit(code)
}

// shimBin is the calshim binary the suite built.
var shimBin string

// startShim builds calshim, starts it on a free loopback port with the rig's reader credential and
// waits until /readyz answers 200.
func startShim() (func(), error) {
	state := os.Getenv("CALSHIM_STATE")
	if state == "" {
		state = "/tmp/calshim-wp"
	}
	var err error
	if wpEnv, err = rigenv.Read(filepath.Join(state, "wp.env")); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "calshim-test")
	if err != nil {
		return nil, err
	}
	shimBin = filepath.Join(dir, "calshim")
	if out, err := exec.Command("go", "build", "-o", shimBin, "../cmd/calshim").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build: %v\n%s", err, out)
	}
	shimLn = filepath.Join(dir, "calshim.log")
	url, stop, err := launch(shimLn,
		"CALSHIM_UPSTREAM_URL="+wpEnv["CALSHIM_UPSTREAM_URL"],
		"CALSHIM_UPSTREAM_USER="+wpEnv["CALSHIM_UPSTREAM_USER"],
		"CALSHIM_UPSTREAM_APP_PASSWORD="+wpEnv["CALSHIM_UPSTREAM_APP_PASSWORD"],
		"CALSHIM_CATALOG_POLL_INTERVAL=1s",
		"CALSHIM_WRITES_IMAGE_ALLOW_PRIVATE=true") // image URLs of the write tests are served on loopback
	if err != nil {
		return nil, err
	}
	shim = url
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if res, err := http.Get(shim + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return stop, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	stop()
	return nil, fmt.Errorf("calshim not ready after 90s (log: %s)", shimLn)
}

// launch starts the built calshim on a free loopback port with extra environment, logging to logPath,
// and returns its base URL once it accepts connections.
func launch(logPath string, env ...string) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	logf, err := os.Create(logPath)
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(shimBin)
	// No drain on stop: the suite stops many calshims (tests of the drain set their own).
	// calshim has no default upstream: the rig's unless env names another.
	cmd.Env = append(append(os.Environ(), "CALSHIM_LISTEN="+addr, "CALSHIM_SHUTDOWN_DRAIN=0s",
		"CALSHIM_UPSTREAM_URL="+wpEnv["CALSHIM_UPSTREAM_URL"]), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { _ = cmd.Process.Signal(os.Interrupt); _ = cmd.Wait(); logf.Close() }
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr, stop, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	return "", nil, fmt.Errorf("calshim did not listen on %s (log: %s)", addr, logPath)
}

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
