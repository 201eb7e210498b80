<?php
/**
 * Calshim_Verify, one class of the calshim bridge plugin, loaded by ../calshim.php (see its
 * header for what the plugin does and why).
 *
 * @package calshim
 */

defined( 'ABSPATH' ) || exit;

/**
 * Calshim_Verify serves checksums of what calshim mirrors, so that calshim notices what changed around
 * WordPress' hooks (direct SQL: imports, search-replace, plugins writing rows themselves), which the change
 * log never sees, the way Jetpack Sync and database replicas compare state.
 *
 * Every object has a digest: 64 bits of MD5, XORed over the rows calshim's copy of it is made of.
 *   posts  the three post types in the statuses calshim holds (Calshim_Changes::STATUSES): the wp_posts
 *          columns the bulk load and the feed render, each meta row of the keys calshim maps (Calshim_Bridge::META,
 *          the additional fields, _thumbnail_id) with its meta_id (order) and post, and each relationship to a
 *          term of the two taxonomies;
 *   terms  the terms of the two taxonomies: wp_terms and wp_term_taxonomy columns;
 *   options the options calshim reads (Calshim_Changes::OPTIONS), one digest each.
 * A range's digest is the XOR of its objects' digests, so it splits: calshim keeps each object's digest (the
 * bulk load and the feed send it, computed by the same SQL), compares ranges, and descends only into those that
 * differ. Each answer is one query.
 *
 * GET /calshim/v1/checksums?kind=posts|terms&from=A&to=B&parts=N: N sub-ranges of [A, B] (part i holds the IDs
 * with floor((ID - A) * N / (B - A + 1)) = i), the non-empty ones with their count and digest; without `to`,
 * B is the highest ID of the kind. With items=1 instead: every object of [A, B] with its type and digest, by
 * ID, at most ITEMS_MAX (`more` when others follow). GET /calshim/v1/checksums?kind=options: each option's digest.
 */
final class Calshim_Verify {

	/** Objects per items answer at most. */
	const ITEMS_MAX = 5000;

	/** Sub-ranges per answer at most. */
	const PARTS_MAX = 256;

	public static function boot() {
		add_action( 'rest_api_init', [ __CLASS__, 'register_routes' ] );
	}

	public static function register_routes() {
		register_rest_route( 'calshim/v1', '/checksums', [
			'methods'             => 'GET',
			'callback'            => [ __CLASS__, 'route' ],
			'permission_callback' => [ 'Calshim_Changes', 'may_read' ],
			'args'                => [
				'kind'  => [ 'type' => 'string', 'enum' => [ 'posts', 'terms', 'options' ], 'required' => true ],
				'from'  => [ 'type' => 'integer', 'minimum' => 0, 'default' => 0 ],
				'to'    => [ 'type' => 'integer', 'minimum' => 0 ],
				'parts' => [ 'type' => 'integer', 'minimum' => 1, 'maximum' => self::PARTS_MAX, 'default' => 16 ],
				'items' => [ 'type' => 'boolean', 'default' => false ],
			],
		] );
	}

	public static function route( WP_REST_Request $request ) {
		global $wpdb;
		$kind = (string) $request['kind'];
		if ( 'options' === $kind ) {
			return [ 'kind' => $kind, 'options' => self::options() ];
		}
		$from = (int) $request['from'];
		$to   = null === $request['to'] ? self::max_id( $kind ) : (int) $request['to'];
		$rows = self::rows( $kind, $wpdb->prepare( 'BETWEEN %d AND %d', $from, $to ) );
		if ( $request['items'] ) {
			$items = $wpdb->get_results( "SELECT id, MIN(type) type, LOWER(HEX(BIT_XOR(h))) digest FROM ($rows) r GROUP BY id ORDER BY id LIMIT " . ( self::ITEMS_MAX + 1 ), ARRAY_A ); // phpcs:ignore WordPress.DB.PreparedSQL
			$more  = count( $items ) > self::ITEMS_MAX;
			$items = array_map( static function ( $row ) {
				return [ 'id' => (int) $row['id'], 'type' => $row['type'], 'digest' => $row['digest'] ];
			}, array_slice( $items, 0, self::ITEMS_MAX ) );
			return [ 'kind' => $kind, 'from' => $from, 'to' => $to, 'items' => $items, 'more' => $more ];
		}
		$parts  = (int) $request['parts'];
		$width  = max( 1, $to - $from + 1 );
		$ranges = $wpdb->get_results( $wpdb->prepare( "SELECT FLOOR((id - %d) * %d / %d) part, SUM(n) count, LOWER(HEX(BIT_XOR(h))) digest FROM ($rows) r GROUP BY part ORDER BY part", $from, $parts, $width ), ARRAY_A ); // phpcs:ignore WordPress.DB.PreparedSQL
		$ranges = array_map( static function ( $row ) {
			return [ 'part' => (int) $row['part'], 'count' => (int) $row['count'], 'digest' => $row['digest'] ];
		}, $ranges );
		return [ 'kind' => $kind, 'from' => $from, 'to' => $to, 'parts' => $parts, 'ranges' => $ranges ];
	}

