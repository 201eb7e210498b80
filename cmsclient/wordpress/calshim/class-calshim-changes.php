<?php
/**
 * Calshim_Changes, one class of the calshim bridge plugin, loaded by ../calshim.php (see its
 * header for what the plugin does and why).
 *
 * @package calshim
 */

defined( 'ABSPATH' ) || exit;

/**
 * Calshim_Changes is the change log calshim syncs from (h) and the two routes that serve it (i).
 *
 * Every write WordPress makes through its own APIs fires the hooks below, whoever calls them: the admin,
 * wp/v2, TEC's own saves, WP-CLI, the cron publishing a scheduled post (wp_publish_post fires save_post). A
 * request collects what it touched and writes one row per object at its end (the `shutdown` action, also run
 * by WP-CLI and cron), so that calshim never reads an object whose meta or terms are still being saved: a
 * row is only visible once everything the request did is. Writes that bypass WordPress (direct SQL) are not
 * seen unless they call clean_post_cache() / clean_term_cache() for what they changed, as WordPress asks.
 *
 * Table {prefix}calshim_changes: seq (AUTO_INCREMENT, the sequence), kind (post, term, option), object_type
 * (post type, taxonomy or option name), object_id, deleted, changed_ms (unix milliseconds), digest (the
 * object's checksum, Calshim_Verify, when the row was written: "0" when calshim did not hold it then, ""
 * for options and attachments; a feed answer sends it beside the object's current one, so that calshim
 * notices an object changed around the hooks since its row, see content()). It is created on
 * first use; its identity (option calshim_changes_log, a UUID) is created with it, so a reset or restored
 * table is noticed by calshim. Rows older than the retention (7 days; filter calshim_changes_retention, in
 * seconds) are pruned at most once an hour; the highest pruned sequence is the floor (option
 * calshim_changes_floor): a `since` below it answers 410 calshim_changes_expired and calshim reloads.
 */
final class Calshim_Changes {

	/** Version of the sync protocol, published in the REST index (`calshim.sync`). */
	const PROTOCOL = 1;

	const SCHEMA_OPTION = 'calshim_changes_schema';
	const SCHEMA        = '2'; // 2: the digest column
	const LOG_OPTION    = 'calshim_changes_log';
	const FLOOR_OPTION  = 'calshim_changes_floor';
	const PRUNED_OPTION = 'calshim_changes_pruned_at';

	/** Default retention of the log, in seconds (7 days): how long calshim may be away and still catch up. */
	const RETENTION = 604800;

	/**
	 * How long a hole in the sequence may stay open before the feed steps over it, in milliseconds. Two
	 * requests may take sequence numbers in one order and commit in the other; the feed stops before a hole
	 * until it is that old, so the row that fills it is not skipped.
	 */
	const GAP_WAIT_MS = 3000;

	/** Change rows per feed answer; more remain when the answer says `more`. */
	const BATCH = 500;

	/** Objects a request may collect before they are written (long WP-CLI imports). */
	const FLUSH_AT = 1000;

	/** Posts per bulk answer at most. */
	const BULK_MAX = 5000;

	/** Statuses the service credential reads (everything a caller may be shown, trash for 410 answers). */
	const STATUSES = [ 'publish', 'future', 'draft', 'pending', 'private', 'trash' ];

	const TAXONOMIES = [ Calshim_Bridge::CATEGORY, 'post_tag' ];

	/** Options calshim reads (the REST index and what shapes links and dates). */
	const OPTIONS = [ 'timezone_string', 'gmt_offset', 'tribe_events_calendar_options', 'posts_per_page', 'home',
		'siteurl', 'permalink_structure', 'date_format', 'time_format', 'start_of_week', 'blogname' ];

	/** @var array<string,array> Objects this request changed, by "kind:type:id". */
	private static $pending = [];

	/** wp/v2 fields calshim reads of a post (plus the term lists) and of a term; the rest is not computed. */
	const POST_FIELDS = 'id,date,date_gmt,modified,modified_gmt,slug,status,type,link,author,featured_media,calshim';
	const TERM_FIELDS = 'id,count,description,link,name,slug,taxonomy,parent,calshim';

	/** Hooks everything up. */
	public static function boot() {
		foreach ( [ 'save_post', 'clean_post_cache', 'edit_attachment', 'add_attachment' ] as $hook ) {
			add_action( $hook, [ __CLASS__, 'on_post' ], 10, 1 );
		}
		add_action( 'deleted_post', [ __CLASS__, 'on_deleted_post' ], 10, 2 );
		add_action( 'delete_attachment', [ __CLASS__, 'on_delete_attachment' ], 10, 1 );
		foreach ( [ 'added_post_meta', 'updated_post_meta', 'deleted_post_meta' ] as $hook ) {
			add_action( $hook, [ __CLASS__, 'on_meta' ], 10, 2 );
		}
		add_action( 'set_object_terms', [ __CLASS__, 'on_object_terms' ], 10, 6 );
		add_action( 'deleted_term_relationships', [ __CLASS__, 'on_removed_terms' ], 10, 3 );
		add_action( 'created_term', [ __CLASS__, 'on_term' ], 10, 3 );
		add_action( 'edited_term', [ __CLASS__, 'on_term' ], 10, 3 );
		add_action( 'edited_term_taxonomy', [ __CLASS__, 'on_term_taxonomy' ], 10, 2 );
		add_action( 'delete_term', [ __CLASS__, 'on_deleted_term' ], 10, 5 );
		add_action( 'clean_term_cache', [ __CLASS__, 'on_clean_terms' ], 10, 2 );
		add_action( 'added_option', [ __CLASS__, 'on_option' ], 10, 1 );
		add_action( 'updated_option', [ __CLASS__, 'on_option' ], 10, 1 );
		add_action( 'deleted_option', [ __CLASS__, 'on_option' ], 10, 1 );
		add_action( 'shutdown', [ __CLASS__, 'flush' ], 1 );
		add_action( 'rest_api_init', [ __CLASS__, 'register_routes' ] );
	}

	// ---------------------------------------------------------------------------------------------------------
	// Recording
	// ---------------------------------------------------------------------------------------------------------

	/** Post types whose changes are logged: the three, and attachments (featured images). */
	private static function tracked_type( $type ) {
		return isset( Calshim_Bridge::META[ $type ] ) || 'attachment' === $type;
	}

	public static function on_post( $post_id ) {
		self::touch_post( (int) $post_id, get_post_type( $post_id ), false );
	}

	public static function on_deleted_post( $post_id, $post = null ) {
		$type = $post instanceof WP_Post ? $post->post_type : get_post_type( $post_id );
		self::touch_post( (int) $post_id, $type, true );
	}

	/**
	 * Deleting an attachment removes the _thumbnail_id rows that point to it in one statement, which
	 * names no post: the posts that showed it are recorded here, before it goes.
	 */
	public static function on_delete_attachment( $attachment_id ) {
		global $wpdb;
		$ids = $wpdb->get_col( $wpdb->prepare( "SELECT post_id FROM {$wpdb->postmeta} WHERE meta_key = '_thumbnail_id' AND meta_value = %s", (string) (int) $attachment_id ) );
		foreach ( $ids as $id ) {
			self::touch_post( (int) $id, get_post_type( $id ), false );
		}
	}

	public static function on_meta( $meta_ids, $object_id ) {
		self::touch_post( (int) $object_id, get_post_type( $object_id ), false );
	}

	public static function on_object_terms( $object_id, $terms, $tt_ids, $taxonomy, $append = false, $old_tt_ids = [] ) {
		self::touch_post( (int) $object_id, get_post_type( $object_id ), false );
		// The terms' counts change with their posts.
		foreach ( array_unique( array_merge( (array) $tt_ids, (array) $old_tt_ids ) ) as $tt_id ) {
			self::on_term_taxonomy( $tt_id, $taxonomy );
		}
	}

	public static function on_removed_terms( $object_id, $tt_ids, $taxonomy ) {
		self::on_object_terms( $object_id, [], (array) $tt_ids, $taxonomy );
	}

	public static function on_term( $term_id, $tt_id, $taxonomy ) {
		self::touch_term( (int) $term_id, $taxonomy, false );
	}

	public static function on_term_taxonomy( $tt_id, $taxonomy ) {
		$taxonomy = is_object( $taxonomy ) && isset( $taxonomy->name ) ? $taxonomy->name : (string) $taxonomy;
		if ( ! in_array( $taxonomy, self::TAXONOMIES, true ) ) {
			return;
		}
		$term = get_term_by( 'term_taxonomy_id', (int) $tt_id, $taxonomy );
		if ( $term instanceof WP_Term ) {
			self::touch_term( (int) $term->term_id, $taxonomy, false );
		}
	}

	public static function on_deleted_term( $term_id, $tt_id, $taxonomy, $deleted_term = null, $object_ids = [] ) {
		self::touch_term( (int) $term_id, $taxonomy, true );
		foreach ( (array) $object_ids as $object_id ) {
			self::touch_post( (int) $object_id, get_post_type( $object_id ), false );
		}
	}

