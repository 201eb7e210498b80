package test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// sqlExec runs statements straight on WordPress' database ({prefix} stands for the table prefix), as
// importers, search-replace and plugins writing rows themselves do: no WordPress hook fires, so the
// plugin's change log never hears of them.
func sqlExec(t *testing.T, statements ...string) {
	t.Helper()
	for _, sql := range statements {
		wpPHP(t, `global $wpdb; $sql = str_replace( '{prefix}', $wpdb->prefix, base64_decode( '`+
			base64.StdEncoding.EncodeToString([]byte(sql))+`' ) );
if ( false === $wpdb->query( $sql ) ) { fwrite( STDERR, $wpdb->last_error ); exit( 1 ); }`)
	}
}

// v1Event reads an event's title and cost from a calshim ("" when it does not answer 200).
func v1Event(t *testing.T, base, id string) (title, cost string) {
	t.Helper()
	r := call(t, http.MethodGet, base+"/wp-json/cal/events/v1/events/"+id, lenient)
	var ev struct{ Title, Cost string }
	if r.status != http.StatusOK || json.Unmarshal(r.raw, &ev) != nil {
		return "", ""
	}
	return ev.Title, ev.Cost
}

// costEvent creates a published event with a cost through wp/v2 (so the change log has it) and
// returns its ID; it is deleted at the end of the test.
func costEvent(t *testing.T, title, cost string) string {
	t.Helper()
	day := time.Now().AddDate(0, 0, 5).Format("2006-01-02")
	ev := wp(t, http.MethodPost, "/wp/v2/tribe_events", map[string]any{"title": title, "status": "publish",
		"meta": map[string]any{"_EventStartDate": day + " 10:00:00", "_EventEndDate": day + " 11:00:00",
			"_EventStartDateUTC": day + " 15:00:00", "_EventEndDateUTC": day + " 16:00:00", "_EventCost": []string{cost}}})
	id := strconv.Itoa(int(ev["id"].(float64)))
	t.Cleanup(func() {
		call(t, http.MethodDelete, wpJSON("/wp/v2/tribe_events/"+id+"?force=true"), as("admin"), lenient)
	})
	return id
}

// A title and a cost changed by SQL while calshim runs are served within the verify interval, and
// counted in calshim_catalog_repaired_total; the change enters the change log (a row calshim had the
// plugin write through its touch route, which only the reader role and administrators may call), so
// every replica reads it at one sequence.
func TestVerifyDirectSQLWhileRunning(t *testing.T) {
	base := launchOwn(t, "CALSHIM_CATALOG_VERIFY_EVERY=2s", "CALSHIM_CATALOG_POLL_INTERVAL=1s")
	id := costEvent(t, "Verify Before SQL", "12")
	eventually(t, "event served", func() bool { title, _ := v1Event(t, base, id); return title == "Verify Before SQL" })
	head := call(t, http.MethodGet, wpJSON("/calshim/v1/changes"), as("reader")).body
	since := str(at(head, "head"))
	for role, want := range map[string]int{"": http.StatusUnauthorized, "subscriber": http.StatusForbidden} {
		if r := call(t, http.MethodPost, wpJSON("/calshim/v1/changes/touch"), as(role), lenient,
			jsonBody(`{"since":`+since+`,"posts":{"tribe_events":[`+id+`]}}`)); r.status != want {
			t.Errorf("touch as %q: %d, want %d", role, r.status, want)
		}
	}
	// A list longer than the plugin takes is refused as a whole, however its objects are spread.
	over := strings.Repeat(id+",", 6000) + id
	for _, body := range []string{`{"since":` + since + `,"posts":{"tribe_events":[` + over + `]},"terms":{"post_tag":[` + over + `]}}`,
		`{"since":` + since + `,"terms":{"post_tag":[` + over + `,` + over + `]}}`} {
		if r := call(t, http.MethodPost, wpJSON("/calshim/v1/changes/touch"), as("reader"), lenient,
			jsonBody(body)); r.status != http.StatusBadRequest || !strings.Contains(string(r.raw), "calshim_touch_too_many") {
			t.Errorf("touch of 12,002 objects: %d %.200s", r.status, r.raw)
		}
	}

	sqlExec(t, "UPDATE {prefix}posts SET post_title = 'Verify Written By SQL' WHERE ID = "+id,
		"UPDATE {prefix}postmeta SET meta_value = '34' WHERE meta_key = '_EventCost' AND post_id = "+id)
	eventually(t, "title and cost written by SQL", func() bool {
		title, cost := v1Event(t, base, id)
		return title == "Verify Written By SQL" && cost == "$34"
	})
	if got := metricLine(t, base, `calshim_catalog_repaired_total{kind="posts"}`); got == "" || got == "0" {
		t.Errorf(`calshim_catalog_repaired_total{kind="posts"} = %q, want at least 1`, got)
	}
	rows := call(t, http.MethodGet, wpJSON("/calshim/v1/changes/rows?since="+since+"&until=999999999"), as("reader"))
	if !strings.Contains(string(rows.raw), `"id":`+id+`,"type":"tribe_events","deleted":false`) {
		t.Errorf("the change log after %s has no row of event %s: %s", since, id, rows.raw)
	}
}

