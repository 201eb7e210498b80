package test

import (
	"archive/zip"
	"fmt"
	"io"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The WordPress plugin as an administrator installs it: built into a zip by scripts/plugin-zip.sh, unzipped
// into wp-content/plugins, activated (the log table is created), serving WP-CLI's `wp calshim …` commands
// and Site Health's tests, loaded next to a must-use copy of itself without a fatal error, and uninstalled
// (table, options, reader role and the capabilities it granted gone). Once without The Events Calendar and
// once with its registrations (the stand-in of test/testdata/wordpress) and its plugin installed.
//
// Each case runs on a WordPress site of its own: the real WordPress and database of the rig, under a table
// prefix and a wp-content directory of its own, driven from php-cli (each step a process, as each request
// is), so that dropping the log table and the reader role never touches the site the suite shares. The
// rig has no WP-CLI (Debian has no package; the phar comes from GitHub, out of reach here): the commands'
// callbacks run under a stand-in WP_CLI class (lifecycleCLIStub) that collects add_command() and prints.
func TestPluginLifecycle(t *testing.T) {
	zipPath := pluginZip(t)
	t.Run("without The Events Calendar", func(t *testing.T) { pluginLifecycle(t, zipPath, false) })
	t.Run("with The Events Calendar", func(t *testing.T) { pluginLifecycle(t, zipPath, true) })
}

// pluginZip builds the plugin's zip as an operator does (scripts/plugin-zip.sh) and answers its path.
func pluginZip(t *testing.T) string {
	t.Helper()
	zipPath := filepath.Join(t.TempDir(), "calshim-plugin.zip")
	if out, err := exec.Command("../scripts/plugin-zip.sh", zipPath).CombinedOutput(); err != nil {
		t.Fatalf("scripts/plugin-zip.sh: %v\n%s", err, out)
	}
	return zipPath
}

func pluginLifecycle(t *testing.T, zipPath string, tec bool) {
	site := newLifecycleSite(t)
	if tec {
		code, err := os.ReadFile("testdata/wordpress/tec-editor-meta.php")
		if err != nil {
			t.Fatal(err)
		}
		site.write(t, "mu-plugins/tec-editor-meta.php", code)
		// Installed, not active: the capabilities of its post types are its own.
		site.write(t, "plugins/the-events-calendar/the-events-calendar.php", []byte("<?php\n/**\n * Plugin Name: The Events Calendar\n */\n"))
	}
	site.unzip(t, zipPath, "plugins")

	if out := site.php(t, "", `echo $wpdb->get_var( "SHOW TABLES LIKE '{$wpdb->prefix}calshim_changes'" ) ?: 'none';`); out != "none" {
		t.Fatalf("log table before activation: %s", out)
	}
	out := site.php(t, "", `require_once ABSPATH . 'wp-admin/includes/plugin.php';
		$r = activate_plugin( 'calshim/calshim.php' );
		echo is_wp_error( $r ) ? $r->get_error_message() : $wpdb->get_var( "SHOW TABLES LIKE '{$wpdb->prefix}calshim_changes'" );
		echo ' ', json_encode( get_option( 'uninstall_plugins' )['calshim/calshim.php'] ?? null );`)
	if out != site.prefix+`calshim_changes ["Calshim_Admin","uninstall"]` {
		t.Fatalf("activation: %s", out)
	}
	if tec {
		raw := site.php(t, "", `echo json_encode( array_keys( get_registered_meta_keys( 'post' ) ) );`)
		if !strings.Contains(raw, `"_EventCostDescription"`) {
			t.Fatalf("the stand-in for TEC's registrations is not active: %s", raw)
		}
	}
	// The plugin runs as a plugin: roles in place, an event logged.
	out = site.php(t, "", `echo CALSHIM_PLUGIN_FILE === WP_PLUGIN_DIR . '/calshim/calshim.php' ? 'plugin' : CALSHIM_PLUGIN_FILE;
		echo ' ', get_role( 'calshim_reader' ) ? 'reader' : 'no reader', ' ', get_role( 'administrator' )->has_cap( 'edit_tribe_events' ) ? 'caps' : 'no caps';
		wp_insert_post( [ 'post_type' => 'tribe_events', 'post_status' => 'publish', 'post_title' => 'Lifecycle', 'meta_input' => [ '_EventStartDate' => '2030-01-01 10:00:00' ] ] );`)
	if out != "plugin reader caps" {
		t.Fatalf("the active plugin: %s", out)
	}

	lifecycleCLI(t, site)
	lifecyclePoll(t, site)
	lifecycleHealth(t, site)

	// Both copies: the must-use one runs, the other stops before declaring anything, and the plugin's
	// uninstall callback leaves what the must-use copy still uses.
	site.installMustUse(t, filepath.Join(site.content, "plugins/calshim"))
	out = site.cli(t, "", `echo CALSHIM_PLUGIN_FILE === WPMU_PLUGIN_DIR . '/calshim.php' ? "must-use\n" : CALSHIM_PLUGIN_FILE;
		call_user_func( WP_CLI::$commands['calshim status'], [], [] );
		require_once ABSPATH . 'wp-admin/includes/plugin.php';
		call_user_func( get_option( 'uninstall_plugins' )['calshim/calshim.php'] );`)
	if !strings.HasPrefix(out, "must-use\n") || !strings.Contains(out, "plugin version: 0.4.0 (must-use plugin)") {
		t.Fatalf("both copies loaded: %s", out)
	}
	if out := site.php(t, "", `echo $wpdb->get_var( "SHOW TABLES LIKE '{$wpdb->prefix}calshim_changes'" ), ' ', get_role( 'calshim_reader' ) ? 'reader' : 'no reader';`); out != site.prefix+"calshim_changes reader" {
		t.Fatalf("uninstalling the plugin next to its must-use copy removed: %s", out)
	}
	site.remove(t, "mu-plugins/calshim.php")
	if err := os.RemoveAll(filepath.Join(site.content, "mu-plugins/calshim")); err != nil {
		t.Fatal(err)
	}

	// Uninstall, as Plugins > Delete does: deactivated first, then uninstall_plugin() in another request.
	site.php(t, "", `require_once ABSPATH . 'wp-admin/includes/plugin.php'; deactivate_plugins( 'calshim/calshim.php' );`)
	site.php(t, "", `require_once ABSPATH . 'wp-admin/includes/plugin.php'; uninstall_plugin( 'calshim/calshim.php' );`)
	out = site.php(t, "", `echo $wpdb->get_var( "SHOW TABLES LIKE '{$wpdb->prefix}calshim_changes'" ) ?: 'no table';
		echo ' ', json_encode( $wpdb->get_col( "SELECT option_name FROM $wpdb->options WHERE option_name LIKE 'calshim%'" ) );
		echo ' ', get_role( 'calshim_reader' ) ? 'reader' : 'no reader';
		$admin = get_role( 'administrator' ); $subscriber = get_role( 'subscriber' );
		echo ' ', $admin->has_cap( 'edit_tribe_events' ) ? 'caps' : 'no caps', ' ', $admin->has_cap( 'edit_posts' ) && $subscriber->has_cap( 'read' ) ? 'core caps' : 'core caps gone';
		echo ' ', get_user_by( 'login', 'calshim-reader' ) ? 'user kept' : 'user gone';`)
	want := "no table [] no reader no caps core caps user kept"
	if tec {
		want = "no table [] no reader caps core caps user kept"
	}
	if out != want {
		t.Fatalf("after uninstall: %s, want %s", out, want)
	}
}

// lifecycleCLI runs `wp calshim status`, `wp calshim reader create` and `wp calshim log prune`.
func lifecycleCLI(t *testing.T, site *lifecycleSite) {
	status := site.command(t, "calshim status", "")
	for _, want := range []string{"plugin version: 0.4.0 (plugin)\n", "log table: " + site.prefix + "calshim_changes, ",
		"oldest retained sequence: 1\n", "last calshim poll: never\n"} {
		if !strings.Contains(status, want) {
			t.Errorf("wp calshim status lacks %q:\n%s", want, status)
		}
	}
	if !regexp.MustCompile(`(?m)^head sequence: [1-9]\d*$`).MatchString(status) {
		t.Errorf("wp calshim status: no head sequence:\n%s", status)
	}

	created := site.command(t, "calshim reader create", "")
	password := regexp.MustCompile(`(?m)^CALSHIM_UPSTREAM_APP_PASSWORD=([A-Za-z0-9]{24})$`).FindStringSubmatch(created)
	if password == nil || !strings.Contains(created, "\nCALSHIM_UPSTREAM_USER=calshim-reader\n") ||
		!strings.HasPrefix(created, "Success: Created the user calshim-reader") {
		t.Fatalf("wp calshim reader create:\n%s", created)
	}
	if out := site.readerAuth(t, password[1]); out != "calshim-reader calshim_reader 1" {
		t.Fatalf("the printed application password signs in as: %s", out)
	}
	if out := site.command(t, "calshim reader create", ""); !strings.HasPrefix(out, "Error: The user calshim-reader already has an application password named calshim") {
		t.Errorf("a second reader create without --rotate:\n%s", out)
	}
	rotated := site.command(t, "calshim reader create", "'rotate' => true")
	again := regexp.MustCompile(`(?m)^CALSHIM_UPSTREAM_APP_PASSWORD=([A-Za-z0-9]{24})$`).FindStringSubmatch(rotated)
	if again == nil || again[1] == password[1] || !strings.Contains(rotated, "replaced its application password") {
		t.Fatalf("wp calshim reader create --rotate:\n%s", rotated)
	}
	if out := site.readerAuth(t, password[1]); out != "refused" {
		t.Errorf("the rotated-out password still signs in: %s", out)
	}
	if out := site.command(t, "calshim reader create", "'user' => 'admin'"); !strings.HasPrefix(out, "Error: The user admin exists without the calshim_reader role") {
		t.Errorf("reader create for the administrator:\n%s", out)
	}
	// Outside a local environment over plain http, the operator is told that the password will be ignored.
	out := site.cli(t, "define( 'WP_ENVIRONMENT_TYPE', 'production' );", `call_user_func( WP_CLI::$commands['calshim reader create'], [], [ 'user' => 'calshim-reader-2' ] );`)
	if !strings.Contains(out, "Warning: WordPress accepts application passwords only over HTTPS") {
		t.Errorf("reader create on a production site over http:\n%s", out)
	}

	if out := site.command(t, "calshim log prune", "'days' => '1x'"); !strings.HasPrefix(out, "Error: --days takes a whole number") {
		t.Errorf("log prune --days=1x:\n%s", out)
	}
	// Rows older than 7 days go, newer ones stay.
	site.php(t, "", `$t = Calshim_Changes::table(); $last = (int) $wpdb->get_var( "SELECT MAX(seq) FROM $t" );
		wp_insert_post( [ 'post_type' => 'tribe_venue', 'post_status' => 'publish', 'post_title' => 'Kept' ] );
		$wpdb->query( "UPDATE $t SET changed_ms = changed_ms - 8 * 86400000 WHERE seq <= $last" );`)
	pruned := site.command(t, "calshim log prune", "")
	kept := regexp.MustCompile(`^Success: Pruned [1-9]\d* rows older than 7 days; [1-9]\d* rows kept, oldest retained sequence (\d+)\.\n$`).FindStringSubmatch(pruned)
	if kept == nil {
		t.Fatalf("wp calshim log prune:\n%s", pruned)
	}
	if status := site.command(t, "calshim status", ""); !strings.Contains(status, "oldest retained sequence: "+kept[1]+" (pruned up to ") {
		t.Errorf("wp calshim status after pruning:\n%s", status)
	}
}

// lifecyclePoll checks the note of calshim's last poll: only feed reads by the reader (or an
// administrator) count, and the option is written at most once a minute.
func lifecyclePoll(t *testing.T, site *lifecycleSite) {
	read := `$feed = function ( $user ) { wp_set_current_user( $user ); return rest_do_request( new WP_REST_Request( 'GET', '/calshim/v1/changes' ) )->get_status(); };
		$reader = get_user_by( 'login', 'calshim-reader' )->ID;`
	out := site.php(t, "", read+`echo $feed( 0 ), ' ', get_option( 'calshim_last_poll', 'none' ), ' ';
		echo $feed( $reader ), ' ', time() - get_option( 'calshim_last_poll' ) <= 1 ? 'noted' : 'not noted';`)
	if out != "401 none 200 noted" {
		t.Fatalf("feed reads noted: %s", out)
	}
	out = site.php(t, "", read+`update_option( 'calshim_last_poll', time() - 30 ); $feed( $reader );
		echo time() - get_option( 'calshim_last_poll' ), ' ';
		update_option( 'calshim_last_poll', time() - 61 ); $feed( $reader );
		echo time() - get_option( 'calshim_last_poll' ) <= 1 ? 'noted' : 'not noted';`)
	// The note written 30 s ago stays (its age is 30 s, or 31-32 when the clock ticked while PHP ran:
	// a note rewritten would be 0 or 1); the one written 61 s ago is rewritten.
	var age int
	var after string
	if _, err := fmt.Sscanf(out, "%d %s", &age, &after); err != nil || age < 30 || age > 32 || after != "noted" {
		t.Fatalf("poll notes within and after a minute: %s", out)
	}
	if status := site.command(t, "calshim status", ""); !regexp.MustCompile(`(?m)^last calshim poll: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(.+ ago\)$`).MatchString(status) {
		t.Errorf("wp calshim status after a poll:\n%s", status)
	}
}

// lifecycleHealth runs the three Site Health tests as Tools > Site Health does.
func lifecycleHealth(t *testing.T, site *lifecycleSite) {
	run := `require_once ABSPATH . 'wp-admin/includes/class-wp-site-health.php';
		$health = function ( $test ) { $r = call_user_func( WP_Site_Health::get_tests()['direct'][ $test ]['test'] ); return $r['test'] . ' ' . $r['status'] . ': ' . $r['label'] . ' | ' . $r['description']; };
		foreach ( [ 'calshim_feed', 'calshim_log_size', 'calshim_last_poll' ] as $test ) { echo $health( $test ), "\n"; }`
	out := site.php(t, "", run)
	for _, want := range []string{"calshim_feed good: calshim's change feed is served", "calshim_log_size good: calshim's change log holds ",
		"calshim_last_poll good: calshim reads the change feed"} {
		if !strings.Contains(out, want) {
			t.Errorf("Site Health lacks %q:\n%s", want, out)
		}
	}
	out = site.php(t, "", `add_filter( 'calshim_health_log_rows_max', '__return_zero' );
		add_filter( 'rest_endpoints', function ( $e ) { unset( $e['/calshim/v1/changes'] ); return $e; } );
		update_option( 'calshim_last_poll', time() - 601 );`+run)
	for _, want := range []string{"calshim_feed critical: calshim's change feed is not served",
		"calshim_log_size recommended: calshim's change log holds ", "wp calshim log prune",
		"calshim_last_poll recommended: calshim has not read the change feed recently", "it may be stopped"} {
		if !strings.Contains(out, want) {
			t.Errorf("Site Health of a site in trouble lacks %q:\n%s", want, out)
		}
	}
	out = site.php(t, "", `$wpdb->query( 'DROP TABLE ' . Calshim_Changes::table() );`+run)
	if !strings.Contains(out, "calshim_feed recommended: calshim's change log table does not exist yet") {
		t.Errorf("Site Health without the log table:\n%s", out)
	}
	site.php(t, "", `Calshim_Admin::activate();`) // as reactivating does
}

// lifecycleSite is a WordPress site of its own on the rig's database: a table prefix and a wp-content.
type lifecycleSite struct {
	prefix, content, bootstrap string
	config                     string // the PHP of its wp-config.php: database, wp-content, home, prefix
}

// newLifecycleSite installs a fresh site and removes its tables and files when the test ends.
func newLifecycleSite(t *testing.T) *lifecycleSite {
	t.Helper()
	return newLifecycleSiteAt(t, "http://calshim-lifecycle.invalid")
}

// newLifecycleSiteAt is newLifecycleSite with the site's address (WP_HOME).
func newLifecycleSiteAt(t *testing.T, home string) *lifecycleSite {
	t.Helper()
	db := rigDatabase(t)
	dir, err := os.MkdirTemp("", "calshim-lifecycle")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	site := &lifecycleSite{prefix: "lc" + filepath.Base(dir)[len("calshim-lifecycle"):] + "_", content: filepath.Join(dir, "wp-content")}
	for _, sub := range []string{"", "wp-content", "wp-content/plugins", "wp-content/mu-plugins", "wp-content/uploads"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(filepath.Join(dir, sub), 0o777); err != nil { // php runs as www-data
			t.Fatal(err)
		}
	}
	var b strings.Builder
	for _, k := range []string{"DB_NAME", "DB_USER", "DB_PASSWORD", "DB_HOST"} {
		fmt.Fprintf(&b, " define( '%s', '%s' );", k, db[k])
	}
	fmt.Fprintf(&b, ` define( 'DB_CHARSET', 'utf8mb4' ); define( 'DB_COLLATE', '' ); define( 'WP_CONTENT_DIR', '%s' );
		define( 'WP_HOME', '%s' ); define( 'WP_SITEURL', WP_HOME ); define( 'DISABLE_WP_CRON', true );
		define( 'AUTOMATIC_UPDATER_DISABLED', true ); define( 'WP_HTTP_BLOCK_EXTERNAL', true ); defined( 'ABSPATH' ) || define( 'ABSPATH', '/usr/share/wordpress/' );
		$table_prefix = '%s';`, site.content, home, site.prefix)
	site.config = b.String()
	u, err := neturl.Parse(home)
	if err != nil {
		t.Fatal(err)
	}
	site.bootstrap = fmt.Sprintf(`$_SERVER['HTTP_HOST'] = '%s'; $_SERVER['REQUEST_URI'] = '/'; $_SERVER['REMOTE_ADDR'] = '127.0.0.1';`, u.Host) + site.config
	t.Cleanup(func() {
		site.php(t, "define( 'SHORTINIT', true );", `foreach ( $wpdb->get_col( $wpdb->prepare( 'SHOW TABLES LIKE %s', $wpdb->esc_like( $wpdb->prefix ) . '%' ) ) as $table ) { $wpdb->query( "DROP TABLE $table" ); }`)
	})
	site.php(t, "define( 'WP_INSTALLING', true );", `function wp_new_blog_notification( $a, $b, $c, $d ) {}
		require_once ABSPATH . 'wp-admin/includes/upgrade.php';
		wp_install( 'calshim lifecycle', 'admin', 'admin@example.com', false, '', 'calshim-lifecycle-admin' );`)
	return site
}

// rigDatabase reads the rig's database settings from the configuration scripts/wp-up.sh wrote for it.
func rigDatabase(t *testing.T) map[string]string {
	t.Helper()
	u, err := neturl.Parse(wpEnv["WP_URL"])
	if err != nil {
		t.Fatal(err)
	}
	config, err := os.ReadFile("/etc/wordpress/config-" + u.Hostname() + ".php")
	if err != nil {
		t.Fatal(err)
	}
	db := map[string]string{}
	for _, m := range regexp.MustCompile(`define\( '(DB_NAME|DB_USER|DB_PASSWORD|DB_HOST)', '([^'\\]*)' \);`).FindAllStringSubmatch(string(config), -1) {
		db[m[1]] = m[2]
	}
	if len(db) != 4 {
		t.Fatalf("the rig's configuration lacks database settings: %v", db)
	}
	return db
}

// php runs code in the site after WordPress loaded, as www-data (pre runs before, as wp-config.php does),
// and returns its output.
func (s *lifecycleSite) php(t *testing.T, pre, code string) string {
	t.Helper()
	script := s.bootstrap + pre + " defined( 'WP_ENVIRONMENT_TYPE' ) || define( 'WP_ENVIRONMENT_TYPE', 'local' ); require ABSPATH . 'wp-settings.php'; " + code
	cmd := exec.Command("setpriv", "--reuid=www-data", "--regid=www-data", "--init-groups", "--", "php", "-r", script)
	cmd.Dir = os.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("php: %v\n%s", err, out)
	}
	return string(out)
}

