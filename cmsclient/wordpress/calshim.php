<?php
/**
 * Plugin Name: calshim bridge
 * Plugin URI: https://calshim.example/
 * Description: The WordPress side of calshim, a service that serves The Events Calendar's REST API v1 from memory: exposes the calendar over wp/v2 and keeps the change feed calshim follows.
 * Version: 0.4.0
 * Requires at least: 5.7
 * Requires PHP: 7.4
 * Author: calshim maintainers
 * License: GPL-2.0-or-later
 * Update URI: false
 * Text Domain: calshim
 *
 * Why this plugin exists
 * ----------------------
 * calshim reads and writes calendar data through wp/v2 only. Stock WordPress does not know TEC's post types,
 * and even with TEC active they are not usable over wp/v2: TEC shows tribe_events in REST only to users with
 * manage_options, venues and organizers only with Events Calendar Pro, and its underscore meta keys are
 * "protected" (hidden from REST). This file closes exactly those gaps and nothing more:
 *
 *   a. post types and the category taxonomy: registered when absent (plain WordPress), otherwise only made
 *      visible in REST (TEC active);
 *   b. the meta keys TEC stores, registered for REST (readable; writable by whoever may edit the post);
 *   c. a read-only REST field `calshim` on events, venues and organizers with what wp/v2 lacks or renders
 *      differently from TEC (title without "Protected:" prefixes, rendered excerpt of the explicit excerpt only,
 *      raw meta rows, menu_order, password flag);
 *   d. a REST field `calshim` on event categories and tags (term_group, term_taxonomy_id);
 *   e. a `calshim` key in the REST index (/wp-json/) so calshim's readiness check can tell the plugin is there
 *      and read the site options that shape the v1 API;
 *   f. a read-only service role `calshim_reader`, allowed to list every status of the three post types through
 *      GET requests of the REST API, and nothing else;
 *   g. wp/v2 lists of the three post types stay plain WordPress queries: `modified_after` (core since 5.7),
 *      `status=trash` and every other core parameter work as on any post type, and with TEC active its query
 *      rewriting (upcoming events only, custom-tables joins that miss rows written outside TEC) is switched
 *      off for these REST queries only;
 *   h. a change log (class Calshim_Changes): every change of the three post types, of the attachments, of the
 *      two taxonomies' terms and of the options calshim reads gets a sequence number in the table
 *      {prefix}calshim_changes, whoever makes it (admin, wp/v2, TEC, WP-CLI, cron);
 *   i. the routes calshim syncs through, readable with the calshim_reader role or manage_options only:
 *      GET /calshim/v1/changes?since=SEQ (the change feed), GET /calshim/v1/bulk (the initial load) and
 *      GET /calshim/v1/media (featured images by ID, whatever their status);
 *   j. optionally, a push notice to the calshims configured in wp-config.php (CALSHIM_NOTIFY_URLS, or the
 *      option calshim_notify_urls within CALSHIM_NOTIFY_ALLOWED_ORIGINS) after a request logged changes, so
 *      they poll at once (Calshim_Changes::notify());
 *   k. none of the calendar's meta (whoever registered it for REST) and no `calshim` field in wp/v2 answers
 *      about a post the caller may not read in full (password not given, status not public), unless the
 *      caller is the service role or may edit the post: TEC's own API refuses such posts;
 *   l. calshim's If-Match, enforced where the write lands (class Calshim_Precondition): a version of each post
 *      and term in its `calshim` field, and wp/v2 writes that carry X-Calshim-If-Version run only on that
 *      version, under a lock on the object.
 *
 * The plugin never writes content. It writes options only to put roles and capabilities in place (once per
 * plugin version and each capability once, see ensure_roles()), to keep its change log (identity, pruning
 * floor) and to note when each calshim last read the change feed (Calshim_Admin, with the plugin's activation,
 * uninstall, WP-CLI commands and Site Health tests; Calshim_Screen, its page Tools > calshim).
 */

defined( 'ABSPATH' ) || exit;

// One copy at a time: on a site with both the must-use copy and the regular plugin, the copy WordPress loads
// first (must-use plugins load before plugins) runs, and the other stops here instead of declaring the
// classes again (a fatal error).
if ( defined( 'CALSHIM_PLUGIN_FILE' ) ) {
	return;
}
define( 'CALSHIM_PLUGIN_FILE', __FILE__ );

// A must-use copy that was cleaned up (wp calshim uninstall, or the clean-up button of Tools > calshim) but that
// WordPress could not delete stays inert until it is deleted: running, it would put its role and table back.
// The mark names this very file (its inode and time, see Calshim_Admin::file_mark()), so a copy installed again
// runs. It is autoloaded: reading it costs no query.
$calshim_options = wp_load_alloptions();
if ( isset( $calshim_options['calshim_retired'] ) && fileinode( __FILE__ ) . ':' . filemtime( __FILE__ ) === $calshim_options['calshim_retired'] ) {
	return;
}
unset( $calshim_options );

/**
 * Calshim_Bridge groups the plugin's hooks. All methods are static: it holds no state besides small caches.
 */
final class Calshim_Bridge {

	const VERSION = '0.4.0';

	const EVENT     = 'tribe_events';
	const VENUE     = 'tribe_venue';
	const ORGANIZER = 'tribe_organizer';
	const CATEGORY  = 'tribe_events_cat';

	/** Capability that lets a user see every post of the three post types (and their passwords) in REST reads. */
	const READ_ALL_CAP = 'calshim_read_all';

	/** Role of calshim's service account: read + calshim_read_all, so it can read everything and write nothing. */
	const READER_ROLE = 'calshim_reader';

	/** Option remembering for which plugin version roles and capabilities were last put in place. */
	const CAPS_OPTION = 'calshim_bridge_caps_version';

	/** Option remembering which capabilities the plugin granted to which role, so none is granted twice. */
	const GRANTED_OPTION = 'calshim_bridge_caps_granted';

	/**
	 * Features of the three post types. page-attributes exposes `menu_order` in wp/v2 (TEC marks sticky events
	 * with menu_order = -1), custom-fields is required for registered meta to appear in REST, author and
	 * thumbnail give `author` and `featured_media`.
	 */
	const SUPPORTS = [ 'title', 'editor', 'excerpt', 'author', 'thumbnail', 'custom-fields', 'revisions', 'page-attributes' ];

	/**
	 * Meta keys per post type, as TEC stores them (Tribe__Events__API::saveEventMeta, Tribe__Events__Venue and
	 * Tribe__Events__Organizer), in the order the `calshim.meta` field lists them. Value: true when a post may
	 * carry several rows of the key (registered with single = false).
	 */
	const META = [
		self::EVENT     => [
			'_EventStartDate'                     => false,
			'_EventEndDate'                       => false,
			'_EventStartDateUTC'                  => false,
			'_EventEndDateUTC'                    => false,
			'_EventDuration'                      => false,
			'_EventAllDay'                        => false,
			'_EventTimezone'                      => false,
			'_EventTimezoneAbbr'                  => false,
			'_EventCost'                          => true,
			'_EventCurrencySymbol'                => false,
			'_EventCurrencyCode'                  => false,
			'_EventCurrencyPosition'              => false,
			'_EventURL'                           => false,
			'_EventShowMap'                       => false,
			'_EventShowMapLink'                   => false,
			'_EventHideFromUpcoming'              => false,
			'_EventVenueID'                       => true,
			'_EventOrganizerID'                   => true,
			'_tribe_featured'                     => false,
			'_EventOrigin'                        => false,
			'_tribe_aggregator_global_id_lineage' => true,
		],
		self::VENUE     => [
			'_VenueAddress'                       => false,
			'_VenueCity'                          => false,
			'_VenueCountry'                       => false,
			'_VenueProvince'                      => false,
			'_VenueState'                         => false,
			'_VenueStateProvince'                 => false,
			'_VenueZip'                           => false,
			'_VenuePhone'                         => false,
			'_VenueURL'                           => false,
			'_VenueShowMap'                       => false,
			'_VenueShowMapLink'                   => false,
			'_EventShowMap'                       => false,
			'_EventShowMapLink'                   => false,
			'_VenueLat'                           => false,
			'_VenueLng'                           => false,
			'_VenueOrigin'                        => false,
			'_tribe_aggregator_global_id_lineage' => true,
		],
		self::ORGANIZER => [
			'_OrganizerPhone'                     => false,
			'_OrganizerEmail'                     => false,
			'_OrganizerWebsite'                   => false,
			'_OrganizerOrigin'                    => false,
			'_tribe_aggregator_global_id_lineage' => true,
		],
	];

