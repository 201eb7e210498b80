package catalog

import (
	"slices"
	"testing"

	"calshim/cmsclient"
)

// TestRelogGapEndsAtTheRowThatPlacesIt: a post a poll read in a state its row did not place (relog)
// is unknown from that row to the post's next row in the poll, or to the poll's end when none came
// (more than maxRelogs in one catch-up); a post read twice without a relog keeps its two rows' gap,
// and a relogged post with one row after it stops there.
func TestRelogGapEndsAtTheRowThatPlacesIt(t *testing.T) {
	const ev = "tribe_events"
	rows := []cmsclient.LogRow{{Seq: 12, ID: 5, Type: ev}, {Seq: 13, ID: 6, Type: ev}, {Seq: 15, ID: 7, Type: ev},
		{Seq: 16, ID: 6, Type: ev}, {Seq: 18, ID: 7, Type: ev}, {Seq: 19, ID: 8, Type: ev}}
	for _, c := range []struct {
		name     string
		relogged map[int]cmsclient.LogRow
		want     []gap
	}{
		{"no relog", nil, []gap{{6, ev, 13, 16}, {7, ev, 15, 18}}},
		{"relogged, no later row", map[int]cmsclient.LogRow{5: rows[0], 8: rows[5]},
			[]gap{{6, ev, 13, 16}, {7, ev, 15, 18}, {5, ev, 12, 20}, {8, ev, 19, 20}}},
		{"relogged, placed by a later row", map[int]cmsclient.LogRow{7: rows[2]},
			[]gap{{6, ev, 13, 16}, {7, ev, 15, 18}}},
		{"relogged at its last row", map[int]cmsclient.LogRow{7: rows[4]},
			[]gap{{6, ev, 13, 16}, {7, ev, 15, 20}}},
	} {
		j := &journal{started: true, rowFloor: 10, rowTop: 20, rows: slices.Clone(rows)}
		j.addGaps(10, 20, c.relogged)
		if !slices.Equal(j.gaps, c.want) {
			t.Errorf("%s: gaps %v, want %v", c.name, j.gaps, c.want)
		}
	}
}