// lifecycleCLIStub stands in for WP-CLI: it defines WP_CLI and a WP_CLI class that collects the commands
// and prints as WP-CLI does; WP_CLI::error() prints and ends the command (WP-CLI exits with status 1).
const lifecycleCLIStub = ` define( 'WP_CLI', true );
	class WP_CLI_Halt extends Exception {}
	class WP_CLI {
		public static $commands = [];
		public static function add_command( $name, $callable ) { self::$commands[ $name ] = $callable; return true; }
		public static function line( $message = '' ) { echo $message, "\n"; }
		public static function success( $message ) { echo 'Success: ', $message, "\n"; }
		public static function warning( $message ) { echo 'Warning: ', $message, "\n"; }
		public static function error( $message ) { echo 'Error: ', $message, "\n"; throw new WP_CLI_Halt(); }
	}`

// cli is php with the WP-CLI stand-in loaded.
func (s *lifecycleSite) cli(t *testing.T, pre, code string) string {
	t.Helper()
	return s.php(t, lifecycleCLIStub+pre, "try { "+code+" } catch ( WP_CLI_Halt $e ) {}")
}

// command runs `wp <name>` with the associative arguments given as PHP array items.
func (s *lifecycleSite) command(t *testing.T, name, assoc string) string {
	t.Helper()
	return s.cli(t, "", "call_user_func( WP_CLI::$commands['"+name+"'], [], [ "+assoc+" ] );")
}

