// Package deploy holds the container image, Kubernetes manifests and compose file of calshim; its
// test checks that they agree with the binary (no cluster or engine runs on the development
// machines: these files are read, not applied).
package deploy

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
				Grace      int   `yaml:"terminationGracePeriodSeconds"`
				Automount  *bool `yaml:"automountServiceAccountToken"`
				Spread     []any `yaml:"topologySpreadConstraints"`
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

// kustomization is deploy/k8s/kustomization.yaml.
type kustomization struct {
	Resources []string `yaml:"resources"`
	Generated []struct {
		Name  string   `yaml:"name"`
		Envs  []string `yaml:"envs"`
		Files []string `yaml:"files"`
	} `yaml:"secretGenerator"`
	ConfigMaps []struct {
		Name  string   `yaml:"name"`
		Files []string `yaml:"files"`
	} `yaml:"configMapGenerator"`
}

// k8sConfig is calshim's configuration in deploy/k8s/config.yaml, as calshim reads it.
func k8sConfig(t *testing.T) config.Config {
	t.Helper()
	cfg, warnings, err := config.Load("k8s/config.yaml", func(string) string { return "" })
	if err != nil || len(warnings) > 0 {
		t.Fatalf("k8s/config.yaml: %v %q", err, warnings)
	}
	return cfg
}

// The Deployment probes /readyz and /healthz, reads the generated Secret, has resources, no
// service-account token and spread constraints, and gives the drain time; the generated ConfigMap's
// file is a valid calshim configuration listening on the container's port.
func TestKubernetesManifests(t *testing.T) {
	var d deployment
	readYAML(t, "k8s/deployment.yaml", &d)
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	if c.Readiness.HTTPGet.Path != "/readyz" || c.Liveness.HTTPGet.Path != "/healthz" {
		t.Errorf("probes: readiness %q, liveness %q", c.Readiness.HTTPGet.Path, c.Liveness.HTTPGet.Path)
	}
	res := c.Resources
	if res.Requests["memory"] == "" || res.Limits["memory"] == "" || res.Requests["cpu"] == "" {
		t.Errorf("resources: %+v", c.Resources)
	}
	if pod.Automount == nil || *pod.Automount || len(pod.Spread) == 0 {
		t.Errorf("automountServiceAccountToken %v, %d topology spread constraints", pod.Automount, len(pod.Spread))
	}

	var kust kustomization
	readYAML(t, "k8s/kustomization.yaml", &kust)
	for _, r := range kust.Resources {
		if _, err := os.Stat(filepath.Join("k8s", r)); err != nil {
			t.Errorf("kustomization: %v", err)
		}
	}
	if len(kust.ConfigMaps) != 1 || strings.Join(kust.ConfigMaps[0].Files, " ") != "config.yaml" {
		t.Errorf("configMapGenerator %+v, want config.yaml", kust.ConfigMaps)
	}
	checkGeneratedSecret(t, kust, c.EnvFrom[0].SecretRef.Name, len(c.EnvFrom))

	cfg := k8sConfig(t)
	if !strings.HasSuffix(cfg.Listen, ":8080") || c.Ports[0].ContainerPort != 8080 {
		t.Errorf("listen %q, container port %d", cfg.Listen, c.Ports[0].ContainerPort)
	}
	need := cfg.Shutdown.Drain + cfg.Shutdown.Timeout
	if pod.Grace <= int(need.Seconds()) {
		t.Errorf("terminationGracePeriodSeconds %d, drain + timeout %v", pod.Grace, need)
	}
	if strings.Join(c.Args, " ") != "-config /etc/calshim/config.yaml" {
		t.Errorf("args %v", c.Args)
	}
}

// upstreamEnv is the file the operator creates for the Secret's generator; git ignores it.
const upstreamEnv = "upstream.env"

// The Secret the Deployment reads is generated from upstream.env, which git ignores (the
// credential is never committed, and no committed placeholder can replace it on apply); the
// example beside it names both variables.
func checkGeneratedSecret(t *testing.T, kust kustomization, secretRef string, refs int) {
	t.Helper()
	if len(kust.Generated) != 1 || kust.Generated[0].Name != secretRef || refs != 1 ||
		strings.Join(kust.Generated[0].Envs, " ") != upstreamEnv || len(kust.Generated[0].Files) != 0 {
		t.Errorf("secretGenerator %+v, the Deployment reads %q", kust.Generated, secretRef)
	}
	ignore, err := os.ReadFile("../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(ignore), "\n"), "deploy/k8s/"+upstreamEnv) {
		t.Errorf(".gitignore does not name deploy/k8s/%s", upstreamEnv)
	}
	example, err := os.ReadFile("k8s/" + upstreamEnv + ".example")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	vars := envFile(string(example))
	for _, kv := range vars {
		keys = append(keys, kv[0])
	}
	if strings.Join(keys, " ") != "CALSHIM_UPSTREAM_USER CALSHIM_UPSTREAM_APP_PASSWORD" {
		t.Errorf("upstream.env.example names %v", keys)
	}
	// No placeholder password that a plain cp would put in place: empty, calshim refuses to start.
	if len(vars) == 2 && vars[1][1] != "" {
		t.Errorf("upstream.env.example carries a password: %q", vars[1][1])
	}
}