	/**
	 * The digests of the posts (or terms) with the given IDs that calshim holds, ID => hex: what the bulk load
	 * and the feed send with each object. Read before the objects themselves, so that a change made in
	 * between leaves calshim with an older digest (noticed at the next check), never with a newer one.
	 *
	 * @return object JSON object
	 */
	public static function digests( $kind, array $ids ) {
		return $ids ? self::digest_map( $kind, 'IN (' . implode( ',', array_map( 'intval', $ids ) ) . ')', '' ) : (object) [];
	}

	/** digests() of the posts of $type with $from <= ID <= $to (a bulk page). */
	public static function range_digests( $type, $from, $to ) {
		global $wpdb;
		return self::digest_map( 'posts', $wpdb->prepare( 'BETWEEN %d AND %d', $from, $to ), $wpdb->prepare( ' WHERE type = %s', $type ) );
	}

	private static function digest_map( $kind, $ids, $where ) {
		global $wpdb;
		$out  = [];
		$rows = self::rows( $kind, $ids );
		foreach ( $wpdb->get_results( "SELECT id, LOWER(HEX(BIT_XOR(h))) digest FROM ($rows) r$where GROUP BY id", ARRAY_N ) as $row ) { // phpcs:ignore WordPress.DB.PreparedSQL
			$out[ (int) $row[0] ] = $row[1];
		}
		return (object) $out;
	}

	/** 64 bits of the MD5 of an SQL expression, as an unsigned integer. */
	private static function h( $expr ) {
		return "CAST(CONV(LEFT(MD5($expr), 16), 16, 10) AS UNSIGNED)";
	}

	/**
	 * SQL selecting (id, type, n, h): one row per source row of the objects of $kind whose ID is $ids (an SQL
	 * "BETWEEN …" or "IN (…)"); n is 1 on the object's own row. An object's digest is BIT_XOR(h) of its rows.
	 * digest_rows() computes the same digests in PHP from rows already read (a bulk page).
	 */
	private static function rows( $kind, $ids ) {
		global $wpdb;
		$sep  = "CHAR(31)";
		$taxa = "'" . implode( "','", array_map( 'esc_sql', Calshim_Changes::TAXONOMIES ) ) . "'";
		if ( 'terms' === $kind ) {
			return "SELECT t.term_id id, tt.taxonomy type, 1 n, " . self::h( "CONCAT_WS($sep, t.term_id, t.name, t.slug, t.term_group, tt.term_taxonomy_id, tt.taxonomy, tt.description, tt.parent, tt.count)" ) . " h FROM {$wpdb->terms} t JOIN {$wpdb->term_taxonomy} tt ON tt.term_id = t.term_id WHERE tt.taxonomy IN ($taxa) AND t.term_id $ids";
		}
		$posts   = self::held_posts();
		$columns = implode( ', ', array_map( static function ( $column ) {
			return "p.$column";
		}, self::POST_DIGEST_COLUMNS ) );
		return "SELECT p.ID id, p.post_type type, 1 n, " . self::h( "CONCAT_WS($sep, $columns)" ) . " h FROM {$wpdb->posts} p WHERE $posts AND p.ID $ids"
			. " UNION ALL SELECT p.ID, p.post_type, 0, " . self::h( "CONCAT_WS($sep, 'm', m.post_id, m.meta_id, m.meta_key, m.meta_value)" ) . " FROM {$wpdb->postmeta} m JOIN {$wpdb->posts} p ON p.ID = m.post_id WHERE $posts AND m.post_id $ids AND " . self::digested_meta( 'm' )
			. " UNION ALL SELECT p.ID, p.post_type, 0, " . self::h( "CONCAT_WS($sep, 't', tr.object_id, tt.term_id)" ) . " FROM {$wpdb->term_relationships} tr JOIN {$wpdb->term_taxonomy} tt ON tt.term_taxonomy_id = tr.term_taxonomy_id JOIN {$wpdb->posts} p ON p.ID = tr.object_id WHERE $posts AND tr.object_id $ids AND tt.taxonomy IN ($taxa)";
	}

	/** The wp_posts columns of a post's own row in its digest, in order. */
	const POST_DIGEST_COLUMNS = [ 'ID', 'post_type', 'post_status', 'post_name', 'post_title', 'post_content', 'post_excerpt',
		'post_password', 'post_author', 'post_parent', 'menu_order', 'post_date', 'post_date_gmt', 'post_modified', 'post_modified_gmt' ];