// readerAuth signs in as calshim-reader with an application password, as a REST request does, and says
// who that is ("refused" when WordPress refuses).
func (s *lifecycleSite) readerAuth(t *testing.T, password string) string {
	t.Helper()
	return s.php(t, "", `add_filter( 'application_password_is_api_request', '__return_true' );
		$user = wp_authenticate_application_password( null, 'calshim-reader', '`+password+`' );
		echo $user instanceof WP_User ? $user->user_login . ' ' . implode( ',', $user->roles ) . ' ' . (int) $user->has_cap( 'calshim_read_all' ) : 'refused';`)
}

func (s *lifecycleSite) write(t *testing.T, rel string, data []byte) {
	t.Helper()
	path := filepath.Join(s.content, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// installMustUse copies the plugin at from (its loader calshim.php and the folder of its classes
// beside it) into wp-content/mu-plugins, as the must-use install is documented; the folder may be
// written by PHP (www-data), as the site's own folders.
func (s *lifecycleSite) installMustUse(t *testing.T, from string) {
	t.Helper()
	for _, rel := range pluginFiles(t, from) {
		data, err := os.ReadFile(filepath.Join(from, rel))
		if err != nil {
			t.Fatal(err)
		}
		s.write(t, filepath.Join("mu-plugins", rel), data)
	}
	if err := os.Chmod(filepath.Join(s.content, "mu-plugins/calshim"), 0o777); err != nil {
		t.Fatal(err)
	}
}

// pluginFiles are the plugin's PHP files below dir: the loader, then its classes.
func pluginFiles(t *testing.T, dir string) []string {
	t.Helper()
	classes, err := filepath.Glob(filepath.Join(dir, "calshim", "class-calshim-*.php"))
	if err != nil || len(classes) == 0 {
		t.Fatalf("no classes beside %s/calshim.php (%v)", dir, err)
	}
	files := []string{"calshim.php"}
	for _, c := range classes {
		files = append(files, filepath.Join("calshim", filepath.Base(c)))
	}
	return files
}

func (s *lifecycleSite) remove(t *testing.T, rel string) {
	t.Helper()
	if err := os.Remove(filepath.Join(s.content, rel)); err != nil {
		t.Fatal(err)
	}
}

// unzip extracts the plugin zip below wp-content/<dir>, as Plugins > Add New > Upload Plugin does; the zip
// must hold exactly the plugin's files (calshim/calshim.php, its classes in calshim/calshim/, and
// calshim/readme.txt), as they are in cmsclient/wordpress.
func (s *lifecycleSite) unzip(t *testing.T, zipPath, dir string) {
	t.Helper()
	r, err := zip.OpenReader(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var files []string
	for _, f := range r.File {
		if f.FileInfo().IsDir() {
			continue
		}
		files = append(files, f.Name)
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(filepath.Join("../cmsclient/wordpress", strings.TrimPrefix(f.Name, "calshim/")))
		if err != nil || string(src) != string(data) {
			t.Errorf("%s in the zip differs from cmsclient/wordpress (%v)", f.Name, err)
		}
		s.write(t, filepath.Join(dir, f.Name), data)
	}
	var want []string
	for _, f := range append(pluginFiles(t, "../cmsclient/wordpress"), "readme.txt") {
		want = append(want, "calshim/"+f)
	}
	slices.Sort(files)
	slices.Sort(want)
	if !slices.Equal(files, want) {
		t.Fatalf("the plugin zip holds %v, want %v", files, want)
	}
}

// On the rig, where the plugin runs as a must-use plugin and the suite's calshim reads the change feed
// every second, `wp calshim status` and Site Health say when calshim last polled, and status names it
// (this machine's name, from its User-Agent) with its version.
func TestPluginNotesCalshimPolls(t *testing.T) {
	out := string(wpPHPConfigured(t, lifecycleCLIStub, `call_user_func( WP_CLI::$commands['calshim status'], [], [] );
		require_once ABSPATH . 'wp-admin/includes/class-wp-site-health.php';
		$r = call_user_func( WP_Site_Health::get_tests()['direct']['calshim_last_poll']['test'] );
		echo 'site health: ', $r['status'], "\n";`))
	host, _ := os.Hostname()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^plugin version: \S+ \(must-use plugin\)$`),
		regexp.MustCompile(`(?m)^last calshim poll: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(.+ ago\)$`),
		regexp.MustCompile(`(?m)^site health: good$`),
		// The suite's calshim, by its User-Agent: this machine's name and the version it was built as.
		regexp.MustCompile(`(?m)^calshim ` + regexp.QuoteMeta(host) + ` \(version \S+\): last poll \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("no line matching %s:\n%s", want, out)
		}
	}
}

// The plugin's readme.txt is in WordPress.org's format and agrees with the plugin's header: name,
// version (the loader's header, Calshim_Bridge's VERSION constant and the readme's stable tag and
// changelog), and the WordPress and PHP versions it requires.
func TestPluginReadmeMatchesHeader(t *testing.T) {
	plugin, err := os.ReadFile("../cmsclient/wordpress/calshim.php")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../cmsclient/wordpress/readme.txt")
	if err != nil {
		t.Fatal(err)
	}
	field := func(text []byte, pattern string) string {
		m := regexp.MustCompile(`(?m)^` + pattern + `\s*(.+?)\s*$`).FindSubmatch(text)
		if m == nil {
			t.Fatalf("no %q", pattern)
		}
		return string(m[1])
	}
	bridge, err := os.ReadFile("../cmsclient/wordpress/calshim/class-calshim-bridge.php")
	if err != nil {
		t.Fatal(err)
	}
	version := field(plugin, `\s\*\sVersion:`)
	if constant := field(bridge, `\s*const VERSION =`); constant != "'"+version+"';" {
		t.Errorf("header Version %s, const VERSION = %s", version, constant)
	}
	pairs := [][2]string{
		{field(plugin, `\s\*\sPlugin Name:`), field(readme, `===`)},
		{version, field(readme, `Stable tag:`)},
		{field(plugin, `\s\*\sRequires at least:`), field(readme, `Requires at least:`)},
		{field(plugin, `\s\*\sRequires PHP:`), field(readme, `Requires PHP:`)},
	}
	pairs[0][1] = strings.TrimSuffix(pairs[0][1], " ===")
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("calshim.php says %q, readme.txt %q", p[0], p[1])
		}
	}
	for _, want := range []string{"\nTested up to: ", "\nLicense: ", "\n== Description ==\n", "\n== Installation ==\n",
		"\n== Frequently Asked Questions ==\n", "\n== Changelog ==\n", "\n= " + version + " =\n"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("readme.txt lacks %q", want)
		}
	}
	// Its identity in wp-admin: an author (the delete dialog names it), a home, an Update URI that is not
	// WordPress.org's (so its updater never offers another plugin named calshim in place of this one), a
	// short description without install instructions, and the WordPress version the suite runs on.
	for _, f := range []string{"Author:", "Plugin URI:", "Update URI:"} {
		if v := field(plugin, `\s\*\s`+f); v == "" || strings.Contains(v, "wordpress.org") {
			t.Errorf("calshim.php: %s %q", f, v)
		}
	}
	if d := field(plugin, `\s\*\sDescription:`); len(d) > 200 || regexp.MustCompile(`(?i)install|mu-plugins|copy`).MatchString(d) {
		t.Errorf("calshim.php's description (200 characters, no install instructions): %q", d)
	}
	if tested, wp := field(readme, `Tested up to:`), regexp.MustCompile(`^\d+\.\d+`).FindString(wpEnv["WP_VERSION"]); tested != wp {
		t.Errorf("readme.txt: Tested up to %s, the suite runs WordPress %s", tested, wpEnv["WP_VERSION"])
	}
	// The short description: the first paragraph after the header fields, at most 150 characters.
	blocks := append(strings.Split(string(readme), "\n\n"), "")
	if short := blocks[1]; short == "" || strings.HasPrefix(short, "==") || len(short) > 150 {
		t.Errorf("readme.txt's short description (150 characters at most): %q", short)
	}
}
