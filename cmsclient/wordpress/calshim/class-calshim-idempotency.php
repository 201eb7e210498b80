<?php
/**
 * Calshim_Idempotency, one class of the calshim bridge plugin, loaded by ../calshim.php (see its
 * header for what the plugin does and why).
 *
 * @package calshim
 */

defined( 'ABSPATH' ) || exit;

/**
 * Calshim_Idempotency makes a wp/v2 write that calshim sends again the same write (m). calshim names each write
 * it makes with a random key (header X-Calshim-Write-Key, 32 hex digits). When WordPress' answer is lost (a
 * timeout on a loaded site, a connection cut), the write may or may not have been made, and may even still be
 * running; calshim then sends the same request with the same key, and this class answers it with the truth:
 *
 *   - the request takes a MySQL named lock of its key before anything else, so a second request with the key
 *     waits until the first one has ended (or has not started: then the second one runs and the first, coming
 *     later, finds its record);
 *   - a write records its answer (status and data) under its key for an hour (calshim asks again within a
 *     minute, four attempts of at most upstream.timeout; a short life keeps the options table small under an
 *     import), and a create records the post or term it inserted as soon as it is inserted (a request that
 *     dies before its answer leaves that record);
 *   - a request whose key has a record, from the same user, is answered from it, with the header
 *     X-Calshim-Write-Replayed, and writes nothing; a create that died half-way is answered 500
 *     calshim_write_incomplete;
 *   - an error answer of a create that inserted its object nonetheless (wp/v2 inserts the post, then may refuse
 *     its meta, terms or featured image, and leaves the post) names that object in the header X-Calshim-Created
 *     (its wp/v2 route), so that calshim deletes it and answers the refusal as a refusal that changed nothing.
 *
 * Requests without the header are left alone.
 */
final class Calshim_Idempotency {

	/** The request header, as WP_REST_Request names headers. */
	const HEADER = 'x_calshim_write_key';

	/** Published in the REST index (`calshim.write_keys`): calshim sends a write again only to a plugin that keys them. */
	const PROTOCOL = 1;

	/** Seconds a request waits for an earlier one with its key (calshim's upstream timeout is 10 s by default). */
	const LOCK_WAIT = 30;

	/** @var WP_REST_Request|null The request whose key this process holds. */
	private static $request = null;

	/** @var string The transient of that key. */
	private static $record = '';

	public static function boot() {
		add_filter( 'rest_pre_dispatch', [ __CLASS__, 'replay' ], 5, 3 );
		add_filter( 'rest_post_dispatch', [ __CLASS__, 'record' ], 20, 3 );
		add_action( 'wp_insert_post', [ __CLASS__, 'inserted_post' ], 10, 3 );
		add_action( 'created_term', [ __CLASS__, 'created_term' ], 10, 3 );
	}

	/**
	 * rest_pre_dispatch: a write with a key takes the key's lock, then is answered from the key's record when
	 * there is one.
	 */
	public static function replay( $result, $server, $request ) {
		$key = (string) $request->get_header( self::HEADER );
		if ( null !== $result || null !== self::$request || in_array( $request->get_method(), [ 'GET', 'HEAD', 'OPTIONS' ], true ) ||
			! preg_match( '/^[0-9a-f]{32}$/', $key ) ) {
			return $result;
		}
		global $wpdb;
		$name = 'calshim_w_' . substr( md5( DB_NAME . '|' . $wpdb->prefix . '|' . $key ), 0, 32 );
		if ( '1' !== (string) $wpdb->get_var( $wpdb->prepare( 'SELECT GET_LOCK(%s, %d)', $name, self::LOCK_WAIT ) ) ) {
			// Still running: calshim asks again.
			return new WP_Error( 'calshim_write_pending', 'An earlier request with this write key has not ended yet.', [ 'status' => 503 ] );
		}
		// The lock is held until this PHP request ends (its database connection closes).
		self::$record = 'calshim_w_' . md5( $key );
		$seen = get_transient( self::$record );
		if ( is_array( $seen ) && (int) $seen['user'] === get_current_user_id() ) {
			return self::answer( $seen );
		}
		self::$request = $request;
		return $result;
	}

	/** The answer a record gives. */
	private static function answer( array $seen ) {
		if ( isset( $seen['status'] ) ) {
			$response = new WP_REST_Response( $seen['data'], $seen['status'] );
		} else {
			$response = rest_convert_error_to_response( new WP_Error( 'calshim_write_incomplete', 'An earlier request with this write key ended before its answer.', [ 'status' => 500 ] ) );
		}
		if ( isset( $seen['created'] ) && $response->get_status() >= 300 ) {
			$response->header( 'X-Calshim-Created', $seen['created'] );
		}
		$response->header( 'X-Calshim-Write-Replayed', '1' );
		return $response;
	}

	/**
	 * rest_post_dispatch: a keyed write records its answer, and an error answer names what it created. Its change
	 * rows are written first, not at the end of the request: the PHP process of a request whose client has gone
	 * may die when it sends the answer (PHP's built-in server does), and an answer replayed must find them in the
	 * log.
	 */
	public static function record( $response, $server, $request ) {
		if ( $request !== self::$request ) {
			return $response;
		}
		Calshim_Changes::flush();
		$seen = get_transient( self::$record );
		$seen = [ 'status' => $response->get_status(), 'data' => $response->get_data() ] + ( is_array( $seen ) ? $seen : [] );
		if ( isset( $seen['created'] ) && $response->get_status() >= 300 ) {
			$response->header( 'X-Calshim-Created', $seen['created'] );
		}
		self::keep( $seen );
		return $response;
	}

	/** wp_insert_post: the post a keyed create inserts is recorded at once (its revisions are not it). */
	public static function inserted_post( $post_id, $post, $update ) {
		if ( ! $update && 'revision' !== $post->post_type ) {
			$object = get_post_type_object( $post->post_type );
			self::created( $object && $object->rest_base ? $object->rest_base : $post->post_type, (int) $post_id );
		}
	}

	/** created_term: the term a keyed create inserts is recorded at once. */
	public static function created_term( $term_id, $tt_id, $taxonomy ) {
		$object = get_taxonomy( $taxonomy );
		self::created( $object && $object->rest_base ? $object->rest_base : $taxonomy, (int) $term_id );
	}

	/** Records the first object a keyed create of a collection inserts, when it is of that collection. */
	private static function created( $base, $id ) {
		if ( null === self::$request || 'POST' !== self::$request->get_method() ||
			'/wp/v2/' . $base !== self::$request->get_route() || is_array( get_transient( self::$record ) ) ) {
			return;
		}
		self::keep( [ 'created' => '/wp/v2/' . $base . '/' . $id ] );
	}

	private static function keep( array $seen ) {
		$seen['user'] = get_current_user_id();
		set_transient( self::$record, $seen, HOUR_IN_SECONDS );
	}
}
