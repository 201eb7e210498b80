package test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// A bulk page built with its shortcuts (each permalink from the type's permastruct, setup_postdata()
// only for posts with shortcodes or HTML comments when nothing but core and calshim is hooked) is
// byte for byte the page built without them (a callback hooked to the_post and to post_type_link
// turns both off), for posts written by SQL from generated classes of input: statuses (drafts and
// pending posts get ?post_type=...&p= links, private ones depend on the reader), slugs (empty, "0",
// encoded, with a slash or the permastruct's tag), contents and excerpts with shortcodes, blocks, more
// and nextpage tags, quotes, inline URLs and passwords; with and without trailing slashes; and with a
// closure of no plugin's hooked elsewhere (setup_postdata() for every post again).
func TestSyncBulkShortcutsMatchCore(t *testing.T) {
	rng, seed := seededRand(t)
	contents := []string{"", "plain text", "<p>Load Test Event 1: generated.</p>", "\"Quotes\" -- and... 2x3 (c) :)",
		"[caption id=\"x\"]a caption[/caption]", "[gallery ids=\"1\"]", "[unknown-code]", "<!-- wp:paragraph --><p>block</p><!-- /wp:paragraph -->",
		"before<!--more-->after", "one<!--nextpage-->two", "see https://example.com/x inline", "<b>bold</b> Wordpress"}
	names := []string{"plain-name", "", "0", "caf%c3%a9-event", "with/slash", "tag-%tribe_events%-in", "trailing-"}
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	type post struct{ Title, Content, Excerpt, Password, Name, Status string }
	var posts []post
	for i := range 24 {
		p := post{Title: pick(contents), Content: pick(contents), Name: pick(names),
			Status: pick([]string{"publish", "publish", "draft", "pending", "private", "future", "trash"})}
		if p.Name != "" {
			p.Name = fmt.Sprintf("%s-%d-%d", p.Name, seed%1000, i)
		}
		if rng.IntN(3) == 0 {
			p.Excerpt = pick(contents)
		}
		if rng.IntN(5) == 0 {
			p.Password = "secret"
		}
		posts = append(posts, p)
	}
	spec, _ := json.Marshal(posts)
	t.Cleanup(func() {
		sqlExec(t, "DELETE FROM {prefix}posts WHERE post_type = 'tribe_events' AND post_content_filtered = 'bulk-shortcut-test'")
	})
	out := wpPHP(t, `global $wpdb; $posts = json_decode( base64_decode( '`+base64.StdEncoding.EncodeToString(spec)+`' ), true );
$ids = [];
foreach ( $posts as $p ) {
	$wpdb->insert( $wpdb->posts, [ 'post_author' => 1, 'post_date' => '2026-01-02 03:04:05', 'post_date_gmt' => '2026-01-02 08:04:05',
		'post_content' => $p['Content'], 'post_title' => $p['Title'], 'post_excerpt' => $p['Excerpt'], 'post_status' => $p['Status'],
		'post_password' => $p['Password'], 'post_name' => $p['Name'], 'post_modified' => '2026-01-02 03:04:05',
		'post_modified_gmt' => '2026-01-02 08:04:05', 'post_type' => 'tribe_events', 'to_ping' => '', 'pinged' => '', 'post_content_filtered' => 'bulk-shortcut-test' ] );
	$ids[] = $wpdb->insert_id;
}
echo min( $ids ), ' ', max( $ids );`)
	var from, to int
	if _, err := fmt.Sscan(string(out), &from, &to); err != nil {
		t.Fatalf("insert: %s", out)
	}
	// Each page is read by a PHP of its own: core's filters keep state from one post to the next (a block
	// moves wpautop after the shortcodes for the rest of the request), so only first reads compare.
	// Top-level PHP variables are globals: none may share a name with those setup_postdata() sets ($page).
	read := func(slashes bool, variant string) (page string, links, foreign bool) {
		out := wpPHP(t, fmt.Sprintf(`global $wp_rewrite; $wp_rewrite->use_trailing_slashes = %v;
$identity = static function ( $value ) { return $value; };
if ( 'hooked' === '%[2]s' ) { add_action( 'the_post', '__return_null' ); add_filter( 'post_type_link', $identity ); }
if ( 'closure' === '%[2]s' ) { add_filter( 'the_title', $identity ); }
wp_set_current_user( get_user_by( 'login', 'calshim-reader' )->ID );
$call_private = static function ( $method, ...$args ) {
	$m = new ReflectionMethod( 'Calshim_Changes', $method );
	$m->setAccessible( true );
	return $m->invoke( null, ...$args );
};
$request = new WP_REST_Request( 'GET', '/calshim/v1/bulk' );
$request->set_query_params( [ 'type' => 'tribe_events', 'from' => %[3]d, 'to' => %[4]d ] );
$bulk_page = wp_json_encode( rest_get_server()->response_to_data( rest_do_request( $request ), false ) );
echo wp_json_encode( [ 'page' => $bulk_page, 'links' => null !== $call_private( 'links', 'tribe_events', get_posts( [ 'post_type' => 'tribe_events',
	'post_status' => 'any', 'include' => range( %[3]d, %[4]d ), 'orderby' => 'ID', 'order' => 'ASC', 'numberposts' => -1 ] ) ),
	'foreign' => $call_private( 'foreign_hooks' ) ] );`, slashes, variant, from, to))
		var r struct {
			Page           string
			Links, Foreign bool
		}
		if err := json.Unmarshal(out[strings.IndexByte(string(out), '{'):], &r); err != nil {
			t.Fatalf("php: %v\n%s", err, out)
		}
		return r.Page, r.Links, r.Foreign
	}
	for _, slashes := range []bool{true, false} {
		fast, links, foreign := read(slashes, "plain")
		if !links || foreign {
			t.Errorf("trailing slashes %v: the shortcuts are off (links %v, foreign hooks %v)", slashes, links, foreign)
		}
		var page struct{ Items []json.RawMessage }
		if err := json.Unmarshal([]byte(fast), &page); err != nil || len(page.Items) != len(posts) {
			t.Fatalf("trailing slashes %v: %d items of %d (%v): %.300s", slashes, len(page.Items), len(posts), err, fast)
		}
		for _, variant := range []string{"hooked", "closure"} {
			slow, links, foreign := read(slashes, variant)
			if links != (variant == "closure") || !foreign {
				t.Errorf("trailing slashes %v, %s: the shortcuts are on (links %v, foreign hooks %v)", slashes, variant, links, foreign)
			}
			if slow != fast {
				t.Errorf("trailing slashes %v: the page differs with and without the shortcuts (%s)\nwith:    %s\nwithout: %s", slashes, variant, fast, slow)
			}
		}
	}
}

