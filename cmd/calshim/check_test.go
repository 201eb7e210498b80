package main

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"

	"calshim/internal/testkit/wpfake"
)

// checkFake runs `calshim check` against the fake as the reader, after intercept (nil: none) is
// installed; it answers the report and run's error.
func checkFake(t *testing.T, intercept func(w http.ResponseWriter, r *http.Request) bool) (string, error) {
	t.Helper()
	wp := wpfake.New(t)
	wp.SetIntercept(intercept)
	env := map[string]string{"CALSHIM_UPSTREAM_URL": wp.Root, "CALSHIM_UPSTREAM_USER": "calshim-reader",
		"CALSHIM_UPSTREAM_APP_PASSWORD": "xxxx", "CALSHIM_CATALOG_SNAPSHOT": "none"}
	var out bytes.Buffer
	err := run(nil, []string{"check"}, func(k string) string { return env[k] }, &out, io.Discard)
	return out.String(), err
}

// answer writes a JSON answer.
func answer(w http.ResponseWriter, status int, body string) bool {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(body))
	return true
}

// `calshim check` prints what it found and exits 0 when calshim can serve; a credential WordPress
// ignores is one problem line with its fix, and exit status 1.
func TestCheck(t *testing.T) {
	out, err := checkFake(t, func(w http.ResponseWriter, r *http.Request) bool {
		switch r.URL.Path {
		case "/wp-json/wp/v2/users/me":
			return answer(w, 200, `{"username":"calshim-reader","roles":["calshim_reader"]}`)
		case "/wp-json/calshim/v1/changes":
			return answer(w, 200, `{"log":"l","site":"s","head":1,"seq":1}`)
		}
		return false
	})
	if err != nil {
		t.Fatalf("check: %v\n%s", err, out)
	}
	for _, want := range []string{"time zone: ", "plugin: ", "reader: calshim-reader (roles: calshim_reader), change feed: yes",
		"\nevents: ", "\nvenues: ", "\norganizers: ", "\ncategories: ", "\ntags: ", "\nusable\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}

	out, err = checkFake(t, func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/wp-json/wp/v2/users/me" {
			return answer(w, 401, `{"code":"rest_not_logged_in","message":"m","data":{"status":401}}`)
		}
		return false
	})
	if !errors.Is(err, errUnusable) || !strings.Contains(out, "problem: WordPress ignores the reader's application password") ||
		!strings.Contains(out, "fix: WordPress accepts application passwords only over HTTPS") ||
		!strings.HasSuffix(out, "\nnot usable\n") {
		t.Errorf("check: %v\n%s", err, out)
	}
}

// The configuration's warnings (an old variable name here) are logged once at start, and printed
// first by `calshim check`.
func TestConfigurationWarnings(t *testing.T) {
	wp := wpfake.New(t)
	addr := freeAddr(t)
	env := map[string]string{"CALSHIM_UPSTREAM_URL": wp.Root, "CALSHIM_LISTEN": addr, "CALSHIM_SNAPSHOT": "none",
		"CALSHIM_SHUTDOWN_DRAIN": "0s", "CALSHIM_LOG_LEVEL": "warn"}
	want := "configuration: CALSHIM_SNAPSHOT is renamed CALSHIM_CATALOG_SNAPSHOT"

	var out bytes.Buffer
	if err := run(nil, []string{"check"}, func(k string) string { return env[k] }, &out, io.Discard); err != nil ||
		!strings.HasPrefix(out.String(), "warning: "+want) {
		t.Errorf("check: %v\n%s", err, out.String())
	}

	var log bytes.Buffer
	stop := make(chan os.Signal, 1)
	done := make(chan error, 1)
	go func() { done <- run(stop, nil, func(k string) string { return env[k] }, io.Discard, &log) }()
	waitStatus(t, "http://"+addr+"/readyz", http.StatusOK)
	stop <- syscall.SIGTERM
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(log.String(), want); n != 1 || !strings.Contains(log.String(), `"level":"warn"`) {
		t.Errorf("the warning logged %d times:\n%s", n, log.String())
	}
}
