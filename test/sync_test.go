package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"calshim/cmsclient"
	"calshim/internal/testkit/cluster"
	"calshim/mapping"
)

// These tests cover calshim's sync with WordPress through the plugin's change log: the feed's access
// rules, the bulk load's fidelity to wp/v2, every kind of change made behind calshim's back, and the
// local snapshot (reset log, foreign or unreadable file, a sequence past the retention, WordPress
// down at restart).

// The feed and the bulk load answer calshim's service account (and administrators) only.
func TestSyncFeedNeedsTheServiceCredential(t *testing.T) {
	for _, path := range []string{"/calshim/v1/changes?since=0", "/calshim/v1/bulk?type=tribe_events"} {
		if r := call(t, http.MethodGet, wpJSON(path), lenient); r.status != http.StatusUnauthorized ||
			!strings.Contains(string(r.raw), `"rest_forbidden"`) {
			t.Errorf("anonymous %s: %d %s", path, r.status, r.raw)
		}
		if r := call(t, http.MethodGet, wpJSON(path), as("subscriber"), lenient); r.status != http.StatusForbidden {
			t.Errorf("subscriber %s: %d %s", path, r.status, r.raw)
		}
	}
	h := feedHead(t)
	for _, k := range []string{"log", "site", "head", "seq", "floor"} {
		if _, ok := h[k]; !ok {
			t.Errorf("head has no %q: %v", k, h)
		}
	}
	if h["site"] != wpEnv["WP_URL"] {
		t.Errorf("site = %v, want %s", h["site"], wpEnv["WP_URL"])
	}
}

// The bulk load renders posts exactly as calshim reads them from wp/v2 (same decoded post).
func TestSyncBulkMatchesWPv2(t *testing.T) {
	for _, typ := range []string{"tribe_events", "tribe_venue", "tribe_organizer"} {
		r := call(t, http.MethodGet, wpJSON("/calshim/v1/bulk?type="+typ), as("reader"), lenient)
		var idx struct{ IDs []int }
		if err := json.Unmarshal(r.raw, &idx); err != nil || len(idx.IDs) == 0 {
			t.Fatalf("%s ids: %v %s", typ, err, r.raw)
		}
		ids := idx.IDs[:min(len(idx.IDs), 100)]
		page := fmt.Sprintf("/calshim/v1/bulk?type=%s&from=%d&to=%d", typ, ids[0], ids[len(ids)-1])
		bulk := decodeAll(t, wpGet(t, page, "items"))
		include := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(ids)), ","), "[]")
		statuses := "publish,future,draft,pending,private,trash"
		v2 := decodeAll(t, wpGet(t, "/wp/v2/"+typ+"?per_page=100&status="+statuses+"&include="+include, ""))
		if len(v2) < len(ids)-5 {
			t.Fatalf("%s: wp/v2 answered %d of %d posts", typ, len(v2), len(ids))
		}
		for id, want := range v2 {
			got, ok := bulk[id]
			if !ok {
				t.Errorf("%s %d: not in the bulk answer", typ, id)
				continue
			}
			// Another writer may change a post between the two reads; only the same version compares.
			if got.ModifiedGMT() == want.ModifiedGMT() && !reflect.DeepEqual(got, want) {
				t.Errorf("%s %d: bulk\n%+v\nwp/v2\n%+v", typ, id, *got, *want)
			}
		}
	}
}

func decodeAll(t *testing.T, items []json.RawMessage) map[int]*mapping.Post {
	t.Helper()
	out := map[int]*mapping.Post{}
	for _, raw := range items {
		p, err := cmsclient.DecodePost(raw, "tribe_events_cat", "tags")
		if err != nil {
			t.Fatal(err)
		}
		out[p.ID] = p
	}
	return out
}

