<?php
/**
 * Calshim_CLI, one class of the calshim bridge plugin, loaded by ../calshim.php (see its
 * header for what the plugin does and why).
 *
 * @package calshim
 */

defined( 'ABSPATH' ) || exit;

/**
 * Calshim_CLI holds the WP-CLI commands: `wp calshim status`, `wp calshim reader create`, `wp calshim reader revoke`,
 * `wp calshim log prune`, `wp calshim uninstall`.
 */
final class Calshim_CLI {

	/** Name of the application password `wp calshim reader create` gives the reader. */
	const APP_PASSWORD_NAME = 'calshim';

	public static function register() {
		WP_CLI::add_command( 'calshim status', [ __CLASS__, 'status' ] );
		WP_CLI::add_command( 'calshim reader create', [ __CLASS__, 'reader_create' ] );
		WP_CLI::add_command( 'calshim log prune', [ __CLASS__, 'log_prune' ] );
		WP_CLI::add_command( 'calshim reader revoke', [ __CLASS__, 'reader_revoke' ] );
		WP_CLI::add_command( 'calshim uninstall', [ __CLASS__, 'uninstall' ] );
	}

	/**
	 * Deletes the application passwords of calshim's readers (the users with the calshim_reader role), so
	 * the calshims using them can no longer sign in. `wp calshim reader create --rotate` gives one a new one.
	 *
	 * ## OPTIONS
	 *
	 * [--user=<login>]
	 * : Only this reader.
	 *
	 * ## EXAMPLES
	 *
	 *     wp calshim reader revoke
	 */
	public static function reader_revoke( $args, $assoc_args ) {
		$login   = isset( $assoc_args['user'] ) ? (string) $assoc_args['user'] : '';
		$revoked = Calshim_Admin::revoke_reader_passwords( $login );
		if ( ! $revoked ) {
			WP_CLI::error( '' === $login ? 'No user has the calshim_reader role.' : "The user $login does not have the calshim_reader role." );
		}
		WP_CLI::success( 'Deleted the application passwords of ' . self::revoked_list( $revoked ) . '.' );
	}

	/**
	 * Removes what calshim put into the site, as deleting the plugin on the Plugins screen does: the readers'
	 * application passwords, the change log table, the calshim_* options, the calshim_reader role and the
	 * capabilities the plugin granted. The users are kept. For a must-use install (which Plugins > Delete does
	 * not reach) it also deletes the must-use file; when WordPress may not, the file stays inert until you
	 * delete it. A regular plugin is deactivated first.
	 *
	 * ## OPTIONS
	 *
	 * --yes
	 * : Confirm: calshim stops working with this site.
	 *
	 * ## EXAMPLES
	 *
	 *     wp calshim uninstall --yes
	 */
	public static function uninstall( $args, $assoc_args ) {
		if ( empty( $assoc_args['yes'] ) ) {
			WP_CLI::error( 'This removes calshim\'s change log, role and options and revokes its readers\' application passwords: confirm with --yes.' );
		}
		if ( ! Calshim_Admin::must_use() ) {
			require_once ABSPATH . 'wp-admin/includes/plugin.php';
			deactivate_plugins( plugin_basename( CALSHIM_PLUGIN_FILE ), true );
			WP_CLI::line( 'Deactivated the plugin; delete it with `wp plugin delete calshim` or on the Plugins screen.' );
			$revoked = Calshim_Admin::cleanup();
			$left    = '';
		} else {
			list( $revoked, $left ) = Calshim_Admin::cleanup_must_use();
		}
		WP_CLI::success( 'Removed calshim\'s change log, options and role; revoked the application passwords of ' . self::revoked_list( $revoked ) . ' (the users are kept).' );
		if ( '' !== $left ) {
			WP_CLI::warning( "WordPress may not delete $left: delete it yourself. Until then it does nothing." );
		}
	}

	/** "login (N)" for each reader, or "no reader". */
	private static function revoked_list( array $revoked ) {
		if ( ! $revoked ) {
			return 'no reader';
		}
		return implode( ', ', array_map( static function ( $login, $n ) {
			return "$login ($n)";
		}, array_keys( $revoked ), $revoked ) );
	}

	/**
	 * Shows the plugin's version, the change log (rows, size, head and oldest sequence) and calshim's last poll,
	 * then each calshim that polled (by the host name and version of its User-Agent).
	 *
	 * ## EXAMPLES
	 *
	 *     wp calshim status
	 */
	public static function status( $args, $assoc_args ) {
		$log  = Calshim_Admin::log_status();
		$last = Calshim_Admin::last_poll();
		WP_CLI::line( 'plugin version: ' . Calshim_Bridge::VERSION . ( Calshim_Admin::must_use() ? ' (must-use plugin)' : ' (plugin)' ) );
		WP_CLI::line( 'The Events Calendar: ' . ( Calshim_Bridge::tec_active() ? 'active' : 'not active' ) );
		WP_CLI::line( 'log table: ' . $log['table'] . ( $log['exists'] ? sprintf( ', %d rows, %s', $log['rows'], size_format( $log['bytes'] ) ) : ' (not created yet: created at the first change or poll)' ) );
		WP_CLI::line( 'head sequence: ' . $log['head'] );
		WP_CLI::line( 'oldest retained sequence: ' . ( null === $log['oldest'] ? 'none (no rows)' : $log['oldest'] ) . ( $log['floor'] ? ' (pruned up to ' . $log['floor'] . ')' : '' ) );
		WP_CLI::line( 'last calshim poll: ' . ( $last ? gmdate( 'Y-m-d H:i:s', $last ) . ' UTC (' . human_time_diff( $last ) . ' ago)' : 'never' ) );
		foreach ( Calshim_Admin::pollers() as $name => $p ) {
			WP_CLI::line( sprintf( 'calshim %s (version %s): last poll %s UTC', $name, $p['version'], gmdate( 'Y-m-d H:i:s', $p['last'] ) ) );
		}
	}

