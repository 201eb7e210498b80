<?php
/**
 * Calshim_Admin, one class of the calshim bridge plugin, loaded by ../calshim.php (see its
 * header for what the plugin does and why).
 *
 * @package calshim
 */

defined( 'ABSPATH' ) || exit;

/**
 * Calshim_Admin is what a site's administrator meets: the plugin's activation and uninstall when it is installed
 * as a regular plugin (a must-use plugin is never activated nor uninstalled: there the change log creates its
 * table on first use, as it does in any case when the table is missing, and its clean-up is a WP-CLI command
 * or a button), the note of each calshim's last poll, the Site Health tests, the admin screen (Calshim_Screen)
 * and the WP-CLI commands (Calshim_CLI) when WP-CLI loads WordPress.
 */
final class Calshim_Admin {

	/** Option holding when calshim last read the change feed (unix seconds). */
	const LAST_POLL_OPTION = 'calshim_last_poll';

	/** Option holding each calshim's last feed read: name => [ 'version' => …, 'last' => unix seconds ]. */
	const POLLERS_OPTION = 'calshim_pollers';

	/** Calshims the pollers option keeps (the most recent), and for how long one that stopped stays listed. */
	const POLLERS_MAX  = 20;
	const POLLERS_KEEP = WEEK_IN_SECONDS;

	/** Option set at activation, so that the next admin page shows where the plugin's screen is (once). */
	const NOTICE_OPTION = 'calshim_activation_notice';

	/** Seconds between two notes of a poll: calshim reads the feed every second or so, the note is for people. */
	const POLL_NOTE_EVERY = 60;

	/** Seconds without a poll after which Site Health says calshim may be stopped. */
	const POLL_STALE = 600;

	/** Rows of the change log above which Site Health recommends pruning (filter calshim_health_log_rows_max). */
	const LOG_ROWS_MAX = 1000000;

	/** The post types' capabilities (TEC's names): the only ones uninstall takes back from other roles. */
	const TYPE_CAPS = '/_tribe_(events|venues|organizers)$/';

	public static function boot() {
		if ( ! self::must_use() ) {
			register_activation_hook( CALSHIM_PLUGIN_FILE, [ __CLASS__, 'activate' ] );
		}
		add_filter( 'rest_request_after_callbacks', [ __CLASS__, 'note_poll' ], 10, 3 );
		add_filter( 'site_status_tests', [ __CLASS__, 'health_tests' ] );
		if ( is_admin() ) {
			Calshim_Screen::boot();
		}
		if ( defined( 'WP_CLI' ) && WP_CLI ) {
			Calshim_CLI::register();
		}
	}

	/** Whether the copy of the plugin that runs is the must-use one. */
	public static function must_use() {
		$dir = realpath( WPMU_PLUGIN_DIR );
		return false !== $dir && wp_normalize_path( dirname( CALSHIM_PLUGIN_FILE ) ) === wp_normalize_path( $dir );
	}

	/**
	 * Activation: the change log table (created again when it went missing while the plugin was inactive),
	 * and the uninstall callback (WordPress keeps it in an option).
	 */
	public static function activate() {
		delete_option( Calshim_Changes::SCHEMA_OPTION );
		Calshim_Changes::ensure_table();
		register_uninstall_hook( CALSHIM_PLUGIN_FILE, [ __CLASS__, 'uninstall' ] );
		update_option( self::NOTICE_OPTION, 1, false );
	}

	/**
	 * Uninstall (Plugins > Delete): cleanup(), unless a must-use copy of the plugin runs: that copy still uses
	 * it all (its own clean-up is `wp calshim uninstall` or the button of Tools > calshim).
	 */
	public static function uninstall() {
		if ( ! self::must_use() ) {
			self::cleanup();
		}
	}

