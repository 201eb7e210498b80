package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// setting is one configuration key, declared once in the table of settings.go: its YAML path (the
// environment variable is named after it), its default, the rule a value must meet, where it lives
// in Config and what it means. The loader, Default, Validate, config.example.yaml and
// docs/configuration.md all read it.
type setting struct {
	key    string // YAML path, e.g. "upstream.url"
	desc   string // what it does, for the example file and the reference
	secret bool   // also read from a file: CALSHIM_X_FILE, or the YAML key x_file
	value  value  // the typed field, its default and rule
}

// value is a setting's typed part (field[T]), seen without its type.
type value interface {
	field(c *Config) any                  // a pointer to the field in c
	reset(c *Config)                      // sets the default
	parse(c *Config, s string) error      // sets it from a variable (or a secret's file)
	decode(c *Config, n *yaml.Node) error // sets it from a YAML value
	check(c *Config) string               // the rule's text when the value breaks it, else ""
	yaml(c *Config) string                // the value as written in YAML
	kind() string                         // what a value is, for the reference
	rule() string                         // what a valid value is; "" when any is
}

// kind is the types a setting can hold.
type kind interface {
	string | int | float64 | bool | time.Duration | []string
}

// field is a setting of type T: ptr finds it in a Config; def is its default; valid, when not
// nil, is the rule every value must meet.
type field[T kind] struct {
	ptr   func(*Config) *T
	def   T
	valid *rule[T]
}

// rule is a check of one value and its text ("at least 1"), used both in the error an operator
// reads and in the reference.
type rule[T kind] struct {
	text string
	ok   func(T) bool
}

// of declares a setting's field: its default, where it lives, and the rule it meets (none: any value).
func of[T kind](def T, ptr func(*Config) *T, valid ...rule[T]) value {
	f := field[T]{ptr: ptr, def: def}
	if len(valid) > 0 {
		f.valid = &valid[0]
	}
	return f
}

func (f field[T]) field(c *Config) any { return f.ptr(c) }

func (f field[T]) reset(c *Config) { *f.ptr(c) = clone(f.def) }

func (f field[T]) parse(c *Config, s string) error {
	v, err := parseAs[T](s)
	if err == nil {
		*f.ptr(c) = v
	}
	return err
}

func (f field[T]) decode(c *Config, n *yaml.Node) error {
	list, isList := any(f.ptr(c)).(*[]string)
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return f.parse(c, "")
	case isList && n.Kind == yaml.SequenceNode:
		items := []string{}
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode {
				return errors.New("a list item must be a single value")
			}
			items = append(items, item.Value)
		}
		*list = items
		return nil
	case !isList && n.Kind == yaml.ScalarNode:
		return f.parse(c, n.Value)
	}
	return fmt.Errorf("must be %s", f.kind())
}

func (f field[T]) check(c *Config) string {
	if f.valid != nil && !f.valid.ok(*f.ptr(c)) {
		return f.valid.text
	}
	return ""
}

func (f field[T]) yaml(c *Config) string { return yamlOf(*f.ptr(c)) }

func (f field[T]) kind() string {
	switch any(f.def).(type) {
	case int:
		return "an integer"
	case float64:
		return "a number"
	case bool:
		return "true or false"
	case time.Duration:
		return "a duration (`90s`, `1m30s`)"
	case []string:
		return "a list"
	}
	return "a string"
}

func (f field[T]) rule() string {
	if f.valid == nil {
		return ""
	}
	return f.valid.text
}

// clone copies a list default, so that a Config never shares it with the table.
func clone[T kind](v T) T {
	if l, ok := any(v).([]string); ok {
		return any(slices.Clone(l)).(T)
	}
	return v
}

// parseAs reads a value from its text: a variable, a YAML scalar or a secret's file.
func parseAs[T kind](s string) (T, error) {
	var v T
	var err error
	switch p := any(&v).(type) {
	case *string:
		*p = s
	case *int:
		if *p, err = strconv.Atoi(s); err != nil {
			err = fmt.Errorf("%q is not an integer", s)
		}
	case *float64:
		if *p, err = strconv.ParseFloat(s, 64); err != nil {
			err = fmt.Errorf("%q is not a number", s)
		}
	case *bool:
		if *p, err = strconv.ParseBool(s); err != nil {
			err = fmt.Errorf("%q is not true or false", s)
		}
	case *time.Duration:
		if *p, err = time.ParseDuration(s); err != nil {
			err = fmt.Errorf("%q is not a duration such as 90s or 1m30s", s)
		}
	case *[]string:
		*p = splitList(s)
	}
	return v, err
}

// splitList reads a comma-separated list; "none" is the empty list (an empty variable means "unset").
func splitList(v string) []string {
	if strings.TrimSpace(v) == "none" {
		return []string{}
	}
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// yamlOf writes a value as YAML reads it back: strings quoted only when YAML needs it, durations
// as Go writes them without zero units (1m, not 1m0s), lists in flow style.
func yamlOf[T kind](v T) string {
	switch v := any(v).(type) {
	case string:
		return encodeNode(&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v})
	case time.Duration:
		s := v.String()
		if strings.HasSuffix(s, "m0s") {
			s = strings.TrimSuffix(s, "0s")
		}
		if strings.HasSuffix(s, "h0m") {
			s = strings.TrimSuffix(s, "0m")
		}
		return s
	case []string:
		n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, item := range v {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: item})
		}
		return encodeNode(n)
	}
	return fmt.Sprint(v)
}

func encodeNode(n *yaml.Node) string {
	b, err := yaml.Marshal(n)
	if err != nil { // only a node yaml cannot write, which yamlOf does not build
		panic(err)
	}
	return strings.TrimSuffix(string(b), "\n")
}

// maxSecretFile bounds a secret's file: a file larger than any credential is a wrong path (a log,
// a device), not a secret.
const maxSecretFile = 64 << 10

// readSecret reads a secret's file, without its trailing newline.
func readSecret(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	switch {
	case err != nil:
		return "", err
	case len(b) > maxSecretFile:
		return "", fmt.Errorf("%s is larger than %d bytes: not a secret", path, maxSecretFile)
	}
	s := strings.TrimRight(string(b), "\r\n")
	if s == "" {
		return "", errors.New(path + " is empty")
	}
	return s, nil
}
