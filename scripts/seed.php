<?php
/**
 * seed.php — (re)create calshim's test calendar in the rig's WordPress, stored exactly as The Events Calendar
 * (TEC) stores it (as Tribe__Events__API::saveEventMeta writes it): post types tribe_events / tribe_venue /
 * tribe_organizer, taxonomies tribe_events_cat and post_tag, the _Event… / _Venue… / _Organizer… meta keys
 * (same values and row order as TEC's REST API v1 writes them), menu_order = -1 for sticky, _thumbnail_id for
 * images.
 *
 * The data set is the one the original was recorded with (spec/examples/seed.json: same titles, slugs, venues,
 * organizers, categories with Music > Jazz, tags, costs, image), with every date moved by the same number of
 * days from "today" (site time zone) as the recording was from 2026-11-22, plus a few events that cover what
 * the recording did not (Asia/Kolkata and UTC+5.5, a euro range, a postfix currency with code, several cost
 * rows, an imported event with a global-id lineage, a trashed and a scheduled post).
 *
 * Idempotent: every tribe_events / tribe_venue / tribe_organizer post (with its revisions, meta and term links),
 * every event category, the seed's tags and the attachments made by an earlier run are deleted first.
 *
 * Usage (as the web server user, see scripts/wp-seed.sh):
 *   php seed.php [--host 127.0.0.1] [--events N] [--out FILE] [--recorded-only]
 *     --events N        also generate N bulk events quickly with direct SQL inserts (load tests); env SEED_EVENTS
 *     --append N        only add N bulk events after the existing ones, by SQL, nothing deleted (an import made
 *                       while calshim is stopped: scripts/bench-load.sh); reads the map of --out
 *     --out FILE        write a JSON map {kind: {key: id}} of what was created
 *     --recorded-only   only the recording's data set (no additions): with it, and on the recording's day
 *                       relative to the data, the original answers spec/examples byte for byte (but for
 *                       creation times); env SEED_RECORDED_ONLY=1
 */

$opts = getopt( '', [ 'host:', 'events:', 'append:', 'out:', 'recorded-only' ] );
$recorded_only = isset( $opts['recorded-only'] ) || '1' === getenv( 'SEED_RECORDED_ONLY' );
$_SERVER['HTTP_HOST']   = $opts['host'] ?? ( getenv( 'WP_HOST' ) ?: '127.0.0.1' );
$_SERVER['REQUEST_URI'] = '/';
$bulk = (int) ( $opts['events'] ?? ( getenv( 'SEED_EVENTS' ) ?: 0 ) );
$out  = $opts['out'] ?? '';

require '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/image.php';
require_once ABSPATH . 'wp-admin/includes/post.php';

if ( ! post_type_exists( 'tribe_events' ) || ! taxonomy_exists( 'tribe_events_cat' ) ) {
	fwrite( STDERR, "seed: post type tribe_events / taxonomy tribe_events_cat missing (is the calshim plugin installed?)\n" );
	exit( 1 );
}
wp_set_current_user( 1 );
$t0 = microtime( true );

// -------------------------------------------------------------------------------------------------------------
// The data set. Dates: [day offset from today, 'H:i:s'] in the event's own time zone.
// -------------------------------------------------------------------------------------------------------------

