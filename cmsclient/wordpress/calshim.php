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
 *      GET requests of the REST API, and nothing else (but the routes of i: the touch writes log rows only);
 *   g. wp/v2 lists of the three post types stay plain WordPress queries: `modified_after` (core since 5.7),
 *      `status=trash` and every other core parameter work as on any post type, and with TEC active its query
 *      rewriting (upcoming events only, custom-tables joins that miss rows written outside TEC) is switched
 *      off for these REST queries only;
 *   h. a change log (class Calshim_Changes): every change of the three post types, of the attachments, of the
 *      two taxonomies' terms and of the options calshim reads gets a sequence number in the table
 *      {prefix}calshim_changes, whoever makes it (admin, wp/v2, TEC, WP-CLI, cron);
 *   i. the routes calshim syncs through, readable with the calshim_reader role or manage_options only:
 *      GET /calshim/v1/changes?since=SEQ (the change feed), GET /calshim/v1/bulk (the initial load),
 *      GET /calshim/v1/media (featured images by ID, whatever their status), and POST
 *      /calshim/v1/changes/touch, which writes log rows (nothing else) for what calshim's checksums found
 *      written around the hooks, so that every calshim reads it at one sequence;
 *   j. optionally, a push notice to the calshims configured in wp-config.php (CALSHIM_NOTIFY_URLS, or the
 *      option calshim_notify_urls within CALSHIM_NOTIFY_ALLOWED_ORIGINS) after a request logged changes, so
 *      they poll at once (Calshim_Changes::notify());
 *   k. none of the calendar's meta (whoever registered it for REST) and no `calshim` field in wp/v2 answers
 *      about a post the caller may not read in full (password not given, status not public), unless the
 *      caller is the service role or may edit the post: TEC's own API refuses such posts;
 *   l. calshim's If-Match, enforced where the write lands (class Calshim_Precondition): a version of each post
 *      and term in its `calshim` field, and wp/v2 writes that carry X-Calshim-If-Version run only on that
 *      version, under a lock on the object;
 *   m. a write calshim sends again after its answer was lost is the same write (class Calshim_Idempotency):
 *      wp/v2 writes that carry X-Calshim-Write-Key run once per key, and the same key again gets the first
 *      one's answer.
 *
 * The plugin never writes content. It writes options only to put roles and capabilities in place (once per
 * plugin version and each capability once, see ensure_roles()), to keep its change log (identity, pruning
 * floor), to record the answers of keyed writes for a day (m, as transients) and to note when each calshim last
 * read the change feed (Calshim_Admin, with the plugin's activation, uninstall, WP-CLI commands and Site
 * Health tests; Calshim_Screen, its page Tools > calshim).
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

// One file per class, in the folder calshim/ beside this file: the regular plugin's folder holds
// both, and a must-use install copies both into mu-plugins (WordPress loads only the files at its top).
require_once __DIR__ . '/calshim/class-calshim-bridge.php';
require_once __DIR__ . '/calshim/class-calshim-changes.php';
require_once __DIR__ . '/calshim/class-calshim-verify.php';
require_once __DIR__ . '/calshim/class-calshim-precondition.php';
require_once __DIR__ . '/calshim/class-calshim-idempotency.php';
require_once __DIR__ . '/calshim/class-calshim-admin.php';
require_once __DIR__ . '/calshim/class-calshim-cli.php';
require_once __DIR__ . '/calshim/class-calshim-screen.php';

Calshim_Bridge::boot();
Calshim_Changes::boot();
Calshim_Verify::boot();
Calshim_Precondition::boot();
Calshim_Idempotency::boot();
Calshim_Admin::boot();
