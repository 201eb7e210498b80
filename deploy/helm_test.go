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

	out, err := helm(t, append([]string{"template", "calshim", chart, "--set", "serviceMonitor.enabled=true"},
		credentials...)...)
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

// kustomizeObjects are the objects `kubectl apply -k deploy/k8s` creates, with the ServiceMonitor,
// before kustomize names the generated ones by their hash.
func kustomizeObjects(t *testing.T) map[string]any {
	var kust kustomization
	readYAML(t, "k8s/kustomization.yaml", &kust)
	var docs bytes.Buffer
	for _, r := range append(kust.Resources, "servicemonitor.yaml") {
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
	for line := range strings.Lines(string(env)) {
		k, v, _ := strings.Cut(strings.TrimSpace(line), "=")
		data[k] = v
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