$categories = [ // key => [name, description, parent key]
	'music'      => [ 'Music', 'Concerts, gigs and recitals', '' ],
	'jazz'       => [ 'Jazz', 'Jazz in all its forms', 'music' ],
	'technology' => [ 'Technology', 'Talks, meetups and conferences about tech', '' ],
	'workshops'  => [ 'Workshops', 'Hands-on learning sessions', '' ],
	'family'     => [ 'Family', '', '' ],
];
$tags = [ // slug => [name, description]
	'free'       => [ 'free', '' ],
	'outdoor'    => [ 'outdoor', '' ],
	'online'     => [ 'online', '' ],
	'kids'       => [ 'kids', '' ],
	'networking' => [ 'networking', '' ],
	'charity'    => [ 'charity', 'Proceeds go to good causes' ],
];
// Venue fields as TEC's API takes them; show_map / show_map_link default to true; stateprovince is derived as
// TEC does when not given (state for US/empty country, else province).
$venues = [
	'bluenote'   => [ 'title' => 'Blue Note Jazz Club', 'address' => '131 W 3rd St', 'city' => 'New York', 'state' => 'NY',
		'zip' => '10012', 'country' => 'United States', 'phone' => '+1 212-475-8592', 'website' => 'https://bluenote.example.com',
		'content' => '<p>Legendary Greenwich Village jazz club.</p>', 'image' => true ],
	'moscone'    => [ 'title' => 'Moscone Center', 'address' => '747 Howard St', 'city' => 'San Francisco', 'state' => 'CA',
		'zip' => '94103', 'country' => 'United States', 'phone' => '+1 415-974-4000', 'website' => 'https://moscone.example.com',
		'show_map_link' => false ],
	'rfh'        => [ 'title' => 'Royal Festival Hall', 'address' => 'Belvedere Rd', 'city' => 'London', 'province' => 'Greater London',
		'zip' => 'SE1 8XX', 'country' => 'United Kingdom', 'website' => 'https://southbank.example.co.uk',
		'content' => 'Concert hall on the South Bank of the Thames.' ],
	'opera'      => [ 'title' => 'Sydney Opera House', 'address' => 'Bennelong Point', 'city' => 'Sydney', 'stateprovince' => 'NSW',
		'zip' => '2000', 'country' => 'Australia', 'phone' => '+61 2 9250 7111' ],
	'millennium' => [ 'title' => 'Millennium Park', 'address' => '201 E Randolph St', 'city' => 'Chicago', 'state' => 'IL',
		'zip' => '60602', 'country' => 'United States', 'show_map' => false ],
	'forum'      => [ 'title' => 'Tokyo International Forum', 'address' => '3-5-1 Marunouchi, Chiyoda-ku', 'city' => 'Tokyo',
		'zip' => '100-0005', 'country' => 'Japan', 'website' => 'https://forum.example.jp' ],
	'warehouse'  => [ 'title' => 'Old Warehouse (unconfirmed)', 'city' => 'Brooklyn', 'state' => 'NY', 'country' => 'United States',
		'status' => 'draft' ],
	'bic'        => [ 'title' => 'Bangalore International Centre', 'address' => '7 4th Main Rd, Domlur', 'city' => 'Bengaluru',
		'province' => 'Karnataka', 'zip' => '560071', 'country' => 'India', 'phone' => '+91 80 4123 4567',
		'website' => 'https://bic.example.in', 'content' => '<p>Arts and ideas centre in Domlur.</p>' ],
];
$organizers = [
	'jazzsoc' => [ 'title' => 'Jazz Society of New York', 'email' => 'hello@jazzsociety.example.org', 'phone' => '+1 212-555-0100',
		'website' => 'https://jazzsociety.example.org', 'content' => '<p>Non-profit promoting live jazz since 1985.</p>' ],
	'techcon' => [ 'title' => 'TechCon Events Ltd', 'email' => 'info@techcon.example.com', 'website' => 'https://techcon.example.com' ],
	'parks'   => [ 'title' => 'City Parks Department', 'phone' => '+1 312-555-0199' ],
	'sydarts' => [ 'title' => 'Sydney Arts Collective', 'email' => 'team@sydarts.example.au', 'website' => 'https://sydarts.example.au',
		'content' => 'Community arts organisation.' ],
	'ghost'   => [ 'title' => 'Pending Partner Org', 'email' => 'tbd@example.com', 'status' => 'draft' ],
];
// Events: key => [title, tz, [start offset, time], [end offset, time], fields]. Fields: venue, organizers,
// cats, tags, cost (string or list of rows), symbol/position/code (explicit currency), featured, sticky,
// all_day (true → 'yes', or the stored string), hide, status, password, excerpt, website, image, slug, author,
// lineage, origin, show_map.
$NY = 'America/New_York';
$events = [
	'gala'           => [ 'Opening Night Gala', $NY, [ 3, '19:00:00' ], [ 3, '23:00:00' ], [ 'venue' => 'bluenote', 'organizers' => [ 'jazzsoc' ], 'cats' => [ 'music' ], 'tags' => [ 'networking' ], 'cost' => '$25', 'featured' => true, 'image' => true, 'excerpt' => 'Black tie, big band, bubbles.', 'website' => 'https://gala.example.com' ] ],
	'brunch'         => [ 'Jazz Brunch', $NY, [ 10, '11:00:00' ], [ 10, '14:00:00' ], [ 'venue' => 'bluenote', 'organizers' => [ 'jazzsoc' ], 'cats' => [ 'jazz' ], 'cost' => '10' ] ],
	'jam'            => [ 'Late Night Jam Session', $NY, [ -20, '22:00:00' ], [ -19, '02:00:00' ], [ 'venue' => 'bluenote', 'cats' => [ 'jazz' ], 'cost' => '5-10' ] ],
	'winterfest'     => [ 'Winter Jazz Festival', $NY, [ 45, '12:00:00' ], [ 48, '23:00:00' ], [ 'venue' => 'bluenote', 'organizers' => [ 'jazzsoc', 'parks' ], 'cats' => [ 'jazz', 'music' ], 'tags' => [ 'networking' ], 'cost' => '25-75', 'featured' => true ] ],
	'devsummit'      => [ 'DevSummit West', 'America/Los_Angeles', [ -60, '09:00:00' ], [ -58, '17:00:00' ], [ 'venue' => 'moscone', 'organizers' => [ 'techcon' ], 'cats' => [ 'technology' ], 'tags' => [ 'networking' ], 'cost' => '199' ] ],
	'cloudmeetup'    => [ 'Cloud Native Meetup', 'America/Los_Angeles', [ 14, '18:30:00' ], [ 14, '21:00:00' ], [ 'venue' => 'moscone', 'organizers' => [ 'techcon' ], 'cats' => [ 'technology' ], 'tags' => [ 'free', 'networking' ], 'cost' => 'Free' ] ],
	'python'         => [ 'Intro to Python Workshop', 'America/Los_Angeles', [ 21, '10:00:00' ], [ 21, '16:00:00' ], [ 'venue' => 'moscone', 'organizers' => [ 'techcon' ], 'cats' => [ 'workshops', 'technology' ], 'cost' => '49' ] ],
	'aipanel'        => [ 'AI Ethics Panel (online)', 'UTC', [ 5, '15:00:00' ], [ 5, '16:30:00' ], [ 'cats' => [ 'technology' ], 'tags' => [ 'online', 'free' ], 'cost' => 'Free', 'website' => 'https://stream.example.com/ai-ethics' ] ],
	'newyearconcert' => [ 'New Year Concert', 'Europe/London', [ 40, '19:30:00' ], [ 40, '22:00:00' ], [ 'venue' => 'rfh', 'cats' => [ 'music' ], 'cost' => '15-60' ] ],
	'carols'         => [ 'Christmas Carol Singalong', 'Europe/London', [ 32, '18:00:00' ], [ 32, '19:30:00' ], [ 'venue' => 'rfh', 'cats' => [ 'family' ], 'tags' => [ 'kids', 'free', 'charity' ], 'cost' => 'Free' ] ],
	// TEC's REST API stores all-day as "1", its admin UI as "yes": both kinds are present.
	'proms'          => [ 'Summer Proms in the Park', 'Europe/London', [ -140, '00:00:00' ], [ -140, '23:59:00' ], [ 'all_day' => '1', 'cats' => [ 'music' ], 'tags' => [ 'outdoor' ], 'cost' => '20' ] ],
	'vivid'          => [ 'Vivid Light Walk', 'Australia/Sydney', [ 150, '00:00:00' ], [ 160, '23:59:00' ], [ 'venue' => 'opera', 'organizers' => [ 'sydarts' ], 'all_day' => true, 'cats' => [ 'family' ], 'tags' => [ 'outdoor', 'free' ], 'cost' => 'Free' ] ],
	'nye'            => [ "New Year's Eve Fireworks", 'Australia/Sydney', [ 39, '21:00:00' ], [ 40, '00:30:00' ], [ 'venue' => 'opera', 'organizers' => [ 'sydarts' ], 'cats' => [ 'family' ], 'tags' => [ 'outdoor' ], 'cost' => 'Free', 'featured' => true ] ],
	'operastars'     => [ 'Opera Under the Stars', 'Australia/Sydney', [ -30, '19:00:00' ], [ -30, '22:30:00' ], [ 'venue' => 'opera', 'cats' => [ 'music' ], 'cost' => '120' ] ],
	'expo'           => [ 'Marathon Expo', 'America/Chicago', [ -45, '00:00:00' ], [ -44, '23:59:00' ], [ 'venue' => 'millennium', 'organizers' => [ 'parks' ], 'all_day' => true, 'tags' => [ 'outdoor' ], 'cost' => 'Free' ] ],
	'market'         => [ 'Winter Market', 'America/Chicago', [ 7, '10:00:00' ], [ 28, '18:00:00' ], [ 'venue' => 'millennium', 'organizers' => [ 'parks' ], 'cats' => [ 'family' ], 'tags' => [ 'outdoor', 'kids' ], 'cost' => 'Free' ] ],
	'skating'        => [ 'Ice Skating Lessons for Kids', 'America/Chicago', [ 12, '09:00:00' ], [ 12, '10:00:00' ], [ 'venue' => 'millennium', 'organizers' => [ 'parks' ], 'cats' => [ 'family', 'workshops' ], 'tags' => [ 'kids' ], 'cost' => '15' ] ],
	'exhibition'     => [ 'Lights of the City Exhibition', 'America/Chicago', [ -10, '00:00:00' ], [ 20, '23:59:00' ], [ 'venue' => 'millennium', 'all_day' => true, 'tags' => [ 'free' ], 'cost' => 'Free', 'excerpt' => 'An open-air light exhibition, all day every day.' ] ],
	'afterparty'     => [ 'Game Show Afterparty', 'Asia/Tokyo', [ 60, '20:00:00' ], [ 60, '23:59:00' ], [ 'venue' => 'forum', 'cats' => [ 'technology' ], 'tags' => [ 'networking' ], 'cost' => '3000' ] ],
	'tokyojazz'      => [ 'Tokyo Jazz Night', 'Asia/Tokyo', [ -75, '19:00:00' ], [ -75, '21:30:00' ], [ 'venue' => 'forum', 'cats' => [ 'jazz' ], 'cost' => '5-10' ] ],
	'rehearsal'      => [ 'Staff Rehearsal', $NY, [ 4, '14:00:00' ], [ 4, '16:00:00' ], [ 'venue' => 'bluenote', 'cats' => [ 'music' ], 'hide' => true ] ],
	'donor'          => [ 'Private Donor Dinner', $NY, [ 18, '19:00:00' ], [ 18, '22:00:00' ], [ 'venue' => 'bluenote', 'organizers' => [ 'jazzsoc' ], 'tags' => [ 'charity' ], 'cost' => '250', 'password' => 'letmein' ] ],
	'draft'          => [ 'Spring Lineup Announcement', $NY, [ 90, '12:00:00' ], [ 90, '13:00:00' ], [ 'status' => 'draft', 'cats' => [ 'music' ] ] ],
	'members'        => [ 'Annual Members Meeting', $NY, [ 25, '18:00:00' ], [ 25, '20:00:00' ], [ 'sticky' => true, 'tags' => [ 'networking' ], 'cost' => 'Free' ] ],
	'funrun'         => [ 'Charity 5K Fun Run', 'UTC+2', [ 35, '08:00:00' ], [ 35, '11:00:00' ], [ 'tags' => [ 'charity', 'outdoor' ], 'cost' => 'Free' ] ],
	// Cost 0 through TEC's API stores no _EventCost row at all.
	'coding1'        => [ 'Kids Coding Club', $NY, [ 2, '16:00:00' ], [ 2, '17:30:00' ], [ 'cats' => [ 'workshops' ], 'tags' => [ 'kids' ], 'cost' => '0', 'slug' => 'kids-coding-club' ] ],
	'coding2'        => [ 'Kids Coding Club', $NY, [ 9, '16:00:00' ], [ 9, '17:30:00' ], [ 'cats' => [ 'workshops' ], 'tags' => [ 'kids' ], 'cost' => '0', 'slug' => 'kids-coding-club-2' ] ],
	'coding3'        => [ 'Kids Coding Club', $NY, [ 16, '16:00:00' ], [ 16, '17:30:00' ], [ 'cats' => [ 'workshops' ], 'tags' => [ 'kids' ], 'cost' => '0', 'slug' => 'kids-coding-club-3' ] ],
	'bookclub1'      => [ 'Monthly Book Club', $NY, [ -90, '19:00:00' ], [ -90, '20:30:00' ], [ 'tags' => [ 'free' ], 'cost' => 'Free', 'slug' => 'monthly-book-club' ] ],
	'bookclub2'      => [ 'Monthly Book Club', $NY, [ -60, '19:00:00' ], [ -60, '20:30:00' ], [ 'tags' => [ 'free' ], 'cost' => 'Free', 'slug' => 'monthly-book-club-2' ] ],
	'watercolor'     => [ 'Watercolor Basics', $NY, [ -100, '10:00:00' ], [ -100, '13:00:00' ], [ 'cats' => [ 'workshops' ], 'cost' => '35' ] ],
	'farfuture'      => [ 'World Expo Preview', $NY, [ 900, '00:00:00' ], [ 900, '23:59:00' ], [ 'all_day' => true, 'cats' => [ 'technology' ] ] ],
	'nydbrunch'      => [ "New Year's Day Brunch", $NY, [ 40, '00:00:00' ], [ 40, '23:59:00' ], [ 'all_day' => true, 'cats' => [ 'family' ], 'cost' => '45' ] ],
	'talka'          => [ 'Same-Time Talk A', $NY, [ 30, '10:00:00' ], [ 30, '11:00:00' ], [ 'cats' => [ 'technology' ], 'tags' => [ 'online' ] ] ],
	'talkb'          => [ 'Same-Time Talk B', $NY, [ 30, '10:00:00' ], [ 30, '11:00:00' ], [ 'cats' => [ 'technology' ], 'tags' => [ 'online' ] ] ],
	'parade'         => [ 'Thanksgiving Parade Viewing', $NY, [ 4, '08:00:00' ], [ 4, '12:00:00' ], [ 'cats' => [ 'family' ], 'tags' => [ 'outdoor', 'kids', 'free' ], 'cost' => 'Free' ] ],
	'lecture'        => [ "Yesterday's Lecture", $NY, [ -1, '18:00:00' ], [ -1, '19:00:00' ], [ 'cats' => [ 'technology' ] ] ],
	'lunch'          => [ 'Lunch and Learn', $NY, [ 0, '12:00:00' ], [ 0, '13:00:00' ], [ 'tags' => [ 'free' ], 'cost' => 'Free' ] ],
	'countdown'      => [ 'Midnight Countdown', $NY, [ 39, '23:00:00' ], [ 40, '01:00:00' ], [ 'cats' => [ 'music' ], 'cost' => '5-10', 'featured' => true ] ],
	'board'          => [ 'Board Meeting', $NY, [ 8, '09:00:00' ], [ 8, '10:00:00' ], [ 'status' => 'private' ] ],
	'pending'        => [ 'Community Potluck (pending review)', $NY, [ 15, '17:00:00' ], [ 15, '19:00:00' ], [ 'status' => 'pending', 'cats' => [ 'family' ] ] ],
	'mixedtz'        => [ 'Transatlantic Webinar', 'Europe/London', [ 11, '16:00:00' ], [ 11, '17:00:00' ], [ 'organizers' => [ 'techcon', 'jazzsoc' ], 'tags' => [ 'online' ], 'cost' => 'Free' ] ],
	// Beyond the recording.
	'chaicode'       => [ 'Chai & Code Meetup', 'Asia/Kolkata', [ 6, '18:30:00' ], [ 6, '20:30:00' ], [ 'venue' => 'bic', 'organizers' => [ 'techcon' ], 'cats' => [ 'technology' ], 'tags' => [ 'networking' ], 'cost' => '₹200', 'image' => true, 'author' => 'author1', 'show_map' => true ] ],
	'yoga'           => [ 'Sunrise Yoga (online)', 'UTC+5.5', [ 3, '06:00:00' ], [ 3, '07:00:00' ], [ 'tags' => [ 'online', 'free' ], 'cost' => 'Free' ] ],
	'museumlate'     => [ 'Museum Late: Impressionists', 'Europe/Paris', [ 13, '18:00:00' ], [ 13, '22:00:00' ], [ 'cats' => [ 'family' ], 'cost' => '€6.50 - €8.50' ] ],
	'masterclass'    => [ 'Jazz Piano Masterclass', 'Europe/Berlin', [ -5, '14:00:00' ], [ -5, '16:00:00' ], [ 'organizers' => [ 'jazzsoc' ], 'cats' => [ 'jazz', 'workshops' ], 'cost' => '12', 'symbol' => '€', 'position' => 'postfix', 'code' => 'EUR' ] ],
	'fundraiser'     => [ 'Community Fundraiser Concert', $NY, [ 22, '19:00:00' ], [ 22, '22:00:00' ], [ 'venue' => 'bluenote', 'cats' => [ 'music' ], 'tags' => [ 'charity' ], 'cost' => [ '0', '20', '30' ] ] ],
	'imported'       => [ 'City Marathon (imported)', 'America/Chicago', [ 50, '07:00:00' ], [ 50, '13:00:00' ], [ 'venue' => 'millennium', 'organizers' => [ 'parks' ], 'tags' => [ 'outdoor' ], 'cost' => '$25', 'origin' => 'event-aggregator', 'lineage' => [ 'ical.example.org?id=4471' ] ] ],
	'cancelled'      => [ 'Cancelled Poetry Night', $NY, [ 6, '19:00:00' ], [ 6, '21:00:00' ], [ 'status' => 'trash', 'cats' => [ 'family' ], 'cost' => '5' ] ],
	'scheduled'      => [ 'Season Preview Night', $NY, [ 60, '19:00:00' ], [ 60, '21:00:00' ], [ 'status' => 'future', 'cats' => [ 'music' ], 'cost' => 'Free' ] ],
];

