package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The generated files (go generate ./config writes them; a test fails when they differ).
const (
	ExampleFile   = "config.example.yaml"
	ReferenceFile = "docs/configuration.md"
)

const generated = "generated from config/settings.go by `go generate ./config`: edit that, not this file"

// ExampleYAML is config.example.yaml: every key with its default and description.
func ExampleYAML() []byte {
	var b strings.Builder
	comment(&b, "", "calshim configuration, "+generated+". Every key is optional: calshim runs with no "+
		"file at all, on these defaults. Each key can also be set by its environment variable (named under "+
		"the key), which wins over the file; a secret can be read from a file instead. docs/configuration.md "+
		"says more. Run with: calshim -config config.yaml")
	d := Default()
	section := ""
	for _, s := range settings {
		indent := ""
		b.WriteString("\n")
		if parent, _, ok := strings.Cut(s.key, "."); ok {
			indent = "  "
			if parent != section {
				section = parent
				comment(&b, "", sections[parent])
				b.WriteString(parent + ":\n")
			}
		}
		comment(&b, indent, s.desc)
		comment(&b, indent, variables(s))
		fmt.Fprintf(&b, "%s%s: %s\n", indent, leaf(s.key), s.value.yaml(&d))
	}
	return []byte(b.String())
}

// Reference is docs/configuration.md: how settings are read, then every key.
func Reference() []byte {
	var b strings.Builder
	b.WriteString("# Configuration reference\n\n<!-- This file is " + generated + ". -->\n\n")
	wrap(&b, "", "", "calshim needs no configuration file: it runs on the defaults below. A YAML file "+
		"(`calshim -config FILE`; [config.example.yaml](../config.example.yaml) holds every key) sets keys, "+
		"and each key's environment variable wins over the file.")
	b.WriteString("\n")
	for _, rule := range []string{
		"A key's variable is `CALSHIM_` and the key upper-cased, dots as underscores: `upstream.url` is " +
			"`CALSHIM_UPSTREAM_URL`. An empty variable is unset.",
		"Lists are YAML lists in the file (`[en, de]`) and comma-separated in a variable (`en,de`); `none` " +
			"is the empty list there.",
		"Durations are written as Go reads them: `500ms`, `90s`, `1m30s`, `2h`.",
		"A secret (marked below) can be read from a file instead, without its trailing newline: the " +
			"variable plus `_FILE` (`CALSHIM_UPSTREAM_APP_PASSWORD_FILE=/run/secrets/wp`) or the key plus " +
			"`_file` (`app_password_file: /run/secrets/wp`). Setting both the value and its file is an error.",
		"An unknown key, a key given twice, and a value its key's rule refuses stop calshim at start with " +
			"the key's path in the message; `calshim check` reports them too.",
	} {
		wrap(&b, "- ", "  ", rule)
	}
	d := Default()
	section := "-"
	for _, s := range settings {
		parent, _, ok := strings.Cut(s.key, ".")
		if !ok {
			parent = ""
		}
		if parent != section {
			section = parent
			if parent == "" {
				b.WriteString("\n## Top level\n")
			} else {
				b.WriteString("\n## `" + parent + "`\n\n")
				wrap(&b, "", "", sections[parent])
			}
		}
		valid := s.value.kind()
		if r := s.value.rule(); r != "" {
			valid += ": " + r
		}
		fmt.Fprintf(&b, "\n### `%s`\n\n", s.key)
		line := fmt.Sprintf("`%s` · %s · default `%s`", envName(s.key), valid, s.value.yaml(&d))
		if s.secret {
			line += fmt.Sprintf(" · secret, or from a file: `%s`, `%s`", envName(s.key+fileSuffix), leaf(s.key)+fileSuffix)
		}
		wrap(&b, "", "", line)
		b.WriteString("\n")
		wrap(&b, "", "", s.desc)
	}
	b.WriteString("\n## Old names\n\nStill read, with a warning at start naming what to use instead.\n\n")
	b.WriteString("| Old name | Now |\n| --- | --- |\n")
	for _, old := range slices.Sorted(maps.Keys(renamed)) {
		fmt.Fprintf(&b, "| `%s` | `%s` (`%s`) |\n", old, envName(renamed[old]), renamed[old])
	}
	for _, key := range slices.Sorted(maps.Keys(retired)) {
		fmt.Fprintf(&b, "| `%s`, `%s` | ignored: %s |\n", key, envName(key), retired[key])
	}
	return []byte(b.String())
}

// variables names the environment variables of a setting, for the example file.
func variables(s setting) string {
	if s.secret {
		return "Variable: " + envName(s.key) + ", or a file: " + envName(s.key+fileSuffix) + " / " + leaf(s.key) + fileSuffix
	}
	return "Variable: " + envName(s.key)
}

// leaf is the last part of a key path, as written in its section.
func leaf(key string) string { return key[strings.LastIndex(key, ".")+1:] }

// comment writes text as YAML comment lines.
func comment(b *strings.Builder, indent, text string) { wrap(b, indent+"# ", indent+"# ", text) }

// wrap writes text in lines of at most 100 characters (a longer word alone): the first after
// first, the others after rest.
func wrap(b *strings.Builder, first, rest, text string) {
	line, prefix := first, first
	for _, word := range strings.Fields(text) {
		if len(line)+1+len(word) > 100 && len(line) > len(prefix) {
			b.WriteString(line + "\n")
			line, prefix = rest, rest
		}
		if len(line) > len(prefix) {
			line += " "
		}
		line += word
	}
	b.WriteString(line + "\n")
}
