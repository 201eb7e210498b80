// Package cluster runs calshim replicas behind Debian's haproxy on loopback, for the replica test
// (test/replicas_test.go) and the soak (scripts/soak): each replica reaches WordPress through its
// own counting proxy, haproxy checks /readyz every 250 ms and retries requests that failed on the
// network on another replica.
package cluster

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Config describes a cluster.
type Config struct {
	Bin      string   // the calshim binary
	Dir      string   // logs, snapshots and haproxy's configuration go here
	WPURL    string   // WordPress, e.g. http://127.0.0.1:8881
	Env      []string // further CALSHIM_* variables of every replica (credentials, intervals)
	Replicas int
	// BasePort, when not 0, numbers the ports: haproxy's front end, its stats, then the replicas
	// (and their proxies after them). 0: free ports are picked.
	BasePort int
	// LoadTimeout bounds Start's wait for each replica's first load (0: a minute).
	LoadTimeout time.Duration
}

// Cluster is haproxy and its replicas.
type Cluster struct {
	LB       string // base URL of haproxy's front end
	stats    string
	Replicas []*Replica
	haproxy  *exec.Cmd
	dir      string
}

// Start starts the replicas and haproxy, and waits until haproxy sees every replica up.
func Start(cfg Config) (*Cluster, error) {
	ports, err := pickPorts(cfg.BasePort, 2+2*cfg.Replicas)
	if err != nil {
		return nil, err
	}

	c := &Cluster{LB: "http://127.0.0.1:" + strconv.Itoa(ports[0]),
		stats: "http://127.0.0.1:" + strconv.Itoa(ports[1]) + "/stats;csv", dir: cfg.Dir}
	for i := range cfg.Replicas {
		r, err := newReplica(cfg, i, ports[2+i], ports[2+cfg.Replicas+i])
		if err != nil {
			c.Close()
			return nil, err
		}
		c.Replicas = append(c.Replicas, r)
	}

	if err := c.startHAProxy(ports); err != nil {
		c.Close()
		return nil, err
	}

	// haproxy reports a server UP before its first check, so the replica's own /readyz (its catalog
	// loaded) is waited for first: a test that counts upstream requests must not count the load's.
	wait := cmp.Or(cfg.LoadTimeout, time.Minute)
	for i, r := range c.Replicas {
		if err := r.waitReady(wait); err != nil {
			c.Close()
			return nil, err
		}

		if err := c.WaitUp(i, 60*time.Second); err != nil {
			c.Close()
			return nil, err
		}
	}

	return c, nil
}

// haproxyConfig: health checks on /readyz every 250 ms (down after one failure, up after two
// successes); requests that failed on the network (refused, reset, no answer) are retried up to 3
// times on another replica. 503s are not retried: a replica must not answer one.
const haproxyConfig = `global
  maxconn 2000
defaults
  mode http
  timeout connect 1s
  timeout client 30s
  timeout server 30s
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response response-timeout
  option forwardfor
frontend front
  bind 127.0.0.1:%d
  default_backend calshim
backend calshim
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 250ms fall 1 rise 2
%slisten stats
  bind 127.0.0.1:%d
  stats enable
  stats uri /stats
`

func (c *Cluster) startHAProxy(ports []int) error {
	var servers strings.Builder
	for i, r := range c.Replicas {
		fmt.Fprintf(&servers, "  server r%d %s check\n", i, r.Addr)
	}

	path := filepath.Join(c.dir, "haproxy.cfg")
	conf := fmt.Sprintf(haproxyConfig, ports[0], servers.String(), ports[1])
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		return err
	}

	logf, err := os.Create(filepath.Join(c.dir, "haproxy.log"))
	if err != nil {
		return err
	}

	c.haproxy = exec.Command("haproxy", "-db", "-f", path)
	c.haproxy.Stdout, c.haproxy.Stderr = logf, logf
	if err := c.haproxy.Start(); err != nil {
		return fmt.Errorf("haproxy (install it with scripts/tools-up.sh): %w", err)
	}

	go func() { _ = c.haproxy.Wait(); _ = logf.Close() }()
	return nil
}

// Close stops haproxy and every replica (SIGKILL: nothing is kept).
func (c *Cluster) Close() {
	if c.haproxy != nil && c.haproxy.Process != nil {
		_ = c.haproxy.Process.Kill()
	}

	for _, r := range c.Replicas {
		_ = r.Kill()
		r.proxy.Close()
	}
}

// WaitUp waits until haproxy reports replica i UP.
func (c *Cluster) WaitUp(i int, timeout time.Duration) error { return c.wait(i, true, timeout) }

// WaitDown waits until haproxy no longer reports replica i UP.
func (c *Cluster) WaitDown(i int, timeout time.Duration) error { return c.wait(i, false, timeout) }

func (c *Cluster) wait(i int, up bool, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if st, _ := c.Status(i); (st == "UP") == up {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}

	return fmt.Errorf("haproxy does not see replica %d up=%v after %v", i, up, timeout)
}

