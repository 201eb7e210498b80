package adapter

import (
	"calshim/mapping"
)

// windowQuery collects the archive's date arguments; each one that is not numeric or strtotime-parsable
// is reported in bad (declaration order: start_date, end_date, starts_before, starts_after, ends_before,
// ends_after, strict_dates).
func (r *request) windowQuery(bad *mapping.Object) mapping.WindowQuery {
	q := mapping.WindowQuery{Cutoff: r.snap.MultiDayCutoff, Include: r.params.has("include")}
	for _, a := range []struct {
		name string
		into *string
	}{
		{"start_date", &q.StartDate}, {"end_date", &q.EndDate}, {"starts_before", &q.StartsBefore},
		{"starts_after", &q.StartsAfter}, {"ends_before", &q.EndsBefore}, {"ends_after", &q.EndsAfter},
	} {
		if !r.params.has(a.name) {
			continue
		}
		v, ok := r.params.str(a.name)
		if !ok || !mapping.ValidDateArg(v, r.now) {
			bad.Set(a.name, "Invalid parameter.")
			continue
		}
		*a.into = v
	}
	q.StartDateInQuery, q.EndDateInQuery = q.StartDate != "", q.EndDate != ""
	if r.params.has("strict_dates") {
		v, ok := r.params.str("strict_dates")
		if !ok || v == "" {
			bad.Set("strict_dates", "Invalid parameter.")
		}
		q.StrictDates = v
	}
	return q
}

// archiveDates validates the date arguments and puts the effective window into f.
func (s *Server) archiveDates(r *request, f *mapping.EventFilter, bad *mapping.Object) mapping.Window {
	q := r.windowQuery(bad)
	if len(*bad) > 0 {
		return mapping.Window{}
	}
	w := mapping.EffectiveWindow(q, r.now, r.snap.Location)
	f.StartMin, f.EndMax = w.StartDate, w.EndDate
	f.StartsBefore, f.StartsAfter, f.EndsBefore, f.EndsAfter = w.StartsBefore, w.StartsAfter, w.EndsBefore, w.EndsAfter
	return w
}

// defaultWindow is the archive's start_date/end_date defaults at this moment, as the index shows them.
func defaultWindow(r *request) (string, string) {
	return mapping.DefaultStart(r.now, r.snap.Location), mapping.DefaultEnd(r.now)
}
