// Package rigenv reads the test rig's wp.env (written by scripts/wp-up.sh): the WordPress URL and the
// users' application passwords, for the black-box suite and the comparison harness.
package rigenv

import (
	"bufio"
	"os"
	"strings"
)

// Read parses the KEY=value lines of a wp.env file; comments, blank lines and an "export " prefix
// are skipped, quotes around a value dropped.
func Read(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only: nothing to lose on close

	env := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok && !strings.HasPrefix(k, "#") {
			env[strings.TrimPrefix(k, "export ")] = strings.Trim(v, `"'`)
		}
	}
	return env, sc.Err()
}