// Status is replica i's state in haproxy's statistics (UP, DOWN, "DOWN 1/2", ...).
func (c *Cluster) Status(i int) (string, error) {
	res, err := http.Get(c.stats)
	if err != nil {
		return "", err
	}
	defer func() { _ = res.Body.Close() }()

	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		f := strings.Split(sc.Text(), ",")
		if len(f) > 17 && f[0] == "calshim" && f[1] == "r"+strconv.Itoa(i) {
			return f[17], nil
		}
	}

	return "", errors.New("replica not in haproxy's statistics")
}

// pickPorts returns n ports: consecutive from base, or free ones.
func pickPorts(base, n int) ([]int, error) {
	ports := make([]int, n)
	for i := range ports {
		if base != 0 {
			ports[i] = base + i
			continue
		}

		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ports[i] = ln.Addr().(*net.TCPAddr).Port
		defer func() { _ = ln.Close() }() // held until all are picked, so none repeats
	}

	return ports, nil
}

// Replica is one calshim process (restartable on its port) and the counting proxy it reaches
// WordPress through.
type Replica struct {
	Index    int
	Addr     string // host:port
	URL      string
	Log      string
	Snapshot string
	env      []string
	bin      string
	proxy    *Proxy
	cmd      *exec.Cmd
	exited   chan struct{}
	logf     *os.File
	starts   int
}

func newReplica(cfg Config, i, port, proxyPort int) (*Replica, error) {
	p, err := NewProxy(cfg.WPURL, proxyPort)
	if err != nil {
		return nil, err
	}

	addr := "127.0.0.1:" + strconv.Itoa(port)
	r := &Replica{Index: i, Addr: addr, URL: "http://" + addr, bin: cfg.Bin, proxy: p,
		Log:      filepath.Join(cfg.Dir, fmt.Sprintf("replica%d.log", i)),
		Snapshot: filepath.Join(cfg.Dir, fmt.Sprintf("replica%d.gob", i))}
	r.env = append(append(os.Environ(), cfg.Env...), "CALSHIM_LISTEN="+addr,
		"CALSHIM_UPSTREAM_URL=http://"+p.Addr+"/wp-json", "CALSHIM_CATALOG_SNAPSHOT="+r.Snapshot)
	if err := r.Start(); err != nil {
		p.Close()
		return nil, err
	}

	return r, nil
}

// Proxy returns the counting proxy between the replica and WordPress.
func (r *Replica) Proxy() *Proxy { return r.proxy }

// Start starts the process (it must not be running) and waits until it accepts connections.
func (r *Replica) Start() error {
	logf, err := os.OpenFile(r.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}

	r.starts++
	_, _ = fmt.Fprintf(logf, "--- start %d at %s\n", r.starts, time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(r.bin)
	cmd.Env = r.env
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		_ = logf.Close()
		return err
	}

	r.cmd, r.logf, r.exited = cmd, logf, make(chan struct{})
	go func(done chan struct{}) { _ = cmd.Wait(); _ = logf.Close(); close(done) }(r.exited)
	for range 200 {
		if c, err := net.Dial("tcp", r.Addr); err == nil {
			_ = c.Close()
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}

	return fmt.Errorf("replica %d did not listen on %s (log %s)", r.Index, r.Addr, r.Log)
}

// Kill ends the process with SIGKILL and waits for it.
func (r *Replica) Kill() error { return r.stop(syscall.SIGKILL, 5*time.Second) }

// Term sends SIGTERM (the graceful drain) and waits up to timeout for the process to exit.
func (r *Replica) Term(timeout time.Duration) error { return r.stop(syscall.SIGTERM, timeout) }

func (r *Replica) stop(sig syscall.Signal, timeout time.Duration) error {
	if r.cmd == nil {
		return nil
	}

	select {
	case <-r.exited:
		return nil
	default:
	}

	if err := r.cmd.Process.Signal(sig); err != nil {
		return err
	}

	select {
	case <-r.exited:
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("replica %d still running %v after %v", r.Index, timeout, sig)
	}
}

// Running reports whether the process is alive.
func (r *Replica) Running() bool {
	select {
	case <-r.exited:
		return false
	default:
		return r.cmd != nil
	}
}

// RSS is the process's resident memory in bytes (0 when it is not running).
func (r *Replica) RSS() int64 {
	if !r.Running() {
		return 0
	}

	f, err := os.Open("/proc/" + strconv.Itoa(r.cmd.Process.Pid) + "/status")
	if err != nil {
		return 0
	}
	defer func() { _ = f.Close() }()

	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")),
				10, 64)
			return kb << 10
		}
	}

	return 0
}

// waitReady waits until the replica's /readyz answers 200.
func (r *Replica) waitReady(timeout time.Duration) error {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); {
		if r.Ready() {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}

	return fmt.Errorf("replica %s not ready after %v", r.URL, timeout)
}

// Ready reports whether the replica's /readyz answers 200.
func (r *Replica) Ready() bool {
	res, err := http.Get(r.URL + "/readyz")
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, res.Body)
	_ = res.Body.Close()
	return res.StatusCode == http.StatusOK
}
