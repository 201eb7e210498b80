package test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// snippetAddr is calshim's address in deploy/routing's snippets, replaced by the test's calshim.
const snippetAddr = "127.0.0.1:8080"

// publicHost is the host the test's clients ask the front for: calshim's links must carry it.
const publicHost = "calendar.example.test"

// deploy/routing's nginx and haproxy snippets, each wrapped in a minimal configuration on loopback
// with a calshim and the real WordPress behind: every form of calshim's addresses reaches calshim
// (method and body kept, links built on the public host and the front's scheme), everything else
// reaches WordPress. An answer is WordPress' when it carries PHP's X-Powered-By.
func TestRoutingSnippets(t *testing.T) {
	base := launchOwn(t, "CALSHIM_LIMITS_TRUSTED_PROXIES=127.0.0.1", "CALSHIM_CATALOG_NOTIFY_SECRET=routing-test-secret-0123")
	calshim := strings.TrimPrefix(base, "http://")
	wordpress := strings.TrimPrefix(wpEnv["WP_URL"], "http://")
	t.Run("nginx", func(t *testing.T) { checkRouting(t, startNginx(t, calshim, wordpress)) })
	t.Run("haproxy", func(t *testing.T) { checkRouting(t, startHAProxy(t, calshim, wordpress)) })
}

// routeCase is one request through the front and who must answer it.
type routeCase struct {
	method, path, body string
	calshim            bool
	status             int    // wanted status, 0: any
	link               string // calshim's answers: the first event's rest_url starts with it
}

var routeCases = []routeCase{
	{method: "GET", path: "/wp-json/tribe/events/v1/events?per_page=1&start_date=2000-01-01", calshim: true,
		status: 200, link: "http://" + publicHost + "/wp-json/tribe/events/v1/events/"},
	{method: "GET", path: "/wp-json/cal/events/v1/events?per_page=1&start_date=2000-01-01", calshim: true,
		status: 200, link: "http://" + publicHost + "/wp-json/cal/events/v1/events/"},
	{method: "GET", path: "/wp-json/Tribe/Events/V1/events?per_page=1&start_date=2000-01-01", calshim: true,
		status: 200},
	{method: "GET", path: "/de/wp-json/tribe/events/v1/events?per_page=1&start_date=2000-01-01", calshim: true,
		status: 200, link: "http://" + publicHost + "/de/wp-json/tribe/events/v1/events/"},
	{method: "GET", path: "/nl/wp-json/cal/events/v1/venues", calshim: true, status: 200},
	{method: "GET", path: "/?rest_route=/tribe/events/v1/events&per_page=1&start_date=2000-01-01", calshim: true,
		status: 200, link: "http://" + publicHost + "/?rest_route=/tribe/events/v1/events/"},
	{method: "GET", path: "/index.php?rest_route=/cal/events/v1/events&per_page=1&start_date=2000-01-01",
		calshim: true, status: 200, link: "http://" + publicHost + "/index.php?rest_route=/cal/events/v1/events/"},
	{method: "GET", path: "/fr/?rest_route=/tribe/events/v1/events&per_page=1&start_date=2000-01-01", calshim: true,
		status: 200, link: "http://" + publicHost + "/fr/?rest_route=/tribe/events/v1/events/"},
	{method: "GET", path: "/?rest_route=%2Ftribe%2Fevents%2Fv1%2Fevents&per_page=1", calshim: true, status: 200},
	{method: "GET", path: "/wp-json/tribe/events/v1", calshim: true, status: 200},
	{method: "GET", path: "/?rest_route=/cal/events/v1/", calshim: true, status: 200},
	{method: "GET", path: "/wp-json/tribe/events/v1/events.ics", calshim: true, status: 200},
	{method: "GET", path: "/it/wp-json/tribe/events/v1/events.ics", calshim: true, status: 200},
	// A body that is not JSON answers 400 (401 had the body been lost, 200 had the method changed).
	{method: "POST", path: "/wp-json/tribe/events/v1/events", body: "{", calshim: true, status: 400},
	{method: "POST", path: "/calshim/notify", calshim: true, status: 401},

	{method: "GET", path: "/"},
	{method: "GET", path: "/wp-json/"},
	{method: "GET", path: "/wp-json/wp/v2/posts", status: 200},
	{method: "GET", path: "/?rest_route=/wp/v2/posts", status: 200},
	{method: "GET", path: "/?rest_route=/"},
	{method: "GET", path: "/de/wp-json/wp/v2/posts"},
	{method: "GET", path: "/en/wp-json/tribe/events/v1/events"}, // the default language has no segment
	{method: "GET", path: "/de?rest_route=/tribe/events/v1/events"},
	{method: "GET", path: "/wp-json/tribe/events/v10/events"},
	{method: "GET", path: "/blog/?rest_route=/tribe/events/v1/events"},
	{method: "GET", path: "/?p=1&x=rest_route=/tribe/events/v1/events"},
}