	/** Prefix of TEC's "additional fields" meta keys (option custom-fields), listed in `calshim.meta` too. */
	const CUSTOM_FIELD_PREFIX = '_ecp_custom_';

	/**
	 * The calendar's meta keys, whoever registers them for REST: TEC's (_Event…, _Venue…, _Organizer…, _tribe_…,
	 * its block editor's among them) and its additional fields. Every key of self::META matches. A prefix rule
	 * rather than a list, so that keys TEC or an add-on registers later are covered too.
	 */
	const CALENDAR_META = '/^_(Event|Venue|Organizer|tribe_|ecp_custom_)/';

	/** @var string[]|null Primitive caps granted to calshim readers on REST reads (computed once types exist). */
	private static $read_caps = null;

	/** Hooks everything up. Called once when WordPress loads the must-use plugins. */
	public static function boot() {
		// (a) Visibility in REST of TEC's own registrations, and registration when TEC is absent. Priority 20 on
		// init runs after TEC (which registers on init 10), so post_type_exists() tells whether TEC is active.
		add_filter( 'register_post_type_args', [ __CLASS__, 'filter_post_type_args' ], 99, 2 );
		add_filter( 'register_taxonomy_args', [ __CLASS__, 'filter_taxonomy_args' ], 99, 2 );
		add_action( 'init', [ __CLASS__, 'register_types' ], 20 );
		// (b) Meta keys, after TEC's block-editor registrations (init 15) so that those are left alone.
		add_action( 'init', [ __CLASS__, 'register_meta' ], 21 );
		// (f) Roles and capabilities.
		add_action( 'init', [ __CLASS__, 'ensure_roles' ], 22 );
		add_filter( 'user_has_cap', [ __CLASS__, 'grant_read_caps' ], 10, 4 );
		// (c), (d) REST fields, shown on wp/v2 only; (e) REST index.
		add_action( 'rest_api_init', [ __CLASS__, 'register_rest_fields' ] );
		foreach ( [ self::EVENT, self::VENUE, self::ORGANIZER, self::CATEGORY, 'post_tag' ] as $object_type ) {
			add_filter( "rest_prepare_{$object_type}", [ __CLASS__, 'strip_outside_wp_v2' ], 999, 3 );
		}
		// (k) Nothing of the calendar's storage for whom may not read the post in full: after every other
		// callback of the filter (TEC adds to `meta` at 10), so that whatever they put there is covered.
		foreach ( array_keys( self::META ) as $post_type ) {
			add_filter( "rest_prepare_{$post_type}", [ __CLASS__, 'hide_from_outsiders' ], PHP_INT_MAX, 3 );
		}
		add_filter( 'rest_index', [ __CLASS__, 'rest_index' ] );
		// (g) Plain queries behind wp/v2 lists.
		foreach ( array_keys( self::META ) as $post_type ) {
			add_filter( "rest_{$post_type}_query", [ __CLASS__, 'plain_rest_query' ] );
		}
		// (h) Rejected application passwords reported, just before core's check at priority 90.
		add_filter( 'rest_authentication_errors', [ __CLASS__, 'try_application_password' ], 89 );
	}

	/**
	 * Asks for the current user once REST_REQUEST is defined. WP::init determines the user before that, when
	 * WordPress does not try application passwords yet, and core asks again only at priority 100
	 * (rest_cookie_check_errors), after rest_application_password_check_errors (90) has looked: a wrong
	 * application password would pass as anonymous. With The Events Calendar active its own early checks
	 * make WordPress answer 401 incorrect_password / invalid_username, which is what the original's
	 * clients get; this makes a site without it answer the same.
	 */
	public static function try_application_password( $result ) {
		if ( empty( $result ) && isset( $_SERVER['PHP_AUTH_USER'] ) ) {
			is_user_logged_in();
		}
		return $result;
	}

	/** Whether The Events Calendar itself is loaded (then its registrations are kept, only exposed). */
	public static function tec_active() {
		return class_exists( 'Tribe__Events__Main' );
	}

	// ---------------------------------------------------------------------------------------------------------
	// (a) Post types and taxonomy
	// ---------------------------------------------------------------------------------------------------------

	/**
	 * Forces REST exposure of the three post types, whoever registers them (TEC shows them in REST only to
	 * administrators, venues and organizers only with Pro): show_in_rest, rest_base = post type name (routes
	 * /wp/v2/tribe_events, /wp/v2/tribe_venue, /wp/v2/tribe_organizer), and the supports calshim needs.
	 */
	public static function filter_post_type_args( $args, $post_type ) {
		if ( ! isset( self::META[ $post_type ] ) ) {
			return $args;
		}
		$args['show_in_rest'] = true;
		$args['rest_base']    = $post_type;
		$supports             = isset( $args['supports'] ) && is_array( $args['supports'] ) ? $args['supports'] : [ 'title', 'editor' ];
		$args['supports']     = array_values( array_unique( array_merge( $supports, self::SUPPORTS ) ) );
		return $args;
	}

	/** Forces REST exposure of the event category taxonomy (route /wp/v2/tribe_events_cat). */
	public static function filter_taxonomy_args( $args, $taxonomy ) {
		if ( self::CATEGORY === $taxonomy ) {
			$args['show_in_rest'] = true;
			$args['rest_base']    = self::CATEGORY;
		}
		return $args;
	}

	/**
	 * Registers the post types and the category taxonomy the way TEC does (same names, rewrite slugs,
	 * capability types with meta-cap mapping, taxonomy capabilities), but only those that are absent: with
	 * TEC active nothing is registered again. post_tag is attached to events in both cases.
	 */
	public static function register_types() {
		if ( ! post_type_exists( self::EVENT ) ) {
			register_post_type( self::EVENT, [
				'labels'          => self::labels( 'Events', 'Event' ),
				'public'          => true,
				'rewrite'         => [ 'slug' => 'event', 'with_front' => false ],
				'has_archive'     => 'events',
				'menu_position'   => 6,
				'menu_icon'       => 'dashicons-calendar',
				'supports'        => self::SUPPORTS,
				'taxonomies'      => [ 'post_tag' ],
				'capability_type' => [ 'tribe_event', 'tribe_events' ],
				'map_meta_cap'    => true,
				'show_in_rest'    => true,
				'rest_base'       => self::EVENT,
			] );
		}
		// Venues and organizers are not public in TEC without Pro (no front-end archive), but keep their
		// permalink structure (/venue/<slug>/, /organizer/<slug>/), which TEC reports as their `url`.
		$linked = [
			self::VENUE     => [ 'venue', 'Venues', 'Venue', [ 'tribe_venue', 'tribe_venues' ] ],
			self::ORGANIZER => [ 'organizer', 'Organizers', 'Organizer', [ 'tribe_organizer', 'tribe_organizers' ] ],
		];
		foreach ( $linked as $post_type => list( $slug, $plural, $singular, $capability_type ) ) {
			if ( post_type_exists( $post_type ) ) {
				continue;
			}
			register_post_type( $post_type, [
				'labels'              => self::labels( $plural, $singular ),
				'public'              => false,
				'show_ui'             => true,
				'show_in_menu'        => 'edit.php?post_type=' . self::EVENT,
				'exclude_from_search' => true,
				'rewrite'             => [ 'slug' => $slug, 'with_front' => false ],
				'supports'            => self::SUPPORTS,
				'capability_type'     => $capability_type,
				'map_meta_cap'        => true,
				'show_in_rest'        => true,
				'rest_base'           => $post_type,
			] );
		}
		if ( ! taxonomy_exists( self::CATEGORY ) ) {
			register_taxonomy( self::CATEGORY, self::EVENT, [
				'labels'            => self::labels( 'Event Categories', 'Event Category' ),
				'hierarchical'      => true,
				'public'            => true,
				'show_ui'           => true,
				'show_admin_column' => true,
				'rewrite'           => [ 'slug' => 'events/category', 'with_front' => false, 'hierarchical' => true ],
				'capabilities'      => [
					'manage_terms' => 'publish_tribe_events',
					'edit_terms'   => 'publish_tribe_events',
					'delete_terms' => 'publish_tribe_events',
					'assign_terms' => 'edit_tribe_events',
				],
				'show_in_rest'      => true,
				'rest_base'         => self::CATEGORY,
			] );
		}
		register_taxonomy_for_object_type( 'post_tag', self::EVENT );
	}