// A bulk page's dates are written out without parsing on days when the site's zone keeps one offset:
// the same strings as date_create()->format() (mysql_to_rfc3339) for dates generated over the days of
// offset changes and around them (gaps and overlaps, half-hour changes, Samoa's skipped day), on other
// days, invalid dates, zero dates, years below 1000, and in fixed-offset zones.
func TestSyncBulkDatesMatchCore(t *testing.T) {
	rng, _ := seededRand(t)
	var dates []string
	for _, d := range []string{"2026-03-08", "2026-11-01", "2026-10-04", "2026-04-05", "2026-03-29", "2026-10-25", "2011-12-29", "2011-12-30", "2011-12-31", "2026-02-30", "0999-01-01", "0000-00-00"} {
		for range 40 {
			dates = append(dates, fmt.Sprintf("%s %02d:%02d:%02d", d, rng.IntN(25), rng.IntN(61), rng.IntN(60)))
		}
	}
	for range 2000 {
		dates = append(dates, fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", 1990+rng.IntN(50), 1+rng.IntN(12), 1+rng.IntN(31), rng.IntN(24), rng.IntN(60), rng.IntN(60)))
	}
	dates = append(dates, "", "2026-1-02 10:00:00", "2026-01-02T10:00:00", "2026-01-02 10:00")
	spec, _ := json.Marshal(dates)
	out := wpPHP(t, `$dates = json_decode( base64_decode( '`+base64.StdEncoding.EncodeToString(spec)+`' ), true );
$m = new ReflectionMethod( 'Calshim_Changes', 'rfc3339' );
$m->setAccessible( true );
$n = 0;
foreach ( [ 'America/New_York', 'Australia/Lord_Howe', 'Pacific/Apia', 'Europe/London', 'Asia/Kathmandu', 'UTC', '+05:30', '-03:00' ] as $name ) {
	$zone = new DateTimeZone( $name );
	foreach ( $dates as $date ) {
		$parsed = '' === $date ? false : date_create( $date, $zone );
		$want   = false === $parsed ? false : $parsed->format( 'Y-m-d\TH:i:s' );
		$got    = $m->invoke( null, $date, $zone );
		$n++;
		if ( $got !== $want ) {
			echo "$name " . wp_json_encode( $date ) . ': ' . wp_json_encode( $got ) . ', date_create ' . wp_json_encode( $want ) . "\n";
		}
	}
}
echo "compared $n\n";`)
	if !strings.HasPrefix(string(out), "compared ") {
		t.Errorf("rfc3339 differs from date_create()->format():\n%s", out)
	}
}