	public static function on_clean_terms( $ids, $taxonomy ) {
		if ( ! in_array( $taxonomy, self::TAXONOMIES, true ) ) {
			return;
		}
		foreach ( (array) $ids as $id ) {
			if ( term_exists( (int) $id, $taxonomy ) ) {
				self::touch_term( (int) $id, $taxonomy, false );
			}
		}
	}

	public static function on_option( $name ) {
		if ( in_array( $name, self::OPTIONS, true ) ) {
			self::touch( 'option', $name, 0, false );
		}
	}

	private static function touch_post( $id, $type, $deleted ) {
		if ( $id > 0 && is_string( $type ) && self::tracked_type( $type ) ) {
			self::touch( 'post', $type, $id, $deleted );
		}
	}

	private static function touch_term( $id, $taxonomy, $deleted ) {
		if ( $id > 0 && in_array( $taxonomy, self::TAXONOMIES, true ) ) {
			self::touch( 'term', $taxonomy, $id, $deleted );
		}
	}

	/**
	 * Collects one changed object; the last change wins (an importer may delete an object and create it
	 * again under the same ID).
	 */
	private static function touch( $kind, $type, $id, $deleted ) {
		$key = $kind . ':' . $type . ':' . $id;
		unset( self::$pending[ $key ] ); // re-added last, so rows keep the order of the changes
		self::$pending[ $key ] = [ $kind, $type, $id, $deleted ];
		if ( count( self::$pending ) >= self::FLUSH_AT ) {
			self::flush();
		}
	}

	/** Writes the collected changes, one row each, in one statement. */
	public static function flush() {
		if ( ! self::$pending ) {
			return;
		}
		$rows           = self::$pending;
		self::$pending  = [];
		$written        = self::insert( $rows );
		if ( ! $written ) {
			// The table may be gone (a restored database): create it, with a new identity, and retry once.
			self::create_table();
			$written = self::insert( $rows );
		}
		self::maybe_prune();
		if ( $written ) {
			self::notify();
		}
	}

	/** Seconds between two notices of one request before its end (a long WP-CLI import flushes often). */
	const NOTIFY_GAP = 1;

	/**
	 * Push notice: tells the calshims configured (see notice_targets()) that the log grew, so that they poll
	 * at once instead of at their next poll. The secret they share goes as a bearer token. One POST per URL,
	 * non-blocking with a short timeout (WordPress' curl transport still waits up to a second for an address
	 * that does not answer), once at the end of the request and at most once a NOTIFY_GAP before it. Polling
	 * stays the guarantee: a lost notice delays a change until the next poll, nothing more.
	 */
	private static function notify() {
		static $sent = 0.0;
		$targets = self::notice_targets();
		if ( ! $targets || ( ! doing_action( 'shutdown' ) && microtime( true ) - $sent < self::NOTIFY_GAP ) ) {
			return;
		}
		$sent = microtime( true );
		foreach ( $targets as $url => $secret ) {
			wp_remote_post( $url, [
				'blocking' => false,
				'timeout'  => 0.5,
				'headers'  => [ 'Authorization' => 'Bearer ' . $secret ],
			] );
		}
	}

	/**
	 * The calshims to notify, URL => secret. URLs come from wp-config.php only, directly or as an allow-list,
	 * so that whoever can write an option (an administrator, a plugin's settings page, an injected query)
	 * can neither send notices anywhere nor learn a secret kept in wp-config.php:
	 *
	 *   - the constant CALSHIM_NOTIFY_URLS when defined, with the secret of the constant CALSHIM_NOTIFY_SECRET,
	 *     else of the option calshim_notify_secret;
	 *   - else the URLs of the option calshim_notify_urls whose origin (scheme://host:port) the constant
	 *     CALSHIM_NOTIFY_ALLOWED_ORIGINS lists, with the secret of the option calshim_notify_secret only: a
	 *     secret held in a constant never goes to a URL held in an option.
	 *
	 * Lists are arrays or strings separated by spaces, commas or new lines. Without a secret nobody is told.
	 */
	private static function notice_targets() {
		$option_secret = (string) get_option( 'calshim_notify_secret', '' );
		if ( defined( 'CALSHIM_NOTIFY_URLS' ) ) {
			$urls   = self::url_list( CALSHIM_NOTIFY_URLS );
			$secret = defined( 'CALSHIM_NOTIFY_SECRET' ) ? (string) CALSHIM_NOTIFY_SECRET : $option_secret;
		} else {
			$allowed = defined( 'CALSHIM_NOTIFY_ALLOWED_ORIGINS' ) ? array_map( [ __CLASS__, 'origin' ], self::url_list( CALSHIM_NOTIFY_ALLOWED_ORIGINS ) ) : [];
			$urls    = array_filter( self::url_list( get_option( 'calshim_notify_urls', '' ) ), static function ( $url ) use ( $allowed ) {
				$origin = self::origin( $url );
				return '' !== $origin && in_array( $origin, $allowed, true );
			} );
			$secret  = $option_secret;
		}
		return '' === $secret ? [] : array_fill_keys( $urls, $secret );
	}

	/** A list setting as an array of strings. */
	private static function url_list( $value ) {
		return is_array( $value ) ? array_map( 'strval', array_values( $value ) ) : preg_split( '/[\s,]+/', (string) $value, -1, PREG_SPLIT_NO_EMPTY );
	}

	/** "scheme://host:port" of a URL, lower case, with the scheme's default port made explicit ("" if none). */
	private static function origin( $url ) {
		$parts = wp_parse_url( $url );
		if ( ! is_array( $parts ) || empty( $parts['scheme'] ) || empty( $parts['host'] ) ) {
			return '';
		}
		$scheme = strtolower( $parts['scheme'] );
		$port   = isset( $parts['port'] ) ? (int) $parts['port'] : ( 'https' === $scheme ? 443 : 80 );
		return $scheme . '://' . strtolower( $parts['host'] ) . ':' . $port;
	}

	private static function insert( array $rows ) {
		global $wpdb;
		if ( get_option( self::SCHEMA_OPTION ) !== self::SCHEMA ) {
			self::create_table();
		}
		$now     = self::now_ms();
		$digests = self::row_digests( $rows );
		$values  = [];
		foreach ( $rows as list( $kind, $type, $id, $deleted ) ) {
			$digest   = '';
			if ( 'term' === $kind || 'post' === $kind && isset( Calshim_Bridge::META[ $type ] ) ) {
				$digest = isset( $digests[ $kind ][ $id ] ) ? $digests[ $kind ][ $id ] : '0';
			}
			$values[] = $wpdb->prepare( '(%s, %s, %d, %d, %d, %s)', $kind, $type, $id, $deleted ? 1 : 0, $now, $digest );
		}
		$table = self::table();
		$sql   = "INSERT INTO $table (kind, object_type, object_id, deleted, changed_ms, digest) VALUES " . implode( ',', $values );
		$suppress = $wpdb->suppress_errors( true );
		$ok       = false !== $wpdb->query( $sql ); // phpcs:ignore WordPress.DB.PreparedSQL
		$wpdb->suppress_errors( $suppress );
		return $ok;
	}

	/**
	 * The checksums of the posts of the three types and of the terms among $rows as they are now, at the end
	 * of the request that changed them (or at a touch), by kind: one query each (Calshim_Verify::digests).
	 */
	private static function row_digests( array $rows ) {
		$ids = [ 'post' => [], 'term' => [] ];
		foreach ( $rows as list( $kind, $type, $id ) ) {
			if ( 'term' === $kind || 'post' === $kind && isset( Calshim_Bridge::META[ $type ] ) ) {
				$ids[ $kind ][] = (int) $id;
			}
		}
		$out = [];
		foreach ( [ 'post' => 'posts', 'term' => 'terms' ] as $kind => $sums ) {
			if ( $ids[ $kind ] ) {
				$out[ $kind ] = (array) Calshim_Verify::digests( $sums, $ids[ $kind ] );
			}
		}
		return $out;
	}

	public static function table() {
		global $wpdb;
		return $wpdb->prefix . 'calshim_changes';
	}

	private static function now_ms() {
		return (int) floor( microtime( true ) * 1000 );
	}

