package adapter

import (
	"slices"
	"testing"
)

// TestTermIDListsAsWPTermQuery: an include that is given cancels exclude even when it holds no ID
// (a slug alone: its IDs join to "0", so WP_Term_Query lists every term), and orderby=include then
// orders by FIELD(term_id, 0), every term equal, so by ID. The fake's tags are 7 to 12; by name they
// are 12, 7, 10, 11, 9, 8.
func TestTermIDListsAsWPTermQuery(t *testing.T) {
	h := newTestServer(t)
	for _, tc := range []struct {
		target string
		want   []int
	}{
		{"/tags?include=free&exclude[]=8&exclude[]=online&orderby=id", []int{7, 8, 9, 10, 11, 12}},
		{"/tags?include=free&exclude=8,9&orderby=id", []int{7, 8, 9, 10, 11, 12}},
		{"/tags?include=free&orderby=include", []int{7, 8, 9, 10, 11, 12}},
		{"/tags?include=online,%208,&orderby=include", []int{8}},
		{"/tags?include[]=9&include[]=7&include[]=9&orderby=include", []int{9, 7}},
		{"/tags?exclude[]=8&exclude[]=online&orderby=id", []int{7, 9, 10, 11, 12}},
	} {
		if got, n := termIDs(t, h, tc.target); !slices.Equal(got, tc.want) || n != len(tc.want) {
			t.Errorf("GET %s = %v (total %d), want %v", tc.target, got, n, tc.want)
		}
	}
}