	/**
	 * Removes what the plugin put into the site: the application passwords of every user with the
	 * calshim_reader role (so the credential calshim used no longer signs in), the change log table, every
	 * calshim_* option, the calshim_reader role, and the post types' capabilities it granted to other roles
	 * (ensure_roles() keeps the record). Those capabilities stay when The Events Calendar is installed, active
	 * or not: they are its own (the same names), and it granted them too. The users are kept (the reader is
	 * left without a role and without application passwords): they may own content or be referenced, and
	 * deleting a user is the administrator's decision. Answers the logins whose passwords were revoked.
	 */
	public static function cleanup() {
		global $wpdb;
		$revoked = self::revoke_reader_passwords();
		remove_action( 'shutdown', [ 'Calshim_Changes', 'flush' ], 1 ); // would create the table again
		$wpdb->query( 'DROP TABLE IF EXISTS ' . Calshim_Changes::table() ); // phpcs:ignore WordPress.DB.PreparedSQL
		$granted = get_option( Calshim_Bridge::GRANTED_OPTION );
		remove_role( Calshim_Bridge::READER_ROLE );
		if ( is_array( $granted ) && ! self::tec_installed() ) {
			foreach ( $granted as $role_name => $caps ) {
				$role = get_role( $role_name );
				foreach ( $role ? preg_grep( self::TYPE_CAPS, (array) $caps ) : [] as $cap ) {
					$role->remove_cap( $cap );
				}
			}
		}
		foreach ( $wpdb->get_col( "SELECT option_name FROM {$wpdb->options} WHERE option_name LIKE 'calshim\\_%'" ) as $name ) {
			delete_option( $name );
		}
		// The answers of keyed writes (Calshim_Idempotency), kept as transients.
		$wpdb->query( "DELETE FROM {$wpdb->options} WHERE option_name LIKE '\\_transient\\_calshim\\_w\\_%' OR option_name LIKE '\\_transient\\_timeout\\_calshim\\_w\\_%'" ); // phpcs:ignore WordPress.DB.DirectDatabaseQuery
		return $revoked;
	}

	/**
	 * Cleans up a must-use install and deletes its files: the loader, then its folder of classes. When WordPress
	 * may not delete the loader, it is marked retired (it then does nothing, see the top of calshim.php) and its
	 * path is answered: the administrator deletes it. A folder left behind is inert (WordPress loads only the
	 * files at the top of mu-plugins). Answers [ revoked logins, path left or '' ].
	 */
	public static function cleanup_must_use() {
		$revoked = self::cleanup();
		if ( @unlink( CALSHIM_PLUGIN_FILE ) ) { // phpcs:ignore WordPress.PHP.NoSilencedErrors
			$classes = dirname( CALSHIM_PLUGIN_FILE ) . '/calshim';
			foreach ( (array) glob( $classes . '/class-calshim-*.php' ) as $file ) {
				@unlink( $file ); // phpcs:ignore WordPress.PHP.NoSilencedErrors
			}
			@rmdir( $classes ); // phpcs:ignore WordPress.PHP.NoSilencedErrors
			return [ $revoked, '' ];
		}
		update_option( 'calshim_retired', self::file_mark(), true );
		return [ $revoked, CALSHIM_PLUGIN_FILE ];
	}

	/** The running file's identity, "inode:mtime": a copy installed again has another. */
	private static function file_mark() {
		return fileinode( CALSHIM_PLUGIN_FILE ) . ':' . filemtime( CALSHIM_PLUGIN_FILE );
	}

	/** The users with the calshim_reader role: logins => user IDs. */
	public static function readers() {
		$users = get_users( [ 'role' => Calshim_Bridge::READER_ROLE, 'fields' => [ 'ID', 'user_login' ] ] );
		return array_column( array_map( 'get_object_vars', $users ), 'ID', 'user_login' );
	}

	/**
	 * Deletes every application password of the users with the calshim_reader role (of the one login given,
	 * when given): the calshims using them can no longer sign in. Answers login => passwords deleted.
	 */
	public static function revoke_reader_passwords( $login = '' ) {
		$revoked = [];
		foreach ( self::readers() as $name => $id ) {
			if ( '' !== $login && $login !== $name ) {
				continue;
			}
			$revoked[ $name ] = count( (array) WP_Application_Passwords::get_user_application_passwords( $id ) );
			WP_Application_Passwords::delete_all_application_passwords( $id );
		}
		return $revoked;
	}

	/** Whether The Events Calendar is active or installed as a plugin. */
	private static function tec_installed() {
		return Calshim_Bridge::tec_active() || file_exists( WP_PLUGIN_DIR . '/the-events-calendar/the-events-calendar.php' );
	}

