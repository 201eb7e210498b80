package config

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// decodeYAML sets the keys a configuration file sets. Every key must be one of the table's (or a
// secret's x_file, or a retired key, which is ignored with a warning): a misspelt key would
// otherwise leave its setting at the default without a word.
func decodeYAML(c *Config, b []byte) ([]string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 { // an empty file sets nothing
		return nil, nil
	}
	d := decoder{c: c, lines: map[string]int{}}
	if err := d.mapping(doc.Content[0], ""); err != nil {
		return d.warnings, err
	}
	for _, s := range settings {
		if s.secret && d.lines[s.key] > 0 && d.lines[s.key+fileSuffix] > 0 {
			return d.warnings, fmt.Errorf("line %d: %s and %s are both set: set only one",
				d.lines[s.key+fileSuffix], s.key, s.key+fileSuffix)
		}
	}
	return d.warnings, nil
}

// decoder walks a configuration file: lines holds the line each key path was set on.
type decoder struct {
	c        *Config
	lines    map[string]int
	warnings []string
}

// mapping reads the keys of a mapping whose path starts with prefix ("" at the top, "upstream." in
// a section).
func (d *decoder) mapping(n *yaml.Node, prefix string) error {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode && prefix == "" {
		return fmt.Errorf("line %d: the file must be a mapping of keys", n.Line)
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: %s must be a mapping of keys", n.Line, strings.TrimSuffix(prefix, "."))
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if err := d.key(prefix+n.Content[i].Value, n.Content[i], n.Content[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// key reads one key path: a setting, a secret's file, a section, or a retired key.
func (d *decoder) key(path string, k, v *yaml.Node) error {
	if first, twice := d.lines[path]; twice {
		return fmt.Errorf("line %d: %s is set twice (first on line %d)", k.Line, path, first)
	}
	d.lines[path] = k.Line
	if v.Kind == yaml.AliasNode {
		v = v.Alias
	}
	if s, ok := find(path); ok {
		return d.at(k, path, s.value.decode(d.c, v))
	}
	if s, ok := find(strings.TrimSuffix(path, fileSuffix)); ok && s.secret {
		if v.Kind != yaml.ScalarNode {
			return d.at(k, path, errors.New("must be the path of a file"))
		}
		secret, err := readSecret(v.Value)
		if err == nil {
			err = s.value.parse(d.c, secret)
		}
		return d.at(k, path, err)
	}
	if isSection(path) {
		return d.mapping(v, path+".")
	}
	if note, ok := retired[path]; ok {
		d.warnings = append(d.warnings, fmt.Sprintf("%s (line %d) is ignored: %s", path, k.Line, note))
		return nil
	}
	return fmt.Errorf("line %d: unknown key %s (docs/configuration.md lists every key)", k.Line, path)
}

// at names the key and line of an error reading its value.
func (d *decoder) at(k *yaml.Node, path string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("line %d: %s: %w", k.Line, path, err)
}

// find is the setting of a key path.
func find(path string) (setting, bool) {
	for _, s := range settings {
		if s.key == path {
			return s, true
		}
	}
	return setting{}, false
}

// isSection tells whether a key path groups settings (upstream, catalog, ...).
func isSection(path string) bool {
	_, ok := sections[path]
	return ok
}