	/** Creates the table when absent; a new table is a new log, with a new identity and floor 0. */
	private static function create_table() {
		global $wpdb;
		$table  = self::table();
		$exists = $table === $wpdb->get_var( $wpdb->prepare( 'SHOW TABLES LIKE %s', $table ) );
		if ( ! $exists ) {
			$charset = $wpdb->get_charset_collate();
			$wpdb->query( "CREATE TABLE IF NOT EXISTS $table ( seq BIGINT UNSIGNED NOT NULL AUTO_INCREMENT, kind VARCHAR(8) NOT NULL, object_type VARCHAR(64) NOT NULL, object_id BIGINT UNSIGNED NOT NULL, deleted TINYINT(1) NOT NULL DEFAULT 0, changed_ms BIGINT UNSIGNED NOT NULL, digest VARCHAR(16) NOT NULL DEFAULT '', PRIMARY KEY (seq), KEY changed_ms (changed_ms) ) $charset" ); // phpcs:ignore WordPress.DB.PreparedSQL
		} elseif ( ! $wpdb->get_var( $wpdb->prepare( "SHOW COLUMNS FROM $table LIKE %s", 'digest' ) ) ) { // phpcs:ignore WordPress.DB.PreparedSQL
			// A table of schema 1: its rows keep no digest (""), which calshim does not compare.
			$wpdb->query( "ALTER TABLE $table ADD COLUMN digest VARCHAR(16) NOT NULL DEFAULT ''" ); // phpcs:ignore WordPress.DB.PreparedSQL
		}
		if ( ! $exists || ! get_option( self::LOG_OPTION ) ) {
			self::new_identity();
		}
		update_option( self::SCHEMA_OPTION, self::SCHEMA, true );
	}

	private static function new_identity() {
		update_option( self::LOG_OPTION, wp_generate_uuid4(), true );
		update_option( self::FLOOR_OPTION, 0, true );
	}

	/** Prunes rows past the retention, at most once an hour. */
	private static function maybe_prune() {
		if ( (int) get_option( self::PRUNED_OPTION, 0 ) > time() - HOUR_IN_SECONDS ) {
			return;
		}
		update_option( self::PRUNED_OPTION, time(), true );
		self::prune( (int) apply_filters( 'calshim_changes_retention', self::RETENTION ) );
	}

	/** Deletes the rows older than $keep seconds and raises the floor to the highest deleted sequence. */
	public static function prune( $keep ) {
		global $wpdb;
		$table  = self::table();
		$cutoff = self::now_ms() - max( 0, (int) $keep ) * 1000;
		$max    = (int) $wpdb->get_var( $wpdb->prepare( "SELECT MAX(seq) FROM $table WHERE changed_ms <= %d", $cutoff ) ); // phpcs:ignore WordPress.DB.PreparedSQL
		if ( $max <= (int) get_option( self::FLOOR_OPTION, 0 ) ) {
			return;
		}
		$wpdb->query( $wpdb->prepare( "DELETE FROM $table WHERE seq <= %d", $max ) ); // phpcs:ignore WordPress.DB.PreparedSQL
		update_option( self::FLOOR_OPTION, $max, true );
	}

	// ---------------------------------------------------------------------------------------------------------
	// Routes
	// ---------------------------------------------------------------------------------------------------------

	public static function register_routes() {
		$read = [ __CLASS__, 'may_read' ];
		register_rest_route( 'calshim/v1', '/changes', [
			'methods'             => 'GET',
			'callback'            => [ __CLASS__, 'feed' ],
			'permission_callback' => $read,
			'args'                => [
				'since' => [ 'type' => 'integer', 'minimum' => 0 ],
				'ids'   => [ 'type' => 'string', 'enum' => [ 'true', 'false', '1', '0', 'count' ] ],
			],
		] );
		register_rest_route( 'calshim/v1', '/changes/rows', [
			'methods'             => 'GET',
			'callback'            => [ __CLASS__, 'rows_route' ],
			'permission_callback' => $read,
			'args'                => [
				'since' => [ 'type' => 'integer', 'minimum' => 0, 'required' => true ],
				'until' => [ 'type' => 'integer', 'minimum' => 0, 'required' => true ],
			],
		] );
		register_rest_route( 'calshim/v1', '/changes/touch', [
			'methods'             => 'POST',
			'callback'            => [ __CLASS__, 'touch_route' ],
			'permission_callback' => $read,
			'args'                => [
				'since'   => [ 'type' => 'integer', 'minimum' => 0, 'required' => true ],
				'posts'   => [ 'type' => 'object', 'default' => [] ],
				'terms'   => [ 'type' => 'object', 'default' => [] ],
				'options' => [ 'type' => 'array', 'items' => [ 'type' => 'string' ], 'default' => [] ],
			],
		] );
		register_rest_route( 'calshim/v1', '/changes/prune', [
			'methods'             => 'POST',
			'callback'            => [ __CLASS__, 'prune_route' ],
			'permission_callback' => static function () {
				return current_user_can( 'manage_options' );
			},
			'args'                => [ 'keep' => [ 'type' => 'integer', 'minimum' => 0, 'required' => true ] ],
		] );
		register_rest_route( 'calshim/v1', '/changes/reset', [
			'methods'             => 'POST',
			'callback'            => [ __CLASS__, 'reset_route' ],
			'permission_callback' => static function () {
				return current_user_can( 'manage_options' );
			},
		] );
		register_rest_route( 'calshim/v1', '/bulk', [
			'methods'             => 'GET',
			'callback'            => [ __CLASS__, 'bulk' ],
			'permission_callback' => $read,
			'args'                => [
				'type' => [ 'type' => 'string', 'enum' => array_keys( Calshim_Bridge::META ), 'required' => true ],
				'from' => [ 'type' => 'integer', 'minimum' => 0 ],
				'to'   => [ 'type' => 'integer', 'minimum' => 0 ],
			],
		] );
		register_rest_route( 'calshim/v1', '/media', [
			'methods'             => 'GET',
			'callback'            => [ __CLASS__, 'media_route' ],
			'permission_callback' => $read,
			'args'                => [
				'include' => [ 'type' => 'array', 'items' => [ 'type' => 'integer' ], 'maxItems' => 100, 'required' => true ],
			],
		] );
		register_rest_route( 'calshim/v1', '/posts/(?P<id>\d+)', [
			'methods'             => 'GET',
			'callback'            => [ __CLASS__, 'post_type_route' ],
			'permission_callback' => $read,
		] );
	}

	/**
	 * GET /calshim/v1/posts/ID: the type of the post with that ID, of any type and status (get_post), or
	 * 404. The original answers 400 for an ID of another post and 404 for no post at all; the catalog
	 * holds only the calendar's posts, so calshim asks here once for an ID it does not know.
	 */
	public static function post_type_route( WP_REST_Request $request ) {
		$post = get_post( (int) $request['id'] );
		if ( ! $post ) {
			return new WP_Error( 'calshim_no_post', 'No post has this ID.', [ 'status' => 404 ] );
		}
		return [ 'id' => $post->ID, 'type' => $post->post_type ];
	}

	/** Only calshim's service account (calshim_reader) and administrators read the log and the bulk load. */
	public static function may_read() {
		if ( current_user_can( Calshim_Bridge::READ_ALL_CAP ) || current_user_can( 'manage_options' ) ) {
			return true;
		}
		return new WP_Error( 'rest_forbidden', 'Sorry, you are not allowed to do that.', [ 'status' => rest_authorization_required_code() ] );
	}

	/**
	 * Objects one touch may name at most: calshim names at most 5,000 posts and as many terms (it reads a
	 * larger difference in bulk itself) and the options it reads.
	 */
	const TOUCH_MAX = 10100;

	/**
	 * POST /calshim/v1/changes/touch {since, posts: {type: [ID...]}, terms: {taxonomy: [ID...]}, options: [name...]}:
	 * writes a row for each object named that has none after since, so that a change written around
	 * WordPress' hooks (direct SQL), which calshim's checksum comparison found, enters the log like any other
	 * change: every calshim then reads it through the feed at that row's sequence, and a sync token means the
	 * same state on every replica. Objects with a row after since (a change the caller has not polled yet, or
	 * another calshim's touch) are left as they are; a lock makes two calshims that found the same difference
	 * write one row. A post or term no longer there (or of another type now) gets a deleted row. Answers the
	 * log's head and how many rows were written. Rows only make calshim read again: the reader may ask.
	 */
	public static function touch_route( WP_REST_Request $request ) {
		global $wpdb;
		self::ensure_table();
		// Counted before any lookup, so that a long list costs its refusal only.
		$named = count( (array) $request->get_param( 'options' ) );
		foreach ( [ 'posts', 'terms' ] as $key ) {
			foreach ( (array) $request->get_param( $key ) as $ids ) {
				$named += count( (array) $ids );
			}
		}
		if ( $named > self::TOUCH_MAX ) {
			return new WP_Error( 'calshim_touch_too_many', 'Too many objects to touch at once.', [ 'status' => 400 ] );
		}
		$since  = (int) $request->get_param( 'since' );
		$wanted = [];
		foreach ( (array) $request->get_param( 'posts' ) as $type => $ids ) {
			foreach ( isset( Calshim_Bridge::META[ $type ] ) ? (array) $ids : [] as $id ) {
				$post                               = get_post( (int) $id );
				$wanted[ 'post:' . (int) $id ][]    = [ 'post', (string) $type, (int) $id, ! $post || $post->post_type !== $type ];
			}
		}
		foreach ( (array) $request->get_param( 'terms' ) as $taxonomy => $ids ) {
			foreach ( in_array( $taxonomy, self::TAXONOMIES, true ) ? (array) $ids : [] as $id ) {
				$wanted[ 'term:' . (int) $id ][] = [ 'term', (string) $taxonomy, (int) $id, ! term_exists( (int) $id, $taxonomy ) ];
			}
		}
		foreach ( (array) $request->get_param( 'options' ) as $name ) {
			if ( in_array( $name, self::OPTIONS, true ) ) {
				$wanted[ 'option:' . $name ][] = [ 'option', $name, 0, false ];
			}
		}
		$table = self::table();
		$wpdb->get_var( "SELECT GET_LOCK('calshim_changes_touch', 10)" );
		$ids    = array_merge( [ 0 ], ...array_map( static function ( $rows ) {
			return array_column( $rows, 2 );
		}, array_values( $wanted ) ) );
		$logged = $wpdb->get_results( $wpdb->prepare( "SELECT DISTINCT kind, object_id, object_type FROM $table WHERE seq > %d AND ", $since ) . self::id_in( 'object_id', $ids ) ); // phpcs:ignore WordPress.DB.PreparedSQL
		foreach ( $logged as $row ) {
			unset( $wanted[ $row->kind . ':' . ( 'option' === $row->kind ? $row->object_type : (int) $row->object_id ) ] );
		}
		$rows = $wanted ? array_merge( ...array_values( $wanted ) ) : [];
		$done = $rows && self::insert( $rows );
		$wpdb->get_var( "SELECT RELEASE_LOCK('calshim_changes_touch')" );
		if ( $done ) {
			self::notify();
		}
		return array_merge( self::head_answer(), [ 'touched' => $done ? count( $rows ) : 0 ] );
	}

