package test

import (
	"debug/elf"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The container image builds with podman on this machine (scripts/image.sh, deploy/Containerfile)
// and holds what it should: a static calshim that runs, as a non-root user, the port exposed, a
// health check by the binary itself, the CA certificates. Running the container is not possible
// here (crun cannot set its limits in this sandbox), so the binary is copied out and run on the
// host. Slow on a fresh machine, where the static build recompiles the dependencies once.
func TestContainerImage(t *testing.T) {
	if _, err := exec.LookPath("podman"); err != nil {
		t.Fatal("podman is missing: run scripts/tools-up.sh (make test does)")
	}

	dir := t.TempDir()
	tag := "localhost/calshim-image-test:" + strconv.Itoa(os.Getpid())
	build := exec.Command("../scripts/image.sh", tag)
	build.Env = append(os.Environ(), "IMAGE_CONTEXT="+filepath.Join(dir, "ctx"), "VERSION=image-test")
	start := time.Now()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("scripts/image.sh: %v\n%s", err, out)
	}
	t.Logf("image built in %v", time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() { _ = exec.Command("podman", "rmi", "-f", tag).Run() })

	checkImageConfig(t, tag)
	bin := copyOut(t, tag, "/calshim", filepath.Join(dir, "calshim"))
	if out, err := exec.Command(bin, "-version").CombinedOutput(); err != nil ||
		strings.TrimSpace(string(out)) != "calshim image-test" {
		t.Errorf("calshim -version from the image: %v %q", err, out)
	}

	if f, err := elf.Open(bin); err != nil || f.Section(".interp") != nil {
		t.Errorf("the binary is not static (it names a dynamic loader, or is no ELF file: %v)", err)
	}

	passwd, err := os.ReadFile(copyOut(t, tag, "/etc/passwd", filepath.Join(dir, "passwd")))
	if err != nil || !strings.Contains(string(passwd), "calshim:x:65532:65532:") {
		t.Errorf("/etc/passwd: %v %q", err, passwd)
	}

	ca := copyOut(t, tag, "/etc/ssl/certs/ca-certificates.crt", filepath.Join(dir, "ca.crt"))
	certs, err := os.Stat(ca)
	if err != nil || certs.Size() < 1000 {
		t.Errorf("CA certificates: %v", err)
	}
}

// checkImageConfig reads the image's configuration: user, port, health check, entry point, and the
// environment that makes it listen beyond loopback and keep its snapshot.
func checkImageConfig(t *testing.T, tag string) {
	t.Helper()
	out, err := exec.Command("podman", "image", "inspect", tag).Output()
	if err != nil {
		t.Fatalf("podman image inspect: %v", err)
	}

	var images []struct {
		Config struct {
			User         string
			ExposedPorts map[string]any
			Entrypoint   []string
			Env          []string
		}
		HealthCheck struct{ Test []string }
	}
	if err := json.Unmarshal(out, &images); err != nil || len(images) != 1 {
		t.Fatalf("podman image inspect: %v %s", err, out)
	}

	c := images[0].Config
	if c.User != "65532:65532" {
		t.Errorf("User = %q, want 65532:65532 (non-root)", c.User)
	}
	if _, ok := c.ExposedPorts["8080/tcp"]; !ok {
		t.Errorf("ExposedPorts = %v, want 8080/tcp", c.ExposedPorts)
	}
	if got := strings.Join(images[0].HealthCheck.Test, " "); got != "CMD /calshim -healthcheck" {
		t.Errorf("HealthCheck = %q", got)
	}
	if got := strings.Join(c.Entrypoint, " "); got != "/calshim" {
		t.Errorf("Entrypoint = %q", got)
	}
	env := strings.Join(c.Env, " ")
	wants := []string{"CALSHIM_LISTEN=0.0.0.0:8080", "CALSHIM_CATALOG_SNAPSHOT=/var/cache/calshim/catalog.gob"}
	for _, want := range wants {
		if !strings.Contains(env, want) {
			t.Errorf("Env %q lacks %s", env, want)
		}
	}
}

// copyOut copies a file out of the image (a created, never started, container) to dst.
func copyOut(t *testing.T, tag, path, dst string) string {
	t.Helper()
	id, err := exec.Command("podman", "create", tag).Output()
	if err != nil {
		t.Fatalf("podman create: %v", err)
	}

	ctr := strings.TrimSpace(string(id))
	defer func() { _ = exec.Command("podman", "rm", "-f", ctr).Run() }()
	if out, err := exec.Command("podman", "cp", ctr+":"+path, dst).CombinedOutput(); err != nil {
		t.Fatalf("podman cp %s: %v %s", path, err, out)
	}
	return dst
}
