package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"calshim/cmsclient"
	"calshim/mapping"
)

// This file names the set-up mistakes that stop or slow calshim, each with its fix: the load reports
// them where they happen (load, feedHead, changes), and Diagnose looks for all of them at once for
// `calshim check`.

// Problem is a fault in WordPress' set-up for calshim, with what fixes it. It is an error.
type Problem struct {
	Fatal bool // calshim cannot serve from this WordPress until it is fixed
	What  string
	Fix   string
	// noRole: the reader lacks the calshim_reader role (roleMissing), which count may make fatal
	noRole bool
}

func (p *Problem) Error() string { return p.What + " (fix: " + p.Fix + ")" }

// orUSER is the user's name for a command line in a fix.
func orUSER(user string) string {
	if user == "" {
		return "USER"
	}
	return user
}

// readerName names the service user in fixes.
func readerName(user string) string {
	if user == "" {
		return "the reader user (upstream.user)"
	}
	return fmt.Sprintf("user %q", user)
}

func credentialIgnored(user string) *Problem {
	return &Problem{Fatal: true,
		What: "WordPress ignores the reader's application password and answers as to an anonymous client",
		Fix: "WordPress accepts application passwords only over HTTPS: make upstream.url https://…, or add " +
			"define( 'WP_ENVIRONMENT_TYPE', 'local' ); to wp-config.php when calshim reaches WordPress on a " +
			"private network; behind Apache with CGI or FPM also pass the Authorization header on " +
			"(SetEnvIf Authorization \"(.*)\" HTTP_AUTHORIZATION=$1); " + readerName(user) + " must exist"}
}

func credentialRefused(user, code string) *Problem {
	return &Problem{Fatal: true,
		What: "WordPress refuses the reader's credential (" + code + ")",
		Fix: "create an application password for " + readerName(user) + ": wp calshim reader create --user=" +
			orUSER(user) + " --rotate (it prints the two lines to set), or as an administrator on that " +
			"user's own profile (Users → All Users → " + orUSER(user) + " → Application Passwords); then set " +
			"CALSHIM_UPSTREAM_USER and CALSHIM_UPSTREAM_APP_PASSWORD to that user and password"}
}

var pluginMissing = &Problem{Fatal: true,
	What: "the calshim plugin is not active: the REST index has no \"calshim\" key and no calshim/v1 routes",
	Fix: "activate calshim bridge in the WordPress at upstream.url (Plugins → calshim bridge → Activate, or " +
		"wp plugin activate calshim); not installed yet: upload bin/calshim-plugin.zip (make plugin-zip) in " +
		"Plugins → Add New → Upload Plugin and activate it, or copy cmsclient/wordpress/calshim.php and its " +
		"folder calshim/ into wp-content/mu-plugins/"}

// pluginGone is a change feed that answered before and answers 404 now: the plugin was deactivated (or
// its must-use file removed) while calshim runs. Polls fail, and calshim serves the last state it holds.
var pluginGone = &Problem{
	What: "the calshim plugin stopped answering (its change feed answers 404: deactivated or removed); " +
		"calshim serves the catalog it holds, without WordPress' changes since",
	Fix: "activate calshim bridge in the WordPress at upstream.url (Plugins → calshim bridge → Activate, or " +
		"wp plugin activate calshim); a must-use copy cannot be deactivated: its file left wp-content/mu-plugins/"}

// notRESTRoot names a REST index that is no JSON: upstream.url is WordPress' site address rather than its
// REST root (WordPress answered a page), or the site has no pretty permalinks; nil for any other error.
func notRESTRoot(err error) *Problem {
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		return nil
	}
	return &Problem{Fatal: true,
		What: "upstream.url does not answer as WordPress' REST root: it sent a page, not JSON (" + err.Error() + ")",
		Fix: "append /wp-json to upstream.url (CALSHIM_UPSTREAM_URL), e.g. https://www.example.org/wp-json; if it " +
			"ends in /wp-json already, turn on pretty permalinks in WordPress (Settings → Permalinks)"}
}

func roleMissing(user string) *Problem {
	return &Problem{noRole: true,
		What: readerName(user) + " lacks the calshim_reader role: the change feed answers 403, so calshim " +
			"polls wp/v2 instead (slower to see changes, more load on WordPress)",
		Fix: "wp user add-role " + orUSER(user) + " calshim_reader (or choose the role on the user's profile page)"}
}

var feedMissing = &Problem{
	What: "the calshim plugin has no change feed (an older version): calshim polls wp/v2 instead",
	Fix: "update calshim bridge in the WordPress at upstream.url to this calshim's version: upload its " +
		"bin/calshim-plugin.zip (make plugin-zip) in Plugins → Add New → Upload Plugin and replace the " +
		"installed one, or for a must-use install copy cmsclient/wordpress/calshim.php and its folder " +
		"calshim/ over those in wp-content/mu-plugins/"}

// upstreamProblem names what a failed request with the service credential says about the set-up; nil
// when it says nothing particular. 401 rest_not_logged_in (users/me) and rest_forbidden (the
// plugin's routes) are WordPress' answers to an anonymous client: the credential was not used.
func upstreamProblem(err error, user string) *Problem {
	var ue *cmsclient.Error
	if !errors.As(err, &ue) || ue.Status != http.StatusUnauthorized {
		return nil
	}
	if ue.Code == "rest_not_logged_in" || ue.Code == "rest_forbidden" {
		return credentialIgnored(user)
	}
	return credentialRefused(user, ue.Code)
}