	private static function labels( $plural, $singular ) {
		return [
			'name'          => $plural,
			'singular_name' => $singular,
			'add_new_item'  => 'Add New ' . $singular,
			'edit_item'     => 'Edit ' . $singular,
			'all_items'     => 'All ' . $plural,
		];
	}

	// ---------------------------------------------------------------------------------------------------------
	// (b) Meta keys
	// ---------------------------------------------------------------------------------------------------------

	/**
	 * Registers TEC's meta keys for REST (`meta` on wp/v2) as strings, readable by whoever can read the post and
	 * writable by whoever can edit it (underscore keys are protected by default: no REST access at all).
	 * Keys that someone else (TEC's block editor, with its own types) already registered for REST are left
	 * alone so TEC's editor keeps working; TEC's "additional fields" (_ecp_custom_*) are registered from its
	 * option when it defines any.
	 */
	public static function register_meta() {
		$auth = static function ( $allowed, $meta_key, $post_id ) {
			return current_user_can( 'edit_post', $post_id );
		};
		$custom = self::custom_field_keys();
		foreach ( self::META as $post_type => $keys ) {
			$taken = array_merge( get_registered_meta_keys( 'post' ), get_registered_meta_keys( 'post', $post_type ) );
			if ( self::EVENT === $post_type ) {
				$keys += array_fill_keys( $custom, false );
			}
			foreach ( $keys as $key => $multiple ) {
				if ( ! empty( $taken[ $key ]['show_in_rest'] ) ) {
					continue;
				}
				register_post_meta( $post_type, $key, [
					'type'          => 'string',
					'single'        => ! $multiple,
					'show_in_rest'  => true,
					'auth_callback' => $auth,
				] );
			}
		}
	}

	/** Meta keys of TEC's additional fields (option tribe_events_calendar_options['custom-fields']). */
	private static function custom_field_keys() {
		$options = get_option( 'tribe_events_calendar_options', [] );
		$keys    = [];
		if ( is_array( $options ) && ! empty( $options['custom-fields'] ) && is_array( $options['custom-fields'] ) ) {
			foreach ( $options['custom-fields'] as $field ) {
				if ( is_array( $field ) && ! empty( $field['name'] ) && is_string( $field['name'] ) ) {
					$keys[] = $field['name'];
				}
			}
		}
		return $keys;
	}

	// ---------------------------------------------------------------------------------------------------------
	// (c), (d) REST fields
	// ---------------------------------------------------------------------------------------------------------

	/**
	 * Removes the `calshim` field from responses of other namespaces. TEC's own API (v1 categories and tags)
	 * renders terms with the core terms controller, so the registered field would show up there and change
	 * TEC's responses; it belongs to wp/v2 only.
	 */
	public static function strip_outside_wp_v2( $response, $object, $request ) {
		if ( $response instanceof WP_REST_Response && $request instanceof WP_REST_Request
			&& 0 !== strpos( $request->get_route(), '/wp/v2/' ) ) {
			$data = $response->get_data();
			if ( is_array( $data ) && array_key_exists( 'calshim', $data ) ) {
				unset( $data['calshim'] );
				$response->set_data( $data );
			}
		}
		return $response;
	}

	/** Registers the read-only `calshim` fields on the three post types and on the two taxonomies. */
	public static function register_rest_fields() {
		register_rest_field( [ self::EVENT, self::VENUE, self::ORGANIZER ], 'calshim', [
			'get_callback' => [ __CLASS__, 'post_field' ],
			'schema'       => [
				'description' => 'What calshim needs beyond wp/v2: TEC-style rendering, raw TEC meta rows, menu_order.',
				'type'        => 'object',
				'context'     => [ 'view', 'edit', 'embed' ],
				'readonly'    => true,
			],
		] );
		// Terms controllers name their object type after the schema title: 'tag' for post_tag.
		register_rest_field( [ self::CATEGORY, 'tag' ], 'calshim', [
			'get_callback' => [ __CLASS__, 'term_field' ],
			'schema'       => [
				'description' => 'Raw term columns TEC shows in embedded terms.',
				'type'        => 'object',
				'context'     => [ 'view', 'edit', 'embed' ],
				'readonly'    => true,
			],
		] );
	}

	/**
	 * Builds the `calshim` field of an event, venue or organizer:
	 *
	 *   title         post title through the the_title filters (texturized, e.g. "Yesterday&#8217;s Lecture")
	 *                 without WordPress' "Protected: " / "Private: " prefixes — as TEC shows it;
	 *   content       post content through the_content (blocks, shortcodes, wpautop), trimmed, as TEC's
	 *                 `description`; "" for a password-protected post unless the caller may see it (below);
	 *   excerpt       the explicit excerpt through the_excerpt ("<p>…</p>"), trimmed; "" without explicit excerpt
	 *                 (TEC never auto-generates it in the API);
	 *   excerpt_text  plain text: the explicit excerpt, else the content trimmed to excerpt_length (55) words with
	 *                 excerpt_more (" [&hellip;]"), as TEC's JSON-LD description before its <p> wrapping;
	 *   password      post_password for callers who may see it, else "";
	 *   protected     whether the post has a password;
	 *   menu_order    int (TEC: -1 = sticky), parent: int;
 *   post_date_gmt the stored column, "Y-m-d H:i:s": "0000-00-00 00:00:00" for never-published drafts, which TEC
 *                 shows as such (`date_utc`) while wp/v2's date_gmt makes up a value from the local date;
 *   post_modified_gmt the stored column likewise (zero for a draft never saved again; TEC's `modified_utc`);
	 *   meta          {key: [row, ...]} for every stored key of self::META (plus _ecp_custom_*), rows as stored
	 *                 strings in meta_id order — the exact storage, for the shim to map itself;
	 *   version       the version of the stored post If-Match compares (Calshim_Precondition).
	 *
	 * "May see it" = the caller has calshim_read_all or can edit the post, or sent the right `password` parameter
	 * (wp/v2 accepts ?password= on single reads).
	 */
	public static function post_field( $data, $field_name, $request ) {
		$post = get_post( isset( $data['id'] ) ? (int) $data['id'] : 0 );
		if ( ! $post ) {
			return null;
		}
		return self::post_fields( $post, self::privileged( $post ), $request );
	}

	/** Whether the caller may see everything of $post: calshim's service account, or whoever may edit it. */
	private static function privileged( WP_Post $post ) {
		return current_user_can( self::READ_ALL_CAP ) || current_user_can( 'edit_post', $post->ID );
	}

