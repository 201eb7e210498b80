// Package deploy holds the container image, Kubernetes manifests and compose file of calshim; its
// test checks that they agree with the binary (no cluster or engine runs on the development
// machines: these files are read, not applied).
package deploy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"calshim/config"
)

func readYAML(t *testing.T, path string, out any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

type probe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
}

type deployment struct {
	Kind string `yaml:"kind"`
	Spec struct {
		Template struct {
			Spec struct {
				Grace      int `yaml:"terminationGracePeriodSeconds"`
				Containers []struct {
					Args    []string `yaml:"args"`
					EnvFrom []struct {
						SecretRef struct{ Name string } `yaml:"secretRef"`
					} `yaml:"envFrom"`
					Ports []struct {
						ContainerPort int `yaml:"containerPort"`
					} `yaml:"ports"`
					Readiness probe `yaml:"readinessProbe"`
					Liveness  probe `yaml:"livenessProbe"`
					Resources struct {
						Requests map[string]string `yaml:"requests"`
						Limits   map[string]string `yaml:"limits"`
					} `yaml:"resources"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// The Deployment probes /readyz and /healthz, reads the Secret, has resources, and gives the drain
// time; the ConfigMap's file is a valid calshim configuration listening on the container's port.
func TestKubernetesManifests(t *testing.T) {
	var d deployment
	readYAML(t, "k8s/deployment.yaml", &d)
	c := d.Spec.Template.Spec.Containers[0]
	if c.Readiness.HTTPGet.Path != "/readyz" || c.Liveness.HTTPGet.Path != "/healthz" {
		t.Errorf("probes: readiness %q, liveness %q", c.Readiness.HTTPGet.Path, c.Liveness.HTTPGet.Path)
	}
	res := c.Resources
	if res.Requests["memory"] == "" || res.Limits["memory"] == "" || res.Requests["cpu"] == "" {
		t.Errorf("resources: %+v", c.Resources)
	}

	var secret struct {
		Metadata   struct{ Name string } `yaml:"metadata"`
		StringData map[string]string     `yaml:"stringData"`
	}
	readYAML(t, "k8s/secret.yaml", &secret)
	if len(c.EnvFrom) != 1 || c.EnvFrom[0].SecretRef.Name != secret.Metadata.Name ||
		secret.StringData["CALSHIM_UPSTREAM_USER"] == "" ||
		secret.StringData["CALSHIM_UPSTREAM_APP_PASSWORD"] == "" {
		t.Errorf("the Deployment does not read the service credential from the Secret: %+v %+v",
			c.EnvFrom, secret)
	}

	var cm struct {
		Data map[string]string `yaml:"data"`
	}
	readYAML(t, "k8s/configmap.yaml", &cm)
	file := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(file, []byte(cm.Data["config.yaml"]), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(file, func(string) string { return "" })
	if err != nil {
		t.Fatalf("the ConfigMap's config.yaml: %v", err)
	}
	if !strings.HasSuffix(cfg.Listen, ":8080") || c.Ports[0].ContainerPort != 8080 {
		t.Errorf("listen %q, container port %d", cfg.Listen, c.Ports[0].ContainerPort)
	}
	need := cfg.Shutdown.Drain + cfg.Shutdown.Timeout
	if d.Spec.Template.Spec.Grace <= int(need.Seconds()) {
		t.Errorf("terminationGracePeriodSeconds %d, drain + timeout %v", d.Spec.Template.Spec.Grace, need)
	}
	if strings.Join(c.Args, " ") != "-config /etc/calshim/config.yaml" {
		t.Errorf("args %v", c.Args)
	}

	var kust struct {
		Resources []string `yaml:"resources"`
	}
	readYAML(t, "k8s/kustomization.yaml", &kust)
	for _, r := range kust.Resources {
		if _, err := os.Stat(filepath.Join("k8s", r)); err != nil {
			t.Errorf("kustomization: %v", err)
		}
	}
}

// The compose file runs WordPress with the must-use plugin mounted, MariaDB, and calshim built from
// the multi-stage Containerfile.
func TestComposeFile(t *testing.T) {
	var compose struct {
		Services map[string]struct {
			Image   string   `yaml:"image"`
			Volumes []string `yaml:"volumes"`
			Build   struct {
				Context    string `yaml:"context"`
				Dockerfile string `yaml:"dockerfile"`
			} `yaml:"build"`
		} `yaml:"services"`
	}
	readYAML(t, "compose.yaml", &compose)
	wp := compose.Services["wordpress"]
	if !strings.Contains(strings.Join(wp.Volumes, " "),
		"../cmsclient/wordpress/calshim.php:/var/www/html/wp-content/mu-plugins/calshim.php") {
		t.Errorf("the mu-plugin is not mounted: %v", wp.Volumes)
	}
	if _, err := os.Stat("../cmsclient/wordpress/calshim.php"); err != nil {
		t.Error(err)
	}
	if !strings.HasPrefix(compose.Services["db"].Image, "mariadb") {
		t.Errorf("db image %q", compose.Services["db"].Image)
	}
	b := compose.Services["calshim"].Build
	if _, err := os.Stat(filepath.Join(b.Context, b.Dockerfile)); err != nil || b.Context != ".." {
		t.Errorf("calshim build: %+v %v", b, err)
	}
}
