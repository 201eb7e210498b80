package catalog_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"calshim/catalog"
	"calshim/cmsclient"
	"calshim/internal/testkit/wpfake"
)

// answers makes the fake answer the given REST paths (below /wp-json) with a status and body, as the
// real WordPress does in each set-up.
func answers(fake *wpfake.Server, byPath map[string]string) {
	fake.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		for path, answer := range byPath {
			if r.URL.Path == "/wp-json"+path || path == "*" {
				status, body, _ := strings.Cut(answer, " ")
				code := map[string]int{"200": 200, "400": 400, "401": 401, "403": 403, "404": 404}[status]
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(code)
				_, _ = w.Write([]byte(body))
				return true
			}
		}
		return false
	})
}

const (
	meReader      = `200 {"username":"calshim-reader","roles":["calshim_reader"]}`
	feedHead      = `200 {"log":"l1","site":"http://wp.test","head":0,"seq":0}`
	notLoggedIn   = `401 {"code":"rest_not_logged_in","message":"You are not currently logged in.","data":{"status":401}}`
	forbidden401  = `401 {"code":"rest_forbidden","message":"Sorry, you are not allowed to do that.","data":{"status":401}}`
	forbidden403  = `403 {"code":"rest_forbidden","message":"Sorry, you are not allowed to do that.","data":{"status":403}}`
	invalidStatus = `400 {"code":"rest_invalid_param","message":"Invalid parameter(s): status","data":{"status":400}}`
	badPassword   = `401 {"code":"incorrect_password","message":"The provided password is an invalid application password.","data":{"status":401}}`
)

func diagnose(t *testing.T, fake *wpfake.Server) *catalog.Diagnosis {
	t.Helper()
	client := cmsclient.New(fake.Root, "calshim-reader", "app password", 5*time.Second)
	return catalog.Diagnose(context.Background(), client, catalog.Options{Types: types, Authenticated: true},
		"calshim-reader")
}

// fixes lists the diagnosis' problems as "fatal|warning: what (fix: …)".
func fixes(d *catalog.Diagnosis) string {
	var lines []string
	for _, p := range d.Problems {
		lines = append(lines, map[bool]string{true: "fatal: ", false: "warning: "}[p.Fatal]+p.Error())
	}
	return strings.Join(lines, "\n")
}

// A healthy WordPress: site, reader, feed and the counts wp/v2 gives for every status.
func TestDiagnoseHealthy(t *testing.T) {
	fake := wpfake.New(t)
	answers(fake, map[string]string{"/wp/v2/users/me": meReader, "/calshim/v1/changes": feedHead})
	d := diagnose(t, fake)
	if !d.Usable() || len(d.Problems) != 0 || !d.Feed || d.Reader.Username != "calshim-reader" {
		t.Fatalf("usable %v, feed %v, reader %+v, problems:\n%s", d.Usable(), d.Feed, d.Reader, fixes(d))
	}
	if d.Site.PluginVersion == "" || d.Site.Timezone == "" {
		t.Errorf("site %+v", d.Site)
	}
	want := map[string]int{"events": len(fake.IDs("tribe_events")), "venues": len(fake.IDs("tribe_venue")),
		"organizers": len(fake.IDs("tribe_organizer")), "categories": len(fake.IDs("tribe_events_cat")),
		"tags": len(fake.IDs("tags"))}
	if len(d.Counts) != len(want) {
		t.Fatalf("counts %v", d.Counts)
	}
	for _, c := range d.Counts {
		if c.N != want[c.Kind] {
			t.Errorf("%s = %d, want %d", c.Kind, c.N, want[c.Kind])
		}
	}
}

