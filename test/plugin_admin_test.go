package test

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The plugin as a WordPress administrator without WP-CLI meets it, over HTTP on a site of its own served
// by PHP like the rig: uploaded through Plugins > Add New > Upload Plugin (wp-admin's form, its nonce and
// the administrator's login cookies), activated through the link WordPress offers, shown once in a notice
// and linked from its row, its screen Tools > calshim rendered by WordPress and read back (the change log's
// figures, each calshim that polled and its version, the reader, the push settings of wp-config.php), the
// readers' passwords revoked by the screen's button, then deactivated and deleted through the Plugins
// screen's links: the reader's application password that worked before answers 401 after. Then the same
// site with the plugin as a must-use file: the screen's clean-up removes everything and the file.
func TestPluginUploadScreenDelete(t *testing.T) {
	zipPath := pluginZip(t)
	site, wp := newServedSite(t)
	site.php(t, "", `update_option( 'permalink_structure', '/%postname%/' ); flush_rewrite_rules( false );`) // for calshim's /wp-json
	admin := wp.login(t, "admin", "calshim-lifecycle-admin")

	// Upload: the form's nonce, then the zip posted as the browser does.
	form := admin.get(t, "wp-admin/plugin-install.php?tab=upload")
	nonce := formNonce(t, form, "_wpnonce")
	body := &bytes.Buffer{}
	mw := multipart.NewWriter(body)
	_ = mw.WriteField("_wpnonce", nonce)
	_ = mw.WriteField("_wp_http_referer", "/wp-admin/plugin-install.php?tab=upload")
	part, _ := mw.CreateFormFile("pluginzip", "calshim-plugin.zip")
	zipData, err := os.ReadFile(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = part.Write(zipData)
	_ = mw.WriteField("install-plugin-submit", "Install Now")
	_ = mw.Close()
	installed := admin.post(t, "wp-admin/update.php?action=upload-plugin", mw.FormDataContentType(), body.Bytes())
	if !strings.Contains(installed, "Plugin installed successfully.") {
		t.Fatalf("upload: %s", clip(installed))
	}
	activate := regexp.MustCompile(`href="([^"]*plugins\.php\?action=activate[^"]*)"`).FindStringSubmatch(installed)
	if activate == nil {
		t.Fatalf("no activation link after the upload: %s", clip(installed))
	}
	// Once after activation (the Plugins screen WordPress leads to), a notice points at the screen; the
	// plugin's row links it and names its author.
	plugins := admin.get(t, "wp-admin/"+html.UnescapeString(activate[1]))
	for _, want := range []string{`id="calshim-activated"`, `href="` + wp.url + `/wp-admin/tools.php?page=calshim">Status</a>`,
		`By calshim maintainers`} {
		if !strings.Contains(plugins, want) {
			t.Errorf("the Plugins screen after activation lacks %q", want)
		}
	}
	if again := admin.get(t, "wp-admin/plugins.php"); strings.Contains(again, `id="calshim-activated"`) {
		t.Error("the activation notice shows twice")
	}

	// The reader, its password over HTTP, and two calshims polling the feed as replicas do.
	password := readerCreate(t, site, "")
	if status := wp.usersMe(t, password); status != http.StatusOK {
		t.Fatalf("users/me with the reader's application password: %d", status)
	}

	for _, agent := range []string{"calshim/v9.9.9 (replica-a)", "calshim/v9.9.8-2-gabc (replica-b)"} {
		if status := wp.feed(t, password, agent); status != http.StatusOK {
			t.Fatalf("the feed as %s: %d", agent, status)
		}
	}

	// The screen, as WordPress renders it, against the figures read from the database.
	site.php(t, "", `wp_insert_post( [ 'post_type' => 'tribe_events', 'post_status' => 'publish', 'post_title' => 'Screen' ] );`)
	screen := admin.get(t, "wp-admin/tools.php?page=calshim")
	figures := tableRows(screen, "calshim-status")
	log := strings.Fields(site.php(t, "", `$t = Calshim_Changes::table(); $r = $wpdb->get_row( "SELECT COUNT(*) n, MIN(seq) o, MAX(seq) h FROM $t" ); echo $r->n, ' ', $r->o, ' ', $r->h;`))
	if len(log) != 3 {
		t.Fatalf("the change log: %v", log)
	}
	want := map[string]string{"Plugin": "0.4.0 (plugin)", "Change log rows": log[0], "Oldest retained sequence": log[1],
		"Head sequence": log[2], "CALSHIM_NOTIFY_URLS": "http://127.0.0.1:9/calshim/notify", "CALSHIM_NOTIFY_SECRET": "not set",
		"CALSHIM_NOTIFY_ALLOWED_ORIGINS": "not set"}
	for k, v := range want {
		if figures[k] == nil || figures[k][0] != v {
			t.Errorf("screen: %s = %v, want %s", k, figures[k], v)
		}
	}
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(.+ ago\)$`).MatchString(first(figures["Last poll"])) {
		t.Errorf("screen: last poll %v", figures["Last poll"])
	}
	pollers := tableRows(screen, "calshim-pollers")
	if first(pollers["replica-a"]) != "v9.9.9" || first(pollers["replica-b"]) != "v9.9.8-2-gabc" || len(pollers) != 3 { // + the header
		t.Errorf("screen: calshims %v", pollers)
	}
	if readers := tableRows(screen, "calshim-readers"); first(readers["calshim-reader"]) != "1" {
		t.Errorf("screen: readers %v", readers)
	}
	if strings.Contains(screen, `id="calshim_cleanup"`) {
		t.Error("a regular plugin's screen offers the must-use clean-up")
	}

	// Its revoke button: nonce-checked, and the password no longer signs in.
	if status := admin.postForm(t, "wp-admin/admin-post.php", neturl.Values{"action": {"calshim_revoke"}, "_wpnonce": {"forged"}}); status != http.StatusForbidden {
		t.Errorf("revoke with a forged nonce: %d", status)
	}
	revoked := admin.submit(t, screen, "calshim_revoke")
	if !strings.Contains(revoked, `id="calshim-done"`) || !strings.Contains(revoked, "Revoked 1 application passwords.") {
		t.Errorf("after the revoke button: %s", clip(revoked))
	}
	if status := wp.usersMe(t, password); status != http.StatusUnauthorized {
		t.Errorf("users/me with the revoked password: %d", status)
	}

	// Deactivate and Delete through the Plugins screen's links, as without JavaScript; a calshim following
	// the site meanwhile keeps serving, and says to activate the plugin again.
	password = readerCreate(t, site, "'rotate' => true")
	logPath := filepath.Join(t.TempDir(), "calshim.log")
	base, stop, err := launch(logPath, "CALSHIM_UPSTREAM_URL="+wp.url+"/wp-json", "CALSHIM_UPSTREAM_USER=calshim-reader",
		"CALSHIM_UPSTREAM_APP_PASSWORD="+password, "CALSHIM_CATALOG_SNAPSHOT=none", "CALSHIM_CATALOG_POLL_INTERVAL=300ms")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	eventually(t, "calshim ready on the uploaded plugin", func() bool { return readyz(t, base) != nil })
	plugins = admin.get(t, "wp-admin/plugins.php")
	deactivate := regexp.MustCompile(`href="(plugins\.php\?action=deactivate&amp;plugin=calshim%2Fcalshim\.php[^"]*)"`).FindStringSubmatch(plugins)
	if deactivate == nil {
		t.Fatalf("no Deactivate link: %s", clip(plugins))
	}
	plugins = admin.get(t, "wp-admin/"+html.UnescapeString(deactivate[1]))
	eventually(t, "the failed polls in /readyz and /metrics", func() bool {
		r := readyz(t, base)
		return r != nil && r["last_poll_error"] == "upstream unreachable or failing; see calshim's log" &&
			metricLine(t, base, "calshim_catalog_last_poll_failed") == "1"
	})
	stop()
	logged, _ := os.ReadFile(logPath)
	if !strings.Contains(string(logged), "fix: activate calshim bridge") || strings.Contains(string(logged), "older version") {
		t.Errorf("calshim's log with the plugin deactivated:\n%s", logged)
	}
	del := regexp.MustCompile(`href="(plugins\.php\?action=delete-selected&amp;checked%5B0%5D=calshim%2Fcalshim\.php[^"]*)"`).FindStringSubmatch(plugins)
	if del == nil {
		t.Fatalf("no Delete link: %s", clip(plugins))
	}
	confirm := admin.get(t, "wp-admin/"+html.UnescapeString(del[1]))
	if !strings.Contains(confirm, "calshim bridge</strong> by <em>calshim maintainers</em> (will also <strong>delete its data</strong>)") {
		t.Errorf("the delete confirmation does not name the author: %s", clip(confirm))
	}
	deleted := admin.postForm(t, "wp-admin/plugins.php", neturl.Values{"action": {"delete-selected"}, "verify-delete": {"1"},
		"checked[]": {"calshim/calshim.php"}, "_wpnonce": {formNonce(t, confirm, "_wpnonce")}})
	if deleted != http.StatusFound {
		t.Fatalf("delete: %d", deleted)
	}
	if _, err := os.Stat(filepath.Join(site.content, "plugins/calshim")); !os.IsNotExist(err) {
		t.Errorf("the plugin's directory after Delete: %v", err)
	}
	if status := wp.usersMe(t, password); status != http.StatusUnauthorized {
		t.Errorf("users/me with the reader's password after Delete: %d, want 401", status)
	}
	if out := site.php(t, "", `echo $wpdb->get_var( "SHOW TABLES LIKE '{$wpdb->prefix}calshim_changes'" ) ?: 'no table', ' ', get_role( 'calshim_reader' ) ? 'role' : 'no role', ' ', get_user_by( 'login', 'calshim-reader' ) ? 'user kept' : 'user gone';`); out != "no table no role user kept" {
		t.Errorf("after Delete: %s", out)
	}

	// The must-use install's clean-up: the screen's button removes everything and the files themselves.
	site.installMustUse(t, "../cmsclient/wordpress")
	chownWeb(t, filepath.Join(site.content, "mu-plugins"))
	site.php(t, "", `get_user_by( 'login', 'calshim-reader' )->set_role( 'calshim_reader' );`)
	password = readerCreate(t, site, "'rotate' => true")
	screen = admin.get(t, "wp-admin/tools.php?page=calshim")
	if first(tableRows(screen, "calshim-status")["Plugin"]) != "0.4.0 (must-use plugin)" || !strings.Contains(screen, `id="calshim_cleanup"`) {
		t.Fatalf("the must-use plugin's screen: %s", clip(screen))
	}
	removed := admin.submit(t, screen, "calshim_cleanup")
	if !strings.Contains(removed, `id="calshim-removed"`) || strings.Contains(removed, "delete it yourself") {
		t.Errorf("after the clean-up button: %s", clip(removed))
	}
	for _, rel := range []string{"mu-plugins/calshim.php", "mu-plugins/calshim"} {
		if _, err := os.Stat(filepath.Join(site.content, rel)); !os.IsNotExist(err) {
			t.Errorf("%s after the clean-up: %v", rel, err)
		}
	}
	if status := wp.usersMe(t, password); status != http.StatusUnauthorized {
		t.Errorf("users/me with the reader's password after the clean-up: %d, want 401", status)
	}
	if out := site.php(t, "", `echo $wpdb->get_var( "SHOW TABLES LIKE '{$wpdb->prefix}calshim_changes'" ) ?: 'no table', ' ', get_role( 'calshim_reader' ) ? 'role' : 'no role', ' ', json_encode( $wpdb->get_col( "SELECT option_name FROM $wpdb->options WHERE option_name LIKE 'calshim%'" ) );`); out != "no table no role []" {
		t.Errorf("after the clean-up: %s", out)
	}
}