// Every kind of change made in WordPress behind calshim's back shows up through the feed.
func TestSyncEveryKindOfChange(t *testing.T) {
	start := time.Now().AddDate(0, 0, 5).Format("2006-01-02")
	ev := wp(t, http.MethodPost, "/wp/v2/tribe_events", map[string]any{
		"title": "Sync Check", "status": "publish",
		"meta": map[string]any{"_EventStartDate": start + " 10:00:00", "_EventEndDate": start + " 11:00:00",
			"_EventStartDateUTC": start + " 15:00:00", "_EventEndDateUTC": start + " 16:00:00",
			"_EventTimezone": "America/New_York"},
	})
	id := strconv.Itoa(int(ev["id"].(float64)))
	defer call(t, http.MethodDelete, wpJSON("/wp/v2/tribe_events/"+id+"?force=true"), as("admin"), lenient)
	eventually(t, "created", func() bool { return get(t, "/events/"+id).status == http.StatusOK })

	t.Run("meta", func(t *testing.T) {
		wp(t, http.MethodPost, "/wp/v2/tribe_events/"+id, map[string]any{"meta": map[string]any{
			"_EventStartDate": start + " 09:00:00", "_EventStartDateUTC": start + " 14:00:00"}})
		eventually(t, "start date", func() bool {
			return str(at(get(t, "/events/"+id).body, "start_date")) == start+" 09:00:00"
		})
	})
	t.Run("status", func(t *testing.T) {
		wp(t, http.MethodPost, "/wp/v2/tribe_events/"+id, map[string]any{"status": "draft"})
		eventually(t, "draft hidden", func() bool { return get(t, "/events/"+id).status != http.StatusOK })
		wp(t, http.MethodPost, "/wp/v2/tribe_events/"+id, map[string]any{"status": "publish"})
		eventually(t, "published again", func() bool { return get(t, "/events/"+id).status == http.StatusOK })
	})
	t.Run("trash and untrash", func(t *testing.T) {
		wp(t, http.MethodDelete, "/wp/v2/tribe_events/"+id, nil)
		eventually(t, "trash", func() bool {
			return str(at(get(t, "/events/"+id).body, "code")) == "event-no-longer-available"
		})
		wp(t, http.MethodPost, "/wp/v2/tribe_events/"+id, map[string]any{"status": "publish"})
		eventually(t, "untrashed", func() bool { return get(t, "/events/"+id).status == http.StatusOK })
	})
	t.Run("venue and organizer", func(t *testing.T) {
		for _, kind := range []string{"venue", "organizer"} {
			p := wp(t, http.MethodPost, "/wp/v2/tribe_"+kind, map[string]any{"title": "Sync " + kind, "status": "publish"})
			pid := strconv.Itoa(int(p["id"].(float64)))
			path := "/" + kind + "s/" + pid
			eventually(t, kind+" created", func() bool { return get(t, path).status == http.StatusOK })
			wp(t, http.MethodPost, "/wp/v2/tribe_"+kind+"/"+pid, map[string]any{"title": "Sync " + kind + " renamed"})
			eventually(t, kind+" renamed", func() bool { return str(at(get(t, path).body, kind)) == "Sync "+kind+" renamed" })
			wp(t, http.MethodDelete, "/wp/v2/tribe_"+kind+"/"+pid+"?force=true", nil)
			// The original answers an ID that is no venue (organizer) with 400 rest_invalid_param.
			eventually(t, kind+" deleted", func() bool { return get(t, path).status == http.StatusBadRequest })
		}
	})
	t.Run("term rename and delete", func(t *testing.T) {
		c := wp(t, http.MethodPost, "/wp/v2/tribe_events_cat", map[string]any{"name": "Sync Category"})
		cid := strconv.Itoa(int(c["id"].(float64)))
		eventually(t, "new category", func() bool { return get(t, "/categories/"+cid).status == http.StatusOK })
		wp(t, http.MethodPost, "/wp/v2/tribe_events_cat/"+cid, map[string]any{"name": "Sync Category Renamed"})
		eventually(t, "renamed", func() bool {
			return str(at(get(t, "/categories/"+cid).body, "name")) == "Sync Category Renamed"
		})
		wp(t, http.MethodDelete, "/wp/v2/tribe_events_cat/"+cid+"?force=true", nil)
		eventually(t, "deleted", func() bool { return get(t, "/categories/"+cid).status == http.StatusBadRequest })
	})
	t.Run("featured image", func(t *testing.T) {
		r := call(t, http.MethodPost, wpJSON("/wp/v2/media"), as("admin"), withBody("image/png", dotPNG), header("Content-Disposition", `attachment; filename="sync-test-dot.png"`), lenient)
		var m map[string]any
		if r.status != http.StatusCreated || json.Unmarshal(r.raw, &m) != nil {
			t.Fatalf("upload: %d %s", r.status, r.raw)
		}
		mid := strconv.Itoa(int(m["id"].(float64)))
		wp(t, http.MethodPost, "/wp/v2/tribe_events/"+id, map[string]any{"featured_media": m["id"]})
		eventually(t, "image shown", func() bool { return str(at(get(t, "/events/"+id).body, "image", "id")) == mid })
		wp(t, http.MethodDelete, "/wp/v2/media/"+mid+"?force=true", nil)
		eventually(t, "image gone", func() bool { return str(at(get(t, "/events/"+id).body, "image")) == "false" })
	})
	t.Run("permanent delete", func(t *testing.T) {
		wp(t, http.MethodDelete, "/wp/v2/tribe_events/"+id+"?force=true", nil)
		eventually(t, "deleted", func() bool { return get(t, "/events/"+id).status == http.StatusNotFound })
	})
}