// envFile reads an env file as kustomize does: KEY=value lines, comments and blank lines skipped.
func envFile(text string) [][2]string {
	var vars [][2]string
	for line := range strings.Lines(text) {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		vars = append(vars, [2]string{k, v})
	}
	return vars
}

// ingressPath is one path of the Ingress and the Service it goes to.
type ingressPath struct {
	Path     string `yaml:"path"`
	PathType string `yaml:"pathType"`
	Backend  struct {
		Service struct {
			Name string `yaml:"name"`
			Port struct {
				Name   string `yaml:"name"`
				Number int    `yaml:"number"`
			} `yaml:"port"`
		} `yaml:"service"`
	} `yaml:"backend"`
}

// The Ingress sends calshim's namespaces below the REST root, for the default language and under
// each other one's segment (as the ConfigMap's configuration serves them and the routing snippets
// route them), and the plugin's notices, to calshim's Service; everything else to WordPress.
func TestIngressRoutes(t *testing.T) {
	var ing struct {
		Kind string `yaml:"kind"`
		Spec struct {
			Rules []struct {
				Host string `yaml:"host"`
				HTTP struct {
					Paths []ingressPath `yaml:"paths"`
				} `yaml:"http"`
			} `yaml:"rules"`
		} `yaml:"spec"`
	}
	readYAML(t, "k8s/ingress.yaml", &ing)
	var svc struct {
		Metadata struct{ Name string } `yaml:"metadata"`
		Spec     struct {
			Ports []struct{ Name string } `yaml:"ports"`
		} `yaml:"spec"`
	}
	readYAML(t, "k8s/service.yaml", &svc)
	if ing.Kind != "Ingress" || len(ing.Spec.Rules) != 1 || ing.Spec.Rules[0].Host == "" ||
		len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Name != "http" {
		t.Fatalf("ingress %+v, service ports %+v", ing, svc.Spec.Ports)
	}

	cfg := k8sConfig(t)
	var want []string
	for _, ns := range append([]string{"cal/events/v1"}, cfg.NamespaceAliases...) {
		for _, lang := range append([]string{""}, cfg.Languages[1:]...) {
			if lang != "" {
				lang = "/" + lang
			}
			want = append(want, "Prefix "+lang+cfg.RESTRoot+"/"+ns+" "+svc.Metadata.Name+":http")
		}
	}
	want = append(want, "Exact /calshim/notify "+svc.Metadata.Name+":http") // no catch-all unless asked
	var got []string
	for _, p := range ing.Spec.Rules[0].HTTP.Paths {
		s := p.Backend.Service
		port := s.Port.Name
		if port == "" {
			port = strconv.Itoa(s.Port.Number)
		}
		got = append(got, p.PathType+" "+p.Path+" "+s.Name+":"+port)
	}
	if !slices.Equal(got, want) {
		t.Errorf("ingress paths:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
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
	for _, mount := range []string{ // the loader and, beside it, the folder of its classes
		"../cmsclient/wordpress/calshim.php:/var/www/html/wp-content/mu-plugins/calshim.php",
		"../cmsclient/wordpress/calshim:/var/www/html/wp-content/mu-plugins/calshim:",
	} {
		if !strings.Contains(strings.Join(wp.Volumes, " "), mount) {
			t.Errorf("the mu-plugin is not mounted (%s): %v", mount, wp.Volumes)
		}
		if _, err := os.Stat(strings.Split(mount, ":")[0]); err != nil {
			t.Error(err)
		}
	}
	if !strings.HasPrefix(compose.Services["db"].Image, "mariadb") {
		t.Errorf("db image %q", compose.Services["db"].Image)
	}
	b := compose.Services["calshim"].Build
	if _, err := os.Stat(filepath.Join(b.Context, b.Dockerfile)); err != nil || b.Context != ".." {
		t.Errorf("calshim build: %+v %v", b, err)
	}
}
