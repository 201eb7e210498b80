package catalog_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"calshim/catalog"
	"calshim/cmsclient"
	"calshim/internal/testkit/wpfake"
)

// requestKinds sorts the requests of a poll by purpose.
func requestKinds(reqs []wpfake.Request) map[string]int {
	kinds := map[string]int{}
	for _, r := range reqs {
		q := r.Query
		switch {
		case strings.HasSuffix(r.Path, "/tribe_events_cat") || strings.HasSuffix(r.Path, "/tags"):
			kinds["terms"]++
		case strings.HasSuffix(r.Path, "/media"):
			kinds["media"]++
		case q.Has("modified_after"):
			kinds["delta"]++
		case q.Get("_fields") == "id" && q.Get("per_page") == "1":
			kinds["count"]++
		case q.Get("_fields") == "id":
			kinds["reconcile"]++
		case q.Has("include"):
			kinds["posts by id"]++
		default:
			kinds[r.String()]++
		}
	}
	return kinds
}

func mustPoll(tb testing.TB, cat *catalog.Catalog) *catalog.Snapshot {
	tb.Helper()
	if err := cat.Poll(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return cat.Snapshot()
}

func calshimField(fake *wpfake.Server, o wpfake.Object) wpfake.Object { return fake.Sub(o, "calshim") }

// In steady state a poll asks only for changes and totals, and publishes nothing new.
func TestPollSteadyState(t *testing.T) {
	fake := wpfake.New(t)
	cat := mustLoad(t, fake)
	before := cat.Snapshot()
	for i := range 3 {
		fake.ResetRequests()
		if got := mustPoll(t, cat); got != before {
			t.Errorf("poll %d: new snapshot (version %d), want the same", i, got.Version)
		}
		got, want := requestKinds(fake.Requests()), map[string]int{"delta": 3, "count": 3, "terms": 2}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("poll %d: requests %v, want %v", i, got, want)
		}
	}
}