	/** Whether $post has a password the request did not give (wp/v2 accepts ?password= as core checks it). */
	private static function password_withheld( WP_Post $post, $request ) {
		if ( '' === $post->post_password ) {
			return false;
		}
		$given = $request instanceof WP_REST_Request ? $request->get_param( 'password' ) : null;
		return ! ( is_string( $given ) && hash_equals( $post->post_password, $given ) );
	}

	/**
	 * (k) Removes the calendar's meta keys (CALENDAR_META, whoever registered them) and the `calshim` field from
	 * a wp/v2 answer about an event, venue or organizer the caller may not read in full: one whose password
	 * the request did not give, or whose status is not public (draft, pending, future, private, trash), unless
	 * the caller is privileged (calshim's service account, or may edit the post). TEC's own API answers
	 * 403/401 for such posts; without this, wp/v2 would show their cost, venue, organizers and the rest to
	 * anyone. Runs for single items, lists and embeds alike, before `_fields` trims the answer.
	 */
	public static function hide_from_outsiders( $response, $post, $request ) {
		if ( ! $response instanceof WP_REST_Response || ! $post instanceof WP_Post ) {
			return $response;
		}
		$status = get_post_status_object( $post->post_status );
		if ( ( $status && $status->public && ! self::password_withheld( $post, $request ) ) || self::privileged( $post ) ) {
			return $response;
		}
		$data = $response->get_data();
		if ( ! is_array( $data ) ) {
			return $response;
		}
		unset( $data['calshim'] );
		if ( isset( $data['meta'] ) && is_array( $data['meta'] ) ) {
			foreach ( preg_grep( self::CALENDAR_META, array_keys( $data['meta'] ) ) as $key ) {
				unset( $data['meta'][ $key ] );
			}
		}
		$response->set_data( $data );
		return $response;
	}

	/** The `calshim` field of $post, for a caller who may see its password and content or not ($privileged). */
	public static function post_fields( WP_Post $post, $privileged, $request ) {
		$protected  = '' !== $post->post_password;
		$can_see    = $privileged || ! self::password_withheld( $post, $request );

		$content = '';
		$excerpt = '';
		$text    = '';
		if ( $can_see ) {
			$content = trim( apply_filters( 'the_content', $post->post_content ) );
			if ( '' !== $post->post_excerpt ) {
				$excerpt = trim( apply_filters( 'the_excerpt', $post->post_excerpt ) );
			}
			$text = self::excerpt_text( $post );
		}

		return [
			'title'         => trim( apply_filters( 'the_title', $post->post_title, $post->ID ) ),
			'content'       => $content,
			'excerpt'       => $excerpt,
			'excerpt_text'  => $text,
			'password'      => $privileged ? $post->post_password : '',
			'protected'     => $protected,
			'menu_order'    => (int) $post->menu_order,
			'parent'        => (int) $post->post_parent,
			'post_date_gmt' => $post->post_date_gmt,
			'post_modified_gmt' => $post->post_modified_gmt,
			'meta'          => self::meta_rows( $post ),
			'version'       => Calshim_Precondition::post_version( $post ),
		];
	}

	/** Plain-text excerpt: the explicit one, else the first excerpt_length words of the content. */
	private static function excerpt_text( WP_Post $post ) {
		$explicit = '' !== trim( $post->post_excerpt );
		$text     = $explicit ? $post->post_excerpt : $post->post_content;
		// Block markup only: without it the parse would give the text back (and costs a parse per post).
		if ( function_exists( 'excerpt_remove_blocks' ) && has_blocks( $text ) ) {
			$text = excerpt_remove_blocks( $text );
		}
		$text = preg_replace( '#\[.+\]#U', '', $text ); // shortcodes removed, as TEC's excerpt does
		if ( $explicit ) {
			return trim( wp_strip_all_tags( $text ) );
		}
		$length = (int) apply_filters( 'excerpt_length', 55 );
		$more   = apply_filters( 'excerpt_more', ' [&hellip;]' );
		return trim( wp_trim_words( $text, $length, $more ) );
	}

	/**
	 * Stored meta rows of the keys calshim maps, in the order of self::META then the additional fields sorted
	 * by key. Reads the post's meta cache, which WordPress primes for the whole page of a REST list.
	 *
	 * @return object JSON object (empty {} when the post has none of the keys).
	 */
	public static function meta_rows( WP_Post $post ) {
		$all  = get_post_meta( $post->ID ); // key => rows, in meta_id order
		$out  = [];
		$keys = isset( self::META[ $post->post_type ] ) ? self::META[ $post->post_type ] : [];
		foreach ( array_keys( $keys ) as $key ) {
			if ( isset( $all[ $key ] ) ) {
				$out[ $key ] = array_map( 'strval', $all[ $key ] );
			}
		}
		$custom = preg_grep( '/^' . preg_quote( self::CUSTOM_FIELD_PREFIX, '/' ) . '/', array_keys( $all ) );
		sort( $custom, SORT_STRING );
		foreach ( $custom as $key ) {
			$out[ $key ] = array_map( 'strval', $all[ $key ] );
		}
		return (object) $out;
	}

	/** Builds the `calshim` field of an event category or tag: the raw term columns TEC embeds in events. */
	public static function term_field( $data ) {
		$term = get_term( isset( $data['id'] ) ? (int) $data['id'] : 0 );
		if ( ! $term instanceof WP_Term ) {
			return null;
		}
		return [
			'term_group'       => (int) $term->term_group,
			'term_taxonomy_id' => (int) $term->term_taxonomy_id,
			'version'          => Calshim_Precondition::term_version( $term ),
		];
	}

	// ---------------------------------------------------------------------------------------------------------
	// (e) REST index
	// ---------------------------------------------------------------------------------------------------------

	/**
	 * Adds `calshim` to GET /wp-json/: the plugin version (readiness: the plugin is installed), WordPress'
	 * posts_per_page, and TEC's options that shape the v1 API (defaults when TEC never stored them).
	 */
	public static function rest_index( $response ) {
		$options = get_option( 'tribe_events_calendar_options', [] );
		$options = is_array( $options ) ? $options : [];
		$tec_ppp = isset( $options['posts_per_page'] ) ? $options['posts_per_page'] : ( isset( $options['postsPerPage'] ) ? $options['postsPerPage'] : null );
		$data    = $response->get_data();

		$data['calshim'] = [
			'version'        => self::VERSION,
			'posts_per_page' => (int) get_option( 'posts_per_page' ),
			'tec'            => [
				'multiDayCutoff'          => isset( $options['multiDayCutoff'] ) ? (string) $options['multiDayCutoff'] : '00:00',
				'defaultCurrencySymbol'   => isset( $options['defaultCurrencySymbol'] ) ? (string) $options['defaultCurrencySymbol'] : '$',
				'defaultCurrencyCode'     => isset( $options['defaultCurrencyCode'] ) ? (string) $options['defaultCurrencyCode'] : 'USD',
				'reverseCurrencyPosition' => isset( $options['reverseCurrencyPosition'] ) ? self::truthy( $options['reverseCurrencyPosition'] ) : false,
				'posts_per_page'          => null === $tec_ppp || '' === $tec_ppp ? null : (int) $tec_ppp,
			],
			'tec_active'     => self::tec_active(),
			// calshim syncs through /calshim/v1/changes and /calshim/v1/bulk when this is present.
			'sync'           => Calshim_Changes::PROTOCOL,
		];
		$response->set_data( $data );
		return $response;
	}

	/** TEC's notion of a truthy option value (tribe_is_truthy). */
	private static function truthy( $value ) {
		if ( is_bool( $value ) ) {
			return $value;
		}
		return in_array( strtolower( trim( (string) $value ) ), [ '1', 'yes', 'true', 'on', 'y', 'enable', 'enabled' ], true );
	}