	/** POST /calshim/v1/changes/prune?keep=SECONDS: prunes now (operators; tests of an expired `since`). */
	public static function prune_route( WP_REST_Request $request ) {
		self::ensure_table();
		self::prune( (int) $request->get_param( 'keep' ) );
		return self::head_answer();
	}

	/**
	 * POST /calshim/v1/changes/reset: starts a new log (new identity, empty table), e.g. after restoring a
	 * database backup: every calshim then reloads everything.
	 */
	public static function reset_route() {
		global $wpdb;
		self::ensure_table();
		$wpdb->query( 'TRUNCATE TABLE ' . self::table() ); // phpcs:ignore WordPress.DB.PreparedSQL
		self::new_identity();
		return self::head_answer();
	}

	public static function ensure_table() {
		if ( get_option( self::SCHEMA_OPTION ) !== self::SCHEMA ) {
			self::create_table();
		}
	}

	/** The log's identity and position: what every feed answer starts with. */
	private static function head_answer() {
		global $wpdb;
		$table = self::table();
		$floor = (int) get_option( self::FLOOR_OPTION, 0 );
		$max   = $wpdb->get_var( "SELECT MAX(seq) FROM $table" ); // phpcs:ignore WordPress.DB.PreparedSQL
		if ( null !== $max && (int) $max < $floor ) {
			// Sequences restarted below the floor (an emptied table): a new log.
			self::new_identity();
			$floor = 0;
		}
		$head = max( (int) $max, $floor );
		return [
			'log'    => (string) get_option( self::LOG_OPTION ),
			'site'   => home_url(),
			'head'   => $head,
			'seq'    => $head,
			'floor'  => $floor,
			'now_ms' => self::now_ms(),
			'touch'  => true, // the plugin has the touch route (calshim logs what its checksums find)
		];
	}

	/**
	 * GET /calshim/v1/changes?since=SEQ. Without since: the log's identity and head only. With since: the
	 * changes after it (at most BATCH rows, `more` when others follow), with the changed posts, terms and
	 * featured images in full as wp/v2 renders them (calshim reads them like its wp/v2 lists), the IDs changed
	 * per type (an ID changed but absent from the items is gone for the caller: deleted, or out of the
	 * statuses or language it reads), the deleted IDs, the options changed, the rows of posts (`rows`: seq, id,
	 * type, deleted; what calshim answers its clients' sync tokens from), and `seq` to continue from. A
	 * since past the head (a reset or restored log) or below the floor (pruned) answers 410: reload.
	 * Query parameters other than since (e.g. a multilingual site's lang) are passed on to the wp/v2 reads.
	 */
	public static function feed( WP_REST_Request $request ) {
		self::ensure_table();
		$answer = self::head_answer();
		$since  = $request->get_param( 'since' );
		if ( null === $since ) {
			return $answer;
		}
		$since = (int) $since;
		if ( $since > $answer['head'] ) {
			return self::gone( 'calshim_changes_unknown', 'The sequence is past the head of this change log (a reset or restored site): reload everything.', $answer );
		}
		if ( $since < $answer['floor'] ) {
			return self::gone( 'calshim_changes_expired', 'The sequence is older than the retention of the change log: reload everything.', $answer );
		}
		$rows = self::rows( $since, $answer['now_ms'], $more );
		$answer['seq']       = $rows ? (int) end( $rows )->seq : $since;
		$answer['more']      = $more;
		$answer['newest_ms'] = $rows ? (int) end( $rows )->changed_ms : 0;
		$answer['rows']      = self::post_rows( $rows );
		$answer              = array_merge( $answer, self::content( $rows, self::forwarded( $request ) ) );
		$ids = $request->get_param( 'ids' );
		if ( 'count' === $ids ) {
			$answer['counts'] = self::id_counts();
		} elseif ( $ids && 'false' !== $ids && '0' !== $ids ) {
			$answer['ids'] = self::all_ids();
		}
		return $answer;
	}

	/** Rows of the rows route per answer at most. */
	const ROWS_MAX = 5000;

	/**
	 * GET /calshim/v1/changes/rows?since=SEQ&until=SEQ: the log's post rows after since up to until, in
	 * sequence order, as (seq, id, type, deleted) only, at most ROWS_MAX (`more` when others follow). calshim
	 * answers a client's sync token older than what it followed itself with them (which posts changed since
	 * the token's sequence); until is a sequence its catalog already passed, so no hole is still open below
	 * it. A since below the floor (pruned) or past the head answers 410, as the feed does.
	 */
	public static function rows_route( WP_REST_Request $request ) {
		global $wpdb;
		self::ensure_table();
		$answer = self::head_answer();
		$since  = (int) $request->get_param( 'since' );
		$until  = min( (int) $request->get_param( 'until' ), $answer['head'] );
		if ( $since > $answer['head'] ) {
			return self::gone( 'calshim_changes_unknown', 'The sequence is past the head of this change log (a reset or restored site).', $answer );
		}
		if ( $since < $answer['floor'] ) {
			return self::gone( 'calshim_changes_expired', 'The sequence is older than the retention of the change log.', $answer );
		}
		$table = self::table();
		$rows  = $wpdb->get_results( $wpdb->prepare( "SELECT seq, kind, object_type, object_id, deleted FROM $table WHERE seq > %d AND seq <= %d ORDER BY seq LIMIT %d", $since, $until, self::ROWS_MAX + 1 ) ); // phpcs:ignore WordPress.DB.PreparedSQL
		$more  = count( $rows ) > self::ROWS_MAX;
		$rows  = array_slice( $rows, 0, self::ROWS_MAX );
		$answer['seq']  = $rows && $more ? (int) end( $rows )->seq : $until;
		$answer['more'] = $more;
		$answer['rows'] = self::post_rows( $rows );
		return $answer;
	}

	/**
	 * The rows of posts of the three types, as (seq, id, type, deleted), and of the calendar's terms, with
	 * term true and the taxonomy as type: an event embeds its terms (their names and counts), so calshim
	 * re-sends the events of a term that changed after a token, wherever its catalog read the term's new state.
	 */
	private static function post_rows( array $rows ) {
		$out = [];
		foreach ( $rows as $row ) {
			$term = 'term' === $row->kind && in_array( $row->object_type, self::TAXONOMIES, true );
			if ( $term || 'post' === $row->kind && isset( Calshim_Bridge::META[ $row->object_type ] ) ) {
				$out[] = [ 'seq' => (int) $row->seq, 'id' => (int) $row->object_id, 'type' => $row->object_type, 'deleted' => ! empty( $row->deleted ), 'term' => $term ];
			}
		}
		return $out;
	}

	private static function gone( $code, $message, array $head ) {
		return new WP_Error( $code, $message, [ 'status' => 410, 'log' => $head['log'], 'head' => $head['head'], 'floor' => $head['floor'] ] );
	}

	/** Rows after $since in sequence order, stopping before a recent hole (see GAP_WAIT_MS). */
	private static function rows( $since, $now_ms, &$more ) {
		global $wpdb;
		$table = self::table();
		$rows  = $wpdb->get_results( $wpdb->prepare( "SELECT seq, kind, object_type, object_id, deleted, changed_ms, digest FROM $table WHERE seq > %d ORDER BY seq LIMIT %d", $since, self::BATCH + 1 ) ); // phpcs:ignore WordPress.DB.PreparedSQL
		$more  = count( $rows ) > self::BATCH;
		$out   = [];
		$next  = $since + 1;
		foreach ( array_slice( $rows, 0, self::BATCH ) as $row ) {
			if ( (int) $row->seq !== $next && (int) $row->changed_ms > $now_ms - self::GAP_WAIT_MS ) {
				$more = false;
				break;
			}
			$out[] = $row;
			$next  = (int) $row->seq + 1;
		}
		return $out;
	}

