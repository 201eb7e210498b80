package deploy

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

const chart = "helm/calshim"

// helmBin is the pinned helm `make` builds: $CALSHIM_HELM (the Makefile sets it), else the path the
// Makefile's pin names.
func helmBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("CALSHIM_HELM")
	if bin == "" {
		mk, err := os.ReadFile("../Makefile")
		if err != nil {
			t.Fatal(err)
		}
		m := regexp.MustCompile(`(?m)^HELM_VERSION := (\S+)$`).FindSubmatch(mk)
		if m == nil {
			t.Fatal("the Makefile pins no HELM_VERSION")
		}
		bin = filepath.Join("..", "bin", "helm-"+string(m[1]))
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no helm (%v): `make %s` builds it", err, strings.TrimPrefix(bin, "../"))
	}
	return bin
}

func helm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, stderr bytes.Buffer
	cmd := exec.Command(helmBin(t), args...)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	if err != nil {
		err = errors.New(stderr.String())
	}
	return out.String(), err
}

// credentials are the chart's two required values, as an operator's values file gives them.
var credentials = []string{"--set", "upstream.user=calshim-reader", "--set", "upstream.appPassword=abcd efgh"}

// The chart lints clean, refuses to render without the service credential (so no upgrade can
// replace it with a placeholder), and renders the objects of deploy/k8s: the same kinds and names,
// and the same contents but for Helm's own labels, the pods' checksum annotations and the Secret's
// values.
func TestHelmChart(t *testing.T) {
	if out, err := helm(t, append([]string{"lint", "--strict", chart}, credentials...)...); err != nil {
		t.Fatalf("helm lint: %v\n%s", err, out)
	}
	if _, err := helm(t, "template", "calshim", chart); err == nil || !strings.Contains(err.Error(), "upstream.user") {
		t.Errorf("rendered without the credential: %v", err)
	}

	out, err := helm(t, append([]string{"template", "calshim", chart, "--set", "serviceMonitor.enabled=true",
		"--set", "ingress.enabled=true"}, credentials...)...)
	if err != nil {
		t.Fatalf("helm template: %v", err)
	}
	got := objects(t, strings.NewReader(out))
	want := kustomizeObjects(t)
	if g, w := slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)); !slices.Equal(g, w) {
		t.Fatalf("the chart renders %v, deploy/k8s holds %v", g, w)
	}
	for name, w := range want {
		if g := got[name]; !reflect.DeepEqual(g, w) {
			gy, _ := yaml.Marshal(g)
			wy, _ := yaml.Marshal(w)
			t.Errorf("%s differs; the chart:\n%s\ndeploy/k8s:\n%s", name, gy, wy)
		}
	}
}

// kustomizeObjects are the objects `kubectl apply -k deploy/k8s` creates, with the ServiceMonitor and
// the Ingress (both optional: added to its resources by the operator), before kustomize names the
// generated ones by their hash.
func kustomizeObjects(t *testing.T) map[string]any {
	var kust kustomization
	readYAML(t, "k8s/kustomization.yaml", &kust)
	var docs bytes.Buffer
	for _, r := range append(kust.Resources, "servicemonitor.yaml", "ingress.yaml") {
		b, err := os.ReadFile(filepath.Join("k8s", r))
		if err != nil {
			t.Fatal(err)
		}
		docs.WriteString("---\n")
		docs.Write(b)
	}
	objs := objects(t, &docs)

	labels := map[string]any{"app.kubernetes.io/name": "calshim"}
	cfg, err := os.ReadFile(filepath.Join("k8s", kust.ConfigMaps[0].Files[0]))
	if err != nil {
		t.Fatal(err)
	}
	cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": kust.ConfigMaps[0].Name, "labels": labels},
		"data":     map[string]any{"config.yaml": string(cfg)}}
	env, err := os.ReadFile(filepath.Join("k8s", upstreamEnv+".example"))
	if err != nil {
		t.Fatal(err)
	}
	data := map[string]any{}
	for _, kv := range envFile(string(env)) {
		data[kv[0]] = kv[1]
	}
	secret := map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
		"metadata": map[string]any{"name": kust.Generated[0].Name, "labels": labels}, "data": data}
	for _, o := range []map[string]any{cm, secret} {
		normalise(o)
		objs[o["kind"].(string)+"/"+o["metadata"].(map[string]any)["name"].(string)] = o
	}
	return objs
}

// objects reads a stream of YAML documents into normalised objects keyed by kind/name.
func objects(t *testing.T, r io.Reader) map[string]any {
	t.Helper()
	objs := map[string]any{}
	dec := yaml.NewDecoder(r)
	for {
		var o map[string]any
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			return objs
		}
		if err != nil {
			t.Fatal(err)
		}
		if o == nil {
			continue
		}
		normalise(o)
		objs[o["kind"].(string)+"/"+o["metadata"].(map[string]any)["name"].(string)] = o
	}
}

// helmLabels are the labels Helm's charts add that kustomize's objects do not carry.
var helmLabels = []string{"app.kubernetes.io/instance", "app.kubernetes.io/version",
	"app.kubernetes.io/managed-by", "helm.sh/chart"}