// feedProblem names why the change feed refused the service credential; nil for any other error.
// Only a user without the role (403) and a plugin without the feed (404) leave wp/v2 polling as a
// way on: an ignored or refused credential cannot read the statuses the catalog needs there either.
func feedProblem(err error, user string) *Problem {
	if p := upstreamProblem(err, user); p != nil {
		return p
	}
	var ue *cmsclient.Error
	switch {
	case !errors.As(err, &ue):
		return nil
	case ue.Status == http.StatusForbidden:
		return roleMissing(user)
	case ue.Status == http.StatusNotFound:
		return feedMissing
	}
	return nil
}

// Diagnosis is what Diagnose found in WordPress.
type Diagnosis struct {
	Site     *cmsclient.Site // nil when the REST index could not be read
	Reader   *cmsclient.User // the service user; nil for an anonymous catalog or when unknown
	Feed     bool            // the catalog can sync through the plugin's change feed
	Counts   []Count         // what the catalog would load, once the rest is usable
	Problems []*Problem
}

// Count is how many items of a kind WordPress holds in what the catalog reads.
type Count struct {
	Kind string // events, venues, organizers, categories, tags
	N    int
}

// Usable reports whether calshim can serve from this WordPress (maybe degraded).
func (d *Diagnosis) Usable() bool {
	for _, p := range d.Problems {
		if p.Fatal {
			return false
		}
	}
	return true
}

func (d *Diagnosis) add(p *Problem) { d.Problems = append(d.Problems, p) }

// failed adds what err says about the set-up, or err itself as a fatal problem.
func (d *Diagnosis) failed(err error, user, what string) {
	if p := upstreamProblem(err, user); p != nil {
		d.add(p)
		return
	}
	fix := "check that WordPress answers at upstream.url (its REST root, e.g. https://example.org/wp-json)"
	if !errors.Is(err, cmsclient.ErrUnavailable) {
		fix = "see WordPress' answer; check upstream.url and the mapping settings"
	}
	d.add(&Problem{Fatal: true, What: what + ": " + err.Error(), Fix: fix})
}

// Diagnose asks WordPress what the catalog of opt needs, as the service user user, and says what it
// found and every problem with its fix. It stops at the first fatal problem.
func Diagnose(ctx context.Context, client *cmsclient.Client, opt Options, user string) *Diagnosis {
	d := &Diagnosis{}
	site, err := client.Site(ctx)
	if p := notRESTRoot(err); p != nil {
		d.add(p)
		return d
	}
	if err != nil {
		d.failed(err, user, "REST index")
		return d
	}
	d.Site = site
	if site.PluginVersion == "" {
		d.add(pluginMissing)
		return d
	}
	if _, err := mapping.LocalizeZone(site.Timezone); err != nil {
		d.add(&Problem{Fatal: true, What: fmt.Sprintf("site time zone %q: %v", site.Timezone, err),
			Fix: "choose a city as the time zone in Settings → General"})
		return d
	}
	if opt.Authenticated && !d.diagnoseReader(ctx, client, user) {
		return d
	}
	d.count(ctx, client, opt, user)
	return d
}

// diagnoseReader checks the service credential and the feed; false after a fatal problem.
func (d *Diagnosis) diagnoseReader(ctx context.Context, client *cmsclient.Client, user string) bool {
	u, err := client.ServiceUser(ctx)
	if err != nil {
		d.failed(err, user, "users/me")
		return false
	}
	d.Reader = u
	_, err = client.FeedHead(ctx)
	d.Feed = err == nil
	if err == nil {
		return true
	}
	if p := feedProblem(err, user); p != nil {
		d.add(p)
		return !p.Fatal
	}
	d.failed(err, user, "change feed")
	return false
}

// count reads each kind's total from wp/v2 (X-WP-Total), in the statuses the catalog reads. A reader
// without the role that wp/v2 does not show every status either cannot serve at all.
func (d *Diagnosis) count(ctx context.Context, client *cmsclient.Client, opt Options, user string) {
	statuses := (&Catalog{opt: opt}).statuses()
	t := opt.Types
	for _, k := range []struct{ kind, base string }{{"events", t.Event}, {"venues", t.Venue},
		{"organizers", t.Organizer}} {
		n, _, err := client.CountPosts(ctx, k.base, statuses)
		var ue *cmsclient.Error
		if errors.As(err, &ue) && ue.Status < 500 && len(d.Problems) == 1 && d.Problems[0].noRole {
			d.Problems[0].Fatal = true
			d.Problems[0].What += "; wp/v2 does not show it every status either (" + ue.Code + ")"
			return
		}
		if err != nil {
			d.failed(err, user, "counting "+k.kind)
			return
		}
		d.Counts = append(d.Counts, Count{k.kind, n})
	}
	for _, k := range []struct{ kind, base string }{{"categories", t.CategoryBase}, {"tags", t.TagBase}} {
		n, err := client.CountTerms(ctx, k.base)
		if err != nil {
			d.failed(err, user, "counting "+k.kind)
			return
		}
		d.Counts = append(d.Counts, Count{k.kind, n})
	}
}