	// ---------------------------------------------------------------------------------------------------------
	// (f) Roles and read-only access for calshim's service account
	// ---------------------------------------------------------------------------------------------------------

	/**
	 * Puts roles and capabilities in place once per plugin version (they live in the wp_user_roles option):
	 * the calshim_reader role, and TEC's grants of the three post types' primitive capabilities
	 * (administrator/editor: all; author: own incl. published, publish; contributor: own unpublished;
	 * subscriber: read) — the same as TEC's Capabilities class, so a site without TEC behaves alike.
	 *
	 * Each capability is granted once: the option GRANTED_OPTION remembers, per role, what the plugin ever
	 * granted, and a capability an administrator revoked afterwards (or a reader role they deleted) stays
	 * revoked, through later versions too. A capability a role already holds or explicitly denies is left as
	 * it is. On a site where a version that kept no such record ran, everything counts as granted already.
	 */
	public static function ensure_roles() {
		if ( wp_installing() ) {
			return; // no tables yet; WordPress creates the default roles after this request
		}
		if ( get_option( self::CAPS_OPTION ) === self::VERSION ) {
			return;
		}
		$record  = get_option( self::GRANTED_OPTION );
		$granted = is_array( $record ) ? $record : [];
		$earlier = ! is_array( $record ) && false !== get_option( self::CAPS_OPTION );
		foreach ( self::wanted_caps() as $role_name => $caps ) {
			$done = isset( $granted[ $role_name ] ) ? (array) $granted[ $role_name ] : [];
			$new  = array_values( array_diff( $caps, $done ) );
			$role = get_role( $role_name );
			if ( ! $new || ( ! $role && ( $done || self::READER_ROLE !== $role_name ) ) ) {
				continue;
			}
			if ( ! $earlier && ! $role ) {
				add_role( self::READER_ROLE, 'calshim reader (read-only service account)', array_fill_keys( $new, true ) );
			} elseif ( ! $earlier ) {
				foreach ( $new as $cap ) {
					if ( ! array_key_exists( $cap, $role->capabilities ) ) {
						$role->add_cap( $cap );
					}
				}
			}
			$granted[ $role_name ] = array_merge( $done, $new );
		}
		update_option( self::GRANTED_OPTION, $granted, false );
		update_option( self::CAPS_OPTION, self::VERSION );
	}

	/** The capabilities the plugin gives each role (see ensure_roles()). */
	private static function wanted_caps() {
		$levels = [
			'editor'      => [ 'read', 'read_private_posts', 'edit_posts', 'edit_others_posts', 'edit_private_posts',
				'edit_published_posts', 'delete_posts', 'delete_others_posts', 'delete_private_posts',
				'delete_published_posts', 'publish_posts' ],
			'author'      => [ 'read', 'edit_posts', 'edit_published_posts', 'delete_posts', 'delete_published_posts', 'publish_posts' ],
			'contributor' => [ 'read', 'edit_posts', 'delete_posts' ],
			'subscriber'  => [ 'read' ],
		];
		$roles  = [ 'administrator' => 'editor', 'editor' => 'editor', 'author' => 'author', 'contributor' => 'contributor', 'subscriber' => 'subscriber' ];
		$wanted = [ self::READER_ROLE => [ 'read', self::READ_ALL_CAP ] ];
		foreach ( $roles as $role_name => $level ) {
			$caps = [];
			foreach ( [ self::EVENT, self::VENUE, self::ORGANIZER ] as $post_type ) {
				$pto = get_post_type_object( $post_type );
				foreach ( $pto ? $levels[ $level ] : [] as $alias ) {
					if ( isset( $pto->cap->$alias ) ) {
						$caps[] = $pto->cap->$alias;
					}
				}
			}
			$wanted[ $role_name ] = array_values( array_unique( $caps ) );
		}
		return $wanted;
	}

	/**
	 * Lets users with calshim_read_all list and read every status (draft, pending, future, private, trash) of the
	 * three post types through wp/v2 — but only while serving a GET or HEAD REST request, so the grant can never
	 * be used to write. wp/v2 checks edit_{type} to accept status=draft…, and read_post (mapped to
	 * edit_others_/edit_private_/edit_published_/read_private_{type}) for each post.
	 */
	public static function grant_read_caps( $allcaps, $caps, $args, $user ) {
		if ( empty( $allcaps[ self::READ_ALL_CAP ] ) || ! self::is_read_only_rest_request() ) {
			return $allcaps;
		}
		foreach ( self::read_caps() as $cap ) {
			$allcaps[ $cap ] = true;
		}
		return $allcaps;
	}

	/**
	 * Whether the current request is a REST request whose effective method is GET or HEAD. The method override
	 * WordPress honours (?_method=, X-HTTP-Method-Override) is checked too: a GET turned into a DELETE is no read.
	 */
	private static function is_read_only_rest_request() {
		if ( ! defined( 'REST_REQUEST' ) || ! REST_REQUEST ) {
			return false;
		}
		$reads  = [ 'GET', 'HEAD' ];
		$method = isset( $_SERVER['REQUEST_METHOD'] ) ? strtoupper( (string) $_SERVER['REQUEST_METHOD'] ) : '';
		if ( ! in_array( $method, $reads, true ) ) {
			return false;
		}
		foreach ( [ isset( $_GET['_method'] ) ? $_GET['_method'] : null, isset( $_SERVER['HTTP_X_HTTP_METHOD_OVERRIDE'] ) ? $_SERVER['HTTP_X_HTTP_METHOD_OVERRIDE'] : null ] as $override ) {
			if ( null !== $override && ! in_array( strtoupper( (string) $override ), $reads, true ) ) {
				return false;
			}
		}
		return true;
	}

	/** The primitive caps of the three post types that reading every status needs. */
	private static function read_caps() {
		if ( null !== self::$read_caps ) {
			return self::$read_caps;
		}
		$caps = [];
		foreach ( [ self::EVENT, self::VENUE, self::ORGANIZER ] as $post_type ) {
			$pto = get_post_type_object( $post_type );
			if ( ! $pto ) {
				return $caps; // types not registered yet: grant nothing, compute again later
			}
			foreach ( [ 'edit_posts', 'edit_others_posts', 'edit_private_posts', 'edit_published_posts', 'read_private_posts' ] as $alias ) {
				$caps[] = $pto->cap->$alias;
			}
		}
		self::$read_caps = $caps;
		return $caps;
	}

	// ---------------------------------------------------------------------------------------------------------
	// (g) Plain queries behind wp/v2 lists
	// ---------------------------------------------------------------------------------------------------------

	/**
	 * Keeps the WP_Query behind a wp/v2 list of events, venues or organizers a plain WordPress query. Without TEC
	 * these flags mean nothing. With TEC active, its query layer would otherwise (1) show only upcoming events to
	 * anyone outside wp-admin (tribe_suppress_query_filters turns Tribe__Events__Query off) and (2) answer event
	 * queries from its custom tables, which miss events written to posts/meta by other means
	 * (tec_events_ignore turns the custom-tables modifiers off). calshim needs the posts table as it is.
	 */
	public static function plain_rest_query( $args ) {
		$args['tribe_suppress_query_filters'] = true;
		$args['tec_events_ignore']            = true;
		return $args;
	}
}

Calshim_Bridge::boot();

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
 * (post type, taxonomy or option name), object_id, deleted, changed_ms (unix milliseconds). It is created on
 * first use; its identity (option calshim_changes_log, a UUID) is created with it, so a reset or restored
 * table is noticed by calshim. Rows older than the retention (7 days; filter calshim_changes_retention, in
 * seconds) are pruned at most once an hour; the highest pruned sequence is the floor (option
 * calshim_changes_floor): a `since` below it answers 410 calshim_changes_expired and calshim reloads.
 */