// normalise drops what may differ between the two renderings: Helm's labels, the pods' checksum
// annotations, the Secret's values (the keys stay); and reads the configuration file as YAML.
func normalise(o map[string]any) {
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, l := range helmLabels {
				delete(v, l)
			}
			if meta, ok := v["metadata"].(map[string]any); ok {
				delete(meta, "annotations")
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(o)

	data, _ := o["data"].(map[string]any)
	switch o["kind"] {
	case "ConfigMap":
		var cfg any
		if err := yaml.Unmarshal([]byte(data["config.yaml"].(string)), &cfg); err == nil {
			data["config.yaml"] = cfg
		}
	case "Secret":
		for k := range data {
			data[k] = ""
		}
	}
}

// render answers the chart's objects with the credential and the given values.
func render(t *testing.T, set ...string) map[string]any {
	t.Helper()
	args := append([]string{"template", "calshim", chart}, credentials...)
	for _, kv := range set {
		args = append(args, "--set", kv)
	}
	out, err := helm(t, args...)
	if err != nil {
		t.Fatalf("helm template %v: %v", set, err)
	}
	return objects(t, strings.NewReader(out))
}

// at reads a path of map keys and list indexes in an object.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// The PodDisruptionBudget follows replicas: none for one replica (it would block every node drain),
// one pod down at a time for more. deploy/k8s (three replicas) says the same.
func TestHelmPDBFollowsReplicas(t *testing.T) {
	const pdb = "PodDisruptionBudget/calshim"
	if objs := render(t, "replicas=1"); objs[pdb] != nil {
		t.Errorf("one replica: a PDB %v", objs[pdb])
	}
	for _, n := range []string{"2", "3", "7"} {
		spec := at(render(t, "replicas="+n)[pdb], "spec")
		if at(spec, "maxUnavailable") != 1 || at(spec, "minAvailable") != nil {
			t.Errorf("%s replicas: PDB spec %v", n, spec)
		}
	}
}

// The Ingress is off by default; on, it routes calshim's paths only (no catch-all to WordPress unless
// wordpress.service names its Service), with the TLS block given.
func TestHelmIngress(t *testing.T) {
	const ing = "Ingress/calshim"
	if objs := render(t); objs[ing] != nil {
		t.Fatalf("an Ingress by default: %v", objs[ing])
	}
	paths := func(o any) map[string]string {
		got := map[string]string{}
		for _, p := range at(o, "spec", "rules", 0, "http", "paths").([]any) {
			got[at(p, "path").(string)] = at(p, "backend", "service", "name").(string)
		}
		return got
	}
	on := render(t, "ingress.enabled=true")[ing]
	got := paths(on)
	if got["/wp-json/cal/events/v1"] != "calshim" || got["/de/wp-json/tribe/events/v1"] != "calshim" ||
		got["/calshim/notify"] != "calshim" || len(got) != 13 || at(on, "spec", "tls") != nil {
		t.Errorf("enabled: paths %v, tls %v", got, at(on, "spec", "tls"))
	}
	on = render(t, "ingress.enabled=true", "ingress.wordpress.service=wp", "ingress.tls[0].secretName=www-tls",
		"ingress.tls[0].hosts[0]=www.example.org")[ing]
	if got := paths(on); got["/"] != "wp" || at(on, "spec", "rules", 0, "http", "paths", 13, "backend", "service", "port", "number") != 80 {
		t.Errorf("with WordPress' Service: paths %v", got)
	}
	if at(on, "spec", "tls", 0, "secretName") != "www-tls" || at(on, "spec", "tls", 0, "hosts", 0) != "www.example.org" {
		t.Errorf("tls: %v", at(on, "spec", "tls"))
	}
}

// existingSecret: the chart makes no Secret, needs no credential values, and the pods read the named one.
// The image is versioned (the chart's appVersion), with a registry and a pull policy.
func TestHelmExistingSecretAndImage(t *testing.T) {
	out, err := helm(t, "template", "calshim", chart, "--set", "existingSecret=wp-reader")
	if err != nil {
		t.Fatalf("existingSecret without upstream values: %v", err)
	}
	objs := objects(t, strings.NewReader(out))
	container := at(objs["Deployment/calshim"], "spec", "template", "spec", "containers", 0)
	if objs["Secret/calshim-upstream"] != nil || at(container, "envFrom", 0, "secretRef", "name") != "wp-reader" {
		t.Errorf("existingSecret: secret %v, envFrom %v", objs["Secret/calshim-upstream"], at(container, "envFrom"))
	}
	var meta struct {
		AppVersion string `yaml:"appVersion"`
	}
	readYAML(t, chart+"/Chart.yaml", &meta)
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(meta.AppVersion) || at(container, "image") != "calshim:"+meta.AppVersion ||
		at(container, "imagePullPolicy") != "IfNotPresent" {
		t.Errorf("default image %v (%v), appVersion %q", at(container, "image"), at(container, "imagePullPolicy"), meta.AppVersion)
	}
	container = at(render(t, "image.registry=registry.example.org/web/", "image.tag=v1.2.3", "image.pullPolicy=Always")["Deployment/calshim"],
		"spec", "template", "spec", "containers", 0)
	if at(container, "image") != "registry.example.org/web/calshim:v1.2.3" || at(container, "imagePullPolicy") != "Always" {
		t.Errorf("image %v (%v)", at(container, "image"), at(container, "imagePullPolicy"))
	}
}
