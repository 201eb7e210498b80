package wpfake

// AddMany appends objects to a collection without Add's duplicate check (quadratic over large
// collections): for benchmarks that build catalogs of many thousands of posts with unique IDs.
func (s *Server) AddMany(base string, objs []Object) {
	items := make([]item, 0, len(objs))
	for _, o := range objs {
		items = append(items, s.mustItem(o))
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.coll[base] = append(s.mustColl(base), items...)
}