	/** The request's query parameters that are not the feed's own, for the wp/v2 reads (e.g. lang). */
	private static function forwarded( WP_REST_Request $request ) {
		return array_diff_key( $request->get_query_params(), array_flip( [ 'since', 'ids', 'type', 'from', 'to', '_method' ] ) );
	}

	/**
	 * The IDs of every post of the three types in the statuses calshim holds, by type: with `ids`, a feed
	 * answer carries them so calshim can notice what was written around WordPress' APIs (direct SQL
	 * imports and deletions fire no hook), now and then.
	 */
	private static function all_ids() {
		global $wpdb;
		$statuses = "'" . implode( "','", self::STATUSES ) . "'";
		$out      = [];
		// One query per type, read row by row (bulk_ids): wpdb's rows of a million posts exhaust PHP's memory.
		foreach ( array_keys( Calshim_Bridge::META ) as $type ) {
			$out[ $type ] = self::bulk_ids( $wpdb->prepare( "SELECT ID FROM {$wpdb->posts} WHERE post_type = %s AND post_status IN ($statuses) ORDER BY ID", $type ) ); // phpcs:ignore WordPress.DB.PreparedSQL
		}
		return $out;
	}

	/**
	 * Per post type, how many posts calshim holds and the sum of their IDs: with `ids=count`, a cheap
	 * check that calshim's catalog has the same posts (a direct SQL import or deletion changes it), before
	 * asking for the full lists.
	 */
	private static function id_counts() {
		global $wpdb;
		$types    = "'" . implode( "','", array_map( 'esc_sql', array_keys( Calshim_Bridge::META ) ) ) . "'";
		$statuses = "'" . implode( "','", self::STATUSES ) . "'";
		$out      = array_fill_keys( array_keys( Calshim_Bridge::META ), [ 'count' => 0, 'sum' => 0 ] );
		foreach ( $wpdb->get_results( "SELECT post_type, COUNT(*) n, SUM(ID) s FROM {$wpdb->posts} WHERE post_type IN ($types) AND post_status IN ($statuses) GROUP BY post_type", ARRAY_N ) as $row ) { // phpcs:ignore WordPress.DB.PreparedSQL
			$out[ $row[0] ] = [ 'count' => (int) $row[1], 'sum' => (int) $row[2] ];
		}
		return $out;
	}

	/** What the rows changed, in full. */
	private static function content( array $rows, array $forward ) {
		$posts   = [];
		$terms   = [];
		$options = [];
		$deleted = [ 'posts' => [], 'terms' => [], 'media' => [] ];
		$logged  = [];
		foreach ( $rows as $row ) {
			$id = (int) $row->object_id;
			if ( 'option' === $row->kind ) {
				$options[ $row->object_type ] = true;
			} elseif ( 'term' === $row->kind ) {
				$terms[ $row->object_type ][ $id ] = ! empty( $row->deleted ); // the newest row wins
			} else {
				$posts[ $row->object_type ][ $id ] = ! empty( $row->deleted );
			}
			unset( $logged[ $row->kind ][ $row->object_type ][ $id ] );
			if ( isset( $row->digest ) && '' !== $row->digest ) {
				$logged[ $row->kind ][ $row->object_type ][ $id ] = $row->digest;
			}
		}
		$out = [ 'posts' => new stdClass(), 'terms' => new stdClass(), 'options' => array_keys( $options ) ];
		$featured = [];
		foreach ( array_keys( Calshim_Bridge::META ) as $type ) {
			if ( empty( $posts[ $type ] ) ) {
				continue;
			}
			// Every changed ID is read, deleted ones too: an importer may have created it again since.
			$digests = Calshim_Verify::digests( 'posts', array_keys( $posts[ $type ] ) );
			$items   = self::read( '/wp/v2/' . self::rest_base( get_post_type_object( $type ), $type ), array_keys( $posts[ $type ] ),
				$forward + [ 'status' => implode( ',', self::STATUSES ), '_fields' => self::POST_FIELDS . ',' . implode( ',', self::term_bases() ) ] );
			foreach ( $items as $item ) {
				if ( ! empty( $item['featured_media'] ) ) {
					$featured[] = (int) $item['featured_media'];
				}
			}
			$out['posts']->$type = [ 'changed' => array_keys( $posts[ $type ] ), 'items' => $items, 'digests' => $digests, 'logged' => self::logged( $logged, 'post', $type ) ];
			$deleted['posts']    = array_merge( $deleted['posts'], self::gone_ids( $posts[ $type ], $items ) );
		}
		foreach ( self::TAXONOMIES as $taxonomy ) {
			if ( empty( $terms[ $taxonomy ] ) ) {
				continue;
			}
			$base    = self::rest_base( get_taxonomy( $taxonomy ), $taxonomy );
			$digests = Calshim_Verify::digests( 'terms', array_keys( $terms[ $taxonomy ] ) );
			$items   = self::read( '/wp/v2/' . $base, array_keys( $terms[ $taxonomy ] ), $forward + [ 'hide_empty' => false, '_fields' => self::TERM_FIELDS ] );
			$out['terms']->$base = [ 'changed' => array_keys( $terms[ $taxonomy ] ), 'items' => $items, 'digests' => $digests, 'logged' => self::logged( $logged, 'term', $taxonomy ) ];
			$deleted['terms']    = array_merge( $deleted['terms'], self::gone_ids( $terms[ $taxonomy ], $items ) );
		}
		$attachments      = isset( $posts['attachment'] ) ? $posts['attachment'] : [];
		$deleted['media'] = array_keys( array_filter( $attachments ) );
		$media_ids        = array_values( array_unique( array_merge( $featured, self::featured( array_keys( $attachments ) ) ) ) );
		$out['media']     = [ 'changed' => array_keys( $attachments ), 'items' => self::media_items( $media_ids ) ];
		$out['deleted']   = $deleted;
		return $out;
	}

	/**
	 * `logged` of a changed set: the digest each object had when its newest row in the answer was written ("0":
	 * not held then), where the row kept one. calshim compares it with `digests`, the object's now: an object
	 * changed around the hooks after its row (direct SQL) is sent in a state that row does not place, and
	 * calshim has it logged (the touch route) before it shows it, so that every calshim places the change at
	 * one sequence.
	 *
	 * @return object JSON object, ID => hex
	 */
	private static function logged( array $logged, $kind, $type ) {
		return (object) ( isset( $logged[ $kind ][ $type ] ) ? $logged[ $kind ][ $type ] : [] );
	}

	/** The IDs whose newest change is a deletion and that are still gone (no item). */
	private static function gone_ids( array $changed, array $items ) {
		$found = array_flip( wp_list_pluck( $items, 'id' ) );
		return array_values( array_filter( array_keys( array_filter( $changed ) ), static function ( $id ) use ( $found ) {
			return ! isset( $found[ $id ] );
		} ) );
	}

	/** REST bases of the two taxonomies (post_tag: tags). */
	private static function term_bases() {
		$bases = [];
		foreach ( self::TAXONOMIES as $taxonomy ) {
			$bases[] = self::rest_base( get_taxonomy( $taxonomy ), $taxonomy );
		}
		return $bases;
	}

	private static function rest_base( $object, $fallback ) {
		return $object && ! empty( $object->rest_base ) ? $object->rest_base : $fallback;
	}

	/** The attachments among $ids that a post of the three types shows as its featured image. */
	private static function featured( array $ids ) {
		global $wpdb;
		if ( ! $ids ) {
			return [];
		}
		$ids   = implode( ',', array_map( 'intval', $ids ) );
		$types = "'" . implode( "','", array_map( 'esc_sql', array_keys( Calshim_Bridge::META ) ) ) . "'";
		return array_map( 'intval', $wpdb->get_col( "SELECT DISTINCT pm.meta_value FROM {$wpdb->postmeta} pm JOIN {$wpdb->posts} p ON p.ID = pm.post_id WHERE pm.meta_key = '_thumbnail_id' AND pm.meta_value IN ($ids) AND p.post_type IN ($types)" ) ); // phpcs:ignore WordPress.DB.PreparedSQL
	}

	/**
	 * GET /calshim/v1/media?include=ID,...: the attachments with these IDs, whatever their status (see
	 * media_items); calshim asks for the featured images of the posts it holds. wp/v2/media lists attachments
	 * in the status inherit (or private) only, so one an importer or a test fixture wrote straight into the
	 * database as `publish` was missing from calshim's catalog, while TEC shows it: its get_featured_image
	 * reads the attachment by ID alone. Not filtered through featured(): that scans every _thumbnail_id row
	 * (meta_value has no index), once per 100 IDs of a full load; the route answers the service role only.
	 */
	public static function media_route( WP_REST_Request $request ) {
		return [ 'items' => self::media_items( array_map( 'intval', (array) $request->get_param( 'include' ) ) ) ];
	}