// IDs the recording had (spec/examples/seed.json). The seed asks WordPress for the same IDs (import_id, explicit
// term IDs) whenever they are free — always after its own clean-up, unless other content took them — so the
// recorded requests (e.g. /events/17, ?venue=5, ?organizer=12, categories/2) replay against the same objects.
// Items beyond the recording get fresh IDs and are created after all recorded ones.
$recorded_ids = [
	'media'      => [ 'stage' => 4 ],
	'categories' => [ 'music' => 2, 'jazz' => 3, 'technology' => 4, 'workshops' => 5, 'family' => 6 ],
	'tags'       => [ 'free' => 7, 'outdoor' => 8, 'online' => 9, 'kids' => 10, 'networking' => 11, 'charity' => 12 ],
	'venues'     => [ 'bluenote' => 5, 'moscone' => 6, 'rfh' => 7, 'opera' => 8, 'millennium' => 9, 'forum' => 10, 'warehouse' => 11 ],
	'organizers' => [ 'jazzsoc' => 12, 'techcon' => 13, 'parks' => 14, 'sydarts' => 15, 'ghost' => 16 ],
	'events'     => [ 'gala' => 17, 'brunch' => 18, 'jam' => 19, 'winterfest' => 20, 'devsummit' => 21, 'cloudmeetup' => 22,
		'python' => 23, 'aipanel' => 24, 'newyearconcert' => 25, 'carols' => 26, 'proms' => 27, 'vivid' => 28, 'nye' => 29,
		'operastars' => 30, 'expo' => 31, 'market' => 32, 'skating' => 33, 'exhibition' => 34, 'afterparty' => 35,
		'tokyojazz' => 36, 'rehearsal' => 37, 'donor' => 38, 'draft' => 39, 'members' => 40, 'funrun' => 42,
		'coding1' => 43, 'coding2' => 44, 'coding3' => 45, 'bookclub1' => 46, 'bookclub2' => 47, 'watercolor' => 48,
		'farfuture' => 49, 'nydbrunch' => 50, 'talka' => 51, 'talkb' => 52, 'parade' => 53, 'lecture' => 54,
		'lunch' => 55, 'countdown' => 56, 'board' => 57, 'pending' => 58, 'mixedtz' => 59 ],
];

