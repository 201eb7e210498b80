#!/usr/bin/env bash
# wp-up.sh — bring up the real-WordPress test rig of calshim on this machine (Debian 12, as root).
#
# What it does, each step skipped when already done (so a second run takes a second or two):
#   1. installs the Debian packages it needs (apt-get only when one is missing);
#   2. starts MariaDB (mysqld_safe, detached) and creates the database and its user;
#   3. configures Debian's WordPress package for the host 127.0.0.1
#      (/etc/wordpress/config-127.0.0.1.php: DB, WP_HOME/WP_SITEURL, WP_ENVIRONMENT_TYPE=local so that
#      application passwords work over plain http);
#   4. copies the calshim must-use plugin into wp-content/mu-plugins: its loader
#      (cmsclient/wordpress/calshim.php) and the folder of its classes beside it (calshim/);
#   5. installs WordPress (wp_install) if needed and sets the options the tests rely on: time zone
#      America/New_York, pretty permalinks /%postname%/, posts_per_page 10;
#   6. creates the users admin, calshim-reader (role calshim_reader), subscriber1, contributor1, author1, editor1
#      with fixed application passwords, and writes them to $CALSHIM_STATE/wp.env;
#   7. serves WordPress with PHP's built-in server (4 workers, as www-data) on 127.0.0.1:$WP_PORT through a
#      router script (pretty permalinks, /wp-json/, wp-content from Debian's /var/lib/wordpress);
#   8. checks that /wp-json/ answers, that the plugin is loaded and that Basic auth with an application
#      password works, then prints a one-line summary.
#
# Environment: WP_HOST (default 127.0.0.1; Debian's WordPress picks /etc/wordpress/config-<host>.php by the
# HTTP Host, so a second site on the same machine needs another host name, e.g. 127.0.0.2), WP_PORT (default
# 8881), DB_NAME (default calshim_wp), WP_CONTENT (default /var/lib/wordpress/wp-content; a second site should
# use its own, e.g. $CALSHIM_STATE/wp-content, so it loads its own copy of the must-use plugin),
# CALSHIM_STATE (default /tmp/calshim-wp: wp.env, logs, pid files). A second site, for instance:
#   WP_HOST=127.0.0.2 WP_PORT=8882 DB_NAME=calshim_wp2 WP_CONTENT=/tmp/calshim-wp2/wp-content \
#     CALSHIM_STATE=/tmp/calshim-wp2 scripts/wp-up.sh
# Stop with scripts/wp-down.sh (add --all to stop MariaDB too).
set -euo pipefail

t0=$(date +%s)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WP_PORT=${WP_PORT:-8881}
STATE=${CALSHIM_STATE:-/tmp/calshim-wp}
WP_HOST=${WP_HOST:-127.0.0.1}
WP_URL="http://$WP_HOST:$WP_PORT"
WP_DIR=/usr/share/wordpress
WP_CONTENT=${WP_CONTENT:-/var/lib/wordpress/wp-content}
WP_CONFIG=/etc/wordpress/config-$WP_HOST.php
DB_NAME=${DB_NAME:-calshim_wp} DB_USER=calshim_wp DB_PASSWORD=calshim_wp
DB_SOCKET=/run/mysqld/mysqld.sock
PLUGIN_SRC=$ROOT/cmsclient/wordpress