	/**
	 * The attachments among $ids, of any status, in the fields calshim reads of wp/v2/media (id, source_url,
	 * media_details), read with the functions TEC's get_featured_image and wp/v2 use: wp_get_attachment_url,
	 * wp_get_attachment_metadata (absent for a row written without it: media_details is then empty, and
	 * TEC's image has url, id and extension only). An ID of no attachment (deleted, another post) is left out.
	 */
	private static function media_items( array $ids ) {
		_prime_post_caches( $ids, false, true );
		$items = [];
		foreach ( $ids as $id ) {
			$post = get_post( $id );
			if ( $post && 'attachment' === $post->post_type ) {
				// wp_get_attachment_url is false only without a file and a guid: "" keeps the field a string.
				$items[] = [ 'id' => $post->ID, 'source_url' => (string) wp_get_attachment_url( $post->ID ), 'media_details' => self::media_details( $post->ID ) ];
			}
		}
		return $items;
	}

	/**
	 * An attachment's metadata as wp/v2/media's media_details gives what calshim reads of it: width, height,
	 * filesize, file, and the sizes in their stored order, each with mime_type and source_url
	 * (wp_get_attachment_image_src, as TEC takes each size's url).
	 */
	private static function media_details( $id ) {
		$meta = wp_get_attachment_metadata( $id );
		if ( ! is_array( $meta ) ) {
			return new stdClass();
		}
		$out = [];
		foreach ( [ 'width', 'height', 'filesize' ] as $key ) {
			if ( isset( $meta[ $key ] ) ) {
				$out[ $key ] = (int) $meta[ $key ];
			}
		}
		if ( isset( $meta['file'] ) ) {
			$out['file'] = (string) $meta['file'];
		}
		$sizes = isset( $meta['sizes'] ) && is_array( $meta['sizes'] ) ? $meta['sizes'] : [];
		foreach ( $sizes as $size => $data ) {
			$src                   = wp_get_attachment_image_src( $id, $size );
			$out['sizes'][ $size ] = [
				'width'      => isset( $data['width'] ) ? (int) $data['width'] : 0,
				'height'     => isset( $data['height'] ) ? (int) $data['height'] : 0,
				'filesize'   => isset( $data['filesize'] ) ? (int) $data['filesize'] : 0,
				'mime_type'  => isset( $data['mime-type'] ) ? (string) $data['mime-type'] : '',
				'source_url' => $src ? $src[0] : '',
			];
		}
		return $out ? $out : new stdClass();
	}

	/** Reads the items with the given IDs from a wp/v2 collection, 100 per internal request, as the caller. */
	private static function read( $route, array $ids, array $query ) {
		$items = [];
		foreach ( array_chunk( $ids, 100 ) as $chunk ) {
			$request = new WP_REST_Request( 'GET', $route );
			$request->set_query_params( array_merge( $query, [ 'include' => $chunk, 'per_page' => 100, 'context' => 'view' ] ) );
			$response = rest_do_request( $request );
			if ( $response->is_error() ) {
				continue; // nothing the caller may read: the IDs count as gone for it
			}
			$data = rest_get_server()->response_to_data( $response, false );
			foreach ( (array) $data as $item ) {
				unset( $item['_links'] );
				$items[] = $item;
			}
		}
		return $items;
	}

	/**
	 * GET /calshim/v1/bulk?type=T: the IDs of every post of type T in the statuses calshim holds, ascending.
	 * GET /calshim/v1/bulk?type=T&from=A&to=B: those posts with A <= ID <= B (at most BULK_MAX), rendered as
	 * wp/v2 renders them for calshim (the fields it reads, the `calshim` field, the term IDs), read with a
	 * few direct queries for the whole page instead of one WP_Query and field pass per post. Start a load by
	 * reading the feed's head: what changes meanwhile is then replayed by the feed.
	 */
	public static function bulk( WP_REST_Request $request ) {
		global $wpdb;
		$type     = (string) $request->get_param( 'type' );
		$statuses = "'" . implode( "','", self::STATUSES ) . "'";
		if ( null === $request->get_param( 'from' ) || null === $request->get_param( 'to' ) ) {
			return [ 'ids' => self::bulk_ids( $wpdb->prepare( "SELECT ID FROM {$wpdb->posts} WHERE post_type = %s AND post_status IN ($statuses) ORDER BY ID", $type ) ) ]; // phpcs:ignore WordPress.DB.PreparedSQL
		}
		$from  = (int) $request->get_param( 'from' );
		$to    = (int) $request->get_param( 'to' );
		$sql   = $wpdb->prepare( "SELECT * FROM {$wpdb->posts} WHERE post_type = %s AND post_status IN ($statuses) AND ID BETWEEN %d AND %d ORDER BY ID LIMIT %d", $type, $from, $to, self::BULK_MAX ); // phpcs:ignore WordPress.DB.PreparedSQL
		$plain = self::plain_reads();
		// The digests from the page's own rows (bulk_digests) when PHP hashes what MariaDB would and the
		// page holds the whole range; else by SQL, read before the posts (Calshim_Verify::digests).
		$digests = null;
		$rows    = $plain && Calshim_Verify::hashable() ? $wpdb->get_results( $sql ) : []; // phpcs:ignore WordPress.DB.PreparedSQL
		if ( ! $rows || count( $rows ) >= self::BULK_MAX ) {
			$digests = Calshim_Verify::range_digests( $type, $from, $to );
			$rows    = $wpdb->get_results( $sql ); // phpcs:ignore WordPress.DB.PreparedSQL
		}
		$posts = array_map( static function ( $row ) {
			return new WP_Post( $row );
		}, $rows );
		$taxonomies = array_values( array_intersect( get_object_taxonomies( $type ), self::TAXONOMIES ) );
		$meta       = self::prime_caches( $posts, $type, $plain );
		if ( null === $digests ) {
			$digests = self::bulk_digests( $posts, $meta );
		}
		if ( $plain ) { // after bulk_digests: see there
			self::prime_terms( self::uncached( array_map( 'intval', wp_list_pluck( $posts, 'ID' ) ), self::relationship_groups( $taxonomies ) ), $taxonomies );
		}
		$page  = self::bulk_page( $taxonomies, $plain, $type, $posts );
		$items = [];
		foreach ( $posts as $post ) {
			$items[] = self::bulk_item( $post, $page, $request );
		}
		wp_reset_postdata();
		return [ 'items' => $items, 'digests' => $digests ];
	}

	/**
	 * The digests of a page's posts from the rows it read (Calshim_Verify::digest_rows): the posts' rows, their
	 * meta rows prime_caches() read, and their relationships to the two taxonomies' terms, read here before
	 * prime_terms() reads them for the page: a change in between leaves the digest older than what is served
	 * (noticed at the next check), never newer. Saves MariaDB an MD5 of every row of the page.
	 */
	private static function bulk_digests( array $posts, array $meta ) {
		global $wpdb;
		$ids = array_map( 'intval', wp_list_pluck( $posts, 'ID' ) );
		if ( ! $ids ) {
			return (object) [];
		}
		$in        = "'" . implode( "','", array_map( 'esc_sql', self::TAXONOMIES ) ) . "'";
		$relations = self::fetch_rows( "SELECT tr.object_id, tt.term_id FROM {$wpdb->term_relationships} tr JOIN {$wpdb->term_taxonomy} tt ON tt.term_taxonomy_id = tr.term_taxonomy_id WHERE " . self::id_in( 'tr.object_id', $ids ) . " AND tt.taxonomy IN ($in)" );
		return Calshim_Verify::digest_rows( $posts, $meta, $relations );
	}

	/**
	 * The IDs a query selects, as ints, read row by row: wpdb's get_col also keeps every row as an object
	 * (about 400 bytes each), which exhausted a 256 MB PHP at a million events; an array of ints takes 16
	 * bytes per ID. Through get_col when the connection is not mysqli.
	 */
	private static function bulk_ids( $sql ) {
		global $wpdb;
		$dbh = $wpdb->dbh;
		if ( ! ( $dbh instanceof mysqli ) ) {
			return array_map( 'intval', $wpdb->get_col( $sql ) ); // phpcs:ignore WordPress.DB.PreparedSQL
		}
		$result = mysqli_query( $dbh, $sql, MYSQLI_USE_RESULT ); // phpcs:ignore WordPress.DB.RestrictedFunctions
		if ( false === $result ) {
			return array_map( 'intval', $wpdb->get_col( $sql ) ); // phpcs:ignore WordPress.DB.PreparedSQL
		}
		$ids = [];
		while ( $row = mysqli_fetch_row( $result ) ) { // phpcs:ignore WordPress.DB.RestrictedFunctions, WordPress.CodeAnalysis.AssignmentInCondition
			$ids[] = (int) $row[0];
		}
		mysqli_free_result( $result ); // phpcs:ignore WordPress.DB.RestrictedFunctions
		return $ids;
	}

