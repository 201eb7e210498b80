package test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Push notices go only to URLs wp-config.php names (CALSHIM_NOTIFY_URLS, or the option's URLs
// within CALSHIM_NOTIFY_ALLOWED_ORIGINS), and a secret kept in wp-config.php never goes to a URL
// held in an option: an administrator, or anyone who can write an option, cannot make WordPress
// send it elsewhere. Each case runs the plugin in php-cli with its constants defined as wp-config.php
// would and the options' values given by a filter (nothing is stored), and logs one change so that
// the plugin sends its notices when the process ends.
func TestPushNoticeTargets(t *testing.T) {
	var mu sync.Mutex
	var got []string // "path secret" per notice received
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.Path+" "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	defer receiver.Close()
	// The rig blocks outgoing requests (WP_HTTP_BLOCK_EXTERNAL) except to localhost and the site.
	base := strings.Replace(receiver.URL, "127.0.0.1", "localhost", 1)
	const constSecret, optionSecret = "secret-from-wp-config", "secret-from-the-option"
	cases := []struct {
		name      string
		constants map[string]string
		urls      string // the option calshim_notify_urls
		secret    string // the option calshim_notify_secret
		want      []string
	}{
		{"option URL not allowed", nil, base + "/a", optionSecret, nil},
		{"option URL of another origin", map[string]string{"CALSHIM_NOTIFY_ALLOWED_ORIGINS": "http://localhost:1"},
			base + "/a", optionSecret, nil},
		{"option URL allowed", map[string]string{"CALSHIM_NOTIFY_ALLOWED_ORIGINS": base},
			base + "/a", optionSecret, []string{"/a " + optionSecret}},
		{"constant secret, option URL", map[string]string{"CALSHIM_NOTIFY_ALLOWED_ORIGINS": base, "CALSHIM_NOTIFY_SECRET": constSecret},
			base + "/a", "", nil},
		{"both secrets, option URL", map[string]string{"CALSHIM_NOTIFY_ALLOWED_ORIGINS": base, "CALSHIM_NOTIFY_SECRET": constSecret},
			base + "/a", optionSecret, []string{"/a " + optionSecret}},
		{"constant URL and secret", map[string]string{"CALSHIM_NOTIFY_URLS": base + "/c", "CALSHIM_NOTIFY_SECRET": constSecret},
			base + "/a", optionSecret, []string{"/c " + constSecret}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mu.Lock()
			got = nil
			mu.Unlock()
			config := ""
			for k, v := range c.constants {
				config += "define( '" + k + "', '" + v + "' ); "
			}
			// The notices go out at the end of the process, each waited for up to half a second.
			wpPHPConfigured(t, config, "add_filter( 'pre_option_calshim_notify_urls', function () { return '"+c.urls+"'; } );"+
				" add_filter( 'pre_option_calshim_notify_secret', function () { return '"+c.secret+"'; } );"+
				" Calshim_Changes::on_option( 'posts_per_page' );")
			mu.Lock()
			defer mu.Unlock()
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("notices %q, want %q", got, c.want)
			}
		})
	}
}

// ensure_roles grants each capability once: one an administrator revoked, or the reader role they
// deleted, is not given back when the plugin puts its roles in place again (a new version), while on
// a site where it never ran it grants everything. Each case runs in php-cli inside a database
// transaction that it rolls back, so the shared rig's roles never change.
func TestRolesKeepRevocations(t *testing.T) {
	const setup = "global $wpdb; $wpdb->query( 'START TRANSACTION' );" +
		" $cap = get_post_type_object( 'tribe_organizer' )->cap->delete_private_posts;" +
		" get_role( 'administrator' )->remove_cap( $cap ); remove_role( 'calshim_reader' );"
	const check = " Calshim_Bridge::ensure_roles();" +
		" wp_roles()->for_site(); $out = [ 'cap' => get_role( 'administrator' )->has_cap( $cap )," +
		" 'reader' => null !== get_role( 'calshim_reader' ) ]; $wpdb->query( 'ROLLBACK' ); echo json_encode( $out );"
	cases := []struct {
		name, before string
		want         map[string]bool
	}{
		{"revoked, then a new version", "update_option( 'calshim_bridge_caps_version', '0' );",
			map[string]bool{"cap": false, "reader": false}},
		{"site where it never ran", "delete_option( 'calshim_bridge_caps_version' ); delete_option( 'calshim_bridge_caps_granted' );",
			map[string]bool{"cap": true, "reader": true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := wpPHP(t, setup+c.before+check)
			var got map[string]bool
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("php printed %s", out)
			}
			if got["cap"] != c.want["cap"] || got["reader"] != c.want["reader"] {
				t.Errorf("after ensure_roles: %v, want %v", got, c.want)
			}
		})
	}
}
