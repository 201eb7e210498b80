package test

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// A sync token names the plugin's change log and a position in it: taken on one replica, it
// answers the same delta on every replica behind haproxy, and on the replica that issued it once
// restarted (its snapshot file keeps its journal: what the deleted event was at the token's
// position). Restarted without its file, the replica no longer knows whether the caller could see
// the deleted event: it answers 410 rather than name a post the caller may never have seen.
func TestSyncTokenAcrossReplicas(t *testing.T) {
	c := startReplicas(t, 3, "CALSHIM_SHUTDOWN_DRAIN="+replicaDrain)

	const query = "?start_date=2036-06-01&end_date=2036-06-30"
	edited := eventOn(t, "Replica Sync Edited", "2036-06-11")
	deleted := eventOn(t, "Replica Sync Deleted", "2036-06-12")
	for _, r := range c.Replicas {
		eventually(t, fmt.Sprintf("replica %d lists the fixtures", r.Index), func() bool {
			return len(list(at(call(t, http.MethodGet, r.URL+v1+"/events"+query).body, "events"))) == 2
		})
	}
	token := call(t, http.MethodGet, c.Replicas[0].URL+v1+"/events"+query).header.Get("X-Calshim-Sync-Token")

	created := eventOn(t, "Replica Sync Created", "2036-06-13")
	wp(t, http.MethodPost, "/wp/v2/tribe_events/"+strconv.Itoa(edited), map[string]any{"title": "Edited again"})
	wp(t, http.MethodDelete, "/wp/v2/tribe_events/"+strconv.Itoa(deleted)+"?force=true", nil)
	want := syncAnswer{events: sorted(created, edited), deleted: []int{deleted}}

	var answered []string
	ask := func(name, base string) {
		a, r := replicaSync(t, base, query, token, want)
		if r.status == http.StatusOK && slices.Equal(a.events, want.events) && slices.Equal(a.deleted, want.deleted) {
			answered = append(answered, name)
			return
		}
		t.Errorf("%s: %d events %v deleted %v, want %v %v: %.300s", name, r.status, a.events, a.deleted,
			want.events, want.deleted, r.raw)
	}
	for _, r := range c.Replicas {
		ask(fmt.Sprintf("replica %d", r.Index), r.URL)
	}
	for i := range len(c.Replicas) {
		ask(fmt.Sprintf("haproxy %d", i), c.LB)
	}
	restart := func(withFile bool) {
		mustDo(t, c.Replicas[0].Term(15*time.Second))
		if !withFile {
			mustDo(t, os.Remove(c.Replicas[0].Snapshot))
		}
		mustDo(t, c.Replicas[0].Start())
		mustDo(t, c.WaitUp(0, 30*time.Second))
	}
	restart(true)
	ask("replica 0 restarted", c.Replicas[0].URL)
	restart(false)
	if a, r := replicaSync(t, c.Replicas[0].URL, query, token, want); r.status != http.StatusGone {
		t.Errorf("replica 0 restarted without its snapshot file: %d %v, want 410: %.300s", r.status, a, r.raw)
	}
	t.Logf("the token answered the delta on %d of 7 asks: %v", len(answered), answered)
}

// replicaSync asks base for the delta of token until it answers want, or for 15 s (the replica may
// not have polled the changes yet; a 410 is final); it returns the last answer.
func replicaSync(t *testing.T, base, query, token string, want syncAnswer) (syncAnswer, reply) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		r := get(t, "/events"+query+"&sync_token="+token, to(base))
		a := syncOf(r)
		done := r.status == http.StatusOK && slices.Equal(a.events, want.events) &&
			slices.Equal(a.deleted, want.deleted)
		if done || r.status == http.StatusGone || time.Now().After(deadline) {
			return a, r
		}
		time.Sleep(200 * time.Millisecond)
	}
}