	/**
	 * Creates calshim's reader: a user with the calshim_reader role (created when missing) and an application
	 * password named "calshim", printed once as the two lines of calshim's configuration.
	 *
	 * ## OPTIONS
	 *
	 * [--user=<login>]
	 * : Login of the reader.
	 * ---
	 * default: calshim-reader
	 * ---
	 *
	 * [--rotate]
	 * : Replace the reader's "calshim" application password (the calshim using it needs the new one).
	 *
	 * ## EXAMPLES
	 *
	 *     wp calshim reader create
	 *     wp calshim reader create --user=calendar-sync --rotate
	 */
	public static function reader_create( $args, $assoc_args ) {
		$login = isset( $assoc_args['user'] ) ? (string) $assoc_args['user'] : 'calshim-reader';
		if ( ! get_role( Calshim_Bridge::READER_ROLE ) ) {
			WP_CLI::error( 'The calshim_reader role does not exist: it was deleted, and the plugin does not create it again. Create it with `wp role create calshim_reader "calshim reader"` and `wp cap add calshim_reader read ' . Calshim_Bridge::READ_ALL_CAP . '`.' );
		}
		$user = get_user_by( 'login', $login );
		$made = ! $user;
		if ( $made ) {
			$id = wp_insert_user( [ 'user_login' => $login, 'user_pass' => wp_generate_password( 32 ), 'display_name' => 'calshim reader', 'role' => Calshim_Bridge::READER_ROLE ] );
			if ( is_wp_error( $id ) ) {
				WP_CLI::error( $id->get_error_message() );
			}
			$user = get_user_by( 'id', $id );
		} elseif ( ! in_array( Calshim_Bridge::READER_ROLE, (array) $user->roles, true ) ) {
			WP_CLI::error( "The user $login exists without the calshim_reader role. If it is calshim's own account, give it the role (wp user set-role $login calshim_reader); otherwise name another user with --user." );
		}
		$existing = array_filter( WP_Application_Passwords::get_user_application_passwords( $user->ID ), static function ( $item ) {
			return self::APP_PASSWORD_NAME === $item['name'];
		} );
		if ( $existing && empty( $assoc_args['rotate'] ) ) {
			WP_CLI::error( "The user $login already has an application password named calshim: pass --rotate to replace it (the calshim using it then needs the new one)." );
		}
		foreach ( $existing as $item ) {
			WP_Application_Passwords::delete_application_password( $user->ID, $item['uuid'] );
		}
		$created = WP_Application_Passwords::create_new_application_password( $user->ID, [ 'name' => self::APP_PASSWORD_NAME ] );
		if ( is_wp_error( $created ) ) {
			WP_CLI::error( $created->get_error_message() );
		}
		// WordPress checks at each request (is_ssl()); from the command line the site's address tells.
		if ( 'https' !== wp_parse_url( home_url(), PHP_URL_SCHEME ) && 'local' !== wp_get_environment_type() ) {
			WP_CLI::warning( 'WordPress accepts application passwords only over HTTPS (or with WP_ENVIRONMENT_TYPE local): serve this site over HTTPS before starting calshim.' );
		}
		WP_CLI::success( ( $made ? "Created the user $login with the calshim_reader role" : "The user $login has the calshim_reader role" )
			. ( $existing ? ', replaced' : ', created' ) . ' its application password "calshim". It is shown once: put these lines into calshim\'s environment.' );
		WP_CLI::line( 'CALSHIM_UPSTREAM_USER=' . $login );
		WP_CLI::line( 'CALSHIM_UPSTREAM_APP_PASSWORD=' . $created[0] );
	}

	/**
	 * Deletes the change log's rows older than the given number of days, now. The plugin prunes by itself at
	 * most once an hour, with the retention of the filter calshim_changes_retention (7 days). A calshim away
	 * for longer than what is kept reloads everything.
	 *
	 * ## OPTIONS
	 *
	 * [--days=<days>]
	 * : Days of changes to keep.
	 * ---
	 * default: 7
	 * ---
	 *
	 * ## EXAMPLES
	 *
	 *     wp calshim log prune --days=2
	 */
	public static function log_prune( $args, $assoc_args ) {
		$days = isset( $assoc_args['days'] ) ? (string) $assoc_args['days'] : (string) ( Calshim_Changes::RETENTION / DAY_IN_SECONDS );
		if ( ! ctype_digit( $days ) || strlen( $days ) > 6 ) {
			WP_CLI::error( '--days takes a whole number of days (0 or more).' );
		}
		$before = Calshim_Admin::log_status();
		if ( ! $before['exists'] ) {
			WP_CLI::success( 'Nothing to prune: the change log table does not exist yet.' );
			return;
		}
		Calshim_Changes::prune( (int) $days * DAY_IN_SECONDS );
		$after = Calshim_Admin::log_status();
		WP_CLI::success( sprintf( 'Pruned %d rows older than %d days; %d rows kept, oldest retained sequence %s.', $before['rows'] - $after['rows'], $days, $after['rows'],
			null === $after['oldest'] ? 'none' : $after['oldest'] ) );
	}
}
