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

// archiveWindow is the effective window of the date arguments.
func (s *Server) archiveWindow(r *request, a Params) mapping.Window {
	return mapping.EffectiveWindow(r.windowQuery(a), r.now, r.snap.Location)
}

// defaultWindow is the archive's start_date/end_date defaults at this moment, as the index shows
// them.
func defaultWindow(r *request) (string, string) {
	return mapping.DefaultStart(r.now, r.snap.Location), mapping.DefaultEnd(r.now)
}