// -------------------------------------------------------------------------------------------------------------
// Helpers
// -------------------------------------------------------------------------------------------------------------

/** DateTimeZone for a TEC time zone string: an IANA name, "UTC", or TEC's "UTC±h[.5]" pseudo zones. */
function seed_tz( $tz ) {
	if ( preg_match( '/^UTC([+-])(\d{1,2})(?:\.(\d+))?$/', $tz, $m ) ) {
		$minutes = isset( $m[3] ) ? (int) round( (float) ( '0.' . $m[3] ) * 60 ) : 0;
		return new DateTimeZone( sprintf( '%s%02d:%02d', $m[1], $m[2], $minutes ) );
	}
	return new DateTimeZone( $tz );
}

/** _EventTimezoneAbbr as TEC stores it: the abbreviation at the event start, the name itself for UTC±h. */
function seed_tz_abbr( $tz, DateTimeImmutable $start ) {
	if ( 'UTC' === $tz || 0 === strpos( $tz, 'UTC+' ) || 0 === strpos( $tz, 'UTC-' ) ) {
		return $tz;
	}
	return $start->format( 'T' );
}

/**
 * Event date meta (TEC's row order): local wall times, UTC, duration (TEC's API writes none for all-day events).
 *
 * @return array<int, array{0:string,1:string}> [key, value] rows
 */
function seed_dates( $today, $tz, $start, $end, $all_day ) {
	$zone = seed_tz( $tz );
	$day  = static function ( $offset ) use ( $today ) {
		return $today->modify( sprintf( '%+d days', $offset ) )->format( 'Y-m-d' );
	};
	$s = new DateTimeImmutable( $day( $start[0] ) . ' ' . ( $all_day ? '00:00:00' : $start[1] ), $zone );
	$e = new DateTimeImmutable( $day( $end[0] ) . ' ' . ( $all_day ? '23:59:59' : $end[1] ), $zone );
	$utc  = new DateTimeZone( 'UTC' );
	$rows = [
		[ '_EventStartDate', $s->format( 'Y-m-d H:i:s' ) ],
		[ '_EventEndDate', $e->format( 'Y-m-d H:i:s' ) ],
		[ '_EventStartDateUTC', $s->setTimezone( $utc )->format( 'Y-m-d H:i:s' ) ],
		[ '_EventEndDateUTC', $e->setTimezone( $utc )->format( 'Y-m-d H:i:s' ) ],
	];
	if ( ! $all_day ) {
		$rows[] = [ '_EventDuration', (string) ( $e->getTimestamp() - $s->getTimestamp() ) ];
	}
	return [ $rows, [ [ '_EventTimezone', $tz ], [ '_EventTimezoneAbbr', seed_tz_abbr( $tz, $s ) ] ] ];
}

