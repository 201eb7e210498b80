<?php
/**
 * calshim test: a stand-in for The Events Calendar's REST API v1, for the shadow's black-box tests
 * (test/shadow_test.go), which install it into mu-plugins for the duration of a test (the rebuilt
 * original is not available to CI). A must-use file without a plugin header.
 *
 * It answers GET tribe/events/v1/events, /events/{id} and /categories (replacing the original's
 * routes when The Events Calendar is active) with the answers stored in the option
 * calshim_test_original: path below the namespace => {status, total, pages, body}, taken from
 * calshim's own answers with the site's address, as the original answers them. Query flags, which
 * calshim ignores and the shadow passes on, make it differ on purpose:
 *   plant=KEY   the value of KEY in the answer (its first item's, in a list) becomes "planted"
 *   noise=KEY   the value of KEY becomes random: different on every answer, as a nonce would be
 *   delay=MS    the answer waits MS milliseconds (a slow original)
 * Every request it gets is appended to calshim-test-original.log in the uploads directory (wp-content
 * itself may not be the web server's to write): the time, whether it
 * carried an Authorization header or a cookie, and the request URI.
 */

defined( 'ABSPATH' ) || exit;

add_action( 'rest_api_init', static function () {
	$answers = get_option( 'calshim_test_original' );
	if ( ! is_array( $answers ) ) {
		return;
	}
	$serve = static function ( WP_REST_Request $request ) use ( $answers ) {
		file_put_contents( wp_upload_dir( null, false )['basedir'] . '/calshim-test-original.log', sprintf( "%.6f %s %s %s\n", microtime( true ),
			isset( $_SERVER['HTTP_AUTHORIZATION'] ) ? 'auth' : '-', empty( $_COOKIE ) ? '-' : 'cookie',
			$_SERVER['REQUEST_URI'] ?? '' ), FILE_APPEND | LOCK_EX );

		$path = substr( $request->get_route(), strlen( '/tribe/events/v1' ) );
		if ( ! isset( $answers[ $path ] ) ) {
			return new WP_Error( 'rest_event_not_found', 'The requested event ID does not exist.', [ 'status' => 404 ] );
		}
		$delay = (int) $request->get_param( 'delay' );
		if ( $delay > 0 ) {
			usleep( min( $delay, 10000 ) * 1000 );
		}

		$answer = $answers[ $path ];
		$body   = json_decode( $answer['body'], true );
		$total  = $answer['total'];
		foreach ( [ 'plant' => 'planted', 'noise' => wp_generate_password( 12, false ) ] as $flag => $value ) {
			$key = (string) $request->get_param( $flag );
			if ( 'total' === $key ) {
				$total = (string) ( (int) $total + 1 );
			} elseif ( '' !== $key ) {
				$body = calshim_test_original_set( $body, $key, $value );
			}
		}

		$response = new WP_REST_Response( $body, $answer['status'] );
		if ( '' !== $total ) {
			$response->header( 'X-TEC-Total', $total );
			$response->header( 'X-TEC-TotalPages', $answer['pages'] );
		}
		return $response;
	};
	foreach ( [ '/events', '/events/(?P<id>\d+)', '/categories' ] as $route ) {
		register_rest_route( 'tribe/events/v1', $route, [
			'methods'             => 'GET',
			'callback'            => $serve,
			'permission_callback' => '__return_true',
		], true );
	}
}, 999 );

/** Sets $key in a single answer, or in the first item of a list's (events, categories). */
function calshim_test_original_set( $body, $key, $value ) {
	foreach ( [ 'events', 'categories' ] as $list ) {
		if ( ! isset( $body['id'] ) && isset( $body[ $list ][0] ) ) {
			$body[ $list ][0][ $key ] = $value;
			return $body;
		}
	}
	$body[ $key ] = $value;
	return $body;
}
