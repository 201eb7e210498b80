<?php
/**
 * Calshim_Precondition, one class of the calshim bridge plugin, loaded by ../calshim.php (see its
 * header for what the plugin does and why).
 *
 * @package calshim
 */

defined( 'ABSPATH' ) || exit;

/**
 * Calshim_Precondition enforces calshim's If-Match (l): a write of one event, venue, organizer, event category
 * or tag through wp/v2 that carries the header X-Calshim-If-Version runs only if the object's stored state
 * still has one of the versions given, checked and written under a lock on that object.
 *
 * The version is a keyed hash of what calshim mirrors of the object (post: the columns it reads, the meta rows of
 * the `calshim` field, _thumbnail_id and the IDs of its event categories and tags; term: its columns without
 * the count), published as `calshim.version` on every post and term calshim reads. It moves with any change
 * of that state, whoever makes it (direct SQL included, once it is in the database), and only then. Keyed
 * with a salt of the site so that it cannot serve to guess a post's password or hidden content.
 *
 * Header: "<post|term>:<id>:<version>[,<version>...]", "*" as a version meaning "exists". calshim sends it with
 * the first wp/v2 write of the object a v1 write with If-Match makes. Every wp/v2 write of a single post of
 * the three types or term of the two taxonomies, with the header or not, takes the MySQL named lock of that
 * object (GET_LOCK, shared by every PHP worker on the database) once its permission is checked, and holds it
 * until its callback has run: a conditional write compares against a state no such write is changing. On a
 * mismatch it answers 412 calshim_precondition_failed and changes nothing. Writes that do not go through
 * wp/v2 (wp-admin screens, WP-CLI, cron, SQL) take no lock: one under way at the moment of the check is not
 * waited for; one that ended before it moved the version.
 */
final class Calshim_Precondition {

	/** The request header, as WP_REST_Request names headers. */
	const HEADER = 'x_calshim_if_version';

	/** Seconds a write waits for another write of the same object. */
	const LOCK_WAIT = 10;

	/** Post columns calshim reads (comment counts, pings and the GUID left out: no v1 write sets them). */
	const POST_COLUMNS = [ 'ID', 'post_author', 'post_date', 'post_date_gmt', 'post_content', 'post_title', 'post_excerpt',
		'post_status', 'post_password', 'post_name', 'post_modified_gmt', 'post_parent', 'menu_order', 'post_type' ];

	/** Term columns calshim reads, the count aside: it moves with the term's posts, not with writes of the term. */
	const TERM_COLUMNS = [ 'term_id', 'name', 'slug', 'term_group', 'taxonomy', 'description', 'parent' ];

	/** @var array<string,bool> Locks this request holds, by name. */
	private static $held = [];

	public static function boot() {
		add_filter( 'rest_dispatch_request', [ __CLASS__, 'check' ], 10, 4 );
		add_filter( 'rest_request_after_callbacks', [ __CLASS__, 'after' ], 10, 3 );
		add_action( 'shutdown', [ __CLASS__, 'release_all' ], PHP_INT_MAX );
	}

	/**
	 * The version of a post's stored state (see above). $meta: Calshim_Bridge::meta_rows( $post ), and $terms
	 * its term IDs per taxonomy as get_the_terms() gives them, when the caller has them already: then for every
	 * taxonomy of Calshim_Changes::TAXONOMIES the post's type has, in get_object_taxonomies()' order (a bulk
	 * page works that list out once for its posts).
	 */
	public static function post_version( WP_Post $post, $meta = null, array $terms = null ) {
		$state = [ self::columns( $post, self::POST_COLUMNS ), (array) ( null === $meta ? Calshim_Bridge::meta_rows( $post ) : $meta ),
			(string) get_post_meta( $post->ID, '_thumbnail_id', true ) ];
		$taxonomies = null === $terms ? array_intersect( get_object_taxonomies( $post->post_type ), Calshim_Changes::TAXONOMIES ) : array_keys( $terms );
		foreach ( $taxonomies as $taxonomy ) {
			if ( isset( $terms[ $taxonomy ] ) ) {
				$ids = array_map( 'intval', $terms[ $taxonomy ] );
			} else {
				$listed = get_the_terms( $post, $taxonomy );
				$ids    = is_array( $listed ) ? array_map( 'intval', wp_list_pluck( $listed, 'term_id' ) ) : [];
			}
			sort( $ids );
			$state[] = [ $taxonomy, $ids ];
		}
		return self::hash( $state );
	}

	/** The version of a term's stored state. */
	public static function term_version( WP_Term $term ) {
		return self::hash( self::columns( $term, self::TERM_COLUMNS ) );
	}

	/** The named columns of a row object, as strings (cached and fresh objects type them differently). */
	private static function columns( $row, array $names ) {
		$out = [];
		foreach ( $names as $name ) {
			$out[] = (string) $row->$name;
		}
		return $out;
	}

