package shadow

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// sideFunc is a Side answering from a function.
type sideFunc func(q Query) *Answer

func (f sideFunc) Ask(_ context.Context, q Query) *Answer { return f(q) }

func answer(status int, body string, headers ...string) *Answer {
	h := map[string]string{"Content-Type": "application/json; charset=UTF-8"}
	for i := 0; i+1 < len(headers); i += 2 {
		h[headers[i]] = headers[i+1]
	}
	return &Answer{Status: status, Headers: h, Body: []byte(body)}
}

func fixed(a *Answer) Side { return sideFunc(func(Query) *Answer { return a }) }

func check(t *testing.T, c *Comparer, q Query) *Result {
	t.Helper()
	if c.Table == nil {
		c.Table = Reads
	}
	return c.Check(context.Background(), q, NewNormalizer("http://cal:8080", "http://site", "cal/events/v1"))
}

var evQuery = Query{Route: "GET /events/{id}", Target: "/wp-json/cal/events/v1/events/7", Path: "/events/7",
	NS: "cal/events/v1"}

func TestCompareOutcomes(t *testing.T) {
	orig := `{"id":7,"title":"Jazz","rest_url":"http:\/\/site\/wp-json\/tribe\/events\/v1\/events\/7"}`
	cal := `{"id":7,"title":"Jazz","rest_url":"http:\/\/cal:8080\/wp-json\/cal\/events\/v1\/events\/7"}`
	for _, tc := range []struct {
		name      string
		orig, cal *Answer
		q         Query
		want      Outcome
		path      string // a differing path expected in Diffs
		granted   string
	}{
		{name: "same after normalising host and namespace", orig: answer(200, orig), cal: answer(200, cal),
			q: evQuery, want: Same},
		{name: "a value", orig: answer(200, orig), cal: answer(200, strings.Replace(cal, "Jazz", "Blues", 1)),
			q: evQuery, want: Different, path: "$.title"},
		{name: "key order", orig: answer(200, `{"a":1,"b":2}`), cal: answer(200, `{"b":2,"a":1}`),
			q: evQuery, want: Different, path: "$"},
		{name: "a total", orig: answer(200, `{}`, "X-Tec-Total", "3"), cal: answer(200, `{}`, "X-Tec-Total", "4"),
			q: evQuery, want: Different, path: "header:X-Tec-Total"},
		{name: "the content type", orig: answer(200, `{}`), cal: &Answer{Status: 200, Body: []byte(`{}`),
			Headers: map[string]string{"Content-Type": "text/html"}}, q: evQuery, want: Different,
			path: "header:Content-Type"},
		{name: "a status", orig: answer(404, `{"code":"rest_event_not_found"}`), cal: answer(200, `{}`),
			q: evQuery, want: Different, path: "$status"},
		{name: "several tags, granted by name",
			orig: answer(200, `{"events":[{"id":1}]}`), cal: answer(200, `{"events":[{"id":1},{"id":2}]}`),
			q:    Query{Route: "GET /events", Path: "/events", Query: "tags=a,b", NS: Namespace},
			want: Intended, granted: "tags-any"},
		{name: "one tag is not granted",
			orig: answer(200, `{"events":[{"id":1}]}`), cal: answer(200, `{"events":[{"id":1},{"id":2}]}`),
			q:    Query{Route: "GET /events", Path: "/events", Query: "tags=a", NS: Namespace},
			want: Different, path: "$.events"},
		{name: "the original failing", orig: answer(500, `{}`), cal: answer(200, `{}`), q: evQuery, want: Failed},
		{name: "no answer from the original", orig: &Answer{Err: "timeout"}, cal: answer(200, `{}`), q: evQuery,
			want: Failed},
		{name: "calshim busy", orig: answer(200, `{}`), cal: answer(503, `{}`), q: evQuery, want: Skipped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := check(t, &Comparer{Original: fixed(tc.orig), Calshim: fixed(tc.cal)}, tc.q)
			if res.Outcome != tc.want {
				t.Fatalf("outcome %s, want %s (diffs %+v, granted %v)", res.Outcome, tc.want, res.Diffs, res.Granted)
			}
			if tc.path != "" && !hasPath(res.Diffs, tc.path) {
				t.Errorf("diffs %+v lack %s", res.Diffs, tc.path)
			}
			if tc.granted != "" && (len(res.Granted) != 1 || res.Granted[0] != tc.granted) {
				t.Errorf("granted %v, want %s", res.Granted, tc.granted)
			}
		})
	}
}