	/**
	 * Notes that calshim (its reader, or an administrator) read the change feed: when, and which calshim in
	 * which version (its User-Agent, "calshim/VERSION (HOST)"), each at most once a POLL_NOTE_EVERY.
	 */
	public static function note_poll( $response, $handler, $request ) {
		if ( ! $request instanceof WP_REST_Request || '/calshim/v1/changes' !== $request->get_route() ) {
			return $response;
		}
		$agent   = (string) $request->get_header( 'user_agent' );
		$name    = preg_match( '#^calshim/\S+ \(([A-Za-z0-9._-]{1,64})\)$#', $agent, $m ) ? $m[1] : 'calshim';
		$version = preg_match( '#^calshim/([A-Za-z0-9._+()-]{1,40})#', $agent, $m ) ? $m[1] : 'unknown';
		$pollers = self::pollers();
		$seen    = isset( $pollers[ $name ] ) ? $pollers[ $name ]['last'] : 0;
		$now     = time();
		if ( ( $now - self::last_poll() < self::POLL_NOTE_EVERY && $now - $seen < self::POLL_NOTE_EVERY )
			|| true !== Calshim_Changes::may_read() ) {
			return $response;
		}
		update_option( self::LAST_POLL_OPTION, $now, true );
		$pollers[ $name ] = [ 'version' => $version, 'last' => $now ];
		$pollers          = array_filter( $pollers, static function ( $p ) use ( $now ) {
			return $now - $p['last'] <= self::POLLERS_KEEP;
		} );
		uasort( $pollers, static function ( $a, $b ) {
			return $b['last'] - $a['last'];
		} );
		update_option( self::POLLERS_OPTION, array_slice( $pollers, 0, self::POLLERS_MAX, true ), false );
		return $response;
	}

	/** When calshim last read the change feed (unix seconds; 0: never). */
	public static function last_poll() {
		return (int) get_option( self::LAST_POLL_OPTION, 0 );
	}

	/** Each calshim's last read of the change feed, the most recent first: name => [ 'version', 'last' ]. */
	public static function pollers() {
		$pollers = get_option( self::POLLERS_OPTION, [] );
		return is_array( $pollers ) ? $pollers : [];
	}

	/**
	 * The change log's figures: whether its table exists, its rows and bytes, the oldest sequence it keeps (null
	 * when empty), the head (as the feed reports it) and the floor (the highest pruned sequence).
	 */
	public static function log_status() {
		global $wpdb;
		$table  = Calshim_Changes::table();
		$status = [ 'table' => $table, 'exists' => false, 'rows' => 0, 'bytes' => 0, 'oldest' => null, 'head' => 0,
			'floor' => (int) get_option( Calshim_Changes::FLOOR_OPTION, 0 ) ];
		if ( $table !== $wpdb->get_var( $wpdb->prepare( 'SHOW TABLES LIKE %s', $wpdb->esc_like( $table ) ) ) ) {
			return $status;
		}
		$row              = $wpdb->get_row( "SELECT COUNT(*) n, MIN(seq) oldest, MAX(seq) newest FROM $table" ); // phpcs:ignore WordPress.DB.PreparedSQL
		$status['exists'] = true;
		$status['rows']   = (int) $row->n;
		$status['oldest'] = null === $row->oldest ? null : (int) $row->oldest;
		$status['head']   = max( (int) $row->newest, $status['floor'] );
		$status['bytes']  = (int) $wpdb->get_var( $wpdb->prepare( 'SELECT DATA_LENGTH + INDEX_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = %s', $table ) );
		return $status;
	}

	// ---------------------------------------------------------------------------------------------------------
	// Site Health (Tools > Site Health)
	// ---------------------------------------------------------------------------------------------------------

	/** Adds the three direct tests. */
	public static function health_tests( $tests ) {
		$labels = [
			'feed'      => __( 'calshim change feed', 'calshim' ),
			'log_size'  => __( 'calshim change log size', 'calshim' ),
			'last_poll' => __( 'calshim polls', 'calshim' ),
		];
		foreach ( $labels as $name => $label ) {
			$tests['direct'][ 'calshim_' . $name ] = [ 'label' => $label, 'test' => [ __CLASS__, 'health_' . $name ] ];
		}
		return $tests;
	}