/**
 * Cost meta as TEC's API writes it: a leading or trailing currency symbol of a single value becomes
 * _EventCurrencySymbol + _EventCurrencyPosition (prefix/postfix); "0" stores no row; ranges are kept as given.
 * Explicit symbol/position/code (admin UI style) are stored as given.
 */
function seed_cost_rows( array $f ) {
	$rows = [];
	if ( isset( $f['symbol'] ) ) {
		$rows[] = [ '_EventCurrencySymbol', $f['symbol'] ];
		if ( isset( $f['code'] ) ) {
			$rows[] = [ '_EventCurrencyCode', $f['code'] ];
		}
		$rows[] = [ '_EventCurrencyPosition', $f['position'] ?? 'prefix' ];
	}
	$cost = $f['cost'] ?? null;
	if ( null === $cost ) {
		return $rows;
	}
	if ( is_array( $cost ) ) {
		foreach ( $cost as $c ) {
			$rows[] = [ '_EventCost', $c ];
		}
		return $rows;
	}
	if ( '0' === $cost || '' === $cost ) {
		return $rows;
	}
	if ( ! isset( $f['symbol'] ) && preg_match( '/^([^\d\s.,-]+)([\d.,]+)$/u', $cost, $m ) && 'Free' !== $cost ) {
		$rows[] = [ '_EventCurrencySymbol', $m[1] ];
		$rows[] = [ '_EventCurrencyPosition', 'prefix' ];
	} elseif ( ! isset( $f['symbol'] ) && preg_match( '/^([\d.,]+)([^\d\s.,-]+)$/u', $cost, $m ) ) {
		$rows[] = [ '_EventCurrencySymbol', $m[2] ];
		$rows[] = [ '_EventCurrencyPosition', 'postfix' ];
	}
	$rows[] = [ '_EventCost', $cost ];
	return $rows;
}

function seed_add_meta( $post_id, array $rows ) {
	foreach ( $rows as list( $key, $value ) ) {
		add_post_meta( $post_id, $key, wp_slash( $value ) );
	}
}

/** wp_insert_post with TEC's defaults for its post types; $want_id is used when no post has it (import_id). */
function seed_insert_post( array $postarr, $want_id = 0 ) {
	$postarr += [ 'post_author' => 1, 'comment_status' => 'closed', 'ping_status' => 'closed', 'post_status' => 'publish' ];
	if ( $want_id && ! get_post( $want_id ) ) {
		$postarr['import_id'] = $want_id;
	}
	$id = wp_insert_post( wp_slash( $postarr ), true );
	if ( is_wp_error( $id ) ) {
		fwrite( STDERR, 'seed: ' . $postarr['post_title'] . ': ' . $id->get_error_message() . "\n" );
		exit( 1 );
	}
	return $id;
}

/**
 * Creates a term, with term_id = term_taxonomy_id = $want_id when both are free (plain SQL: wp_insert_term
 * cannot choose IDs), else through wp_insert_term.
 */
function seed_insert_term( $name, $taxonomy, $slug, $description, $parent, $want_id ) {
	global $wpdb;
	$free = $want_id
		&& ! $wpdb->get_var( $wpdb->prepare( "SELECT term_id FROM {$wpdb->terms} WHERE term_id = %d", $want_id ) )
		&& ! $wpdb->get_var( $wpdb->prepare( "SELECT term_taxonomy_id FROM {$wpdb->term_taxonomy} WHERE term_taxonomy_id = %d", $want_id ) )
		&& ! term_exists( $slug, $taxonomy );
	if ( $free ) {
		$wpdb->insert( $wpdb->terms, [ 'term_id' => $want_id, 'name' => $name, 'slug' => $slug, 'term_group' => 0 ] );
		$wpdb->insert( $wpdb->term_taxonomy, [ 'term_taxonomy_id' => $want_id, 'term_id' => $want_id, 'taxonomy' => $taxonomy,
			'description' => $description, 'parent' => $parent, 'count' => 0 ] );
		clean_term_cache( $want_id, $taxonomy );
		return $want_id;
	}
	$r = wp_insert_term( $name, $taxonomy, [ 'slug' => $slug, 'description' => $description, 'parent' => $parent ] );
	if ( is_wp_error( $r ) ) {
		fwrite( STDERR, "seed: term $slug: " . $r->get_error_message() . "\n" );
		exit( 1 );
	}
	return $r['term_id'];
}

/** Deletes posts with their revisions, meta and term links, in chunks of plain SQL (fast for 10,000s). */
function seed_delete_posts( array $ids ) {
	global $wpdb;
	foreach ( array_chunk( $ids, 1000 ) as $chunk ) {
		$in        = implode( ',', array_map( 'intval', $chunk ) );
		$revisions = $wpdb->get_col( "SELECT ID FROM {$wpdb->posts} WHERE post_parent IN ($in) AND post_type = 'revision'" );
		$all       = implode( ',', array_map( 'intval', array_merge( $chunk, $revisions ) ) );
		$wpdb->query( "DELETE FROM {$wpdb->postmeta} WHERE post_id IN ($all)" );
		$wpdb->query( "DELETE FROM {$wpdb->term_relationships} WHERE object_id IN ($all)" );
		$wpdb->query( "DELETE FROM {$wpdb->comments} WHERE comment_post_ID IN ($all)" );
		$wpdb->query( "DELETE FROM {$wpdb->posts} WHERE ID IN ($all)" );
	}
}

/**
 * Bulk events numbered $first to $last for load tests, written with direct SQL (500 per statement), as an
 * importer writing rows itself would: linked to the seed's published venues, organizers, categories and tags ($map).
 */