// A must-use install's clean-up from WP-CLI: `wp calshim uninstall` refuses without --yes; with it, it
// removes what the plugin put in place and its file, or, where WordPress may not delete the file, leaves
// it inert (it would put its role and table back) until it is deleted or installed again.
func TestPluginMustUseUninstallCLI(t *testing.T) {
	site := newLifecycleSite(t)
	for _, writable := range []bool{true, false} {
		site.installMustUse(t, "../cmsclient/wordpress")
		password := readerCreate(t, site, "'rotate' => true")
		if out := site.command(t, "calshim uninstall", ""); !strings.HasPrefix(out, "Error: This removes calshim's change log") {
			t.Fatalf("uninstall without --yes: %s", out)
		}
		if out := site.command(t, "calshim reader revoke", "'user' => 'admin'"); !strings.HasPrefix(out, "Error: The user admin does not have the calshim_reader role.") {
			t.Errorf("reader revoke --user=admin: %s", out)
		}
		dir := filepath.Join(site.content, "mu-plugins")
		if !writable {
			if err := os.Chmod(dir, 0o555); err != nil {
				t.Fatal(err)
			}
		}
		out := site.command(t, "calshim uninstall", "'yes' => true")
		if !strings.Contains(out, "Success: Removed calshim's change log, options and role; revoked the application passwords of calshim-reader (1) (the users are kept).") ||
			strings.Contains(out, "Warning") == writable {
			t.Errorf("uninstall --yes (writable %v): %s", writable, out)
		}
		if site.readerAuth(t, password) != "refused" {
			t.Errorf("the reader's password after uninstall (writable %v) still signs in", writable)
		}
		state := `echo false !== has_action( 'init', [ 'Calshim_Bridge', 'register_types' ] ) ? 'runs' : 'inert', ' ', $wpdb->get_var( "SHOW TABLES LIKE '{$wpdb->prefix}calshim_changes'" ) ?: 'no table', ' ', get_role( 'calshim_reader' ) ? 'role' : 'no role';`
		_, statErr := os.Stat(filepath.Join(dir, "calshim.php"))
		if writable {
			if !os.IsNotExist(statErr) {
				t.Errorf("the must-use file after uninstall: %v", statErr)
			}
			if _, err := os.Stat(filepath.Join(dir, "calshim")); !os.IsNotExist(err) {
				t.Errorf("the must-use folder after uninstall: %v", err)
			}
			if out := site.php(t, "", state); out != "inert no table no role" {
				t.Errorf("after uninstall: %s", out)
			}
			site.php(t, "", `get_user_by( 'login', 'calshim-reader' )->set_role( 'subscriber' );`)
			continue
		}
		if statErr != nil {
			t.Fatal(statErr)
		}
		if out := site.php(t, "", state); out != "inert no table no role" {
			t.Errorf("a retired must-use file that could not be deleted: %s", out)
		}
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		site.installMustUse(t, "../cmsclient/wordpress") // installed again: a new file
		later := time.Now().Add(2 * time.Second)
		_ = os.Chtimes(filepath.Join(dir, "calshim.php"), later, later)
		if out := site.php(t, "", state); out != "runs no table role" {
			t.Errorf("a must-use file installed again after its retirement: %s", out)
		}
	}
}