// dotPNG is a 1×1 PNG.
var dotPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
	"\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")

// A scheduled event published by wp_publish_post — what WordPress' cron runs for a due scheduled post
// (check_and_publish_future_post), changing the status alone, and what WP-CLI runs — shows up. The
// function is run with php-cli in WordPress' own process, not through any REST route: WordPress
// refuses to schedule a post less than a minute ahead, too long to wait for the real cron here.
func TestSyncScheduledEventPublishedByCron(t *testing.T) {
	day := time.Now().AddDate(0, 0, 2).Format("2006-01-02")
	ev := wp(t, http.MethodPost, "/wp/v2/tribe_events", map[string]any{
		"title": "Sync Scheduled", "status": "future",
		"date_gmt": time.Now().UTC().Add(2 * time.Hour).Format("2006-01-02T15:04:05"),
		"meta": map[string]any{"_EventStartDate": day + " 10:00:00", "_EventEndDate": day + " 11:00:00",
			"_EventStartDateUTC": day + " 15:00:00", "_EventEndDateUTC": day + " 16:00:00"},
	})
	id := strconv.Itoa(int(ev["id"].(float64)))
	defer call(t, http.MethodDelete, wpJSON("/wp/v2/tribe_events/"+id+"?force=true"), as("admin"), lenient)
	if ev["status"] != "future" {
		t.Fatalf("status = %v, want future", ev["status"])
	}
	eventually(t, "scheduled, not public", func() bool {
		r := get(t, "/events/"+id)
		return r.status != http.StatusOK && r.status != http.StatusNotFound
	})
	wpPHP(t, "wp_publish_post( "+id+" );")
	eventually(t, "published", func() bool { return get(t, "/events/"+id).status == http.StatusOK })
}

// A change of the site's time zone reaches the catalog (calshim dates new events in it).
func TestSyncTimeZoneChange(t *testing.T) {
	settings := wp(t, http.MethodGet, "/wp/v2/settings", nil)
	old := settings["timezone"].(string)
	restore := func() { wp(t, http.MethodPost, "/wp/v2/settings", map[string]any{"timezone": old}) }
	defer restore()
	wp(t, http.MethodPost, "/wp/v2/settings", map[string]any{"timezone": "Europe/Berlin"})
	eventually(t, "new time zone", func() bool { return readyz(t, shim)["timezone"] == "Europe/Berlin" })
	restore()
	eventually(t, "time zone restored", func() bool { return readyz(t, shim)["timezone"] == old })
}

// A restart from the snapshot is warm and current; a snapshot that cannot be read, or of another
// upstream, or of a log since reset, is discarded with a log line and the catalog loaded afresh.
func TestSyncSnapshot(t *testing.T) {
	upstream := wpEnv["CALSHIM_UPSTREAM_URL"]
	snap := filepath.Join(t.TempDir(), "catalog.gob")
	_, stop, _ := syncShim(t, snap, upstream)
	stop()
	if _, err := os.Stat(snap); err != nil {
		t.Fatalf("no snapshot written on stop: %v", err)
	}

	t.Run("warm restart catches up", func(t *testing.T) {
		id := newPublishedEvent(t, "Sync Snapshot Catch-up")
		url, stop, _ := syncShim(t, snap, upstream)
		defer stop()
		if s, _ := readyz(t, url)["sync"].(map[string]any); s["from_snapshot"] != true {
			t.Errorf("not restored from the snapshot: %v", s)
		}
		// Ready with the file's state at once; the first poll catches up.
		eventually(t, "caught up", func() bool {
			s, _ := readyz(t, url)["sync"].(map[string]any)
			return s["catching_up"] == false && get(t, "/events/"+id, to(url), lenient).status == http.StatusOK
		})
	})
	t.Run("unreadable", func(t *testing.T) {
		bad := filepath.Join(t.TempDir(), "bad.gob")
		if err := os.WriteFile(bad, []byte("not a snapshot"), 0o600); err != nil {
			t.Fatal(err)
		}
		url, stop, logPath := syncShim(t, bad, upstream)
		defer stop()
		if !logHas(t, logPath, "snapshot discarded") || !logHas(t, logPath, `"from_snapshot":false`) {
			t.Errorf("unreadable snapshot not discarded")
		}
		if r := readyz(t, url); r == nil {
			t.Error("not ready after discarding")
		}
	})
	t.Run("another upstream", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "other.gob")
		// The same site under another address stands for another upstream: its file must not be used.
		_, stop, _ := syncShim(t, other, upstream+"/")
		stop()
		_, stop, logPath := syncShim(t, other, upstream)
		defer stop()
		if !logHas(t, logPath, "snapshot discarded") || !logHas(t, logPath, "it holds the catalog of") {
			t.Errorf("foreign snapshot not discarded")
		}
	})
	t.Run("reset log", func(t *testing.T) {
		before := feedHead(t)["log"]
		if r := call(t, http.MethodPost, wpJSON("/calshim/v1/changes/reset"), as("admin"), lenient); r.status != http.StatusOK {
			t.Fatalf("reset: %d %s", r.status, r.raw)
		}
		if feedHead(t)["log"] == before {
			t.Fatal("reset kept the log's identity")
		}
		id := newPublishedEvent(t, "Sync After Reset")
		url, stop, logPath := syncShim(t, snap, upstream)
		defer stop()
		if !logHas(t, logPath, "snapshot discarded") || get(t, "/events/"+id, to(url), lenient).status != http.StatusOK {
			t.Errorf("snapshot of a reset log served, or event %s missing", id)
		}
		// The suite's own calshim notices the new log too and reloads.
		eventually(t, "main calshim reloaded", func() bool { return get(t, "/events/"+id).status == http.StatusOK })
	})
}

