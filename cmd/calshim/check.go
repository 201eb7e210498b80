package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"calshim/catalog"
	"calshim/config"
)

// errUnusable ends `calshim check` with exit status 1 once the report is printed.
var errUnusable = errors.New("check: calshim cannot serve from this WordPress as configured (see the problems above)")

// checkUpstream is `calshim check`: the configuration was loaded and validated (its warnings are
// printed first); it asks the WordPress it names what the default language's catalog needs
// (catalog.Diagnose) and prints what it found, then each problem with its fix. It answers
// errUnusable when a problem stops calshim.
func checkUpstream(ctx context.Context, cfg config.Config, warnings []string, out io.Writer) error {
	lang := ""
	if cfg.Upstream.LanguageParam != "" {
		lang = cfg.Languages[0]
	}
	user := cfg.Upstream.User
	d := catalog.Diagnose(ctx, newClient(cfg, lang), catalogOptions(cfg, lang), user)

	if user == "" {
		user = "(anonymous: published posts only)"
	}
	var lines []string
	for _, w := range warnings {
		lines = append(lines, "warning: configuration: "+w)
	}
	lines = append(lines, "upstream: "+cfg.Upstream.URL+" as "+user)
	if s := d.Site; s != nil {
		lines = append(lines, fmt.Sprintf("site: %s (%s)", s.Name, s.Home), "time zone: "+s.Timezone,
			"plugin: "+or(s.PluginVersion, "none"))
	}
	if d.Reader != nil {
		lines = append(lines, fmt.Sprintf("reader: %s (roles: %s), change feed: %s", d.Reader.Username,
			strings.Join(d.Reader.Roles, ", "), map[bool]string{true: "yes", false: "no"}[d.Feed]))
	}
	for _, c := range d.Counts {
		lines = append(lines, fmt.Sprintf("%s: %d", c.Kind, c.N))
	}
	for _, p := range d.Problems {
		lines = append(lines, map[bool]string{true: "problem: ", false: "warning: "}[p.Fatal]+p.What+
			"\n  fix: "+p.Fix)
	}
	lines = append(lines, map[bool]string{true: "usable", false: "not usable"}[d.Usable()])
	if _, err := fmt.Fprintln(out, strings.Join(lines, "\n")); err != nil {
		return err
	}
	if !d.Usable() {
		return errUnusable
	}
	return nil
}

func or(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}