func TestPollChanges(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, fake *wpfake.Server)
		check  func(t *testing.T, fake *wpfake.Server, s *catalog.Snapshot)
	}{
		{"modified post", func(t *testing.T, fake *wpfake.Server) {
			fake.Modify("tribe_events", 17, func(o wpfake.Object) { calshimField(fake, o)["title"] = "Gala, renamed" })
		}, func(t *testing.T, fake *wpfake.Server, s *catalog.Snapshot) {
			if p, _ := s.Post(17); p == nil || p.Title() != "Gala, renamed" || !strings.Contains(p.Search(), "renamed") {
				t.Errorf("Post(17) = %+v, want the new title", p)
			}
		}},
		{"modified venue", func(t *testing.T, fake *wpfake.Server) {
			fake.Modify("tribe_venue", 6, func(o wpfake.Object) {
				calshimField(fake, o)["meta"].(wpfake.Object)["_VenueCity"] = []any{"Oakland"}
			})
		}, func(t *testing.T, fake *wpfake.Server, s *catalog.Snapshot) {
			if p, _ := s.Post(6); p == nil || p.Meta.Get("_VenueCity")[0] != "Oakland" {
				t.Errorf("Post(6) = %+v, want _VenueCity Oakland", p)
			}
		}},
		{"trashed post", func(t *testing.T, fake *wpfake.Server) {
			fake.Modify("tribe_events", 18, func(o wpfake.Object) { o["status"] = "trash" })
		}, func(t *testing.T, fake *wpfake.Server, s *catalog.Snapshot) {
			if p, _ := s.Post(18); p == nil || p.Status() != "trash" {
				t.Errorf("Post(18) = %+v, want it in the trash", p)
			}
		}},
		{"new post", func(t *testing.T, fake *wpfake.Server) {
			fake.Clone("tribe_events", 17, 30001, func(o wpfake.Object) { o["slug"] = "new-event" })
			fake.Modify("tribe_events", 30001, func(wpfake.Object) {}) // created now
		}, func(t *testing.T, fake *wpfake.Server, s *catalog.Snapshot) {
			if p, ok := s.BySlug("tribe_events", "new-event"); !ok || p.ID != 30001 {
				t.Errorf("BySlug(new-event) = %+v, want post 30001", p)
			}
			if got, want := len(s.Events), len(fake.IDs("tribe_events")); got != want {
				t.Errorf("len(Events) = %d, want %d", got, want)
			}
		}},
		{"permanently deleted post", func(t *testing.T, fake *wpfake.Server) {
			fake.Delete("tribe_events", 18)
		}, func(t *testing.T, fake *wpfake.Server, s *catalog.Snapshot) {
			if p, ok := s.Post(18); ok {
				t.Errorf("Post(18) = %+v, want it gone", p)
			}
			if p, ok := s.BySlug("tribe_events", "jazz-brunch"); ok {
				t.Errorf("BySlug(jazz-brunch) = %d, want it gone", p.ID)
			}
			if got, want := len(s.Events), len(fake.IDs("tribe_events")); got != want {
				t.Errorf("len(Events) = %d, want %d", got, want)
			}
		}},
		{"new term", func(t *testing.T, fake *wpfake.Server) {
			fake.Clone("tags", 7, 99, func(o wpfake.Object) { o["name"], o["slug"] = "accessible", "accessible" })
		}, func(t *testing.T, fake *wpfake.Server, s *catalog.Snapshot) {
			if _, ok := s.Term(99); !ok || len(s.Tags) != 7 || s.Tags[0].ID != 99 {
				t.Errorf("Tags = %q, want accessible first", termNames(s.Tags))
			}
		}},
		{"renamed category", func(t *testing.T, fake *wpfake.Server) {
			fake.Update("tribe_events_cat", 6, func(o wpfake.Object) { o["name"] = "Kids & Family" })
		}, func(t *testing.T, fake *wpfake.Server, s *catalog.Snapshot) {
			if got, want := termNames(s.Categories)[1], "Kids & Family"; got != want {
				t.Errorf("Categories = %q, want %q second", termNames(s.Categories), want)
			}
		}},
		{"new featured image", func(t *testing.T, fake *wpfake.Server) {
			fake.Clone("media", 4, 98, nil)
			fake.Modify("tribe_events", 18, func(o wpfake.Object) { o["featured_media"] = 98 })
		}, func(t *testing.T, fake *wpfake.Server, s *catalog.Snapshot) {
			if _, ok := s.Media(98); !ok {
				t.Error("Media(98) not loaded")
			}
			if _, ok := s.Media(4); !ok {
				t.Error("Media(4) dropped")
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := wpfake.New(t)
			cat := mustLoad(t, fake)
			before := cat.Snapshot()
			fake.Advance(time.Minute)
			tc.change(t, fake)
			fake.Advance(time.Second)
			s := mustPoll(t, cat)
			if got, want := s.Version, before.Version+1; got != want {
				t.Errorf("Version = %d, want %d", got, want)
			}
			tc.check(t, fake, s)
			// The old snapshot is untouched: readers holding it see a consistent state.
			if p, _ := before.Post(17); p == nil || p.Title() != "Opening Night Gala" {
				t.Errorf("old snapshot changed: Post(17) = %+v", p)
			}
			// And the next poll finds nothing more.
			if got := mustPoll(t, cat); got != s {
				t.Errorf("second poll: version %d, want %d", got.Version, s.Version)
			}
		})
	}
}

// A permanent deletion shows only in the totals: the poll then reconciles the IDs of that type only.
func TestPollReconcilesOnCountMismatch(t *testing.T) {
	fake := wpfake.New(t)
	cat := mustLoad(t, fake)
	fake.Delete("tribe_venue", 7)
	fake.ResetRequests()
	mustPoll(t, cat)
	var reconciled []string
	for _, r := range fake.Requests() {
		if r.Query.Get("_fields") == "id" && r.Query.Get("per_page") == "100" {
			reconciled = append(reconciled, r.Path)
		}
	}
	if got, want := fmt.Sprint(reconciled), "[/wp-json/wp/v2/tribe_venue]"; got != want {
		t.Errorf("reconciled %s, want %s", got, want)
	}
}