func hasPath(diffs []Diff, path string) bool {
	for _, d := range diffs {
		if d.Path == path {
			return true
		}
	}
	return false
}

// The original answering a field differently to the same request (Diffy's secondary) cancels it;
// a difference elsewhere in the same answer is still reported.
func TestCompareNoiseFromTheOriginal(t *testing.T) {
	var n atomic.Int32
	orig := sideFunc(func(Query) *Answer {
		return answer(200, `{"id":7,"nonce":"`+strings.Repeat("x", int(n.Add(1)))+`","title":"Jazz"}`)
	})
	res := check(t, &Comparer{Original: orig, Calshim: fixed(answer(200, `{"id":7,"nonce":"zz","title":"Jazz"}`))},
		evQuery)
	if res.Outcome != Noise || res.Asked != 2 || !hasPath(res.Diffs, "$.nonce") {
		t.Fatalf("got %s after %d requests (%+v), want noise at $.nonce after 2", res.Outcome, res.Asked, res.Diffs)
	}

	res = check(t, &Comparer{Original: orig, Calshim: fixed(answer(200, `{"id":7,"nonce":"zz","title":"Blues"}`))},
		evQuery)
	if res.Outcome != Different || len(res.Diffs) != 1 || res.Diffs[0].Path != "$.title" {
		t.Fatalf("got %s %+v, want only $.title different", res.Outcome, res.Diffs)
	}
}

// A difference gone after the freshness bound was a change calshim had not polled yet (noise); one
// still there is reported.
func TestCompareFreshness(t *testing.T) {
	for _, catchUp := range []bool{true, false} {
		var asked atomic.Int32
		cal := sideFunc(func(Query) *Answer {
			if asked.Add(1) > 1 && catchUp {
				return answer(200, `{"title":"New"}`)
			}
			return answer(200, `{"title":"Old"}`)
		})
		c := &Comparer{Original: fixed(answer(200, `{"title":"New"}`)), Calshim: cal, Fresh: 10 * time.Millisecond}
		res := check(t, c, evQuery)
		want := Different
		if catchUp {
			want = Noise
		}
		if res.Outcome != want || !hasPath(res.Diffs, "$.title") || res.Asked != 3 {
			t.Errorf("caught up %v: %s %+v after %d requests of the original, want %s at $.title after 3",
				catchUp, res.Outcome, res.Diffs, res.Asked, want)
		}
	}
}

// Without budget left, a difference is reported as found, without asking the original again.
func TestCompareBudget(t *testing.T) {
	c := &Comparer{Original: fixed(answer(200, `{"title":"A"}`)), Calshim: fixed(answer(200, `{"title":"B"}`)),
		Fresh: time.Millisecond, Budget: func(context.Context) bool { return false }}
	if res := check(t, c, evQuery); res.Outcome != Different || res.Asked != 1 {
		t.Fatalf("%s after %d, want different after 1", res.Outcome, res.Asked)
	}
}

// The time between the two requests shows in clock-derived values: noise, not a deliberate
// difference.
func TestCompareRequestTimeIsNoise(t *testing.T) {
	q := Query{Route: "GET /events", Path: "/events", Query: "strict_dates=1", NS: Namespace}
	c := &Comparer{Original: fixed(answer(200, `{"rest_url":"x?end_date=2026-11-28+10:00:01"}`)),
		Calshim: fixed(answer(200, `{"rest_url":"x?end_date=2026-11-28+10:00:03"}`))}
	if res := check(t, c, q); res.Outcome != Noise || len(res.Granted) != 0 {
		t.Fatalf("%s granted %v, want noise", res.Outcome, res.Granted)
	}
}