function seed_bulk( $first, $last, array $map, DateTimeImmutable $today ) {
	global $wpdb;
	$zones     = [ 'America/New_York', 'Europe/London', 'Asia/Tokyo', 'Australia/Sydney', 'Asia/Kolkata', 'America/Chicago', 'UTC', 'UTC+2' ];
	$costs     = [ '10', 'Free', '5-10', '€6.50 - €8.50', '$25', '', '0', '49' ];
	$pub_venue = array_values( array_diff_key( $map['venues'], [ 'warehouse' => 1 ] ) );
	$pub_org   = array_values( array_diff_key( $map['organizers'], [ 'ghost' => 1 ] ) );
	$cat_tt    = array_values( array_map( static function ( $id ) { return (int) get_term( $id )->term_taxonomy_id; }, $map['categories'] ) );
	$tag_tt    = array_values( array_map( static function ( $id ) { return (int) get_term( $id )->term_taxonomy_id; }, $map['tags'] ) );
	$now       = current_time( 'mysql' );
	$now_gmt   = current_time( 'mysql', true );
	$home      = home_url( '/event/' );
	for ( $base = $first; $base <= $last; $base += 500 ) {
		$upto   = min( $last, $base + 499 );
		$values = [];
		$specs  = [];
		for ( $i = $base; $i <= $upto; $i++ ) {
			$slug  = sprintf( 'load-test-event-%05d', $i );
			$title = sprintf( 'Load Test Event %05d', $i );
			$values[] = $wpdb->prepare( '(1, %s, %s, %s, %s, \'\', \'publish\', \'closed\', \'closed\', \'\', %s, \'\', \'\', %s, %s, \'\', 0, %s, %d, \'tribe_events\', \'\', 0)',
				$now, $now_gmt, '<p>' . $title . ': generated for load tests.</p>', $title, $slug, $now, $now_gmt, $home . $slug . '/', 0 === $i % 97 ? -1 : 0 );
			$specs[ $slug ] = $i;
		}
		$wpdb->query( "INSERT INTO {$wpdb->posts} (post_author, post_date, post_date_gmt, post_content, post_title, post_excerpt, post_status, comment_status, ping_status, post_password, post_name, to_ping, pinged, post_modified, post_modified_gmt, post_content_filtered, post_parent, guid, menu_order, post_type, post_mime_type, comment_count) VALUES " . implode( ',', $values ) );
		$names = "'" . implode( "','", array_keys( $specs ) ) . "'";
		$ids   = $wpdb->get_results( "SELECT ID, post_name FROM {$wpdb->posts} WHERE post_type = 'tribe_events' AND post_name IN ($names)" );
		$meta  = [];
		$rels  = [];
		foreach ( $ids as $row ) {
			$i       = $specs[ $row->post_name ];
			$tz      = $zones[ $i % count( $zones ) ];
			$offset  = ( $i * 7919 ) % 730 - 365; // spread over the past and the next year
			$all_day = 0 === $i % 11;
			$length  = 0 === $i % 17 ? 2 : 0; // some multi-day events
			$hour    = 8 + $i % 12;
			$start   = [ $offset, sprintf( '%02d:%s:00', $hour, 0 === $i % 2 ? '00' : '30' ) ];
			$end     = [ $offset + $length, sprintf( '%02d:%s:00', $hour + 1 + $i % 3, 0 === $i % 2 ? '00' : '30' ) ];
			$f       = [ 'cost' => $costs[ $i % count( $costs ) ] ];
			$rows    = [ [ '_EventOrigin', 'events-calendar' ], [ '_EventShowMapLink', '' ], [ '_EventShowMap', '' ] ];
			if ( 0 !== $i % 5 ) {
				$rows[] = [ '_EventVenueID', (string) $pub_venue[ $i % count( $pub_venue ) ] ];
			}
			for ( $k = 0; $k < $i % 3; $k++ ) {
				$rows[] = [ '_EventOrganizerID', (string) $pub_org[ ( $i + $k ) % count( $pub_org ) ] ];
			}
			if ( $all_day ) {
				$rows[] = [ '_EventAllDay', 'yes' ];
			}
			list( $date_rows, $tz_rows ) = seed_dates( $today, $tz, $start, $end, $all_day );
			$rows = array_merge( $rows, $date_rows, seed_cost_rows( $f ), $tz_rows );
			if ( 0 === $i % 23 ) {
				$rows[] = [ '_tribe_featured', '1' ];
			}
			foreach ( $rows as list( $k, $v ) ) {
				$meta[] = $wpdb->prepare( '(%d, %s, %s)', $row->ID, $k, $v );
			}
			$rels[] = sprintf( '(%d, %d)', $row->ID, $cat_tt[ $i % count( $cat_tt ) ] );
			$rels[] = sprintf( '(%d, %d)', $row->ID, $tag_tt[ $i % count( $tag_tt ) ] );
		}
		$wpdb->query( "INSERT INTO {$wpdb->postmeta} (post_id, meta_key, meta_value) VALUES " . implode( ',', $meta ) );
		$wpdb->query( "INSERT INTO {$wpdb->term_relationships} (object_id, term_taxonomy_id) VALUES " . implode( ',', $rels ) );
	}
	wp_cache_flush();
}

if ( isset( $opts['append'] ) ) {
	global $wpdb;
	$first = 1 + (int) $wpdb->get_var( "SELECT COUNT(*) FROM {$wpdb->posts} WHERE post_type = 'tribe_events' AND post_name LIKE 'load-test-event-%'" );
	seed_bulk( $first, $first + (int) $opts['append'] - 1, json_decode( file_get_contents( $out ), true ), new DateTimeImmutable( gmdate( 'Y-m-d' ), wp_timezone() ) );
	wp_cache_flush();
	printf( "seed: appended bulk events %d to %d\n", $first, $first + (int) $opts['append'] - 1 );
	exit( 0 );
}

// -------------------------------------------------------------------------------------------------------------
// 1. Delete what an earlier run (or anyone) left
// -------------------------------------------------------------------------------------------------------------

global $wpdb;
$types     = "'tribe_events','tribe_venue','tribe_organizer'";
$old_ids   = array_map( 'intval', $wpdb->get_col( "SELECT ID FROM {$wpdb->posts} WHERE post_type IN ($types)" ) );
$old_tags  = [];
if ( $old_ids ) {
	foreach ( array_chunk( $old_ids, 1000 ) as $chunk ) {
		$old_tags = array_merge( $old_tags, $wpdb->get_col( "SELECT DISTINCT tt.term_id FROM {$wpdb->term_relationships} tr JOIN {$wpdb->term_taxonomy} tt USING (term_taxonomy_id) WHERE tt.taxonomy = 'post_tag' AND tr.object_id IN (" . implode( ',', $chunk ) . ')' ) );
	}
}
seed_delete_posts( $old_ids );
foreach ( get_posts( [ 'post_type' => 'attachment', 'post_status' => 'any', 'numberposts' => -1, 'fields' => 'ids', 'meta_key' => '_calshim_seed' ] ) as $att ) {
	wp_delete_attachment( $att, true );
}
wp_cache_flush();
foreach ( get_terms( [ 'taxonomy' => 'tribe_events_cat', 'hide_empty' => false, 'fields' => 'ids' ] ) as $term_id ) {
	wp_delete_term( $term_id, 'tribe_events_cat' );
}
// Tags: the seed's own, and any other tag that only events used.
foreach ( get_terms( [ 'taxonomy' => 'post_tag', 'hide_empty' => false ] ) as $term ) {
	$only_events = in_array( (string) $term->term_id, array_map( 'strval', $old_tags ), true ) && 0 === (int) $wpdb->get_var( $wpdb->prepare( "SELECT COUNT(*) FROM {$wpdb->term_relationships} WHERE term_taxonomy_id = %d", $term->term_taxonomy_id ) );
	if ( isset( $tags[ $term->slug ] ) || $only_events ) {
		wp_delete_term( $term->term_id, 'post_tag' );
	}
}
wp_cache_flush();

