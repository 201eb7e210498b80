<?php
/**
 * calshim test: The Events Calendar's block-editor meta. A must-use file without a plugin header (the
 * project ships one plugin, cmsclient/wordpress/calshim.php). Test-only stand-in for The Events
 * Calendar's block-editor meta registration
 * (Tribe__Events__Editor__Meta::register, on init 15, with tribe-common's Tribe__Editor__Meta argument sets):
 * the same keys, registered the same way, for every post type, with show_in_rest, plus its rest_prepare
 * callback that puts `_EventAllDay` into `meta`. The black-box tests install it into mu-plugins for the
 * duration of a test, so that the wp/v2 exposure is checked with TEC's registrations as well as without.
 */

defined( 'ABSPATH' ) || exit;

add_action( 'init', static function () {
	$auth = static function ( $allowed, $meta_key, $post_id ) {
		$post = get_post( $post_id );
		$type = $post ? get_post_type_object( $post->post_type ) : null;
		return $type && current_user_can( $type->cap->edit_post, $post_id );
	};
	$text    = [ 'auth_callback' => $auth, 'sanitize_callback' => 'sanitize_text_field', 'type' => 'string', 'single' => true, 'show_in_rest' => true ];
	$boolean = [ 'auth_callback' => $auth, 'type' => 'boolean', 'single' => true, 'show_in_rest' => true ];
	$ids     = [ 'auth_callback' => $auth, 'type' => 'number', 'single' => false, 'show_in_rest' => true ];
	$keys    = [
		'_EventAllDay' => $boolean, '_EventTimezone' => $text, '_EventStartDate' => $text, '_EventEndDate' => $text,
		'_EventStartDateUTC' => $text, '_EventEndDateUTC' => $text, '_EventShowMap' => $boolean,
		'_EventShowMapLink' => $boolean, '_EventURL' => $text, '_EventCost' => $text, '_EventCostDescription' => $text,
		'_EventCurrencySymbol' => $text, '_EventCurrencyCode' => $text, '_EventCurrencyPosition' => $text,
		'_EventDateTimeSeparator' => $text, '_EventTimeRangeSeparator' => $text, '_EventOrganizerID' => $ids,
		'_EventVenueID' => $ids, '_OrganizerEmail' => $text, '_OrganizerPhone' => $text, '_OrganizerWebsite' => $text,
		'_VenueAddress' => $text, '_VenueCity' => $text, '_VenueCountry' => $text, '_VenueProvince' => $text,
		'_VenueState' => $text, '_VenueZip' => $text, '_VenuePhone' => $text, '_VenueURL' => $text,
		'_VenueStateProvince' => $text, '_VenueLat' => $text, '_VenueLng' => $text, '_VenueShowMap' => $boolean,
		'_VenueShowMapLink' => $boolean,
	];
	foreach ( $keys as $key => $args ) {
		register_meta( 'post', $key, $args );
	}
	// Tribe__Events__Editor__Meta::meta_backwards_compatibility.
	add_filter( 'rest_prepare_tribe_events', static function ( $response, $post ) {
		$all_day = get_post_meta( $post->ID, '_EventAllDay', true );
		if ( $all_day ) {
			$response->data['meta']['_EventAllDay'] = in_array( strtolower( (string) $all_day ), [ '1', 'yes', 'true', 'on', 'y', 'enable', 'enabled' ], true );
		}
		return $response;
	}, 10, 2 );
}, 15 );