	/**
	 * hash_hmac( 'sha256', serialize( $state ), the salt ), cut to 16 hex digits, from an HMAC context keyed once
	 * per salt (a bulk page hashes 2,500 posts with the same key).
	 */
	private static function hash( array $state ) {
		static $keyed = [];
		$salt = wp_salt( 'calshim_version' );
		if ( '' === $salt ) { // hash_init() refuses an empty key
			return substr( hash_hmac( 'sha256', serialize( $state ), $salt ), 0, 16 ); // phpcs:ignore WordPress.PHP.DiscouragedPHPFunctions
		}
		if ( ! isset( $keyed[ $salt ] ) ) {
			$keyed = [ $salt => hash_init( 'sha256', HASH_HMAC, $salt ) ];
		}
		$context = hash_copy( $keyed[ $salt ] );
		hash_update( $context, serialize( $state ) ); // phpcs:ignore WordPress.PHP.DiscouragedPHPFunctions
		return substr( hash_final( $context ), 0, 16 );
	}

	/**
	 * rest_dispatch_request, after the route's permission check and before its callback: locks the object a
	 * write addresses and, when the request carries the header, compares its version.
	 */
	public static function check( $result, $request, $route, $handler ) {
		$target = null === $result ? self::target( $request ) : null;
		if ( ! $target ) {
			return $result;
		}
		list( $kind, $id ) = $target;
		$wanted            = $request->get_header( self::HEADER );
		if ( ! self::lock( $kind, $id ) ) {
			return null === $wanted ? $result : new WP_Error( 'calshim_busy', 'Another write of this object did not end in time.', [ 'status' => 503 ] );
		}
		if ( null === $wanted || self::matches( (string) $wanted, $kind, $id ) ) {
			return $result;
		}
		return new WP_Error( 'calshim_precondition_failed', 'The resource has changed since the ETag given in If-Match, or does not exist. Read it again.', [ 'status' => 412 ] );
	}

	/** rest_request_after_callbacks: the write has run, its object is free again. */
	public static function after( $response, $handler, $request ) {
		$target = self::target( $request );
		if ( $target ) {
			self::release( self::lock_name( $target[0], $target[1] ) );
		}
		return $response;
	}

	/** Whatever a request that ended early still holds (connections closing would free it too). */
	public static function release_all() {
		foreach ( array_keys( self::$held ) as $name ) {
			self::release( $name );
		}
	}

	/** [kind, id] of the post or term a wp/v2 write of one item addresses, null for anything else. */
	private static function target( WP_REST_Request $request ) {
		if ( 'GET' === $request->get_method() || 'HEAD' === $request->get_method() ||
			! preg_match( '#^/wp/v2/([^/]+)/(\d+)$#', $request->get_route(), $m ) ) {
			return null;
		}
		foreach ( array_keys( Calshim_Bridge::META ) as $type ) {
			$object = get_post_type_object( $type );
			if ( $object && $m[1] === ( $object->rest_base ? $object->rest_base : $type ) ) {
				return [ 'post', (int) $m[2] ];
			}
		}
		foreach ( Calshim_Changes::TAXONOMIES as $taxonomy ) {
			$object = get_taxonomy( $taxonomy );
			if ( $object && $m[1] === ( $object->rest_base ? $object->rest_base : $taxonomy ) ) {
				return [ 'term', (int) $m[2] ];
			}
		}
		return null;
	}

	/**
	 * Whether the header names this object and one of its versions is the stored one ("*": it exists), read
	 * afresh: the request may have cached the object before it held the lock.
	 */
	private static function matches( $header, $kind, $id ) {
		$parts = explode( ':', $header, 3 );
		if ( 3 !== count( $parts ) || $parts[0] !== $kind || (int) $parts[1] !== $id ) {
			return false;
		}
		$current = self::current( $kind, $id );
		if ( null === $current ) {
			return false;
		}
		$given = array_map( 'trim', explode( ',', $parts[2] ) );
		return in_array( '*', $given, true ) || in_array( $current, $given, true );
	}

	/** The stored version of a post or term, null when it does not exist. */
	private static function current( $kind, $id ) {
		if ( 'term' === $kind ) {
			wp_cache_delete( $id, 'terms' );
			$term = get_term( $id );
			return $term instanceof WP_Term ? self::term_version( $term ) : null;
		}
		wp_cache_delete( $id, 'posts' );
		wp_cache_delete( $id, 'post_meta' );
		foreach ( Calshim_Changes::TAXONOMIES as $taxonomy ) {
			wp_cache_delete( $id, $taxonomy . '_relationships' );
		}
		$post = get_post( $id );
		return $post instanceof WP_Post && isset( Calshim_Bridge::META[ $post->post_type ] ) ? self::post_version( $post ) : null;
	}

	/**
	 * The lock's name: MySQL's named locks are server-wide, so it names the database and table prefix too (a
	 * server may hold several sites).
	 */
	private static function lock_name( $kind, $id ) {
		global $wpdb;
		return 'calshim:' . substr( md5( DB_NAME . '/' . $wpdb->prefix ), 0, 12 ) . ":$kind:$id";
	}

	private static function lock( $kind, $id ) {
		global $wpdb;
		$name = self::lock_name( $kind, $id );
		if ( isset( self::$held[ $name ] ) ) {
			return true;
		}
		if ( '1' !== (string) $wpdb->get_var( $wpdb->prepare( 'SELECT GET_LOCK(%s, %d)', $name, self::LOCK_WAIT ) ) ) {
			return false;
		}
		self::$held[ $name ] = true;
		return true;
	}

	private static function release( $name ) {
		global $wpdb;
		if ( isset( self::$held[ $name ] ) ) {
			unset( self::$held[ $name ] );
			$wpdb->query( $wpdb->prepare( 'SELECT RELEASE_LOCK(%s)', $name ) );
		}
	}
}