func checkRouting(t *testing.T, front string) {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range routeCases {
		opts := []reqOption{via(client), lenient}
		if c.calshim { // WordPress' answers may redirect to its own host: only calshim's get the public one
			opts = append(opts, func(o *outgoing) { o.req.Host = publicHost },
				header("X-Forwarded-Proto", "https")) // the client's own: the front overwrites it
		}
		if c.body != "" {
			opts = append(opts, jsonBody(c.body))
		}
		res := call(t, c.method, front+c.path, opts...)
		if res.err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, res.err)
		}

		byWordPress := strings.HasPrefix(res.header.Get("X-Powered-By"), "PHP/")
		if byWordPress == c.calshim || (c.status != 0 && res.status != c.status) {
			t.Errorf("%s %s: %d, X-Powered-By %q, want calshim %v and status %d\n%.300s", c.method, c.path,
				res.status, res.header.Get("X-Powered-By"), c.calshim, c.status, res.raw)
			continue
		}
		if strings.Contains(c.path, "/events?") && res.header.Get("X-TEC-Total") == "" {
			t.Errorf("%s: no X-TEC-Total", c.path)
		}
		if c.link == "" {
			continue
		}
		if res.body == nil {
			t.Fatalf("%s: not JSON: %.300s", c.path, res.raw)
		}
		if got := str(at(res.body, "events", 0, "rest_url")); !strings.HasPrefix(got, c.link) {
			t.Errorf("%s: rest_url %q, want it below %q", c.path, got, c.link)
		}
	}
}

// freePort is a loopback port nothing listens on now.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// snippet is a file of deploy/routing with calshim's address replaced by addr.
func snippet(t *testing.T, name, addr string) string {
	b, err := os.ReadFile(filepath.Join("..", "deploy", "routing", name))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), snippetAddr); n != 1 {
		t.Fatalf("%s names calshim's address %s %d times, want once", name, snippetAddr, n)
	}
	return strings.Replace(string(b), snippetAddr, addr, 1)
}

// nginxConfig wraps the snippet (included in the server) with WordPress behind every other location.
// The worker runs as root as the test may: the temporary directories are not readable by others.
const nginxConfig = `user root;
worker_processes 1;
pid %[1]s/nginx.pid;
events { worker_connections 64; }
http {
  access_log %[1]s/access.log;
  client_body_temp_path %[1]s/body;
  proxy_temp_path %[1]s/proxy;
  fastcgi_temp_path %[1]s/fastcgi;
  uwsgi_temp_path %[1]s/uwsgi;
  scgi_temp_path %[1]s/scgi;
  server {
    listen 127.0.0.1:%[2]d;
    server_name _;
    include %[1]s/calshim.conf;
    location / { proxy_pass http://%[3]s; }
  }
}
`

// startNginx runs Debian's nginx in the foreground with deploy/routing/nginx.conf, and returns its
// base URL once it answers.
func startNginx(t *testing.T, calshim, wordpress string) string {
	dir := t.TempDir()
	port := freePort(t)
	writeFile(t, filepath.Join(dir, "calshim.conf"), snippet(t, "nginx.conf", calshim))
	writeFile(t, filepath.Join(dir, "nginx.conf"), fmt.Sprintf(nginxConfig, dir, port, wordpress))
	startFront(t, dir, "nginx", "-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", filepath.Join(dir, "nginx.conf"),
		"-g", "daemon off;")
	return waitFront(t, port, filepath.Join(dir, "error.log"))
}

// haproxyConfig wraps the snippet (its frontend lines and calshim's backend) after the frontend of
// WordPress.
const haproxyConfig = `global
  maxconn 100
defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
backend wordpress
  server wp %[2]s
frontend front
  bind 127.0.0.1:%[1]d
  default_backend wordpress
%[3]s`

// startHAProxy runs Debian's haproxy in the foreground with deploy/routing/haproxy.cfg, and returns
// its base URL once it answers.
func startHAProxy(t *testing.T, calshim, wordpress string) string {
	dir := t.TempDir()
	port := freePort(t)
	cfg := filepath.Join(dir, "haproxy.cfg")
	writeFile(t, cfg, fmt.Sprintf(haproxyConfig, port, wordpress, snippet(t, "haproxy.cfg", calshim)))
	if out, err := exec.Command("haproxy", "-c", "-f", cfg).CombinedOutput(); err != nil ||
		strings.Contains(string(out), "WARNING") {
		t.Fatalf("haproxy -c: %v\n%s", err, out)
	}
	startFront(t, dir, "haproxy", "-db", "-f", cfg)
	return waitFront(t, port, filepath.Join(dir, "front.log"))
}

func writeFile(t *testing.T, path, content string) {
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// startFront runs a front in the foreground, its output in dir/front.log, stopped when the test ends.
func startFront(t *testing.T, dir, name string, args ...string) {
	logf, err := os.Create(filepath.Join(dir, "front.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v (make tools installs it)", name, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		logf.Close()
	})
}

// waitFront waits until the front accepts connections on port; its log is shown when it does not.
func waitFront(t *testing.T, port int, log string) string {
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for range 100 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr
		}
		time.Sleep(50 * time.Millisecond)
	}
	b, _ := os.ReadFile(log)
	t.Fatalf("nothing listens on %s:\n%s", addr, b)
	return ""
}
