package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"calshim/internal/testkit/wpfake"
)

// On the first signal /readyz answers 503 at once while v1 requests are still served; the process
// ends once the drain period is over. -healthcheck answers for the running server.
func TestDrainOnSignal(t *testing.T) {
	wp := wpfake.New(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	env := map[string]string{"CALSHIM_UPSTREAM_URL": wp.Root, "CALSHIM_LISTEN": addr,
		"CALSHIM_CATALOG_SNAPSHOT": "none", "CALSHIM_SHUTDOWN_DRAIN": "600ms", "CALSHIM_LOG_LEVEL": "error"}
	getenv := func(k string) string { return env[k] }
	stop := make(chan os.Signal, 2)
	done := make(chan error, 1)
	go func() { done <- run(stop, nil, getenv, io.Discard, io.Discard) }()

	base := "http://" + addr
	waitStatus(t, base+"/readyz", http.StatusOK)
	if err := run(nil, []string{"-healthcheck"}, getenv, io.Discard, io.Discard); err != nil {
		t.Errorf("-healthcheck of a running server: %v", err)
	}

	stop <- syscall.SIGTERM
	start := time.Now()
	waitStatus(t, base+"/readyz", http.StatusServiceUnavailable)
	if took := time.Since(start); took > 300*time.Millisecond {
		t.Errorf("/readyz took %v to answer 503", took)
	}

	if got := status(t, base+"/wp-json/cal/events/v1/events"); got != http.StatusOK {
		t.Errorf("a read while draining: %d", got)
	}

	select {
	case err := <-done:
		t.Fatalf("run ended during the drain: %v", err)
	case <-time.After(200 * time.Millisecond):
	}

	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("run did not end after the drain")
	}

	if err := run(nil, []string{"-healthcheck"}, getenv, io.Discard, io.Discard); err == nil {
		t.Error("-healthcheck of a stopped server succeeded")
	}
}

func TestVersionFlag(t *testing.T) {
	var out bytes.Buffer
	err := run(nil, []string{"-version"}, func(string) string { return "" }, &out, io.Discard)
	if err != nil || !bytes.HasPrefix(out.Bytes(), []byte("calshim ")) {
		t.Errorf("-version: %v %q", err, out.String())
	}
}

func status(t *testing.T, url string) int {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		return 0
	}
	_ = res.Body.Close()
	return res.StatusCode
}

func waitStatus(t *testing.T, url string, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for status(t, url) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%s never answered %d", url, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
