package test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pushSecret is the secret the plugin and the calshim of TestSyncPushNotice share.
const pushSecret = "black-box-push-notice-secret"

// With push notices on, a change made directly in WordPress — through wp/v2, or in PHP as WP-CLI
// makes it — reaches a calshim that polls only every 30 s within a few seconds: the plugin's
// notice at the end of the request makes it poll at once.
func TestSyncPushNotice(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "calshim.log")
	url, stop, err := launch(logPath, "CALSHIM_UPSTREAM_URL="+wpEnv["CALSHIM_UPSTREAM_URL"],
		"CALSHIM_UPSTREAM_USER="+wpEnv["CALSHIM_UPSTREAM_USER"],
		"CALSHIM_UPSTREAM_APP_PASSWORD="+wpEnv["CALSHIM_UPSTREAM_APP_PASSWORD"],
		"CALSHIM_CATALOG_SNAPSHOT=none", "CALSHIM_CATALOG_POLL_INTERVAL=30s", "CALSHIM_CATALOG_NOTIFY_SECRET="+pushSecret)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	eventually(t, "push calshim ready", func() bool { return readyz(t, url) != nil })

	// The rig blocks outgoing requests (WP_HTTP_BLOCK_EXTERNAL) except to localhost and the site. The
	// option's URL counts only within the origins wp-config.php allows (here a must-use plugin).
	origin := strings.Replace(url, "127.0.0.1", "localhost", 1)
	notify := origin + "/calshim/notify"
	installMuPlugin(t, "notify-origins.php", []byte("<?php define( 'CALSHIM_NOTIFY_ALLOWED_ORIGINS', '"+origin+"' );\n"))
	wpPHP(t, "update_option( 'calshim_notify_urls', '"+notify+"' ); update_option( 'calshim_notify_secret', '"+
		pushSecret+"' );")
	t.Cleanup(func() {
		wpPHP(t, "delete_option( 'calshim_notify_urls' ); delete_option( 'calshim_notify_secret' );")
	})

	id := newPublishedEvent(t, "Push Created")
	within(t, "event created through wp/v2", func() bool { return titleFrom(t, url, "/events/"+id) == "Push Created" })
	wpPHP(t, "wp_update_post( [ 'ID' => "+id+", 'post_title' => 'Push Renamed' ] );")
	within(t, "title changed in PHP", func() bool { return titleFrom(t, url, "/events/"+id) == "Push Renamed" })
}

// within waits until cond holds, for at most 5 s: well under the 30 s poll interval, well above what
// a notice and one feed poll take.
func within(t *testing.T, what string, cond func() bool) {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("%s: not seen within 5 s (the poll interval is 30 s)", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("%s: seen after %v", what, time.Since(start).Round(time.Millisecond))
}

// titleFrom reads the title of a v1 event from another calshim ("" when it cannot).
func titleFrom(t testing.TB, base, path string) string {
	r := call(t, http.MethodGet, base+v1+path, lenient)
	var ev struct{ Title string }
	if r.status != http.StatusOK || json.Unmarshal(r.raw, &ev) != nil {
		return ""
	}
	return ev.Title
}