log() { echo "wp-up: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root (installs packages, starts MariaDB, writes /etc/wordpress)"
[ -f "$PLUGIN_SRC/calshim.php" ] && [ -d "$PLUGIN_SRC/calshim" ] || die "missing $PLUGIN_SRC/calshim.php or its folder calshim/"
mkdir -p "$STATE"
chmod 755 "$STATE"

# --- 1. packages ---------------------------------------------------------------------------------------------
# --no-install-recommends keeps the install small; the theme is listed explicitly (wordpress only recommends it).
PKGS=(wordpress wordpress-theme-twentytwentythree php-cli php-mysql php-gd php-curl php-xml php-mbstring
      mariadb-server mariadb-client curl ca-certificates util-linux jq)  # jq: for the demo's curl lines
missing=()
for p in "${PKGS[@]}"; do
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=300 update -qq >"$STATE/apt.log" 2>&1 || die "apt-get update failed (see $STATE/apt.log)"
  apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "${missing[@]}" >>"$STATE/apt.log" 2>&1 \
    || die "apt-get install failed (see $STATE/apt.log)"
fi

# --- 2. MariaDB ----------------------------------------------------------------------------------------------
db_ping() { mysqladmin --protocol=socket --socket="$DB_SOCKET" -uroot ping >/dev/null 2>&1; }
if ! db_ping; then
  log "starting MariaDB"
  mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
  if [ ! -d /var/lib/mysql/mysql ]; then
    mariadb-install-db --user=mysql --datadir=/var/lib/mysql >>"$STATE/mariadb.log" 2>&1
  fi
  touch "$STATE/mariadb-error.log" && chown mysql:mysql "$STATE/mariadb-error.log"  # written by mariadbd (user mysql)
  # setsid: own session, so the daemon survives this shell and its job control.
  setsid nohup mysqld_safe --skip-syslog --log-error="$STATE/mariadb-error.log" >>"$STATE/mariadb.log" 2>&1 </dev/null &
  for _ in $(seq 1 120); do db_ping && break; sleep 0.25; done
  db_ping || die "MariaDB did not start (see $STATE/mariadb-error.log)"
fi
mariadb --protocol=socket --socket="$DB_SOCKET" -uroot <<SQL
CREATE DATABASE IF NOT EXISTS \`$DB_NAME\` DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci;
CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
GRANT ALL PRIVILEGES ON \`$DB_NAME\`.* TO '$DB_USER'@'localhost';
SQL

# --- 3. WordPress configuration (Debian's wp-config.php includes /etc/wordpress/config-<host>.php) -----------
mkdir -p /etc/wordpress
# One host name, one site: a second rig on the same host name would silently take the first one's
# configuration (Debian picks the file by the Host header alone, whatever the port).
if [ -f "$WP_CONFIG" ] && ! grep -q "define( 'DB_NAME', '$DB_NAME' );" "$WP_CONFIG"; then
  die "$WP_CONFIG belongs to another site (another DB_NAME): give this rig its own WP_HOST (e.g. 127.0.0.3)"
fi
cfg_tmp=$(mktemp)
cat >"$cfg_tmp" <<PHP
<?php
// Written by calshim scripts/wp-up.sh (test rig; do not edit, it is rewritten on every run).
define( 'DB_NAME', '$DB_NAME' );
define( 'DB_USER', '$DB_USER' );
define( 'DB_PASSWORD', '$DB_PASSWORD' );
define( 'DB_HOST', 'localhost:$DB_SOCKET' );
define( 'DB_CHARSET', 'utf8mb4' );
define( 'DB_COLLATE', '' );
define( 'WP_HOME', '$WP_URL' );
define( 'WP_SITEURL', '$WP_URL' );
define( 'WP_CONTENT_DIR', '$WP_CONTENT' );
// 'local' makes WordPress accept application passwords over plain http.
define( 'WP_ENVIRONMENT_TYPE', 'local' );
// No cron loopbacks, no update checks, no calls to the internet: the rig must be quiet and deterministic.
define( 'DISABLE_WP_CRON', true );
define( 'AUTOMATIC_UPDATER_DISABLED', true );
define( 'WP_HTTP_BLOCK_EXTERNAL', true );
define( 'FS_METHOD', 'direct' );
define( 'WP_DEBUG', false );
// Fixed salts: a throw-away local test site.
define( 'AUTH_KEY', 'calshim-rig-auth-key' );
define( 'SECURE_AUTH_KEY', 'calshim-rig-secure-auth-key' );
define( 'LOGGED_IN_KEY', 'calshim-rig-logged-in-key' );
define( 'NONCE_KEY', 'calshim-rig-nonce-key' );
define( 'AUTH_SALT', 'calshim-rig-auth-salt' );
define( 'SECURE_AUTH_SALT', 'calshim-rig-secure-auth-salt' );
define( 'LOGGED_IN_SALT', 'calshim-rig-logged-in-salt' );
define( 'NONCE_SALT', 'calshim-rig-nonce-salt' );
\$table_prefix = 'wp_';
PHP
if ! cmp -s "$cfg_tmp" "$WP_CONFIG"; then install -m 644 "$cfg_tmp" "$WP_CONFIG"; fi
rm -f "$cfg_tmp"

# --- 4. must-use plugin -------------------------------------------------------------------------------------
install -d -o www-data -g www-data "$WP_CONTENT/mu-plugins" "$WP_CONTENT/uploads" "$WP_CONTENT/themes"
# A site with its own wp-content still uses Debian's theme.
theme=/usr/share/wordpress/wp-content/themes/twentytwentythree
[ -e "$WP_CONTENT/themes/twentytwentythree" ] || ln -s "$theme" "$WP_CONTENT/themes/twentytwentythree"
install -d -o www-data -g www-data "$WP_CONTENT/mu-plugins/calshim"
# The classes first, the loader last: a request meanwhile never requires a class not yet there.
for src in "$PLUGIN_SRC"/calshim/class-calshim-*.php "$PLUGIN_SRC/calshim.php"; do
  f=${src#"$PLUGIN_SRC/"}
  if ! cmp -s "$src" "$WP_CONTENT/mu-plugins/$f"; then
    install -m 644 -o www-data -g www-data "$src" "$WP_CONTENT/mu-plugins/$f"
  fi
done
# A class file the plugin no longer has would only lie there: the loader names the files it loads.
for f in "$WP_CONTENT"/mu-plugins/calshim/class-calshim-*.php; do
  [ -e "$PLUGIN_SRC/calshim/$(basename "$f")" ] || rm -f "$f"
done

# --- PHP helpers, generated into the state dir (run as www-data, like the web server) -------------------------
asweb() { setpriv --reuid=www-data --regid=www-data --init-groups -- "$@"; }

# Router of PHP's built-in server: static files from the docroot or from Debian's wp-content, everything else
# through WordPress's index.php (pretty permalinks, /wp-json/). It also makes sure the Authorization header
# reaches WordPress as PHP_AUTH_USER/PHP_AUTH_PW (application passwords use HTTP Basic auth).
cat >"$STATE/router.php" <<'PHP'
<?php
// Router for `php -S` (written by calshim scripts/wp-up.sh).
$path = rawurldecode( parse_url( $_SERVER['REQUEST_URI'], PHP_URL_PATH ) ?? '/' );
if ( strpos( $path, '..' ) === false ) {
	$content_dir = getenv( 'CALSHIM_WP_CONTENT' ) ?: '/var/lib/wordpress/wp-content';
	if ( strncmp( $path, '/wp-content/', 12 ) === 0 && is_file( $content_dir . substr( $path, 11 ) )
		&& ! preg_match( '/\.php$/i', $path ) ) {
		$file  = $content_dir . substr( $path, 11 );
		$types = [ 'png' => 'image/png', 'jpg' => 'image/jpeg', 'jpeg' => 'image/jpeg', 'gif' => 'image/gif',
			'webp' => 'image/webp', 'svg' => 'image/svg+xml', 'css' => 'text/css', 'js' => 'application/javascript',
			'json' => 'application/json', 'txt' => 'text/plain', 'woff2' => 'font/woff2', 'woff' => 'font/woff',
			'ico' => 'image/x-icon', 'html' => 'text/html' ];
		$ext = strtolower( pathinfo( $file, PATHINFO_EXTENSION ) );
		header( 'Content-Type: ' . ( $types[ $ext ] ?? 'application/octet-stream' ) );
		header( 'Content-Length: ' . filesize( $file ) );
		if ( $_SERVER['REQUEST_METHOD'] !== 'HEAD' ) { readfile( $file ); }
		return true;
	}
	$real = $_SERVER['DOCUMENT_ROOT'] . $path;
	if ( $path !== '/' && ( is_file( $real ) || is_file( rtrim( $real, '/' ) . '/index.php' ) ) ) {
		return false; // an existing file (or a directory with index.php): let the built-in server handle it
	}
}
if ( empty( $_SERVER['PHP_AUTH_USER'] ) ) {
	$auth = $_SERVER['HTTP_AUTHORIZATION'] ?? ( function_exists( 'getallheaders' ) ? ( array_change_key_case( getallheaders() )['authorization'] ?? '' ) : '' );
	if ( $auth !== '' ) {
		$_SERVER['HTTP_AUTHORIZATION'] = $auth;
		if ( stripos( $auth, 'basic ' ) === 0 ) {
			$pair = explode( ':', (string) base64_decode( substr( $auth, 6 ) ), 2 );
			if ( count( $pair ) === 2 ) { [ $_SERVER['PHP_AUTH_USER'], $_SERVER['PHP_AUTH_PW'] ] = $pair; }
		}
	}
}
$_SERVER['SCRIPT_NAME']     = '/index.php';
$_SERVER['PHP_SELF']        = '/index.php';
$_SERVER['SCRIPT_FILENAME'] = $_SERVER['DOCUMENT_ROOT'] . '/index.php';
chdir( $_SERVER['DOCUMENT_ROOT'] );
require $_SERVER['DOCUMENT_ROOT'] . '/index.php';
PHP

# Installer: wp_install() when the site is not installed yet (WP_INSTALLING avoids the "not installed" redirect).
cat >"$STATE/wp-install.php" <<'PHP'
<?php
// Install WordPress if needed (written by calshim scripts/wp-up.sh). Usage: php wp-install.php HOST
$_SERVER['HTTP_HOST']   = $argv[1];
$_SERVER['REQUEST_URI'] = '/';
define( 'WP_INSTALLING', true );
require '/usr/share/wordpress/wp-load.php';
// No "new site" e-mail (pluggable; there is no mailer on the rig).
function wp_new_blog_notification( $blog_title, $blog_url, $user_id, $password ) {}
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
if ( is_blog_installed() ) { echo "installed\n"; exit( 0 ); }
$r = wp_install( 'calshim test site', 'admin', 'admin@example.com', false, '', 'calshim-admin-login' );
echo 'new install, admin id ' . $r['user_id'] . "\n";
PHP

# Setup: options, roles, users and their fixed application passwords; prints KEY=value lines for wp.env.
cat >"$STATE/wp-setup.php" <<'PHP'
<?php
// Configure the installed site for calshim's tests (written by calshim scripts/wp-up.sh). Usage: php wp-setup.php HOST
$_SERVER['HTTP_HOST']   = $argv[1];
$_SERVER['REQUEST_URI'] = '/';
require '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/user.php';

$options = [
	'timezone_string'    => 'America/New_York',
	'gmt_offset'         => '',
	'permalink_structure'=> '/%postname%/',
	'posts_per_page'     => 10,
	'blog_public'        => 0,
	'date_format'        => 'F j, Y',
	'time_format'        => 'g:i a',
	'start_of_week'      => 1,
	'uploads_use_yearmonth_folders' => 1,
];
// The rig runs calshim alone: a regular plugin left active by an earlier run (compare-original.sh activates the
// rebuilt original) changes what WordPress answers and registers, so every run starts without one.
require_once ABSPATH . 'wp-admin/includes/plugin.php';
$active = get_option( 'active_plugins', [] );
if ( $active ) {
	deactivate_plugins( $active, true );
	fwrite( STDERR, 'wp-up: deactivated ' . implode( ', ', $active ) . " (the rig runs calshim alone)\n" );
}
$flush = false;
foreach ( $options as $k => $v ) {
	if ( (string) get_option( $k ) !== (string) $v ) {
		update_option( $k, $v );
		$flush = $flush || $k === 'permalink_structure';
	}
}
// The rewrite rules must contain the plugin's post types (event/, venue/, organizer/, events/category/).
$rules = get_option( 'rewrite_rules' );
if ( $flush || ! is_array( $rules ) || ! preg_grep( '#^event/#', array_keys( $rules ) ) ) {
	flush_rewrite_rules( false );
}

// Users: login => [role, fixed application password]. Application passwords are 24 alphanumeric characters
// (WordPress strips anything else before checking); they are stored hashed, exactly as WordPress does.
$users = [
	'admin'          => [ 'administrator', 'CalshimAdminAppPass0001', 'WP_ADMIN' ],
	'calshim-reader' => [ 'calshim_reader', 'CalshimReaderAppPass001', 'WP_READER' ],
	'subscriber1'    => [ 'subscriber', 'CalshimSubscriberPass01', 'WP_SUBSCRIBER' ],
	'contributor1'   => [ 'contributor', 'CalshimContributorPas01', 'WP_CONTRIBUTOR' ],
	'author1'        => [ 'author', 'CalshimAuthorAppPass001', 'WP_AUTHOR' ],
	'editor1'        => [ 'editor', 'CalshimEditorAppPass001', 'WP_EDITOR' ],
];
if ( ! get_role( 'calshim_reader' ) ) {
	fwrite( STDERR, "role calshim_reader missing: is the calshim must-use plugin installed?\n" );
	exit( 1 );
}
$env = [];
foreach ( $users as $login => [ $role, $app_password, $prefix ] ) {
	$user = get_user_by( 'login', $login );
	if ( ! $user ) {
		$id = wp_insert_user( [
			'user_login' => $login,
			'user_pass'  => 'calshim-' . $login . '-login',
			'user_email' => $login . '@example.com',
			'role'       => $role,
		] );
		if ( is_wp_error( $id ) ) { fwrite( STDERR, "$login: " . $id->get_error_message() . "\n" ); exit( 1 ); }
		$user = get_user_by( 'id', $id );
	}
	if ( $user->roles !== [ $role ] ) { $user->set_role( $role ); }
	// Exactly one application password, named calshim-rig, with the fixed value (kept when still valid).
	$items = get_user_meta( $user->ID, '_application_passwords', true );
	$ok    = is_array( $items ) && count( $items ) === 1 && ( $items[0]['name'] ?? '' ) === 'calshim-rig'
		&& wp_check_password( $app_password, $items[0]['password'], $user->ID );
	if ( ! $ok ) {
		update_user_meta( $user->ID, '_application_passwords', [ [
			'uuid'      => wp_generate_uuid4(),
			'app_id'    => '',
			'name'      => 'calshim-rig',
			'password'  => wp_hash_password( $app_password ),
			'created'   => time(),
			'last_used' => null,
			'last_ip'   => null,
		] ] );
	}
	$env[ $prefix . '_USER' ]         = $login;
	$env[ $prefix . '_USER_ID' ]      = $user->ID;
	$env[ $prefix . '_APP_PASSWORD' ] = $app_password;
}
// WordPress only checks application passwords once one was ever created through its API (it sets this flag).
if ( ! WP_Application_Passwords::is_in_use() ) {
	update_network_option( null, WP_Application_Passwords::OPTION_KEY_IN_USE, true );
}
foreach ( $env as $k => $v ) { echo "$k=$v\n"; }
echo 'WP_VERSION=' . get_bloginfo( 'version' ) . "\n";
PHP
chmod 644 "$STATE"/*.php

# --- 5. install and configure --------------------------------------------------------------------------------
(cd /tmp && asweb php "$STATE/wp-install.php" "$WP_HOST") >>"$STATE/setup.log" 2>&1 \
  || die "wp_install failed (see $STATE/setup.log)"
setup_out=$(cd /tmp && asweb php "$STATE/wp-setup.php" "$WP_HOST" 2>"$STATE/setup.err") \
  || { cat "$STATE/setup.err" >>"$STATE/setup.log"; die "site setup failed (see $STATE/setup.log)"; }
grep '^wp-up: ' "$STATE/setup.err" >&2 || true
cat "$STATE/setup.err" >>"$STATE/setup.log"
get() { printf '%s\n' "$setup_out" | sed -n "s/^$1=//p"; }

env_tmp=$(mktemp)
{
  echo "# calshim WordPress test rig, written by scripts/wp-up.sh — source it: . $STATE/wp.env"
  echo "WP_URL=$WP_URL"
  echo "WP_PORT=$WP_PORT"
  echo "WP_VERSION=$(get WP_VERSION)"
  echo "CALSHIM_STATE=$STATE"
  echo "CALSHIM_UPSTREAM_URL=$WP_URL/wp-json"
  echo "CALSHIM_UPSTREAM_USER=$(get WP_READER_USER)"
  echo "CALSHIM_UPSTREAM_APP_PASSWORD=$(get WP_READER_APP_PASSWORD)"
  printf '%s\n' "$setup_out" | grep -E '^WP_(ADMIN|READER|SUBSCRIBER|CONTRIBUTOR|AUTHOR|EDITOR)_'
} >"$env_tmp"
install -m 644 "$env_tmp" "$STATE/wp.env"  # throw-away local test credentials, readable by test users
rm -f "$env_tmp"

# --- 7. PHP built-in server ----------------------------------------------------------------------------------
server_pid() { local p; p=$(cat "$STATE/php-server.pid" 2>/dev/null) && kill -0 "$p" 2>/dev/null && echo "$p"; }
if pid=$(server_pid) && [ "$(cat "$STATE/php-server.port" 2>/dev/null)" != "$WP_PORT" ]; then
  log "PHP server runs on another port: restarting it on $WP_PORT"
  kill -TERM -- "-$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
fi
if ! pid=$(server_pid); then
  if curl -s -o /dev/null --max-time 2 "http://$WP_HOST:$WP_PORT/"; then
    die "port $WP_PORT is taken by another process"
  fi
  log "starting PHP server on $WP_HOST:$WP_PORT"
  # -q: no access-log line per request (load tests); PHP errors are still logged. WP_ACCESS_LOG=1 keeps them.
  quiet=-q; [ "${WP_ACCESS_LOG:-0}" = 1 ] && quiet=""
  # setsid: the server leads its own process group, which wp-down.sh stops as a whole (master + workers).
  PHP_CLI_SERVER_WORKERS=4 CALSHIM_WP_CONTENT=$WP_CONTENT setsid \
    setpriv --reuid=www-data --regid=www-data --init-groups -- \
    php ${quiet} -d upload_max_filesize=32M -d post_max_size=32M -d memory_limit=256M \
        -S "$WP_HOST:$WP_PORT" -t "$WP_DIR" "$STATE/router.php" \
    >>"$STATE/php-server.log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$STATE/php-server.pid"
  echo "$WP_PORT" >"$STATE/php-server.port"
fi

# --- 8. checks -----------------------------------------------------------------------------------------------
index=""
for _ in $(seq 1 120); do
  index=$(curl -sf --max-time 5 "$WP_URL/wp-json/" 2>/dev/null) && break
  kill -0 "$pid" 2>/dev/null || die "PHP server exited (see $STATE/php-server.log)"
  sleep 0.25
done
[ -n "$index" ] || die "GET $WP_URL/wp-json/ does not answer (see $STATE/php-server.log)"
case $index in *'"calshim":{"version"'*) ;; *) die "the calshim plugin is not visible in $WP_URL/wp-json/" ;; esac
. "$STATE/wp.env"
code=$(curl -s -o /dev/null -w '%{http_code}' -u "$CALSHIM_UPSTREAM_USER:$CALSHIM_UPSTREAM_APP_PASSWORD" \
  "$WP_URL/wp-json/wp/v2/users/me?context=edit")
[ "$code" = 200 ] || die "Basic auth with the reader's application password failed (HTTP $code)"
code=$(curl -s -o /dev/null -w '%{http_code}' -u "$WP_ADMIN_USER:$WP_ADMIN_APP_PASSWORD" "$WP_URL/wp-json/wp/v2/settings")
[ "$code" = 200 ] || die "Basic auth as admin failed (HTTP $code)"

echo "wp-up: WordPress $WP_VERSION at $WP_URL (php pid $pid, MariaDB db $DB_NAME, plugin calshim bridge), credentials in $STATE/wp.env, ready in $(( $(date +%s) - t0 ))s"