	/** Whether calshim can sync: the plugin's routes are registered and the change log table exists. */
	public static function health_feed() {
		$routes = rest_get_server()->get_routes( 'calshim/v1' );
		if ( ! isset( $routes['/calshim/v1/changes'], $routes['/calshim/v1/bulk'] ) ) {
			return self::health_result( 'feed', 'critical', __( 'calshim\'s change feed is not served', 'calshim' ),
				__( 'The REST routes /calshim/v1/changes and /calshim/v1/bulk are not registered, so calshim can neither load the calendar nor follow its changes. Another plugin may disable the REST API or remove routes.', 'calshim' ) );
		}
		$log = self::log_status();
		if ( ! $log['exists'] ) {
			return self::health_result( 'feed', 'recommended', __( 'calshim\'s change log table does not exist yet', 'calshim' ),
				/* translators: %s: table name */
				sprintf( __( 'The table %s is created when the plugin is activated, at the first change of the calendar or at calshim\'s first poll. If it stays missing, the database user may lack the CREATE privilege, and calshim cannot follow changes.', 'calshim' ), '<code>' . esc_html( $log['table'] ) . '</code>' ) );
		}
		return self::health_result( 'feed', 'good', __( 'calshim\'s change feed is served', 'calshim' ),
			/* translators: %s: table name */
			sprintf( __( 'The change feed and the bulk load calshim syncs through are registered, and the change log table %s exists.', 'calshim' ), '<code>' . esc_html( $log['table'] ) . '</code>' ) );
	}

	/** Whether the change log stays small enough for calshim to catch up quickly. */
	public static function health_log_size() {
		$log   = self::log_status();
		$max   = (int) apply_filters( 'calshim_health_log_rows_max', self::LOG_ROWS_MAX );
		/* translators: %s: number of rows */
		$label = sprintf( __( 'calshim\'s change log holds %s rows', 'calshim' ), number_format_i18n( $log['rows'] ) );
		if ( $log['rows'] > $max ) {
			return self::health_result( 'log_size', 'recommended', $label,
				__( 'The log keeps every change of the calendar for its retention (7 days unless the filter calshim_changes_retention says otherwise) and is pruned at most once an hour. A log this large slows calshim down when it catches up. Shorten the retention, or prune now with <code>wp calshim log prune --days=N</code> (a calshim away for longer than N days then reloads everything).', 'calshim' ) );
		}
		return self::health_result( 'log_size', 'good', $label,
			/* translators: %s: size, e.g. 16 KB */
			sprintf( __( 'The change log takes %s.', 'calshim' ), size_format( $log['bytes'] ) ) );
	}

	/** Whether a calshim read the change feed within POLL_STALE. */
	public static function health_last_poll() {
		$last = self::last_poll();
		/* translators: %s: time span, e.g. 5 mins */
		$when = $last ? sprintf( __( 'calshim last read the change feed %s ago.', 'calshim' ), human_time_diff( $last ) ) : __( 'No calshim has read the change feed of this site yet.', 'calshim' );
		if ( $last && time() - $last <= self::POLL_STALE ) {
			return self::health_result( 'last_poll', 'good', __( 'calshim reads the change feed', 'calshim' ), esc_html( $when ) );
		}
		return self::health_result( 'last_poll', 'recommended', __( 'calshim has not read the change feed recently', 'calshim' ),
			esc_html( $when . ' ' . __( 'A running calshim reads it every second or so: it may be stopped, or unable to reach this site or to sign in as its reader (WordPress ignores application passwords without HTTPS). Until it reads the feed again, the calendar it serves misses the changes made here.', 'calshim' ) ) );
	}

	private static function health_result( $test, $status, $label, $description ) {
		return [
			'label'       => $label,
			'status'      => $status,
			'badge'       => [ 'label' => 'calshim', 'color' => 'blue' ],
			'description' => '<p>' . $description . '</p>',
			'actions'     => '',
			'test'        => 'calshim_' . $test,
		];
	}
}