	/**
	 * SQL condition on wp_postmeta $alias: the meta rows in a post's digest (the keys calshim maps,
	 * _thumbnail_id, the additional fields), compared as the database compares them (its collation).
	 */
	public static function digested_meta( $alias ) {
		global $wpdb;
		$keys = [ '_thumbnail_id' ];
		foreach ( Calshim_Bridge::META as $type_keys ) {
			$keys = array_merge( $keys, array_keys( $type_keys ) );
		}
		$keys   = "'" . implode( "','", array_map( 'esc_sql', array_unique( $keys ) ) ) . "'";
		$custom = esc_sql( $wpdb->esc_like( Calshim_Bridge::CUSTOM_FIELD_PREFIX ) ) . '%';
		return "($alias.meta_key IN ($keys) OR $alias.meta_key LIKE '$custom')";
	}

	/**
	 * digests() of posts from their rows, computed in PHP as rows() computes them in SQL (the same MD5 of the
	 * same bytes, NULLs skipped as CONCAT_WS skips them): $posts the wp_posts rows (objects), $meta
	 * [post_id, meta_id, meta_key, meta_value, whether digested_meta() selects it] for their meta rows,
	 * $relations [object_id, term_id] for the relationships to terms of the two taxonomies. Only when the connection's character set
	 * is the tables' (hashable()): PHP hashes the bytes it receives, MariaDB those it stores.
	 *
	 * @return object JSON object, ID => hex, in the order of $posts
	 */
	public static function digest_rows( array $posts, array $meta, array $relations ) {
		// Each digest is kept as its 8 bytes (the MD5's first 64 bits, big-endian) and XORed as a string.
		$acc = [];
		foreach ( $posts as $post ) {
			$fields = [];
			foreach ( self::POST_DIGEST_COLUMNS as $column ) {
				$fields[] = $post->$column; // NOT NULL columns
			}
			$acc[ (int) $post->ID ] = substr( md5( implode( "\x1f", $fields ), true ), 0, 8 );
		}
		foreach ( $meta as $row ) {
			$id = (int) $row[0];
			if ( isset( $acc[ $id ] ) && ! empty( $row[4] ) ) {
				$acc[ $id ] ^= md5( "m\x1f$row[0]\x1f$row[1]" . ( null === $row[2] ? '' : "\x1f$row[2]" ) . ( null === $row[3] ? '' : "\x1f$row[3]" ), true );
			}
		}
		foreach ( $relations as $row ) {
			$id = (int) $row[0];
			if ( isset( $acc[ $id ] ) ) {
				$acc[ $id ] ^= md5( "t\x1f$row[0]\x1f$row[1]", true );
			}
		}
		$out = [];
		foreach ( $acc as $id => $bytes ) {
			// LOWER(HEX(n)) of the unsigned 64-bit n: no leading zeros, "0" for zero.
			$hex        = ltrim( bin2hex( $bytes ), '0' );
			$out[ $id ] = '' === $hex ? '0' : $hex;
		}
		return (object) $out;
	}

	/** Whether digest_rows() hashes the bytes MariaDB would: the connection's character set is every digested column's. */
	public static function hashable() {
		global $wpdb;
		foreach ( [ $wpdb->posts => [ 'post_name', 'post_title', 'post_content', 'post_excerpt', 'post_password', 'post_type', 'post_status' ],
			$wpdb->postmeta => [ 'meta_key', 'meta_value' ] ] as $table => $columns ) {
			foreach ( $columns as $column ) {
				if ( $wpdb->get_col_charset( $table, $column ) !== $wpdb->charset ) {
					return false;
				}
			}
		}
		return true;
	}

	/** The highest ID of $kind calshim holds (0: none). */
	private static function max_id( $kind ) {
		global $wpdb;
		if ( 'terms' === $kind ) {
			$taxa = "'" . implode( "','", array_map( 'esc_sql', Calshim_Changes::TAXONOMIES ) ) . "'";
			return (int) $wpdb->get_var( "SELECT MAX(term_id) FROM {$wpdb->term_taxonomy} WHERE taxonomy IN ($taxa)" ); // phpcs:ignore WordPress.DB.PreparedSQL
		}
		return (int) $wpdb->get_var( "SELECT MAX(p.ID) FROM {$wpdb->posts} p WHERE " . self::held_posts() ); // phpcs:ignore WordPress.DB.PreparedSQL
	}

	/** SQL condition on wp_posts p: the posts calshim holds. */
	private static function held_posts() {
		return "p.post_type IN ('" . implode( "','", array_map( 'esc_sql', array_keys( Calshim_Bridge::META ) ) ) . "') AND p.post_status IN ('" . implode( "','", Calshim_Changes::STATUSES ) . "')";
	}

	/** Digest of each option calshim reads that exists, name => hex. */
	private static function options() {
		global $wpdb;
		$names = "'" . implode( "','", array_map( 'esc_sql', Calshim_Changes::OPTIONS ) ) . "'";
		$out   = [];
		foreach ( $wpdb->get_results( "SELECT option_name, LOWER(HEX(" . self::h( 'option_value' ) . ")) FROM {$wpdb->options} WHERE option_name IN ($names)", ARRAY_N ) as $row ) { // phpcs:ignore WordPress.DB.PreparedSQL
			$out[ $row[0] ] = $row[1];
		}
		return (object) $out;
	}
}
