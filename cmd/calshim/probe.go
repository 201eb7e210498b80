package main

import (
	"fmt"
	"net"
	"net/http"
	"runtime/debug"
	"time"
)

// version is set at build time (-ldflags "-X main.version=..."); otherwise the VCS revision Go
// recorded in the binary is shown.
var version = ""

func buildVersion() string {
	if version != "" {
		return version
	}

	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}

	rev, dirty := "", ""
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}

	if rev == "" {
		return info.Main.Version
	}
	return rev[:min(len(rev), 12)] + dirty
}

// checkHealth asks the calshim listening on listen (the configured address; an unspecified host
// means this machine) for /healthz: a container image built FROM scratch has no curl for its
// HEALTHCHECK, so the binary checks itself.
func checkHealth(listen string) error {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("healthcheck: listen address %q: %w", listen, err)
	}

	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}

	client := &http.Client{Timeout: 3 * time.Second}
	res, err := client.Get("http://" + net.JoinHostPort(host, port) + "/healthz")
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	_ = res.Body.Close() // only the status matters

	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: /healthz answered %d", res.StatusCode)
	}
	return nil
}