	/**
	 * What every post of a bulk page shares, worked out once: the REST base of each taxonomy, whether its
	 * term IDs can be read straight from the primed cache (no plugin filters the terms), the site's time
	 * zone, and whether the caller may read every post (else edit_post decides per post).
	 */
	private static function bulk_page( array $taxonomies, $primed, $type, array $posts ) {
		$bases = [];
		$plain = $primed && ! has_filter( 'get_the_terms' ) && ! has_filter( 'get_term' );
		foreach ( $taxonomies as $taxonomy ) {
			$bases[ $taxonomy ] = self::rest_base( get_taxonomy( $taxonomy ), $taxonomy );
			$plain              = $plain && ! has_filter( 'get_' . $taxonomy );
		}
		return [
			'bases'       => $bases,
			'plain_terms' => $plain,
			'zone'        => wp_timezone(),
			'read_all'    => current_user_can( Calshim_Bridge::READ_ALL_CAP ),
			'links'       => self::links( $type, $posts ),
			'postdata'    => self::foreign_hooks(),
		];
	}

	/**
	 * Whether code other than WordPress' own (wp-includes, wp-admin, PHP's functions) and this plugin's is
	 * hooked to anything — a plugin, a theme, a drop-in —, or anything at all to setup_postdata()'s own hooks.
	 * Only then can a post's rendering read the globals setup_postdata() sets ($pages, $authordata, $more, ...)
	 * but for core's blocks and shortcodes (bulk_item() sets those posts up whatever this says). A callback
	 * naming a function that does not exist (core's admin ones outside wp-admin) cannot run and is left out.
	 * About 1 ms for the ~800 callbacks of a REST request.
	 */
	private static function foreign_hooks() {
		global $wp_filter;
		if ( self::hooked( 'the_post' ) || self::hooked( 'content_pagination' ) ) {
			return true;
		}
		$own    = [ wp_normalize_path( ABSPATH . WPINC ) . '/', wp_normalize_path( ABSPATH . 'wp-admin' ) . '/', wp_normalize_path( __DIR__ ) . '/' ];
		$loader = wp_normalize_path( CALSHIM_PLUGIN_FILE );
		foreach ( $wp_filter as $hook ) {
			foreach ( $hook->callbacks as $callbacks ) {
				foreach ( $callbacks as $callback ) {
					$file = self::defined_in( $callback['function'] );
					if ( false === $file || $loader === $file ) {
						continue;
					}
					if ( null === $file || 0 !== strpos( $file, $own[0] ) && 0 !== strpos( $file, $own[1] ) && 0 !== strpos( $file, $own[2] ) ) {
						return true;
					}
				}
			}
		}
		return false;
	}

	/**
	 * The file a callback is defined in (with forward slashes), false for PHP's own functions and for a function or
	 * method that does not exist, null when it cannot be told (an invokable object).
	 */
	private static function defined_in( $callback ) {
		try {
			if ( $callback instanceof Closure || is_string( $callback ) && false === strpos( $callback, '::' ) ) {
				$reflection = new ReflectionFunction( $callback );
			} elseif ( is_array( $callback ) && 2 === count( $callback ) ) {
				$reflection = new ReflectionMethod( $callback[0], $callback[1] );
			} elseif ( is_string( $callback ) ) {
				$reflection = new ReflectionMethod( $callback );
			} else {
				return null;
			}
		} catch ( ReflectionException $e ) {
			return false;
		}
		$file = $reflection->getFileName();
		return false === $file ? false : str_replace( '\\', '/', $file ); // a path that differs otherwise only counts as foreign
	}

	/**
	 * Hooks get_permalink() runs for a post of a custom type, through get_post_permalink() and home_url(), with
	 * the callbacks core hooks there itself (WP_HOME, a constant, in place of the option).
	 */
	const LINK_FILTERS = [ 'post_type_link' => [], 'home_url' => [], 'set_url_scheme' => [], 'user_trailingslashit' => [],
		'get_post_status' => [], 'is_post_status_viewable' => [], 'pre_option_home' => [], 'pre_option' => [],
		'option_home' => [ '_config_wp_home' ] ];

	/**
	 * What get_permalink() gives a post of $type in a viewable status, worked out once for the page instead of
	 * once per post (it cost a page of 2,500 events about 30 ms of PHP): the type's permastruct with the slug
	 * in it, trailing-slashed as the site wants, under home_url(), as get_post_permalink() builds it. Only for a
	 * flat custom type with a permastruct and no plugin on LINK_FILTERS, and only if it gives the page's first
	 * such post what get_permalink() does (a WordPress that builds links otherwise); null: get_permalink() for
	 * every post. Other statuses (drafts get ?post_type=…&p= links, private ones depend on the reader) always
	 * go through get_permalink() (permalink()).
	 */
	private static function links( $type, array $posts ) {
		global $wp_rewrite;
		$object = get_post_type_object( $type );
		$struct = $wp_rewrite instanceof WP_Rewrite ? $wp_rewrite->get_extra_permastruct( $type ) : false;
		if ( ! $object || $object->_builtin || $object->hierarchical || ! is_string( $struct ) || '' === $struct ) {
			return null;
		}
		foreach ( self::LINK_FILTERS as $hook => $core ) {
			if ( self::hooked( $hook, $core ) ) {
				return null;
			}
		}
		$links = [ 'struct' => $struct, 'tag' => "%$type%", 'home' => home_url(), 'slash' => $wp_rewrite->use_trailing_slashes, 'viewable' => [] ];
		foreach ( get_post_stati() as $status ) {
			if ( is_post_status_viewable( $status ) ) {
				$links['viewable'][ $status ] = true;
			}
		}
		foreach ( $posts as $post ) {
			if ( isset( $links['viewable'][ $post->post_status ] ) ) {
				return get_permalink( $post ) === self::permalink( $post, $links ) ? $links : null;
			}
		}
		return $links;
	}

	/** get_permalink( $post ), from the page's links() when they hold its status. */
	private static function permalink( WP_Post $post, $links ) {
		if ( null === $links || ! isset( $links['viewable'][ $post->post_status ] ) ) {
			return get_permalink( $post );
		}
		$path = str_replace( $links['tag'], $post->post_name, $links['struct'] );
		$path = $links['slash'] ? trailingslashit( $path ) : untrailingslashit( $path );
		return $path ? $links['home'] . '/' . ltrim( $path, '/' ) : $links['home']; // home_url( $path )
	}

	/**
	 * Fills the caches a bulk page reads, with what update_post_caches() would put there: the posts, every
	 * meta row of each (in meta_id order) and, but for $plain, their term IDs. With $plain it reads the rows
	 * straight off the connection: wpdb builds an object per row first, and update_object_term_cache() a
	 * WP_Term per relationship, which cost a page of 2,500 events more than all its queries; bulk() then primes
	 * the terms (prime_terms). Where a plugin filters those reads, or the database is not MySQL, core's
	 * functions do it. Returns the meta rows read ($plain): [post_id, meta_id, meta_key, meta_value, whether
	 * the post's digest counts it].
	 */
	private static function prime_caches( array $posts, $type, $plain ) {
		global $wpdb;
		update_post_cache( $posts );
		$ids = array_map( 'intval', wp_list_pluck( $posts, 'ID' ) );
		if ( ! $plain ) {
			update_object_term_cache( $ids, $type );
			update_postmeta_cache( $ids );
			return [];
		}
		if ( ! $ids ) {
			return [];
		}
		$rows = self::fetch_rows( "SELECT post_id, meta_id, meta_key, meta_value, " . Calshim_Verify::digested_meta( 'm' ) . " FROM {$wpdb->postmeta} m WHERE " . self::id_in( 'post_id', $ids ) . ' ORDER BY post_id, meta_id' );
		self::prime_meta( self::uncached( $ids, [ 'post_meta' ] ), $rows );
		return $rows;
	}

	/** Filters through which a plugin may change what the caches of a bulk page hold (core's own aside). */
	const CACHE_FILTERS = [ 'update_post_metadata_cache', 'wp_get_object_terms_args', 'get_object_terms', 'wp_get_object_terms',
		'get_terms_defaults', 'get_terms_args', 'list_terms_exclusions', 'get_terms_fields', 'terms_clauses', 'terms_pre_query',
		'get_terms_orderby' ];

	/** Whether the direct reads give what core's would: a mysqli connection, no plugin on CACHE_FILTERS. */
	private static function plain_reads() {
		global $wpdb;
		if ( ! isset( $wpdb->dbh ) || ! $wpdb->dbh instanceof mysqli ) {
			return false;
		}
		foreach ( self::CACHE_FILTERS as $hook ) {
			// Core's only callback there renames post format terms, a taxonomy calshim never reads.
			if ( self::hooked( $hook, [ '_post_format_wp_get_object_terms' ] ) ) {
				return false;
			}
		}
		return true;
	}