// readerCreate runs `wp calshim reader create` with the given arguments and answers the password.
func readerCreate(t *testing.T, site *lifecycleSite, assoc string) string {
	t.Helper()
	out := site.command(t, "calshim reader create", assoc)
	m := regexp.MustCompile(`(?m)^CALSHIM_UPSTREAM_APP_PASSWORD=([A-Za-z0-9]{24})$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("wp calshim reader create: %s", out)
	}
	return m[1]
}

// servedSite is a lifecycle site served over HTTP by PHP's built-in server, as the rig's: Debian's
// wp-config.php reads the site's configuration from /etc/wordpress/config-<name>.php, which the router
// (the rig's, wrapped) names for the requests it runs and an auto_prepend_file for the PHP files it leaves
// to the server (WORDPRESS_CONFIG).
type servedSite struct {
	url string
}

func newServedSite(t *testing.T) (*lifecycleSite, *servedSite) {
	t.Helper()
	rig, err := neturl.Parse(wpEnv["WP_URL"])
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", rig.Hostname()+":0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	served := &servedSite{url: "http://" + addr}
	site := newLifecycleSiteAt(t, served.url)

	name := "calshim-lc" + strings.ReplaceAll(strings.TrimSuffix(site.prefix, "_"), "_", "-")
	config := "/etc/wordpress/config-" + name + ".php"
	salts := ""
	for _, k := range []string{"AUTH_KEY", "SECURE_AUTH_KEY", "LOGGED_IN_KEY", "NONCE_KEY", "AUTH_SALT", "SECURE_AUTH_SALT", "LOGGED_IN_SALT", "NONCE_SALT"} {
		salts += fmt.Sprintf(" define( '%s', '%s-%s' );", k, name, k)
	}
	php := "<?php\n" + site.config + salts + " define( 'WP_ENVIRONMENT_TYPE', 'local' ); define( 'FS_METHOD', 'direct' );" +
		" define( 'CALSHIM_NOTIFY_URLS', 'http://127.0.0.1:9/calshim/notify' );\n"
	if err := os.WriteFile(config, []byte(php), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(config) })
	dir := filepath.Dir(site.content)
	prepend, router := filepath.Join(dir, "prepend.php"), filepath.Join(dir, "router.php")
	pick := "<?php $_SERVER['WORDPRESS_CONFIG'] = '" + name + "';\n"
	if err := os.WriteFile(prepend, []byte(pick), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(router, []byte(pick+"return require '"+filepath.Join(wpEnv["CALSHIM_STATE"], "router.php")+"';\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	chownWeb(t, filepath.Join(site.content, "plugins"))
	chownWeb(t, filepath.Join(site.content, "uploads"))
	logf, err := os.Create(filepath.Join(dir, "php-server.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("setpriv", "--reuid=www-data", "--regid=www-data", "--init-groups", "--",
		"php", "-q", "-d", "auto_prepend_file="+prepend, "-d", "upload_max_filesize=32M", "-d", "post_max_size=32M",
		"-S", addr, "-t", "/usr/share/wordpress", router)
	cmd.Env = append(os.Environ(), "PHP_CLI_SERVER_WORKERS=2", "CALSHIM_WP_CONTENT="+site.content)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
		logf.Close()
	})
	for i := 0; ; i++ {
		if call(t, http.MethodGet, served.url+"/wp-login.php", lenient).err == nil {
			break
		}
		if i == 100 {
			t.Fatalf("the site's PHP server does not answer on %s", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return site, served
}

// chownWeb gives a directory to www-data, as an installation where WordPress may write its plugins.
func chownWeb(t *testing.T, dir string) {
	t.Helper()
	if out, err := exec.Command("chown", "-R", "www-data:www-data", dir).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v %s", err, out)
	}
}

// usersMe answers the status of GET /wp/v2/users/me with the reader's application password (the site has
// no pretty permalinks: REST routes are reached by rest_route).
func (s *servedSite) usersMe(t *testing.T, password string) int {
	t.Helper()
	return s.basic(t, "/?rest_route=/wp/v2/users/me", password, "calshim-test")
}

// feed reads the change feed as calshim does, with its User-Agent.
func (s *servedSite) feed(t *testing.T, password, agent string) int {
	t.Helper()
	return s.basic(t, "/?rest_route=/calshim/v1/changes&since=0", password, agent)
}

func (s *servedSite) basic(t *testing.T, path, password, agent string) int {
	t.Helper()
	res := call(t, http.MethodGet, s.url+path, func(o *outgoing) { o.req.SetBasicAuth("calshim-reader", password) },
		header("User-Agent", agent), lenient,
		via(&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}))
	if res.err != nil {
		t.Fatal(res.err)
	}
	return res.status
}

// browser is an administrator's session: wp-login.php's cookies, redirects not followed.
type browser struct {
	site   *servedSite
	client *http.Client
}

func (s *servedSite) login(t *testing.T, user, password string) *browser {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	b := &browser{site: s, client: &http.Client{Jar: jar, Timeout: 60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	b.get(t, "wp-login.php") // the test cookie
	if status := b.postForm(t, "wp-login.php", neturl.Values{"log": {user}, "pwd": {password}, "wp-submit": {"Log In"},
		"testcookie": {"1"}, "redirect_to": {s.url + "/wp-admin/"}}); status != http.StatusFound {
		t.Fatalf("wp-login.php as %s: %d", user, status)
	}
	return b
}

// do sends a request the session built (a page, a form), not through call: the browser follows
// wp-admin's redirects itself and reads HTML.
func (b *browser) do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	res, err := b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	// A redirect within wp-admin is followed, as the browser does (e.g. to plugins.php after activation).
	if loc := res.Header.Get("Location"); res.StatusCode == http.StatusFound && strings.HasPrefix(loc, b.site.url+"/wp-admin/") && req.Method == http.MethodGet {
		return b.do(t, mustRequest(t, http.MethodGet, loc, nil))
	}
	return res.StatusCode, string(data)
}

func mustRequest(t *testing.T, method, url string, body []byte) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// get answers the page; anything but 200 fails the test.
func (b *browser) get(t *testing.T, path string) string {
	t.Helper()
	status, page := b.do(t, mustRequest(t, http.MethodGet, b.site.url+"/"+path, nil))
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, status, clip(page))
	}
	return page
}

// post sends a body and answers the page (200) or, after a redirect, the page it leads to.
func (b *browser) post(t *testing.T, path, contentType string, body []byte) string {
	t.Helper()
	req := mustRequest(t, http.MethodPost, b.site.url+"/"+path, body)
	req.Header.Set("Content-Type", contentType)
	status, page := b.do(t, req)
	if status != http.StatusOK {
		t.Fatalf("POST %s: %d %s", path, status, clip(page))
	}
	return page
}

// postForm posts a form and answers the status alone.
func (b *browser) postForm(t *testing.T, path string, form neturl.Values) int {
	t.Helper()
	req := mustRequest(t, http.MethodPost, b.site.url+"/"+path, []byte(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	status, _ := b.do(t, req)
	return status
}

// submit posts the form of the given id on page, with its hidden fields, and answers the page it leads to.
func (b *browser) submit(t *testing.T, page, id string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<form method="post" action="([^"]+)" id="` + id + `">(.*?)</form>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no form %s", id)
	}
	form := neturl.Values{}
	for _, in := range regexp.MustCompile(`<input type="hidden" (?:id="[^"]*" )?name="([^"]+)" value="([^"]*)"`).FindAllStringSubmatch(m[2], -1) {
		form.Set(in[1], html.UnescapeString(in[2]))
	}
	req := mustRequest(t, http.MethodPost, html.UnescapeString(m[1]), []byte(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := b.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if loc := res.Header.Get("Location"); loc != "" {
		return b.get(t, strings.TrimPrefix(loc, b.site.url+"/"))
	}
	return string(data)
}

// formNonce reads a hidden field of a page's form.
func formNonce(t *testing.T, page, name string) string {
	t.Helper()
	m := regexp.MustCompile(`name="` + regexp.QuoteMeta(name) + `" value="([0-9a-f]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no %s in the page: %s", name, clip(page))
	}
	return m[1]
}

// tableRows reads the rows of the table with the given id: first cell => the others, text only.
func tableRows(page, id string) map[string][]string {
	rows := map[string][]string{}
	m := regexp.MustCompile(`(?s)<table[^>]* id="` + id + `">(.*?)</table>`).FindStringSubmatch(page)
	if m == nil {
		return rows
	}
	cell := regexp.MustCompile(`(?s)<t[hd]>(.*?)</t[hd]>`)
	tag := regexp.MustCompile(`<[^>]+>`)
	for _, row := range regexp.MustCompile(`(?s)<tr>(.*?)</tr>`).FindAllStringSubmatch(m[1], -1) {
		var cells []string
		for _, c := range cell.FindAllStringSubmatch(row[1], -1) {
			cells = append(cells, html.UnescapeString(tag.ReplaceAllString(c[1], "")))
		}
		if len(cells) > 0 {
			rows[cells[0]] = cells[1:]
		}
	}
	return rows
}

func first(cells []string) string {
	if len(cells) == 0 {
		return ""
	}
	return cells[0]
}

// clip shortens a page for a failure message.
func clip(page string) string {
	if len(page) > 3000 {
		return page[:3000] + "…"
	}
	return page
}
