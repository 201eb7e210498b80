package test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// runCheck runs the built binary's `check` with the rig's upstream and the given credentials.
func runCheck(t *testing.T, user, password string) (string, int) {
	t.Helper()
	return runShim(t, []string{"check"}, "CALSHIM_UPSTREAM_URL="+wpEnv["CALSHIM_UPSTREAM_URL"],
		"CALSHIM_UPSTREAM_USER="+user, "CALSHIM_UPSTREAM_APP_PASSWORD="+password)
}

// runShim runs the built binary with args until it exits (at most 20 s), in this environment without
// any CALSHIM_* variable but env's, and answers its output and exit status.
func runShim(t *testing.T, args []string, env ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, shimBin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CALSHIM_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	listen, _ := net.Listen("tcp", "127.0.0.1:0") // a free port, should it start
	addr := listen.Addr().String()
	listen.Close()
	cmd.Env = append(append(cmd.Env, "CALSHIM_CATALOG_SNAPSHOT=none", "CALSHIM_LISTEN="+addr), env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// wpTotal is X-WP-Total of a wp/v2 collection as the reader sees it.
func wpTotal(t *testing.T, path string) string {
	t.Helper()
	r := call(t, http.MethodGet, wpEnv["CALSHIM_UPSTREAM_URL"]+path, func(o *outgoing) {
		o.req.SetBasicAuth(wpEnv["CALSHIM_UPSTREAM_USER"], wpEnv["CALSHIM_UPSTREAM_APP_PASSWORD"])
	})
	if r.status != http.StatusOK {
		t.Fatalf("%s: %d", path, r.status)
	}
	return r.header.Get("X-WP-Total")
}

// `calshim check` against the real WordPress: exit 0, and the counts it prints are what wp/v2 holds
// for the reader (others write to the same site meanwhile, so a mismatch is retried).
func TestCheckAgainstRig(t *testing.T) {
	const all = "?status=publish,future,draft,pending,private,trash&per_page=1&_fields=id"
	wants := map[string]string{"events": "/wp/v2/tribe_events" + all, "venues": "/wp/v2/tribe_venue" + all,
		"organizers": "/wp/v2/tribe_organizer" + all,
		"categories": "/wp/v2/tribe_events_cat?hide_empty=false&per_page=1&_fields=id",
		"tags":       "/wp/v2/tags?hide_empty=false&per_page=1&_fields=id"}
	var mismatch []string
	for range 3 {
		out, code := runCheck(t, wpEnv["CALSHIM_UPSTREAM_USER"], wpEnv["CALSHIM_UPSTREAM_APP_PASSWORD"])
		if code != 0 || !strings.Contains(out, "\nusable\n") || !strings.Contains(out, "change feed: yes") ||
			!regexp.MustCompile(`\nplugin: \d`).MatchString(out) || !strings.Contains(out, "\ntime zone: ") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		mismatch = nil
		for kind, path := range wants {
			if want := kind + ": " + wpTotal(t, path) + "\n"; !strings.Contains(out, "\n"+want) {
				mismatch = append(mismatch, "want "+want)
			}
		}
		if mismatch == nil {
			return
		}
		t.Logf("counts moved meanwhile? %v\n%s", mismatch, out)
	}
	t.Errorf("counts differ from wp/v2's: %v", mismatch)
}

// With a wrong application password, check exits 1 and names the fix.
func TestCheckAgainstRigWrongPassword(t *testing.T) {
	out, code := runCheck(t, wpEnv["CALSHIM_UPSTREAM_USER"], "wrong wrong wrong wrong")
	if code != 1 || !strings.Contains(out, "problem: WordPress refuses the reader's credential") ||
		!strings.Contains(out, "fix: create an application password for user \""+wpEnv["CALSHIM_UPSTREAM_USER"]+"\"") ||
		!strings.Contains(out, "wp calshim reader create --user="+wpEnv["CALSHIM_UPSTREAM_USER"]+" --rotate") ||
		!strings.Contains(out, "that user's own profile") ||
		!strings.Contains(out, "\nnot usable\n") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// Without upstream.url calshim refuses to start, naming the setting, instead of trying an address nobody
// chose; check says the same. Both exit 1 at once.
func TestStartRefusedWithoutUpstream(t *testing.T) {
	for _, args := range [][]string{nil, {"check"}} {
		start := time.Now()
		out, code := runShim(t, args, "CALSHIM_UPSTREAM_USER="+wpEnv["CALSHIM_UPSTREAM_USER"],
			"CALSHIM_UPSTREAM_APP_PASSWORD="+wpEnv["CALSHIM_UPSTREAM_APP_PASSWORD"])
		if code != 1 || !strings.Contains(out, "upstream.url is not set: set CALSHIM_UPSTREAM_URL") ||
			time.Since(start) > 5*time.Second {
			t.Errorf("calshim %v without upstream.url: exit %d after %v:\n%s", args, code, time.Since(start), out)
		}
	}
}

// upstream.url set to the site's address, not its REST root: WordPress answers its home page, and both
// check and the start say to append /wp-json (the start stops at once, with the fix).
func TestSiteAddressAsUpstream(t *testing.T) {
	for _, args := range [][]string{{"check"}, nil} {
		out, code := runShim(t, args, "CALSHIM_UPSTREAM_URL="+wpEnv["WP_URL"],
			"CALSHIM_UPSTREAM_USER="+wpEnv["CALSHIM_UPSTREAM_USER"],
			"CALSHIM_UPSTREAM_APP_PASSWORD="+wpEnv["CALSHIM_UPSTREAM_APP_PASSWORD"])
		if code != 1 || !strings.Contains(out, "does not answer as WordPress' REST root") ||
			!strings.Contains(out, "append /wp-json to upstream.url") {
			t.Errorf("calshim %v with the site's address: exit %d:\n%s", args, code, out)
		}
	}
}
