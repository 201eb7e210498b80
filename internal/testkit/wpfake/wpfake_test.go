package wpfake_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"calshim/internal/testkit/wpfake"
)

// get fetches path (relative to the REST root) from the fake.
func get(t *testing.T, fake *wpfake.Server, path string) (*http.Response, []byte) {
	t.Helper()
	res, err := http.Get(fake.Root + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

// ids decodes the IDs of a list answer.
func ids(t *testing.T, body []byte) []int {
	t.Helper()
	var items []struct{ ID int }
	if err := json.Unmarshal(body, &items); err != nil {
		t.Fatalf("%v: %.200s", err, body)
	}
	var out []int
	for _, it := range items {
		out = append(out, it.ID)
	}
	return out
}

// The fake answers the recorded requests as the real WordPress did: same status, same totals, same
// bytes for the lists.
func TestReplaysRecordings(t *testing.T) {
	fake := wpfake.New(t)
	for file, rec := range fake.Recordings {
		who, path, _ := strings.Cut(rec.Request, " ")
		if file == "index.json" || who != "reader" || file == "error-403-settings.json" {
			continue // the index is re-encoded; the fake has no settings route
		}
		t.Run(file, func(t *testing.T) {
			res, body := get(t, fake, path)
			if got, want := res.StatusCode, rec.Status; got != want {
				t.Errorf("Status = %d, want %d", got, want)
			}
			if got, want := res.Header.Get("X-WP-Total"), headerValue(rec.Total); got != want {
				t.Errorf("X-WP-Total = %q, want %q", got, want)
			}
			if got, want := res.Header.Get("X-WP-TotalPages"), headerValue(rec.TotalPages); got != want {
				t.Errorf("X-WP-TotalPages = %q, want %q", got, want)
			}
			if !bytes.Equal(body, rec.Body) {
				t.Errorf("body differs from %s: %.200s", file, body)
			}
		})
	}
}

func headerValue(n int) string {
	if n < 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func TestListQueries(t *testing.T) {
	fake := wpfake.New(t)
	bic := fake.IDs("tribe_venue")[7] // added by the seed: its ID changes with every seed
	fake.SetMaxPerPage(3)
	fake.SetNow(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	fake.Modify("tribe_events", 17, func(wpfake.Object) {})
	tests := []struct {
		name       string
		path       string
		wantIDs    []int
		wantTotal  string
		wantStatus int
	}{
		{"paged by the cap", "/wp/v2/tribe_venue?status=publish,draft&orderby=id&order=asc&per_page=100&page=2",
			[]int{8, 9, 10}, "8", 200},
		{"last page", "/wp/v2/tribe_venue?status=publish,draft&orderby=id&order=asc&per_page=100&page=3",
			[]int{11, bic}, "8", 200},
		{"past the last page", "/wp/v2/tribe_venue?status=publish,draft&per_page=100&page=4", nil, "", 400},
		{"default status publish", "/wp/v2/tribe_organizer?orderby=id&order=desc", []int{15, 14, 13}, "4", 200},
		{"include", "/wp/v2/tribe_events?include=18,17&orderby=id", []int{17, 18}, "2", 200},
		{"modified_after with Z", "/wp/v2/tribe_events?status=publish&modified_after=2030-01-02T03:04:04Z", []int{17}, "1", 200},
		{"modified_after is exclusive", "/wp/v2/tribe_events?status=publish&modified_after=2030-01-02T03:04:05Z", nil, "0", 200},
		// Without an offset WordPress reads site time (America/New_York, UTC-5 in January).
		{"modified_after in site time", "/wp/v2/tribe_events?status=publish&modified_after=2030-01-01T22:04:04", []int{17}, "1", 200},
		{"_fields", "/wp/v2/tribe_events?include=17&_fields=id", []int{17}, "1", 200},
		{"per_page over 100", "/wp/v2/tags?per_page=101", nil, "", 400},
		{"unknown route", "/wp/v2/nope", nil, "", 404},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, body := get(t, fake, tc.path)
			if got, want := res.StatusCode, tc.wantStatus; got != want {
				t.Fatalf("Status = %d, want %d: %.200s", got, want, body)
			}
			if got, want := res.Header.Get("X-WP-Total"), tc.wantTotal; got != want {
				t.Errorf("X-WP-Total = %q, want %q", got, want)
			}
			if tc.wantStatus != 200 {
				return
			}
			if got, want := ids(t, body), tc.wantIDs; !equalInts(got, want) {
				t.Errorf("IDs = %v, want %v", got, want)
			}
		})
	}
	t.Run("Date is the fake's clock", func(t *testing.T) {
		res, _ := get(t, fake, "/")
		if got, want := res.Header.Get("Date"), "Wed, 02 Jan 2030 03:04:05 GMT"; got != want {
			t.Errorf("Date = %q, want %q", got, want)
		}
	})
	t.Run("_fields keeps only those fields", func(t *testing.T) {
		_, body := get(t, fake, "/wp/v2/tribe_events?include=17&_fields=id")
		if got, want := string(body), `[{"id":17}]`; got != want {
			t.Errorf("body = %s, want %s", got, want)
		}
	})
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestStateChanges(t *testing.T) {
	fake := wpfake.New(t)
	fake.Clone("tags", 7, 99, func(o wpfake.Object) { o["slug"] = "new" })
	fake.Delete("tags", 8)
	_, body := get(t, fake, "/wp/v2/tags?include=7,8,99")
	if got, want := ids(t, body), []int{7, 99}; !equalInts(got, want) {
		t.Errorf("IDs = %v, want %v", got, want)
	}

	fake.SetDown(http.StatusServiceUnavailable)
	if res, _ := get(t, fake, "/"); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("Status while down = %d, want 503", res.StatusCode)
	}
	fake.SetDown(wpfake.Drop)
	if _, err := http.Get(fake.Root + "/"); err == nil {
		t.Error("GET while dropping connections: no error")
	}
	fake.SetDown(0)
	if res, _ := get(t, fake, "/"); res.StatusCode != http.StatusOK {
		t.Errorf("Status when back = %d, want 200", res.StatusCode)
	}
	// net/http retries a GET once when a reused connection closes without an answer.
	if got, want := len(fake.Requests()), 4; got < want {
		t.Errorf("len(Requests) = %d, want at least %d", got, want)
	}
}