	/** Whether a callback other than the named functions of core ($core) is hooked to $hook. */
	private static function hooked( $hook, array $core = [] ) {
		global $wp_filter;
		$n = 0;
		foreach ( isset( $wp_filter[ $hook ] ) ? $wp_filter[ $hook ]->callbacks : [] as $callbacks ) {
			$n += count( $callbacks );
		}
		foreach ( $core as $function ) {
			$n -= false === has_filter( $hook, $function ) ? 0 : 1;
		}
		return $n > 0;
	}

	/** The IDs missing from any of the cache groups (a persistent object cache may hold the others). */
	private static function uncached( array $ids, array $groups ) {
		$missing = [];
		foreach ( $groups as $group ) {
			foreach ( wp_cache_get_multiple( $ids, $group ) as $id => $value ) {
				if ( false === $value ) {
					$missing[ $id ] = (int) $id;
				}
			}
		}
		return array_values( $missing );
	}

	private static function relationship_groups( array $taxonomies ) {
		return array_map( static function ( $taxonomy ) {
			return $taxonomy . '_relationships';
		}, $taxonomies );
	}

	/** update_meta_cache( 'post', $ids ) from the page's meta rows (prime_caches): key => values, in meta_id order. */
	private static function prime_meta( array $ids, array $rows ) {
		if ( ! $ids ) {
			return;
		}
		$meta = array_fill_keys( $ids, [] );
		foreach ( $rows as $row ) {
			$id = (int) $row[0];
			if ( isset( $meta[ $id ] ) ) {
				$meta[ $id ][ $row[2] ][] = $row[3];
			}
		}
		foreach ( $meta as $id => $values ) {
			wp_cache_add( $id, $values, 'post_meta' );
		}
	}

	/**
	 * update_object_term_cache() for $taxonomies with one read of the relationships: per taxonomy and post,
	 * the term IDs ordered by name as wp_get_object_terms() orders them; the terms themselves are cached too.
	 */
	private static function prime_terms( array $ids, array $taxonomies ) {
		global $wpdb;
		if ( ! $ids || ! $taxonomies ) {
			return;
		}
		$relations = array_fill_keys( $taxonomies, array_fill_keys( $ids, [] ) );
		$in        = "'" . implode( "','", array_map( 'esc_sql', $taxonomies ) ) . "'";
		$sql       = "SELECT tr.object_id, tt.taxonomy, tt.term_id FROM {$wpdb->term_relationships} tr JOIN {$wpdb->term_taxonomy} tt ON tt.term_taxonomy_id = tr.term_taxonomy_id JOIN {$wpdb->terms} t ON t.term_id = tt.term_id WHERE " . self::id_in( 'tr.object_id', $ids ) . " AND tt.taxonomy IN ($in) ORDER BY t.name ASC";
		$terms     = [];
		foreach ( self::fetch_rows( $sql ) as $row ) {
			$relations[ $row[1] ][ (int) $row[0] ][] = (int) $row[2];
			$terms[ (int) $row[2] ]                 = true;
		}
		foreach ( $relations as $taxonomy => $by_post ) {
			foreach ( $by_post as $id => $term_ids ) {
				wp_cache_add( $id, $term_ids, $taxonomy . '_relationships' );
			}
		}
		_prime_term_caches( array_keys( $terms ), false );
	}

	/**
	 * "$column IN (...)" for many IDs as lists of fewer than 1,000 joined by OR: MariaDB turns a longer list
	 * into a derived table to join with, and then sorts the page's 30,000 meta rows (values included) for the
	 * ORDER BY, where shorter lists are one index range scan that already yields them in order.
	 */
	private static function id_in( $column, array $ids ) {
		$lists = array_map( static function ( $chunk ) use ( $column ) {
			return "$column IN (" . implode( ',', array_map( 'intval', $chunk ) ) . ')';
		}, array_chunk( $ids, 999 ) );
		return '(' . implode( ' OR ', $lists ) . ')';
	}

	/** The rows of a query as lists of strings, as wpdb's ARRAY_N gives them, without wpdb's row objects. */
	private static function fetch_rows( $sql ) {
		global $wpdb;
		$result = mysqli_query( $wpdb->dbh, $sql ); // phpcs:ignore WordPress.DB.RestrictedFunctions
		if ( ! $result instanceof mysqli_result ) {
			return $wpdb->get_results( $sql, ARRAY_N ); // phpcs:ignore WordPress.DB.PreparedSQL -- wpdb reports the error
		}
		$rows = $result->fetch_all( MYSQLI_NUM );
		$result->free();
		return $rows;
	}

	/** One post as WP_REST_Posts_Controller::prepare_item_for_response renders the fields calshim reads. */
	private static function bulk_item( WP_Post $post, array $page, WP_REST_Request $request ) {
		$GLOBALS['post'] = $post; // as wp/v2 does: content filters may read the global post
		// setup_postdata() (a fifteenth of the page's PHP) where something may read the globals it sets: code
		// other than core's and ours (foreign_hooks), or core's own blocks and shortcodes (get_the_content()).
		if ( $page['postdata'] || self::marked_up( $post->post_content ) || self::marked_up( $post->post_excerpt ) ) {
			setup_postdata( $post );
		}
		$zone = $page['zone'];
		$item = [
			'id'             => $post->ID,
			'date'           => self::rfc3339( $post->post_date, $zone ),
			'date_gmt'       => self::rfc3339( self::gmt( $post->post_date_gmt, $post->post_date ), $zone ),
			'modified'       => self::rfc3339( $post->post_modified, $zone ),
			'modified_gmt'   => self::rfc3339( self::gmt( $post->post_modified_gmt, $post->post_modified ), $zone ),
			'slug'           => $post->post_name,
			'status'         => $post->post_status,
			'type'           => $post->post_type,
			'link'           => self::permalink( $post, $page['links'] ),
			'author'         => (int) $post->post_author,
			'featured_media' => (int) get_post_thumbnail_id( $post ),
		];
		$terms = [];
		foreach ( $page['bases'] as $taxonomy => $base ) {
			$terms[ $taxonomy ] = self::term_ids( $post, $taxonomy, $page['plain_terms'] );
			$item[ $base ]      = $terms[ $taxonomy ];
		}
		$privileged      = $page['read_all'] || current_user_can( 'edit_post', $post->ID );
		$item['calshim'] = Calshim_Bridge::post_fields( $post, $privileged, $request, $terms );
		return $item;
	}

	/** Whether $text may hold a shortcode ("[") or a block, a more or a nextpage tag (HTML comments). */
	private static function marked_up( $text ) {
		return false !== strpos( $text, '[' ) || false !== strpos( $text, '<!--' );
	}

	/**
	 * The post's term IDs of a taxonomy as wp/v2 lists them (get_the_terms()); $plain: straight from the
	 * relationship cache prime_terms() filled, which holds the same IDs in the same order, without
	 * building and sanitizing a WP_Term for each.
	 */
	private static function term_ids( WP_Post $post, $taxonomy, $plain ) {
		$cached = $plain ? wp_cache_get( $post->ID, $taxonomy . '_relationships' ) : false;
		if ( is_array( $cached ) ) {
			return array_map( static function ( $term ) {
				return (int) ( is_object( $term ) ? $term->term_id : $term ); // older caches hold objects
			}, $cached );
		}
		$terms = get_the_terms( $post, $taxonomy );
		return is_array( $terms ) ? array_values( wp_list_pluck( $terms, 'term_id' ) ) : [];
	}

	/**
	 * mysql_to_rfc3339() with the site's time zone made once per page instead of once per date. A valid date of
	 * a day on which the zone does not change its offset (nor the day before or after) parses to itself: it
	 * is written out without parsing (a date in the gap of a change moves, an invalid one rolls over).
	 */
	private static function rfc3339( $date, DateTimeZone $zone ) {
		static $steady = []; // zone and day => whether the zone keeps one offset around that day
		if ( is_string( $date ) && preg_match( '/^(\d{4})-(\d\d)-(\d\d) (?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d$/', $date, $m ) && checkdate( (int) $m[2], (int) $m[3], (int) $m[1] ) ) {
			$day = $zone->getName() . ' ' . substr( $date, 0, 10 );
			if ( ! isset( $steady[ $day ] ) ) {
				$noon           = date_create( substr( $date, 0, 10 ) . ' 12:00:00', $zone )->getTimestamp();
				$changes        = $zone->getTransitions( $noon - 2 * DAY_IN_SECONDS, $noon + 2 * DAY_IN_SECONDS ); // false: a fixed offset
				$steady[ $day ] = false === $changes || 1 === count( $changes );
			}
			if ( $steady[ $day ] ) {
				return substr_replace( $date, 'T', 10, 1 );
			}
		}
		$datetime = empty( $date ) ? false : date_create( $date, $zone );
		return false === $datetime ? false : $datetime->format( 'Y-m-d\TH:i:s' );
	}

	/** wp/v2's GMT date of a post: the stored one, or one made from the local date when never set. */
	private static function gmt( $gmt, $local ) {
		return '0000-00-00 00:00:00' === $gmt ? get_gmt_from_date( $local ) : $gmt;
	}
}