// Each set-up mistake is named with its fix, by Diagnose and by the load where it happens.
func TestDiagnoseProblems(t *testing.T) {
	for _, tc := range []struct {
		name   string
		setup  func(*wpfake.Server)
		fatal  bool
		inFix  string
		loadOK bool // the catalog still loads (polling wp/v2); the fix is named by the error or a warning
	}{
		{"credential ignored", func(f *wpfake.Server) {
			answers(f, map[string]string{"/wp/v2/users/me": notLoggedIn, "/calshim/v1/changes": forbidden401})
		}, true, "WP_ENVIRONMENT_TYPE", false},
		{"credential refused", func(f *wpfake.Server) { answers(f, map[string]string{"*": badPassword}) },
			true, "wp calshim reader create --user=calshim-reader --rotate", false},
		{"upstream.url is the site's address: WordPress answers a page", func(f *wpfake.Server) {
			answers(f, map[string]string{"/": "200 <!DOCTYPE html>\n<html lang=\"en-US\"><head>"})
		}, true, "append /wp-json to upstream.url", false},
		{"plugin missing", func(f *wpfake.Server) {
			answers(f, map[string]string{"/wp/v2/users/me": meReader})
			f.SetIndex(func(o wpfake.Object) { delete(o, "calshim") })
		}, true, "wp plugin activate calshim", false},
		{"role missing", func(f *wpfake.Server) {
			answers(f, map[string]string{"/wp/v2/users/me": meReader, "/calshim/v1/changes": forbidden403})
		}, false, "add-role calshim-reader calshim_reader", true},
		{"role missing, and wp/v2 shows the reader only what is published", func(f *wpfake.Server) {
			answers(f, map[string]string{"/wp/v2/users/me": meReader, "/calshim/v1/changes": forbidden403,
				"/wp/v2/tribe_events": invalidStatus})
		}, true, "add-role calshim-reader calshim_reader", false},
		{"feed 401 although users/me knows the reader", func(f *wpfake.Server) {
			answers(f, map[string]string{"/wp/v2/users/me": meReader, "/calshim/v1/changes": forbidden401})
		}, true, "HTTP_AUTHORIZATION", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := wpfake.New(t)
			tc.setup(fake)
			d := diagnose(t, fake)
			if len(d.Problems) != 1 || d.Problems[0].Fatal != tc.fatal ||
				!strings.Contains(d.Problems[0].Fix, tc.inFix) || d.Usable() == tc.fatal {
				t.Errorf("want one problem (fatal %v) whose fix says %q, usable %v; got:\n%s", tc.fatal,
					tc.inFix, d.Usable(), fixes(d))
			}

			var warned []error
			cat := newCatalog(t, fake, func(o *catalog.Options) {
				o.Reader = "calshim-reader"
				o.Notify = func(_ string, err error) { warned = append(warned, err) }
			})
			err := cat.Load(context.Background())
			var p *catalog.Problem
			named := errors.As(err, &p) && strings.Contains(p.Fix, tc.inFix) ||
				len(warned) == 1 && strings.Contains(warned[0].Error(), tc.inFix)
			if !named || tc.loadOK != (err == nil) {
				t.Errorf("load: %v, warnings %v; want the fix %q named, loaded %v", err, warned, tc.inFix,
					tc.loadOK)
			}
		})
	}
}

// The plugin deactivated while calshim runs: the feed that answered the load answers 404 rest_no_route, and
// each poll fails naming the fix (activate it), not an older plugin's (update it), the catalog kept.
func TestPluginDeactivatedWhileRunning(t *testing.T) {
	fake := wpfake.New(t)
	newFakeFeed(fake)
	cat := mustLoad(t, fake)
	if mode := cat.Health().Sync.Mode; mode != "feed" {
		t.Fatalf("sync mode %q, want feed", mode)
	}
	before := len(cat.Snapshot().Events)
	answers(fake, map[string]string{"/calshim/v1/changes": `404 {"code":"rest_no_route","message":"No route was found matching the URL and request method.","data":{"status":404}}`})
	err := cat.Poll(context.Background())
	var p *catalog.Problem
	if !errors.As(err, &p) || !strings.Contains(p.Fix, "activate calshim bridge") || strings.Contains(p.Error(), "older") ||
		strings.Contains(p.Fix, "update") {
		t.Fatalf("poll: %v", err)
	}
	if got := len(cat.Snapshot().Events); got != before || before == 0 {
		t.Errorf("events after the failed poll: %d, before %d", got, before)
	}
}
