package test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"calshim/cmsclient"
	"calshim/mapping"
)

// The original's read tests (SingleEventCest, SingleEventSlugCest) write their featured image
// straight into the database, as importers do: an attachment row in the status publish with
// _wp_attached_file and no attachment metadata, which wp/v2/media does not list. The image is
// what TEC's get_featured_image reads through WordPress' functions: the uploads URL, the ID and the
// extension, nothing more without metadata; an attachment deleted by SQL, or a _thumbnail_id naming
// a post that is no attachment, gives url false and no extension. Checked on the running calshim
// (the change feed), by ID and by slug, and on one started afterwards (the full load).
func TestImageOfAttachmentRowsWrittenBySQL(t *testing.T) {
	image := attachmentRow(t, "images/image.png")
	gone := attachmentRow(t, "images/gone.png")
	wpPHP(t, "global $wpdb; $wpdb->query( 'DELETE FROM '.$wpdb->posts.' WHERE ID = "+gone+"' );"+
		" $wpdb->query( 'DELETE FROM '.$wpdb->postmeta.' WHERE post_id = "+gone+"' );")
	other := newPublishedEvent(t, "Image Rows Other")
	want := map[string]string{
		image: `{"url":"` + wpEnv["WP_URL"] + `/wp-content/uploads/images/image.png","id":` + image + `,"extension":"png"}`,
		gone:  `{"url":false,"id":` + gone + `,"extension":""}`,
		other: `{"url":false,"id":` + other + `,"extension":""}`,
	}
	events := map[string]string{}
	for thumb := range want {
		ev := newPublishedEvent(t, "Image Rows "+thumb)
		wpPHP(t, "update_post_meta( "+ev+", '_thumbnail_id', '"+thumb+"' );")
		events[ev] = thumb
	}

	for ev, thumb := range events {
		eventually(t, "event "+ev+" with its _thumbnail_id", func() bool {
			return get(t, "/events/"+ev).status == http.StatusOK && imageOf(t, shim, "/events/"+ev) != "false"
		})
		checkImage(t, shim, "/events/"+ev, want[thumb])
		checkImage(t, shim, "/events/by-slug/image-rows-"+thumb, want[thumb])
	}

	fresh, stop, _ := syncShim(t, filepath.Join(t.TempDir(), "snapshot"), wpEnv["CALSHIM_UPSTREAM_URL"])
	defer stop()
	for ev, thumb := range events {
		checkImage(t, fresh, "/events/"+ev, want[thumb])
	}

	// Deleted through WordPress, the attachment takes the _thumbnail_id rows with it: no image.
	wpPHP(t, "wp_delete_attachment( "+image+", true );")
	for ev, thumb := range events {
		if thumb == image {
			eventually(t, "image gone from event "+ev, func() bool { return imageOf(t, shim, "/events/"+ev) == "false" })
		}
	}
}

// attachmentRow inserts an attachment in the status publish by SQL, as the original's tests do
// (wp-browser's havePostInDatabase), with _wp_attached_file and nothing else, and returns its ID; it is
// deleted at the end of the test.
func attachmentRow(t *testing.T, file string) string {
	t.Helper()
	out := wpPHP(t, "global $wpdb; $wpdb->query( $wpdb->prepare( 'INSERT INTO '.$wpdb->posts.' (post_author, post_date,"+
		" post_date_gmt, post_content, post_title, post_excerpt, post_status, post_name, to_ping, pinged, post_modified,"+
		" post_modified_gmt, post_content_filtered, guid, post_type, post_mime_type) VALUES (1, NOW(), UTC_TIMESTAMP(),"+
		" \"\", \"image\", \"\", \"publish\", %s, \"\", \"\", NOW(), UTC_TIMESTAMP(), \"\", %s, \"attachment\", \"image/png\")',"+
		" 'image-'.uniqid(), site_url( '/"+file+"' ) ) ); $id = $wpdb->insert_id;"+
		" $wpdb->query( $wpdb->prepare( 'INSERT INTO '.$wpdb->postmeta.' (post_id, meta_key, meta_value)"+
		" VALUES (%d, \"_wp_attached_file\", %s)', $id, '"+file+"' ) ); echo $id;")
	id := strings.TrimSpace(string(out))
	if _, err := strconv.Atoi(id); err != nil {
		t.Fatalf("attachment row: php printed %q", out)
	}
	t.Cleanup(func() { wpPHP(t, "wp_delete_attachment( "+id+", true );") })
	return id
}

// checkImage compares the image of the event at path (below the v1 namespace) on the calshim at
// base with want, key order included.
func checkImage(t *testing.T, base, path, want string) {
	t.Helper()
	if got := imageOf(t, base, path); got != want {
		t.Errorf("GET %s: image %s, want %s", path, got, want)
	}
}

// imageOf returns the image of the event at path on the calshim at base, as compact JSON in its key
// order (slashes unescaped).
func imageOf(t *testing.T, base, path string) string {
	t.Helper()
	r := call(t, http.MethodGet, base+v1+path)
	if r.status != http.StatusOK {
		t.Fatalf("GET %s: %d", path, r.status)
	}
	out, err := json.Marshal(at(r.body, "image"))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// For an attachment wp/v2/media lists (the seed's image, with metadata and generated sizes), the
// plugin's route gives the catalog the same image; it answers the service role only.
func TestAttachmentsByIDMatchWPv2(t *testing.T) {
	stage := sid(t, "media", "stage")
	decode := func(items []json.RawMessage) *mapping.Media {
		t.Helper()
		if len(items) != 1 {
			t.Fatalf("%d items, want 1", len(items))
		}
		m, err := cmsclient.DecodeMedia(items[0])
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	got := decode(wpGet(t, "/calshim/v1/media?include="+stage, "items"))
	want := decode(wpGet(t, "/wp/v2/media?include="+stage+"&_fields=id,source_url,media_details", ""))
	if len(want.Sizes) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("calshim/v1/media\n%+v\nwp/v2/media\n%+v", *got, *want)
	}
	for _, user := range []string{"", "subscriber"} {
		if r := call(t, http.MethodGet, wpJSON("/calshim/v1/media?include="+stage), as(user), lenient); r.status != http.StatusUnauthorized &&
			r.status != http.StatusForbidden {
			t.Errorf("as %q: %d %s, want 401 or 403", user, r.status, r.raw)
		}
	}
}
