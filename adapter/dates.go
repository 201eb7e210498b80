package adapter

import (
	"calshim/mapping"
)

// windowQuery collects the archive's date arguments (the pipeline has checked them with is_time).
func (r *request) windowQuery(a Params) mapping.WindowQuery {
	q := mapping.WindowQuery{Cutoff: r.snap.MultiDayCutoff}
	_, q.Include = a["include"]
	q.StartDate, _ = a.str("start_date")
	q.EndDate, _ = a.str("end_date")
	q.StartsBefore, _ = a.str("starts_before")
	q.StartsAfter, _ = a.str("starts_after")
	q.EndsBefore, _ = a.str("ends_before")
	q.EndsAfter, _ = a.str("ends_after")
	q.StrictDates, _ = a.str("strict_dates")
	q.StartDateInQuery, q.EndDateInQuery = q.StartDate != "", q.EndDate != ""
	return q
}

// archiveDates puts the effective window of the date arguments into f.
func (s *Server) archiveDates(r *request, a Params, f *mapping.EventFilter) mapping.Window {
	w := mapping.EffectiveWindow(r.windowQuery(a), r.now, r.snap.Location)
	f.StartMin, f.EndMax = w.StartDate, w.EndDate
	f.StartsBefore, f.StartsAfter = w.StartsBefore, w.StartsAfter
	f.EndsBefore, f.EndsAfter = w.EndsBefore, w.EndsAfter
	return w
}

// defaultWindow is the archive's start_date/end_date defaults at this moment, as the index shows them.
func defaultWindow(r *request) (string, string) {
	return mapping.DefaultStart(r.now, r.snap.Location), mapping.DefaultEnd(r.now)
}