// Every ReconcileEvery polls the IDs are reconciled even when the totals agree.
func TestPollReconcileEvery(t *testing.T) {
	fake := wpfake.New(t)
	cat := mustLoad(t, fake, func(o *catalog.Options) { o.ReconcileEvery = 2 })
	var got []int
	for range 4 {
		fake.ResetRequests()
		mustPoll(t, cat)
		got = append(got, requestKinds(fake.Requests())["reconcile"])
	}
	if want := []int{0, 3, 0, 3}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("reconcile requests per poll = %v, want %v", got, want)
	}
}

func TestPollUnavailable(t *testing.T) {
	fake := wpfake.New(t)
	cat := mustLoad(t, fake)
	before := cat.Snapshot()
	fake.SetDown(wpfake.Drop)
	err := cat.Poll(context.Background())
	if !errors.Is(err, cmsclient.ErrUnavailable) {
		t.Errorf("Poll = %v, want ErrUnavailable", err)
	}
	if cat.Snapshot() != before {
		t.Error("snapshot replaced by a failed poll")
	}
}

// Run keeps serving the last snapshot while upstream is down, reports the failure in Health, and
// recovers by itself.
func TestRunOutage(t *testing.T) {
	fake := wpfake.New(t)
	cat := mustLoad(t, fake)
	before := cat.Snapshot()
	loadedAt := cat.Health().LastPollOK

	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 100)
	done := make(chan struct{})
	go func() {
		defer close(done)
		cat.Run(ctx, func(err error) {
			select {
			case errs <- err:
			default:
			}
		})
	}()
	t.Cleanup(func() { cancel(); <-done })

	fake.SetDown(http.StatusServiceUnavailable)
	select {
	case err := <-errs:
		if !errors.Is(err, cmsclient.ErrUnavailable) {
			t.Errorf("onError(%v), want ErrUnavailable", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no poll error reported while upstream is down")
	}
	h := cat.Health()
	if !h.Loaded || !strings.Contains(h.LastPollErr, "upstream unavailable") {
		t.Errorf("Health = %+v, want loaded with the poll error", h)
	}
	if cat.Snapshot() != before {
		t.Error("snapshot replaced while upstream is down")
	}

	fake.Advance(time.Minute)
	fake.Modify("tribe_events", 17, func(o wpfake.Object) { calshimField(fake, o)["title"] = "Back" })
	fake.SetDown(0)
	eventually(t, "recovery", func() bool {
		h := cat.Health()
		p, _ := cat.Snapshot().Post(17)
		return h.LastPollErr == "" && h.LastPollOK.After(loadedAt) && p.Title() == "Back"
	})
}

// eventually polls cond until it holds, failing the test after 5 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(5 * time.Second)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("%s: condition not met in 5 s", what)
		}
	}
}

// A poll that fails part-way drops what it had read: the next one must ask for those changes again.
func TestPollFailedPollLosesNothing(t *testing.T) {
	fake := wpfake.New(t)
	cat := mustLoad(t, fake)
	fake.Advance(time.Minute)
	fake.Modify("tribe_events", 17, func(o wpfake.Object) { calshimField(fake, o)["title"] = "Kept" })
	fake.Advance(time.Minute)
	// Events are read, then the venues fail.
	fake.SetIntercept(func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/tribe_venue") {
			return false
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		return true
	})
	if err := cat.Poll(context.Background()); !errors.Is(err, cmsclient.ErrUnavailable) {
		t.Fatalf("Poll = %v, want ErrUnavailable", err)
	}
	fake.SetIntercept(nil)
	fake.Advance(time.Minute)
	if p, _ := mustPoll(t, cat).Post(17); p.Title() != "Kept" {
		t.Errorf("Post(17).Title = %q, want %q", p.Title(), "Kept")
	}
}