// A `since` older than the retention answers 410; calshim then reloads everything.
func TestSyncSincePastRetention(t *testing.T) {
	upstream := wpEnv["CALSHIM_UPSTREAM_URL"]
	snap := filepath.Join(t.TempDir(), "catalog.gob")
	_, stop, _ := syncShim(t, snap, upstream)
	stop()
	id := newPublishedEvent(t, "Sync Past Retention")
	r := call(t, http.MethodPost, wpJSON("/calshim/v1/changes/prune?keep=0"), as("admin"), lenient)
	if r.status != http.StatusOK {
		t.Fatalf("prune: %d %s", r.status, r.raw)
	}
	r = call(t, http.MethodGet, wpJSON("/calshim/v1/changes?since=0"), as("reader"), lenient)
	if r.status != http.StatusGone || !strings.Contains(string(r.raw), `"code":"calshim_changes_expired"`) {
		t.Errorf("since=0 after pruning: %d %s", r.status, r.raw)
	}
	url, stop, logPath := syncShim(t, snap, upstream)
	defer stop()
	if !logHas(t, logPath, "older than the retention") && !logHas(t, logPath, "calshim_changes_expired") {
		t.Errorf("expired sequence not reported in the log")
	}
	if got := get(t, "/events/"+id, to(url), lenient).status; got != http.StatusOK {
		t.Errorf("event made before the prune = %d after the reload, want 200", got)
	}
}

// When calshim restarts while WordPress is down, it serves its snapshot and says so in /readyz;
// it catches up once WordPress answers. Idle, it sends one request per poll.
func TestSyncSnapshotWhileWordPressIsDown(t *testing.T) {
	p, err := cluster.NewProxy(wpEnv["WP_URL"], 0)
	if err != nil {
		t.Fatal(err)
	}
	upstream := "http://" + p.Addr + "/wp-json"
	snap := filepath.Join(t.TempDir(), "catalog.gob")
	_, stop, _ := syncShim(t, snap, upstream)
	time.Sleep(time.Second)
	before := p.Total()
	time.Sleep(5 * time.Second)
	if idle := p.Total() - before; idle > 6 {
		t.Errorf("%d upstream requests in 5 s idle, want at most one per poll", idle)
	}
	stop()
	p.Close()

	url, stop, logPath := syncShim(t, snap, upstream)
	defer stop()
	r := readyz(t, url)
	sync, _ := r["sync"].(map[string]any)
	if sync["snapshot_unconfirmed"] != true || !logHas(t, logPath, "serving the snapshot") {
		t.Errorf("readyz while WordPress is down: %v", r)
	}
	if get(t, "/events", to(url), lenient).status != http.StatusOK {
		t.Error("events not served from the snapshot")
	}
	p, err = cluster.NewProxy(wpEnv["WP_URL"], p.Port())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	eventually(t, "confirmed once WordPress answers", func() bool {
		s, _ := readyz(t, url)["sync"].(map[string]any)
		return s["snapshot_unconfirmed"] == false
	})
}