// The plain permalink form is granted as url-form, also when a date from "now" in the link moved on
// between the two requests; a link that differs otherwise is not.
func TestCompareURLForm(t *testing.T) {
	q := Query{Route: "GET /events", Path: "/events", Query: "strict_dates=1", NS: Namespace}
	orig := `{"rest_url":"http://site/wp-json/tribe/events/v1/events/?page=1&start_date=2026-11-27+13%3A59%3A01"}`
	for cal, want := range map[string]Outcome{
		`{"rest_url":"http://site/?rest_route=/tribe/events/v1/events/&page=1&start_date=2026-11-27+13%3A59%3A01"}`: Intended,
		`{"rest_url":"http://site/?rest_route=/tribe/events/v1/events/&page=1&start_date=2026-11-27+13%3A59%3A03"}`: Intended,
		`{"rest_url":"http://site/?rest_route=/tribe/events/v1/events/&page=2&start_date=2026-11-27+13%3A59%3A01"}`: Different,
	} {
		c := &Comparer{Original: fixed(answer(200, orig)), Calshim: fixed(answer(200, cal)), Table: Reads}
		res := c.Check(context.Background(), q, &Normalizer{})
		if res.Outcome != want || (want == Intended && res.Granted[0] != "url-form") {
			t.Errorf("%s: %s %v, want %s", cal, res.Outcome, res.Granted, want)
		}
	}
}

// The answer already sent is compared as it is: calshim is asked only for the re-check after the
// freshness bound, never for the first comparison.
func TestCompareSentAnswer(t *testing.T) {
	for _, tc := range []struct {
		name      string
		sent      string
		want      Outcome
		calAsked  int32
		origAsked int
	}{
		{name: "the same bytes", sent: `{"title":"New"}`, want: Same, calAsked: 0, origAsked: 1},
		{name: "a difference then gone", sent: `{"title":"Old"}`, want: Noise, calAsked: 1, origAsked: 3},
	} {
		var asked atomic.Int32
		cal := sideFunc(func(Query) *Answer {
			asked.Add(1)
			return answer(200, `{"title":"New"}`)
		})
		c := &Comparer{Original: fixed(answer(200, `{"title":"New"}`)), Calshim: cal, Fresh: time.Millisecond}
		q := evQuery
		q.Sent = Sent(200, http.Header{"Content-Type": {"application/json; charset=UTF-8"}}, []byte(tc.sent))
		res := check(t, c, q)
		if res.Outcome != tc.want || asked.Load() != tc.calAsked || res.Asked != tc.origAsked {
			t.Errorf("%s: %s, calshim asked %d times, the original %d; want %s, %d, %d", tc.name,
				res.Outcome, asked.Load(), res.Asked, tc.want, tc.calAsked, tc.origAsked)
		}
	}
}

// A sent answer is a copy (the sender's buffer is reused) and one over MaxBody is not compared.
func TestSentAnswer(t *testing.T) {
	buf := []byte(`{"id":1}`)
	a := Sent(200, http.Header{"X-Tec-Total": {"1"}, "Cache-Control": {"no"}}, buf)
	buf[1] = 'X'
	if string(a.Body) != `{"id":1}` || a.Headers["X-Tec-Total"] != "1" || len(a.Headers) != 1 {
		t.Errorf("Sent = %q %v, want its own copy and the compared headers", a.Body, a.Headers)
	}
	if big := Sent(200, nil, make([]byte, MaxBody+1)); big.Err == "" || big.Body != nil {
		t.Errorf("an answer over MaxBody: %+v, want an error and no body", big.Err)
	}
}
