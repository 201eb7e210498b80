<?php
/**
 * Calshim_Screen, one class of the calshim bridge plugin, loaded by ../calshim.php (see its
 * header for what the plugin does and why).
 *
 * @package calshim
 */

defined( 'ABSPATH' ) || exit;

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