// -------------------------------------------------------------------------------------------------------------
// 2. Create: image, terms, venues, organizers, events (the recording's order)
// -------------------------------------------------------------------------------------------------------------

wp_defer_term_counting( true );
$map   = [ 'media' => [], 'categories' => [], 'tags' => [], 'venues' => [], 'organizers' => [], 'events' => [] ];
// "Today" is the UTC calendar date (at midnight site time): the original's default window starts from
// UTC's "yesterday 23:59", so relative to the UTC date the data set always sits where it sat in the
// window when the examples were recorded (2026-11-22, 18:54 UTC), whatever the hour of the run.
$today = new DateTimeImmutable( gmdate( 'Y-m-d' ), wp_timezone() );
// Days since the recording, for tests that replay the recorded requests (their dates shift alike).
$map['day'] = [ 'offset_from_recording' => (int) ( new DateTimeImmutable( gmdate( 'Y-m-d' ), new DateTimeZone( 'UTC' ) ) )
	->diff( new DateTimeImmutable( '2026-11-22', new DateTimeZone( 'UTC' ) ) )->format( '%r%a' ) * -1 ];

// stage.png: 1200x800 solid colour made with GD; WordPress generates its sizes (thumbnail, medium, …).
$upload = wp_upload_dir();
wp_mkdir_p( $upload['path'] );
$file = $upload['path'] . '/' . wp_unique_filename( $upload['path'], 'stage.png' );
$img  = imagecreatetruecolor( 1200, 800 );
imagefill( $img, 0, 0, imagecolorallocate( $img, 0x2b, 0x4c, 0x7e ) );
imagepng( $img, $file );
imagedestroy( $img );
$image_id = wp_insert_attachment( [
	'post_title'     => 'stage',
	'post_mime_type' => 'image/png',
	'post_status'    => 'inherit',
	'post_content'   => '',
	'guid'           => $upload['url'] . '/' . basename( $file ),
	'import_id'      => get_post( $recorded_ids['media']['stage'] ) ? 0 : $recorded_ids['media']['stage'],
], $file, 0, true );
if ( is_wp_error( $image_id ) ) {
	fwrite( STDERR, 'seed: image: ' . $image_id->get_error_message() . "\n" );
	exit( 1 );
}
wp_update_attachment_metadata( $image_id, wp_generate_attachment_metadata( $image_id, $file ) );
add_post_meta( $image_id, '_calshim_seed', '1' );
$map['media']['stage'] = $image_id;

foreach ( $categories as $slug => list( $name, $description, $parent ) ) {
	$map['categories'][ $slug ] = seed_insert_term( $name, 'tribe_events_cat', $slug, $description,
		$parent ? $map['categories'][ $parent ] : 0, $recorded_ids['categories'][ $slug ] ?? 0 );
}
foreach ( $tags as $slug => list( $name, $description ) ) {
	$map['tags'][ $slug ] = seed_insert_term( $name, 'post_tag', $slug, $description, 0, $recorded_ids['tags'][ $slug ] ?? 0 );
}

$create_venue = static function ( $key, array $v ) use ( &$map, $image_id, $recorded_ids ) {
	// TEC gives linked posts a slug even as drafts (events in draft keep none, as WordPress does).
	$id  = seed_insert_post( [ 'post_type' => 'tribe_venue', 'post_title' => $v['title'], 'post_name' => sanitize_title( $v['title'] ), 'post_content' => $v['content'] ?? '', 'post_status' => $v['status'] ?? 'publish' ], $recorded_ids['venues'][ $key ] ?? 0 );
	$map_show = ( $v['show_map'] ?? true ) ? '1' : '';
	$map_link = ( $v['show_map_link'] ?? true ) ? '1' : '';
	$rows = [ [ '_VenueOrigin', 'events-calendar' ], [ '_EventShowMapLink', $map_link ], [ '_EventShowMap', $map_show ],
		[ '_VenueShowMapLink', $map_link ], [ '_VenueShowMap', $map_show ] ];
	if ( ! empty( $v['image'] ) ) {
		$rows[] = [ '_thumbnail_id', (string) $image_id ];
	}
	// TEC's order: given fields, then the derived state/province last (a given one sits after the country).
	foreach ( [ 'address' => '_VenueAddress', 'city' => '_VenueCity', 'country' => '_VenueCountry', 'province' => '_VenueProvince',
		'state' => '_VenueState', 'stateprovince' => '_VenueStateProvince', 'zip' => '_VenueZip', 'phone' => '_VenuePhone',
		'website' => '_VenueURL' ] as $field => $meta ) {
		if ( isset( $v[ $field ] ) ) {
			$rows[] = [ $meta, $v[ $field ] ];
		}
	}
	if ( ! isset( $v['stateprovince'] ) ) {
		$us     = in_array( $v['country'] ?? '', [ '', 'US', 'United States' ], true );
		$rows[] = [ '_VenueStateProvince', ( ! empty( $v['state'] ) && $us ) ? $v['state'] : ( $v['province'] ?? '' ) ];
	}
	seed_add_meta( $id, $rows );
	$map['venues'][ $key ] = $id;
};

$create_organizer = static function ( $key, array $o ) use ( &$map, $recorded_ids ) {
	$id   = seed_insert_post( [ 'post_type' => 'tribe_organizer', 'post_title' => $o['title'], 'post_name' => sanitize_title( $o['title'] ), 'post_content' => $o['content'] ?? '', 'post_status' => $o['status'] ?? 'publish' ], $recorded_ids['organizers'][ $key ] ?? 0 );
	$rows = [ [ '_OrganizerOrigin', 'events-calendar' ] ];
	foreach ( [ 'phone' => '_OrganizerPhone', 'website' => '_OrganizerWebsite', 'email' => '_OrganizerEmail' ] as $field => $meta ) {
		if ( isset( $o[ $field ] ) ) {
			$rows[] = [ $meta, $o[ $field ] ];
		}
	}
	seed_add_meta( $id, $rows );
	$map['organizers'][ $key ] = $id;
};