final class Calshim_Changes {

	/** Version of the sync protocol, published in the REST index (`calshim.sync`). */
	const PROTOCOL = 1;

	const SCHEMA_OPTION = 'calshim_changes_schema';
	const SCHEMA        = '1';
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
		$now    = self::now_ms();
		$values = [];
		foreach ( $rows as list( $kind, $type, $id, $deleted ) ) {
			$values[] = $wpdb->prepare( '(%s, %s, %d, %d, %d)', $kind, $type, $id, $deleted ? 1 : 0, $now );
		}
		$table = self::table();
		$sql   = "INSERT INTO $table (kind, object_type, object_id, deleted, changed_ms) VALUES " . implode( ',', $values );
		$suppress = $wpdb->suppress_errors( true );
		$ok       = false !== $wpdb->query( $sql ); // phpcs:ignore WordPress.DB.PreparedSQL
		$wpdb->suppress_errors( $suppress );
		return $ok;
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
			$wpdb->query( "CREATE TABLE IF NOT EXISTS $table ( seq BIGINT UNSIGNED NOT NULL AUTO_INCREMENT, kind VARCHAR(8) NOT NULL, object_type VARCHAR(64) NOT NULL, object_id BIGINT UNSIGNED NOT NULL, deleted TINYINT(1) NOT NULL DEFAULT 0, changed_ms BIGINT UNSIGNED NOT NULL, PRIMARY KEY (seq), KEY changed_ms (changed_ms) ) $charset" ); // phpcs:ignore WordPress.DB.PreparedSQL
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
		$rows  = $wpdb->get_results( $wpdb->prepare( "SELECT seq, kind, object_type, object_id, deleted, changed_ms FROM $table WHERE seq > %d ORDER BY seq LIMIT %d", $since, self::BATCH + 1 ) ); // phpcs:ignore WordPress.DB.PreparedSQL
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
		foreach ( $rows as $row ) {
			$id = (int) $row->object_id;
			if ( 'option' === $row->kind ) {
				$options[ $row->object_type ] = true;
			} elseif ( 'term' === $row->kind ) {
				$terms[ $row->object_type ][ $id ] = ! empty( $row->deleted ); // the newest row wins
			} else {
				$posts[ $row->object_type ][ $id ] = ! empty( $row->deleted );
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
			$out['posts']->$type = [ 'changed' => array_keys( $posts[ $type ] ), 'items' => $items, 'digests' => $digests ];
			$deleted['posts']    = array_merge( $deleted['posts'], self::gone_ids( $posts[ $type ], $items ) );
		}
		foreach ( self::TAXONOMIES as $taxonomy ) {
			if ( empty( $terms[ $taxonomy ] ) ) {
				continue;
			}
			$base    = self::rest_base( get_taxonomy( $taxonomy ), $taxonomy );
			$digests = Calshim_Verify::digests( 'terms', array_keys( $terms[ $taxonomy ] ) );
			$items   = self::read( '/wp/v2/' . $base, array_keys( $terms[ $taxonomy ] ), $forward + [ 'hide_empty' => false, '_fields' => self::TERM_FIELDS ] );
			$out['terms']->$base = [ 'changed' => array_keys( $terms[ $taxonomy ] ), 'items' => $items, 'digests' => $digests ];
			$deleted['terms']    = array_merge( $deleted['terms'], self::gone_ids( $terms[ $taxonomy ], $items ) );
		}
		$attachments      = isset( $posts['attachment'] ) ? $posts['attachment'] : [];
		$deleted['media'] = array_keys( array_filter( $attachments ) );
		$media_ids        = array_values( array_unique( array_merge( $featured, self::featured( array_keys( $attachments ) ) ) ) );
		$out['media']     = [ 'changed' => array_keys( $attachments ), 'items' => self::media_items( $media_ids ) ];
		$out['deleted']   = $deleted;
		return $out;
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
		$digests = Calshim_Verify::range_digests( $type, (int) $request->get_param( 'from' ), (int) $request->get_param( 'to' ) );
		$rows    = $wpdb->get_results( $wpdb->prepare( "SELECT * FROM {$wpdb->posts} WHERE post_type = %s AND post_status IN ($statuses) AND ID BETWEEN %d AND %d ORDER BY ID LIMIT %d", $type, (int) $request->get_param( 'from' ), (int) $request->get_param( 'to' ), self::BULK_MAX ) ); // phpcs:ignore WordPress.DB.PreparedSQL
		$posts = array_map( static function ( $row ) {
			return new WP_Post( $row );
		}, $rows );
		$taxonomies = array_values( array_intersect( get_object_taxonomies( $type ), self::TAXONOMIES ) );
		$page       = self::bulk_page( $taxonomies, self::prime_caches( $posts, $type, $taxonomies ) );
		$items      = [];
		foreach ( $posts as $post ) {
			$items[] = self::bulk_item( $post, $page, $request );
		}
		wp_reset_postdata();
		return [ 'items' => $items, 'digests' => $digests ];
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
	private static function bulk_page( array $taxonomies, $primed ) {
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
		];
	}

	/**
	 * Fills the caches a bulk page reads, with what update_post_caches() would put there: the posts, every
	 * meta row of each (in meta_id order) and their term IDs of $taxonomies (ordered by name). It reads the
	 * rows straight off the connection: wpdb builds an object per row first, and update_object_term_cache()
	 * a WP_Term per relationship, which cost a page of 2,500 events more than all its queries. Where a
	 * plugin filters those reads, or the database is not MySQL, core's functions do it (returns false).
	 */
	private static function prime_caches( array $posts, $type, array $taxonomies ) {
		update_post_cache( $posts );
		$ids = array_map( 'intval', wp_list_pluck( $posts, 'ID' ) );
		if ( ! self::plain_reads() ) {
			update_object_term_cache( $ids, $type );
			update_postmeta_cache( $ids );
			return false;
		}
		self::prime_meta( self::uncached( $ids, [ 'post_meta' ] ) );
		self::prime_terms( self::uncached( $ids, self::relationship_groups( $taxonomies ) ), $taxonomies );
		return true;
	}

	/** Filters through which a plugin may change what the caches of a bulk page hold (core's own aside). */
	const CACHE_FILTERS = [ 'update_post_metadata_cache', 'wp_get_object_terms_args', 'get_object_terms', 'wp_get_object_terms',
		'get_terms_defaults', 'get_terms_args', 'list_terms_exclusions', 'get_terms_fields', 'terms_clauses', 'terms_pre_query',
		'get_terms_orderby' ];

