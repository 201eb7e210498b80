<?php
/**
 * Calshim_Bridge, one class of the calshim bridge plugin, loaded by ../calshim.php (see its
 * header for what the plugin does and why).
 *
 * @package calshim
 */

defined( 'ABSPATH' ) || exit;

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

	/**
	 * The `calshim` field of $post, for a caller who may see its password and content or not ($privileged).
	 * $terms: its term IDs per taxonomy as get_the_terms() lists them, when the caller has them (a bulk page).
	 */
	public static function post_fields( WP_Post $post, $privileged, $request, array $terms = null ) {
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

		$meta = self::meta_rows( $post );
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
			'meta'          => $meta,
			'version'       => Calshim_Precondition::post_version( $post, $meta, $terms ),
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
			// calshim sends a write again with its key only when this is present (Calshim_Idempotency).
			'write_keys'     => Calshim_Idempotency::PROTOCOL,
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