$create_event = static function ( $key, array $event ) use ( &$map, $image_id, $recorded_ids, $today ) {
	list( $title, $tz, $start, $end, $f ) = $event;
	$status  = $f['status'] ?? 'publish';
	$postarr = [
		'post_type'     => 'tribe_events',
		'post_title'    => $title,
		'post_content'  => '<p>' . $title . ': details, line-up and practical information.</p>',
		'post_excerpt'  => $f['excerpt'] ?? '',
		'post_status'   => 'trash' === $status ? 'publish' : $status,
		'post_password' => $f['password'] ?? '',
		'menu_order'    => ! empty( $f['sticky'] ) ? -1 : 0,
	];
	if ( isset( $f['slug'] ) ) {
		$postarr['post_name'] = $f['slug'];
	}
	if ( isset( $f['author'] ) && ( $u = get_user_by( 'login', $f['author'] ) ) ) {
		$postarr['post_author'] = $u->ID;
	}
	if ( 'future' === $status ) { // scheduled: publication three days from now
		$postarr['post_date'] = wp_date( 'Y-m-d 09:00:00', time() + 3 * DAY_IN_SECONDS );
	}
	$id       = seed_insert_post( $postarr, $recorded_ids['events'][ $key ] ?? 0 );
	$all_day  = $f['all_day'] ?? false;
	$show_map = ! empty( $f['show_map'] ) ? '1' : '';
	$rows     = [ [ '_EventOrigin', $f['origin'] ?? 'events-calendar' ], [ '_EventShowMapLink', $show_map ], [ '_EventShowMap', $show_map ] ];
	if ( isset( $f['venue'] ) ) {
		$rows[] = [ '_EventVenueID', (string) $map['venues'][ $f['venue'] ] ];
	}
	foreach ( $f['organizers'] ?? [] as $o ) {
		$rows[] = [ '_EventOrganizerID', (string) $map['organizers'][ $o ] ];
	}
	if ( $all_day ) {
		$rows[] = [ '_EventAllDay', true === $all_day ? 'yes' : $all_day ];
	}
	if ( ! empty( $f['image'] ) ) {
		$rows[] = [ '_thumbnail_id', (string) $image_id ];
	}
	list( $date_rows, $tz_rows ) = seed_dates( $today, $tz, $start, $end, (bool) $all_day );
	$rows = array_merge( $rows, $date_rows, seed_cost_rows( $f ) );
	if ( isset( $f['website'] ) ) {
		$rows[] = [ '_EventURL', $f['website'] ];
	}
	if ( ! empty( $f['hide'] ) ) {
		$rows[] = [ '_EventHideFromUpcoming', 'yes' ];
	}
	$rows = array_merge( $rows, $tz_rows );
	if ( ! empty( $f['featured'] ) ) {
		$rows[] = [ '_tribe_featured', '1' ];
	}
	foreach ( $f['lineage'] ?? [] as $lineage ) {
		$rows[] = [ '_tribe_aggregator_global_id_lineage', $lineage ];
	}
	seed_add_meta( $id, $rows );
	if ( ! empty( $f['cats'] ) ) {
		wp_set_object_terms( $id, array_map( static function ( $c ) use ( $map ) { return $map['categories'][ $c ]; }, $f['cats'] ), 'tribe_events_cat' );
	}
	if ( ! empty( $f['tags'] ) ) {
		wp_set_object_terms( $id, array_map( static function ( $t ) use ( $map ) { return $map['tags'][ $t ]; }, $f['tags'] ), 'post_tag' );
	}
	if ( 'trash' === $status ) {
		wp_trash_post( $id ); // as WordPress trashes: _wp_trash_meta_status/_time, slug __trashed
	}
	$map['events'][ $key ] = $id;
};

// Recorded items first (in the recording's order, with their IDs), then the additions.
foreach ( $recorded_only ? [ true ] : [ true, false ] as $recorded ) {
	foreach ( [ 'venues' => [ $venues, $create_venue ], 'organizers' => [ $organizers, $create_organizer ], 'events' => [ $events, $create_event ] ] as $kind => list( $items, $create ) ) {
		foreach ( $items as $key => $item ) {
			if ( isset( $recorded_ids[ $kind ][ $key ] ) === $recorded ) {
				$create( $key, $item );
			}
		}
	}
}

// -------------------------------------------------------------------------------------------------------------
// 3. Bulk events for load tests (direct SQL, 500 per statement)
// -------------------------------------------------------------------------------------------------------------

if ( $bulk > 0 ) {
	seed_bulk( 1, $bulk, $map, $today );
}

wp_defer_term_counting( false );
foreach ( [ 'tribe_events_cat', 'post_tag' ] as $taxonomy ) {
	$tt_ids = get_terms( [ 'taxonomy' => $taxonomy, 'hide_empty' => false, 'fields' => 'tt_ids' ] );
	wp_update_term_count_now( array_map( 'intval', $tt_ids ), $taxonomy );
}
wp_cache_flush();

// -------------------------------------------------------------------------------------------------------------
// 4. Report
// -------------------------------------------------------------------------------------------------------------

if ( '' !== $out ) {
	file_put_contents( $out, wp_json_encode( $map, JSON_PRETTY_PRINT | JSON_UNESCAPED_SLASHES ) . "\n" );
}
$line = [];
foreach ( [ 'tribe_events', 'tribe_venue', 'tribe_organizer' ] as $type ) {
	$by = $wpdb->get_results( $wpdb->prepare( "SELECT post_status, COUNT(*) n FROM {$wpdb->posts} WHERE post_type = %s GROUP BY post_status ORDER BY post_status", $type ), OBJECT_K );
	$line[] = $type . ' ' . array_sum( wp_list_pluck( $by, 'n' ) ) . ' (' . implode( ', ', array_map( static function ( $s, $r ) { return "$s $r->n"; }, array_keys( $by ), $by ) ) . ')';
}
printf(
	"seed: %s; tribe_events_cat %d, post_tag %d (seed), images %d; bulk %d; today %s (%s); %.1fs\n",
	implode( '; ', $line ),
	count( $map['categories'] ),
	count( $map['tags'] ),
	count( $map['media'] ),
	$bulk,
	$today->format( 'Y-m-d' ),
	wp_timezone_string(),
	microtime( true ) - $t0
);
if ( class_exists( 'Tribe__Events__Main' ) ) {
	fwrite( STDERR, "seed: The Events Calendar is active: run its custom-tables sync (shared/original/sync.php) so it sees these events\n" );
}