	/** Whether the direct reads give what core's would: a mysqli connection, no plugin on CACHE_FILTERS. */
	private static function plain_reads() {
		global $wpdb, $wp_filter;
		if ( ! isset( $wpdb->dbh ) || ! $wpdb->dbh instanceof mysqli ) {
			return false;
		}
		foreach ( self::CACHE_FILTERS as $hook ) {
			$n = 0;
			foreach ( isset( $wp_filter[ $hook ] ) ? $wp_filter[ $hook ]->callbacks : [] as $callbacks ) {
				$n += count( $callbacks );
			}
			// Core's only callback there renames post format terms, a taxonomy calshim never reads.
			$core = 'wp_get_object_terms' === $hook && has_filter( $hook, '_post_format_wp_get_object_terms' ) ? 1 : 0;
			if ( $n > $core ) {
				return false;
			}
		}
		return true;
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

	/** update_meta_cache( 'post', $ids ) with one read of the rows: key => values, in meta_id order. */
	private static function prime_meta( array $ids ) {
		global $wpdb;
		if ( ! $ids ) {
			return;
		}
		$meta = array_fill_keys( $ids, [] );
		$sql  = "SELECT post_id, meta_key, meta_value FROM {$wpdb->postmeta} WHERE " . self::id_in( 'post_id', $ids ) . ' ORDER BY post_id, meta_id';
		foreach ( self::fetch_rows( $sql ) as $row ) {
			$meta[ (int) $row[0] ][ $row[1] ][] = $row[2];
		}
		foreach ( $meta as $id => $rows ) {
			wp_cache_add( $id, $rows, 'post_meta' );
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
		setup_postdata( $post );
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
			'link'           => get_permalink( $post ),
			'author'         => (int) $post->post_author,
			'featured_media' => (int) get_post_thumbnail_id( $post ),
		];
		foreach ( $page['bases'] as $taxonomy => $base ) {
			$item[ $base ] = self::term_ids( $post, $taxonomy, $page['plain_terms'] );
		}
		$privileged      = $page['read_all'] || current_user_can( 'edit_post', $post->ID );
		$item['calshim'] = Calshim_Bridge::post_fields( $post, $privileged, $request );
		return $item;
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

	/** mysql_to_rfc3339() with the site's time zone made once per page instead of once per date. */
	private static function rfc3339( $date, DateTimeZone $zone ) {
		$datetime = empty( $date ) ? false : date_create( $date, $zone );
		return false === $datetime ? false : $datetime->format( 'Y-m-d\TH:i:s' );
	}

	/** wp/v2's GMT date of a post: the stored one, or one made from the local date when never set. */
	private static function gmt( $gmt, $local ) {
		return '0000-00-00 00:00:00' === $gmt ? get_gmt_from_date( $local ) : $gmt;
	}
}

Calshim_Changes::boot();

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
	 */
	private static function rows( $kind, $ids ) {
		global $wpdb;
		$sep  = "CHAR(31)";
		$taxa = "'" . implode( "','", array_map( 'esc_sql', Calshim_Changes::TAXONOMIES ) ) . "'";
		if ( 'terms' === $kind ) {
			return "SELECT t.term_id id, tt.taxonomy type, 1 n, " . self::h( "CONCAT_WS($sep, t.term_id, t.name, t.slug, t.term_group, tt.term_taxonomy_id, tt.taxonomy, tt.description, tt.parent, tt.count)" ) . " h FROM {$wpdb->terms} t JOIN {$wpdb->term_taxonomy} tt ON tt.term_id = t.term_id WHERE tt.taxonomy IN ($taxa) AND t.term_id $ids";
		}
		$posts = self::held_posts();
		$keys  = [ '_thumbnail_id' ];
		foreach ( Calshim_Bridge::META as $type_keys ) {
			$keys = array_merge( $keys, array_keys( $type_keys ) );
		}
		$keys   = "'" . implode( "','", array_map( 'esc_sql', array_unique( $keys ) ) ) . "'";
		$custom = esc_sql( $wpdb->esc_like( Calshim_Bridge::CUSTOM_FIELD_PREFIX ) ) . '%';
		return "SELECT p.ID id, p.post_type type, 1 n, " . self::h( "CONCAT_WS($sep, p.ID, p.post_type, p.post_status, p.post_name, p.post_title, p.post_content, p.post_excerpt, p.post_password, p.post_author, p.post_parent, p.menu_order, p.post_date, p.post_date_gmt, p.post_modified, p.post_modified_gmt)" ) . " h FROM {$wpdb->posts} p WHERE $posts AND p.ID $ids"
			. " UNION ALL SELECT p.ID, p.post_type, 0, " . self::h( "CONCAT_WS($sep, 'm', m.post_id, m.meta_id, m.meta_key, m.meta_value)" ) . " FROM {$wpdb->postmeta} m JOIN {$wpdb->posts} p ON p.ID = m.post_id WHERE $posts AND m.post_id $ids AND (m.meta_key IN ($keys) OR m.meta_key LIKE '$custom')"
			. " UNION ALL SELECT p.ID, p.post_type, 0, " . self::h( "CONCAT_WS($sep, 't', tr.object_id, tt.term_id)" ) . " FROM {$wpdb->term_relationships} tr JOIN {$wpdb->term_taxonomy} tt ON tt.term_taxonomy_id = tr.term_taxonomy_id JOIN {$wpdb->posts} p ON p.ID = tr.object_id WHERE $posts AND tr.object_id $ids AND tt.taxonomy IN ($taxa)";
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

Calshim_Verify::boot();

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

	/** The version of a post's stored state (see above). */
	public static function post_version( WP_Post $post ) {
		$state = [ self::columns( $post, self::POST_COLUMNS ), (array) Calshim_Bridge::meta_rows( $post ),
			(string) get_post_meta( $post->ID, '_thumbnail_id', true ) ];
		foreach ( array_intersect( get_object_taxonomies( $post->post_type ), Calshim_Changes::TAXONOMIES ) as $taxonomy ) {
			$terms = get_the_terms( $post, $taxonomy );
			$ids   = is_array( $terms ) ? array_map( 'intval', wp_list_pluck( $terms, 'term_id' ) ) : [];
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

	private static function hash( array $state ) {
		return substr( hash_hmac( 'sha256', serialize( $state ), wp_salt( 'calshim_version' ) ), 0, 16 ); // phpcs:ignore WordPress.PHP.DiscouragedPHPFunctions
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

Calshim_Precondition::boot();

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
		return $revoked;
	}

	/**
	 * Cleans up a must-use install and deletes its file. When WordPress may not delete it, the file is marked
	 * retired (it then does nothing, see the top of this file) and its path is answered: the administrator
	 * deletes it. Answers [ revoked logins, path left or '' ].
	 */
	public static function cleanup_must_use() {
		$revoked = self::cleanup();
		if ( @unlink( CALSHIM_PLUGIN_FILE ) ) { // phpcs:ignore WordPress.PHP.NoSilencedErrors
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


/**
 * Calshim_Screen is the plugin's admin screen, Tools > calshim (capability manage_options), for administrators
 * without WP-CLI: the change log's figures, each calshim that polls and its version, the readers and their
 * application passwords, the push notice settings of wp-config.php, and the clean-up (revoking the readers'
 * application passwords; for a must-use install, what Plugins > Delete does for a plugin). Linked from the
 * plugin's row on the Plugins screen and, once, from a notice after activation. Every action is a POST to
 * admin-post.php with a nonce.
 */
final class Calshim_Screen {

	const SLUG = 'calshim';

	public static function boot() {
		add_action( 'admin_menu', [ __CLASS__, 'menu' ] );
		add_filter( 'plugin_action_links_' . plugin_basename( CALSHIM_PLUGIN_FILE ), [ __CLASS__, 'action_links' ] );
		add_action( 'admin_notices', [ __CLASS__, 'activation_notice' ] );
		add_action( 'admin_post_calshim_revoke', [ __CLASS__, 'revoke' ] );
		add_action( 'admin_post_calshim_cleanup', [ __CLASS__, 'cleanup' ] );
	}

	public static function url() {
		return admin_url( 'tools.php?page=' . self::SLUG );
	}

	public static function menu() {
		add_management_page( 'calshim', 'calshim', 'manage_options', self::SLUG, [ __CLASS__, 'render' ] );
	}

	public static function action_links( $links ) {
		array_unshift( $links, '<a href="' . esc_url( self::url() ) . '">' . esc_html__( 'Status', 'calshim' ) . '</a>' );
		return $links;
	}

	/** After activation, once: where the screen is. */
	public static function activation_notice() {
		if ( ! get_option( Calshim_Admin::NOTICE_OPTION ) || ! current_user_can( 'manage_options' ) ) {
			return;
		}
		delete_option( Calshim_Admin::NOTICE_OPTION );
		echo '<div class="notice notice-success is-dismissible" id="calshim-activated"><p>'
			. esc_html__( 'calshim bridge is active. Next: create calshim\'s reader and its application password, then point calshim at this site.', 'calshim' )
			. ' <a href="' . esc_url( self::url() ) . '">' . esc_html__( 'Tools > calshim', 'calshim' ) . '</a></p></div>';
	}

	/** The screen. Figures are rows of #calshim-status (th: what, td: value), each calshim a row of #calshim-pollers. */
	public static function render() {
		if ( ! current_user_can( 'manage_options' ) ) {
			wp_die( esc_html__( 'Sorry, you are not allowed to manage calshim.', 'calshim' ), 403 );
		}
		$log  = Calshim_Admin::log_status();
		$rows = [
			'Plugin'                   => Calshim_Bridge::VERSION . ( Calshim_Admin::must_use() ? ' (must-use plugin)' : ' (plugin)' ),
			'Change log rows'          => $log['exists'] ? (string) $log['rows'] : 'no table yet',
			'Change log size'          => size_format( $log['bytes'] ),
			'Head sequence'            => (string) $log['head'],
			'Oldest retained sequence' => null === $log['oldest'] ? 'none' : (string) $log['oldest'],
			'Last poll'                => self::when( Calshim_Admin::last_poll() ),
			'CALSHIM_NOTIFY_URLS'      => defined( 'CALSHIM_NOTIFY_URLS' ) ? implode( ' ', (array) CALSHIM_NOTIFY_URLS ) : 'not set',
			'CALSHIM_NOTIFY_SECRET'    => defined( 'CALSHIM_NOTIFY_SECRET' ) ? 'set' : 'not set',
			'CALSHIM_NOTIFY_ALLOWED_ORIGINS' => defined( 'CALSHIM_NOTIFY_ALLOWED_ORIGINS' ) ? implode( ' ', (array) CALSHIM_NOTIFY_ALLOWED_ORIGINS ) : 'not set',
			'Edge cache purges'        => 'set in calshim (edge_cache.purge_urls), not in WordPress',
		];
		echo '<div class="wrap"><h1>calshim</h1>';
		self::done_notice();
		echo '<h2>' . esc_html__( 'Status', 'calshim' ) . '</h2><table class="widefat striped" id="calshim-status"><tbody>';
		foreach ( $rows as $what => $value ) {
			echo '<tr><th>' . esc_html( $what ) . '</th><td>' . esc_html( $value ) . '</td></tr>';
		}
		echo '</tbody></table><h2>' . esc_html__( 'Calshims that read the change feed', 'calshim' ) . '</h2>';
		echo '<table class="widefat striped" id="calshim-pollers"><thead><tr><th>calshim</th><th>version</th><th>last poll</th></tr></thead><tbody>';
		foreach ( Calshim_Admin::pollers() as $name => $p ) {
			echo '<tr><td>' . esc_html( $name ) . '</td><td>' . esc_html( $p['version'] ) . '</td><td>' . esc_html( self::when( $p['last'] ) ) . '</td></tr>';
		}
		echo '</tbody></table><h2>' . esc_html__( 'Readers', 'calshim' ) . '</h2>';
		echo '<table class="widefat striped" id="calshim-readers"><thead><tr><th>user</th><th>application passwords</th><th>last used</th></tr></thead><tbody>';
		foreach ( Calshim_Admin::readers() as $login => $id ) {
			$items = (array) WP_Application_Passwords::get_user_application_passwords( $id );
			$used  = max( array_merge( [ 0 ], array_map( 'intval', array_column( $items, 'last_used' ) ) ) );
			echo '<tr><td><a href="' . esc_url( get_edit_user_link( $id ) . '#application-passwords-section' ) . '">' . esc_html( $login ) . '</a></td><td>'
				. count( $items ) . '</td><td>' . esc_html( self::when( $used ) ) . '</td></tr>';
		}
		echo '</tbody></table><p>' . esc_html__( 'A new reader and password: wp calshim reader create, or Users > Add New with the role "calshim reader", then Application Passwords on its profile.', 'calshim' ) . '</p>';
		echo '<h2>' . esc_html__( 'Clean-up', 'calshim' ) . '</h2>';
		self::form( 'calshim_revoke', __( 'Revoke the readers\' application passwords', 'calshim' ),
			__( 'Every calshim using them stops syncing until it is given a new one.', 'calshim' ) );
		if ( Calshim_Admin::must_use() ) {
			self::form( 'calshim_cleanup', __( 'Remove calshim from this site', 'calshim' ),
				__( 'Revokes the readers\' application passwords, drops the change log, the calshim_* options, the calshim_reader role and the capabilities the plugin granted (users are kept), and deletes the must-use file.', 'calshim' ) );
		} else {
			echo '<p>' . esc_html__( 'To remove calshim, deactivate and delete the plugin on the Plugins screen: that revokes the readers\' application passwords and removes the change log, options and role (users are kept).', 'calshim' ) . '</p>';
		}
		echo '</div>';
	}

	private static function form( $action, $label, $note ) {
		echo '<form method="post" action="' . esc_url( admin_url( 'admin-post.php' ) ) . '" id="' . esc_attr( $action ) . '">';
		echo '<input type="hidden" name="action" value="' . esc_attr( $action ) . '">';
		wp_nonce_field( $action );
		echo '<p>' . esc_html( $note ) . '</p>';
		submit_button( $label, 'delete', 'submit', false );
		echo '</form>';
	}

	private static function when( $time ) {
		return $time ? gmdate( 'Y-m-d H:i:s', $time ) . ' UTC (' . human_time_diff( $time ) . ' ago)' : 'never';
	}

	/** The outcome of the last action, from the query of the redirect that followed it. */
	private static function done_notice() {
		if ( isset( $_GET['calshim_revoked'] ) ) { // phpcs:ignore WordPress.Security.NonceVerification
			/* translators: %d: number of application passwords */
			echo '<div class="notice notice-success" id="calshim-done"><p>' . esc_html( sprintf( __( 'Revoked %d application passwords.', 'calshim' ), (int) $_GET['calshim_revoked'] ) ) . '</p></div>'; // phpcs:ignore WordPress.Security.NonceVerification
		}
	}

	private static function authorize( $action ) {
		if ( ! current_user_can( 'manage_options' ) ) {
			wp_die( esc_html__( 'Sorry, you are not allowed to manage calshim.', 'calshim' ), 403 );
		}
		check_admin_referer( $action );
	}

	public static function revoke() {
		self::authorize( 'calshim_revoke' );
		$revoked = Calshim_Admin::revoke_reader_passwords();
		wp_safe_redirect( add_query_arg( 'calshim_revoked', array_sum( $revoked ), self::url() ) );
		exit;
	}

	/** The must-use clean-up; the screen is gone after it, so the answer is a page of its own. */
	public static function cleanup() {
		self::authorize( 'calshim_cleanup' );
		if ( ! Calshim_Admin::must_use() ) {
			wp_die( esc_html__( 'calshim is a regular plugin here: delete it on the Plugins screen.', 'calshim' ), 400 );
		}
		list( $revoked, $left ) = Calshim_Admin::cleanup_must_use();
		/* translators: %d: number of application passwords */
		$message = sprintf( __( 'calshim was removed from this site: change log, options and role gone, %d application passwords revoked, users kept.', 'calshim' ), array_sum( $revoked ) );
		if ( '' !== $left ) {
			/* translators: %s: file path */
			$message .= ' ' . sprintf( __( 'WordPress may not delete %s: delete it yourself. Until then it does nothing.', 'calshim' ), $left );
		}
		wp_die( '<p id="calshim-removed">' . esc_html( $message ) . '</p><p><a href="' . esc_url( admin_url() ) . '">' . esc_html__( 'Dashboard', 'calshim' ) . '</a></p>', 'calshim', [ 'response' => 200 ] );
	}
}

Calshim_Admin::boot();
