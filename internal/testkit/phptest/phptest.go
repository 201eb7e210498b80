// Package phptest finds PHP for the tests that compare a port with PHP itself.
package phptest

import (
	"os"
	"os/exec"
	"testing"
)

// Require is the variable that makes a missing PHP (or WordPress) a failure rather than a logged
// gap; make test sets it, since its WordPress rig installs both.
const Require = "CALSHIM_REQUIRE_PHP"

// WordPress is where Debian's package (scripts/wp-up.sh) puts WordPress' sources.
const WordPress = "/usr/share/wordpress"

// PHP returns the php binary's path, or false after logging that the comparison did not run;
// with CALSHIM_REQUIRE_PHP set, a missing php fails the test instead.
func PHP(tb testing.TB) (string, bool) {
	tb.Helper()
	path, err := exec.LookPath("php")
	if err != nil {
		missing(tb, "php is not installed", err)
		return "", false
	}
	return path, true
}

// HasWordPress reports whether WordPress' sources are at WordPress, under the same rule as PHP.
func HasWordPress(tb testing.TB) bool {
	tb.Helper()
	_, err := os.Stat(WordPress + "/wp-includes/formatting.php")
	if err != nil {
		missing(tb, "WordPress' sources are not installed", err)
		return false
	}
	return true
}

func missing(tb testing.TB, what string, err error) {
	tb.Helper()
	if os.Getenv(Require) != "" {
		tb.Fatalf("%s (%v), and %s is set", what, err, Require)
	}
	tb.Logf("%s (%v): the comparison with PHP did not run; only the table's Go answers were checked",
		what, err)
}
