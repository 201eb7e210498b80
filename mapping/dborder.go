package mapping

import "cmp"

// ByPostDate orders venues and organizers as their lists do ("ORDER BY post_date DESC"): newest
// first. SQL leaves the order of posts of the same date open (posts created together, e.g. by an
// import); the database's plan decides it, and the plan changes with the table's statistics.
// calshim takes the order of the usual plans: for one status (a visitor's "publish") a backward
// read of WordPress' (type, status, date, ID) index, so newest ID first; for several (an editor's
// default "any") a forward read of that index, status by status, then a sort that keeps ties in
// reading order: status in alphabetical order ("draft" before "publish"), then oldest ID first.
func ByPostDate(severalStatuses bool) func(a, b *Post) int {
	if !severalStatuses {
		return func(a, b *Post) int {
			return cmp.Or(cmp.Compare(b.Date(), a.Date()), cmp.Compare(b.ID, a.ID))
		}
	}

	return func(a, b *Post) int {
		return cmp.Or(cmp.Compare(b.Date(), a.Date()), cmp.Compare(a.Status(), b.Status()),
			cmp.Compare(a.ID, b.ID))
	}
}

// NewerFirst is WordPress' default order of venues and organizers as a less function: post date
// descending, then ID descending (ByPostDate(false)).
func NewerFirst(a, b *Post) bool {
	if a.Date() != b.Date() {
		return a.Date() > b.Date()
	}
	return a.ID > b.ID
}
