// Package test is calshim's black-box suite: it starts the real binary against the real WordPress that
// `make test` starts and seeds (scripts/wp-up.sh, scripts/wp-seed.sh), and checks behaviour over HTTP only.
package test

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		if res, err := http.Get(shim + "/readyz"); err == nil { // before any test: no call without a t
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