// WordPress gives a new post with an explicit past date (an import, a back-dated entry) that date as
// its modification time, so only the totals show it.
func TestPollBackdatedNewPost(t *testing.T) {
	for _, authenticated := range []bool{true, false} {
		t.Run(fmt.Sprint("authenticated=", authenticated), func(t *testing.T) {
			fake := wpfake.New(t)
			cat := mustLoad(t, fake, func(o *catalog.Options) { o.Authenticated = authenticated })
			fake.Advance(time.Minute)
			fake.Clone("tribe_events", 17, 30002, func(o wpfake.Object) {
				o["slug"], o["date"], o["date_gmt"] = "back-dated", "2020-03-01T10:00:00", "2020-03-01T15:00:00"
				o["modified"], o["modified_gmt"] = o["date"], o["date_gmt"]
			})
			fake.Advance(time.Minute)
			if _, ok := mustPoll(t, cat).BySlug("tribe_events", "back-dated"); !ok {
				t.Error("back-dated post not in the catalog")
			}
			fake.ResetRequests()
			mustPoll(t, cat)
			if got := requestKinds(fake.Requests())["reconcile"]; got != 0 {
				t.Errorf("next poll: %d reconcile requests, want 0 (totals agree)", got)
			}
		})
	}
}

// WordPress' cron publishes a scheduled post by changing its status only (wp_publish_post): its
// modification time stays that of its last edit.
func TestPollScheduledPostPublished(t *testing.T) {
	for _, authenticated := range []bool{true, false} {
		t.Run(fmt.Sprint("authenticated=", authenticated), func(t *testing.T) {
			fake := wpfake.New(t)
			cat := mustLoad(t, fake, func(o *catalog.Options) { o.Authenticated = authenticated })
			id := idOf(t, fake, "tribe_events", "season-preview-night")
			// An editor reschedules it: saved now, published at date_gmt.
			fake.Advance(time.Minute)
			fake.Modify("tribe_events", id, func(o wpfake.Object) { calshimField(fake, o)["title"] = "Season Preview" })
			fake.Advance(time.Minute)
			mustPoll(t, cat)

			publishAt, err := time.Parse("2006-01-02T15:04:05Z", fake.Item("tribe_events", id)["date_gmt"].(string)+"Z")
			if err != nil {
				t.Fatal(err)
			}
			fake.SetNow(publishAt.Add(time.Minute))
			// Due, but the cron has not run yet: the post is asked for again, nothing changes.
			before := cat.Snapshot()
			fake.ResetRequests()
			if mustPoll(t, cat) != before {
				t.Error("new snapshot while the cron is late")
			}
			wantByID := 0
			if authenticated {
				wantByID = 1
			}
			if got := requestKinds(fake.Requests())["posts by id"]; got != wantByID {
				t.Errorf("requests by id while the cron is late = %d, want %d", got, wantByID)
			}
			fake.Update("tribe_events", id, func(o wpfake.Object) { o["status"] = "publish" })
			fake.Advance(time.Second)
			if p, ok := mustPoll(t, cat).Post(id); !ok || p.Status() != "publish" {
				t.Errorf("Post(%d) = %+v, want it published", id, p)
			}
		})
	}
}

// Options.ReconcileEvery 0 means: reconcile only when the totals disagree.
func TestPollReconcileEveryZero(t *testing.T) {
	fake := wpfake.New(t)
	cat := mustLoad(t, fake, func(o *catalog.Options) { o.ReconcileEvery = 0 })
	fake.ResetRequests()
	mustPoll(t, cat)
	if got := requestKinds(fake.Requests())["reconcile"]; got != 0 {
		t.Errorf("reconcile requests = %d, want 0", got)
	}
}

// An anonymous catalog holds published posts only: one taken back to draft leaves it.
func TestPollUnpublishedAnonymous(t *testing.T) {
	fake := wpfake.New(t)
	cat := mustLoad(t, fake, func(o *catalog.Options) { o.Authenticated = false })
	fake.Advance(time.Minute)
	fake.Modify("tribe_events", 17, func(o wpfake.Object) { o["status"] = "draft" })
	fake.Advance(time.Second)
	if p, ok := mustPoll(t, cat).Post(17); ok {
		t.Errorf("Post(17) = %s, want it gone", p.Status())
	}
}
