package shadow

import (
	"encoding/json"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// liveMetrics are the live shadow's Prometheus collectors. Labels take their values from fixed
// sets: route templates (the adapter's route table), outcomes, skip reasons.
type liveMetrics struct {
	reg      prometheus.Registerer
	outcomes *prometheus.CounterVec
	skipped  *prometheus.CounterVec
	asked    prometheus.Counter
	// series caches each route and outcome's counter (finding it in the vector hashes the labels on
	// every sampled request); totals counts by outcome for /shadow/differences.
	series    sync.Map // seriesKey → prometheus.Counter
	skippedBy map[string]prometheus.Counter
	totals    [6]atomic.Int64 // by outcomeIndex
}

type seriesKey struct {
	route   string
	outcome Outcome
}

var outcomeIndex = map[Outcome]int{Same: 0, Intended: 1, Different: 2, Noise: 3, Failed: 4, Skipped: 5}

func newLiveMetrics(reg prometheus.Registerer) *liveMetrics {
	m := &liveMetrics{reg: reg,
		outcomes: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "calshim", Name: "shadow_requests_total",
			Help: "Sampled requests compared with the original, by route template and outcome (same, deliberate, " +
				"different, noise, error, skipped)."}, []string{"route", "outcome"}),
		skipped: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "calshim", Name: "shadow_skipped_total",
			Help: "Sampled requests not compared, by reason (breaker, budget, busy, calshim busy)."}, []string{"reason"}),
		asked: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "calshim",
			Name: "shadow_original_requests_total", Help: "Requests the shadow sent to the original."}),
	}
	m.skippedBy = map[string]prometheus.Counter{}
	for _, reason := range []string{"breaker", "budget", "busy", "calshim busy"} {
		m.skippedBy[reason] = m.skipped.WithLabelValues(reason)
	}
	if reg != nil {
		reg.MustRegister(m.outcomes, m.skipped, m.asked)
	}

	return m
}

// breakerOpen exports the breaker's state.
func (m *liveMetrics) breakerOpen(b *breaker) {
	if m.reg == nil {
		return
	}
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "calshim", Name: "shadow_breaker_open",
		Help: "Whether the shadow's circuit breaker is open (1): the original failed or was slow."},
		func() float64 {
			if b.isOpen() {
				return 1
			}
			return 0
		}))
}

func (m *liveMetrics) outcome(route string, o Outcome) {
	k := seriesKey{route, o}
	c, ok := m.series.Load(k)
	if !ok {
		c, _ = m.series.LoadOrStore(k, m.outcomes.WithLabelValues(route, string(o)))
	}
	c.(prometheus.Counter).Inc()
	m.totals[outcomeIndex[o]].Add(1)
}

// skip counts a skipped request's reason (one of a fixed few: the counters are made at start).
func (m *liveMetrics) skip(reason string) {
	m.skippedBy[reason].Inc()
}

func (m *liveMetrics) counts() map[Outcome]int64 {
	out := map[Outcome]int64{}
	for _, o := range Outcomes {
		if n := m.totals[outcomeIndex[o]].Load(); n > 0 {
			out[o] = n
		}
	}
	return out
}

// clipBody is how much of each answer a kept difference shows.
const clipBody = 4096

// Entry is one kept difference, as /shadow/differences shows it.
type Entry struct {
	Time       time.Time         `json:"time"`
	Route      string            `json:"route"`
	Request    string            `json:"request"` // calshim's request URI, a password parameter's value hidden
	Outcome    Outcome           `json:"outcome"`
	Diffs      []Diff            `json:"differences,omitempty"`
	Deliberate map[string]string `json:"deliberate,omitempty"` // name → reason
	Original   Shown             `json:"original"`
	Calshim    Shown             `json:"calshim"`
}

// Shown is an answer as kept: its status, compared headers and body, clipped.
type Shown struct {
	Status  int               `json:"status"`
	Error   string            `json:"error,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body"`
	Clipped int               `json:"clipped_bytes,omitempty"`
}

func shown(a *Answer) Shown {
	if a == nil {
		return Shown{}
	}
	s := Shown{Status: a.Status, Error: a.Err, Headers: a.Headers, Body: string(a.Body)}
	if len(s.Body) > clipBody {
		s.Clipped = len(s.Body) - clipBody
		s.Body = s.Body[:clipBody]
	}
	return s
}

// EntryOf describes a result for an operator.
func EntryOf(res *Result, t Table) Entry {
	e := Entry{Time: time.Now().UTC(), Route: res.Query.Route, Request: redact(res.Query.Target),
		Outcome: res.Outcome, Diffs: res.Diffs, Original: shown(res.Original), Calshim: shown(res.Calshim)}
	if len(e.Diffs) > maxDiffs {
		e.Diffs = e.Diffs[:maxDiffs]
	}
	for _, n := range res.Granted {
		if e.Deliberate == nil {
			e.Deliberate = map[string]string{}
		}
		if d := t.ByName(n); d != nil {
			e.Deliberate[n] = d.Reason
		}
	}
	return e
}

// redact hides the value of a password parameter (a protected event's): the endpoint is for
// operators, but a visitor's password is not theirs to read.
func redact(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return target
	}
	q := u.Query()
	if _, ok := q["password"]; !ok {
		return target
	}
	q.Set("password", "REDACTED")
	u.RawQuery = q.Encode()
	return u.String()
}

// recent keeps the latest differences and deliberate differences, each kind bounded in count and
// together in bytes (the oldest go first).
type recent struct {
	mu       sync.Mutex
	max      int
	maxBytes int
	bytes    int
	kept     map[Outcome][]json.RawMessage // oldest first
}

func newRecent(n, bytes int) *recent {
	return &recent{max: max(n, 1), maxBytes: bytes, kept: map[Outcome][]json.RawMessage{}}
}

func (r *recent) add(res *Result, t Table) {
	raw, err := json.Marshal(EntryOf(res, t))
	if err != nil || len(raw) > r.maxBytes {
		return
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	o := res.Outcome
	r.kept[o] = append(r.kept[o], raw)
	r.bytes += len(raw)
	for len(r.kept[o]) > r.max {
		r.dropOldest(o)
	}
	for r.bytes > r.maxBytes {
		r.dropOldest(r.victim(o))
	}
}

// victim is the kind that gives way when the bytes run out: the one just added while it holds
// more than the new entry, so that many deliberate differences never push out a real one.
func (r *recent) victim(added Outcome) Outcome {
	if len(r.kept[added]) > 1 {
		return added
	}
	for k, l := range r.kept {
		if k != added && len(l) > 0 {
			return k
		}
	}
	return added
}

func (r *recent) dropOldest(o Outcome) {
	r.bytes -= len(r.kept[o][0])
	r.kept[o] = r.kept[o][1:]
}

// serve writes the totals by outcome and the kept entries, newest first.
func (r *recent) serve(w http.ResponseWriter, totals map[Outcome]int64) {
	r.mu.Lock()
	out := struct {
		Totals     map[Outcome]int64 `json:"totals"`
		Different  []json.RawMessage `json:"different"`
		Deliberate []json.RawMessage `json:"deliberate"`
	}{Totals: totals, Different: newestFirst(r.kept[Different]), Deliberate: newestFirst(r.kept[Intended])}
	r.mu.Unlock()

	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(out)
}

func newestFirst(l []json.RawMessage) []json.RawMessage {
	out := make([]json.RawMessage, len(l))
	for i, v := range l {
		out[len(l)-1-i] = v
	}
	return out
}