// checksumGate is a proxy to WordPress that holds the plugin's checksum requests while it is closed:
// a test sees the state calshim serves before its comparison with WordPress is done.
type checksumGate struct {
	url     string // the proxy's upstream URL (…/wp-json)
	release atomic.Pointer[chan struct{}]
}

func newChecksumGate(t *testing.T) *checksumGate {
	t.Helper()
	target, err := neturl.Parse(wpEnv["WP_URL"])
	if err != nil {
		t.Fatal(err)
	}
	g := &checksumGate{}
	g.open()
	// SetURL also sends WordPress its own host: Debian's WordPress picks its site by the Host header.
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) }}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/calshim/v1/checksums") {
			select {
			case <-*g.release.Load():
			case <-r.Context().Done():
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { g.open(); srv.Close() })
	g.url = srv.URL + "/wp-json"
	return g
}

func (g *checksumGate) close() { ch := make(chan struct{}); g.release.Store(&ch) }

func (g *checksumGate) open() {
	ch := make(chan struct{})
	close(ch)
	if old := g.release.Swap(&ch); old != nil {
		select {
		case <-*old:
		default:
			close(*old)
		}
	}
}

// A title changed by SQL while calshim is stopped: restarted from its snapshot, calshim is ready at
// once with the file's state, flagged as catching up in /readyz and the metrics, and serves the title
// written by SQL once its comparison with WordPress' checksums is done, no longer catching up. The
// comparison is held back (checksumGate) until the flag and the file's state have been seen.
func TestVerifyDirectSQLWhileStopped(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "catalog.gob")
	gate := newChecksumGate(t)
	id := costEvent(t, "Verify Before Restart", "5")
	url, stop, _ := syncShim(t, snap, gate.url)
	eventually(t, "event served", func() bool { title, _ := v1Event(t, url, id); return title != "" })
	stop()

	sqlExec(t, "UPDATE {prefix}posts SET post_title = 'Verify Changed While Away' WHERE ID = "+id)
	gate.close()
	url, stop, _ = syncShim(t, snap, gate.url)
	defer stop()
	sync, _ := readyz(t, url)["sync"].(map[string]any)
	if sync["from_snapshot"] != true {
		t.Fatalf("not restarted from the snapshot: %v", sync)
	}
	if sync["catching_up"] != true || metricLine(t, url, "calshim_catalog_catching_up") != "1" {
		t.Errorf("ready from the snapshot before the comparison: sync %v, metric %q; want catching up", sync,
			metricLine(t, url, "calshim_catalog_catching_up"))
	}
	if title, _ := v1Event(t, url, id); title != "Verify Before Restart" {
		t.Errorf("title served while catching up = %q, want the snapshot's", title)
	}

	gate.open()
	eventually(t, "title written by SQL, caught up", func() bool {
		title, _ := v1Event(t, url, id)
		s, _ := readyz(t, url)["sync"].(map[string]any)
		return title == "Verify Changed While Away" && s["catching_up"] == false
	})
	if got := metricLine(t, url, "calshim_catalog_catching_up"); got != "0" {
		t.Errorf("calshim_catalog_catching_up = %q once caught up, want 0", got)
	}
}

// A database backup restored over a newer edit (the change log's sequence goes back) makes a running
// calshim reload everything (the feed answers 410 for a sequence past its head).
func TestVerifyRestoredBackup(t *testing.T) {
	base := launchOwn(t, "CALSHIM_CATALOG_VERIFY_EVERY=0", "CALSHIM_CATALOG_POLL_INTERVAL=1s")
	id := costEvent(t, "Verify Backed Up", "1")
	eventually(t, "event served", func() bool { title, _ := v1Event(t, base, id); return title == "Verify Backed Up" })
	backup := int64(feedHead(t)["head"].(float64))

	wp(t, http.MethodPost, "/wp/v2/tribe_events/"+id, map[string]any{"title": "Verify Edited After Backup"})
	eventually(t, "edit served", func() bool {
		title, _ := v1Event(t, base, id)
		return title == "Verify Edited After Backup"
	})

	// The restore: the post and the change log as they were at the backup.
	seq := strconv.FormatInt(backup, 10)
	sqlExec(t, "UPDATE {prefix}posts SET post_title = 'Verify Backed Up' WHERE ID = "+id,
		"DELETE FROM {prefix}calshim_changes WHERE seq > "+seq,
		"ALTER TABLE {prefix}calshim_changes AUTO_INCREMENT = "+strconv.FormatInt(backup+1, 10))
	eventually(t, "restored title", func() bool { title, _ := v1Event(t, base, id); return title == "Verify Backed Up" })
}
