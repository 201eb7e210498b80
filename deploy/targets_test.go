package deploy

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// The targets an operator runs on the WordPress host (build, plugin-zip, image, helm) install nothing but
// what they need and touch no service: `make -n` lists their commands, and none of them runs
// scripts/tools-up.sh (which stops nginx, haproxy and varnish for the tests) or starts or stops a service.
// make test keeps installing what the tests need.
func TestOperatorTargetsTouchNoService(t *testing.T) {
	for _, target := range []string{"build", "plugin-zip", "image", "helm"} {
		out, err := exec.Command("make", "-C", "..", "-n", "-B", target).CombinedOutput()
		if err != nil {
			t.Fatalf("make -n %s: %v\n%s", target, err, out)
		}
		if m := regexp.MustCompile(`tools-up|systemctl|service |nginx|haproxy|varnish|wp-up|make tools`).FindString(string(out)); m != "" {
			t.Errorf("make %s runs %q:\n%s", target, m, out)
		}
	}
	image, err := os.ReadFile("../scripts/image.sh")
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`tools-up|systemctl|nginx|install -y[^\n]* (haproxy|varnish)`).Find(image); m != nil {
		t.Errorf("scripts/image.sh runs %q", m)
	}
	out, err := exec.Command("make", "-C", "..", "-n", "test").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "scripts/tools-up.sh") {
		t.Errorf("make test no longer installs the tests' tools: %v\n%s", err, out)
	}
	out, err = exec.Command("make", "-C", "..", "-n", "-B", "build").CombinedOutput()
	if err != nil || !regexp.MustCompile(`-ldflags "-X main.version=\S+"`).Match(out) {
		t.Errorf("make build stamps no version: %v\n%s", err, out)
	}
}
