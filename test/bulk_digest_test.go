package test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// A bulk page's digests (hashed in PHP from the rows the page read) are the checksum route's (hashed by
// MariaDB), for posts written by SQL from generated classes of input: multibyte and control characters,
// the separator CHAR(31), empty and long texts, zero dates, meta rows with NULL values and keys, keys
// that match the digested ones only under the database's collation (case, trailing spaces, the
// additional fields' prefix), rows of keys not digested, relationships to terms of the two taxonomies
// and of another.
func TestSyncBulkDigestsMatchChecksums(t *testing.T) {
	rng, seed := seededRand(t)
	texts := []string{"", "plain", "Café déjà vu", "日本語のイベント", "emoji 😀🎉", "sep\x1fin\x1fside", "quote ' \" \\ back",
		"<p>html &amp; <b>bold</b></p>", "  spaces  ", "tab\tnew\nline"}
	long := slices.Concat(texts, []string{strings.Repeat("long text ", 300)})
	keys := []string{"_EventCost", "_eventcost", "_EVENTSTARTDATE", "_EventStartDate ", "_EventVenueID", "_ecp_custom_3",
		"_ECP_Custom_9", "_thumbnail_id", "unrelated_key", "_EventCostX", "NULL"}
	values := []any{"", "12", "€6.50", "日本", "sep\x1fx", nil}
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	type post struct {
		Title, Content, Excerpt, Password, Name, Status, DateGMT string
		Meta                                                     [][2]any
		Terms                                                    int
	}
	var posts []post
	for i := range 12 {
		p := post{Title: pick(texts), Content: pick(long), Excerpt: pick(texts), Name: fmt.Sprintf("digest-class-%d-%d", seed%1000, i),
			Status: pick([]string{"publish", "draft", "future", "private", "trash"}), DateGMT: pick([]string{"2026-01-02 03:04:05", "0000-00-00 00:00:00"}),
			Terms: rng.IntN(4)}
		if rng.IntN(4) == 0 {
			p.Password = pick(texts)
		}
		for range rng.IntN(8) {
			var key any = pick(keys)
			if key == "NULL" {
				key = nil
			}
			p.Meta = append(p.Meta, [2]any{key, values[rng.IntN(len(values))]})
		}
		posts = append(posts, p)
	}
	spec, _ := json.Marshal(posts)
	out := wpPHP(t, `global $wpdb; $posts = json_decode( base64_decode( '`+base64.StdEncoding.EncodeToString(spec)+`' ), true );
$tts = $wpdb->get_col( "SELECT term_taxonomy_id FROM {$wpdb->term_taxonomy} WHERE taxonomy IN ('tribe_events_cat','post_tag','category')" );
$ids = [];
foreach ( $posts as $p ) {
	$wpdb->insert( $wpdb->posts, [ 'post_author' => 1, 'post_date' => '2026-01-02 03:04:05', 'post_date_gmt' => $p['DateGMT'],
		'post_content' => $p['Content'], 'post_title' => $p['Title'], 'post_excerpt' => $p['Excerpt'], 'post_status' => $p['Status'],
		'post_password' => $p['Password'], 'post_name' => $p['Name'], 'post_modified' => '2026-01-02 03:04:05',
		'post_modified_gmt' => $p['DateGMT'], 'post_type' => 'tribe_events', 'to_ping' => '', 'pinged' => '', 'post_content_filtered' => '' ] );
	$id = $wpdb->insert_id; $ids[] = $id;
	foreach ( (array) $p['Meta'] as $m ) {
		$wpdb->query( $wpdb->prepare( "INSERT INTO {$wpdb->postmeta} (post_id, meta_key, meta_value) VALUES (%d, " . ( null === $m[0] ? 'NULL' : '%s' ) . ', ' . ( null === $m[1] ? 'NULL' : '%s' ) . ')',
			array_values( array_filter( [ $id, $m[0], $m[1] ], static function ( $v ) { return null !== $v; } ) ) ) );
	}
	foreach ( array_slice( $tts, $id % max( 1, count( $tts ) ), $p['Terms'] ) as $tt ) {
		$wpdb->insert( $wpdb->term_relationships, [ 'object_id' => $id, 'term_taxonomy_id' => $tt ] );
	}
}
echo min( $ids ), ' ', max( $ids );`)
	var from, to int
	if _, err := fmt.Sscan(string(out), &from, &to); err != nil {
		t.Fatalf("insert: %s", out)
	}
	t.Cleanup(func() {
		in := fmt.Sprintf("BETWEEN %d AND %d", from, to)
		sqlExec(t, "DELETE FROM {prefix}postmeta WHERE post_id "+in, "DELETE FROM {prefix}term_relationships WHERE object_id "+in,
			"DELETE FROM {prefix}posts WHERE post_type = 'tribe_events' AND ID "+in)
	})

	r := call(t, http.MethodGet, wpJSON(fmt.Sprintf("/calshim/v1/bulk?type=tribe_events&from=%d&to=%d", from, to)), as("reader"), lenient)
	var bulk struct {
		Items   []struct{ ID int }
		Digests map[string]string
	}
	if err := json.Unmarshal(r.raw, &bulk); err != nil || r.status != http.StatusOK {
		t.Fatalf("bulk: %d %v %.300s", r.status, err, r.raw)
	}
	r = call(t, http.MethodGet, wpJSON(fmt.Sprintf("/calshim/v1/checksums?kind=posts&items=1&from=%d&to=%d", from, to)), as("reader"), lenient)
	var sums struct {
		Items []struct {
			ID     int
			Digest string
		}
	}
	if err := json.Unmarshal(r.raw, &sums); err != nil || r.status != http.StatusOK {
		t.Fatalf("checksums: %d %v %.300s", r.status, err, r.raw)
	}
	if len(sums.Items) == 0 || len(sums.Items) != len(bulk.Digests) || len(bulk.Items) != len(bulk.Digests) {
		t.Fatalf("%d checksums, %d digests, %d items", len(sums.Items), len(bulk.Digests), len(bulk.Items))
	}
	for _, s := range sums.Items {
		if got := bulk.Digests[fmt.Sprint(s.ID)]; got != s.Digest {
			t.Errorf("post %d: bulk digest %q, checksum %q", s.ID, got, s.Digest)
		}
	}
}
