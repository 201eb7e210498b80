package catalog

import (
	"testing"

	"calshim/mapping"
)

// A draft never updated since it was created shows post_modified_gmt as stored, zero (the original's
// modified_utc "0000-00-00 00:00:00"), not the value wp/v2 computes.
func TestStoredModifiedGMT(t *testing.T) {
	for _, tc := range []struct {
		dateGMT, modified, want string
	}{
		{zeroDate, "2026-11-23 13:49:16", zeroDate},              // never updated
		{zeroDate, "2026-11-23 14:00:00", "2026-11-23 19:00:00"}, // updated since
		{"2026-11-23 18:49:16", "2026-11-23 13:49:16", "2026-11-23 19:00:00"},
	} {
		p := &mapping.Post{Date: "2026-11-23 13:49:16", DateGMT: tc.dateGMT, Modified: tc.modified,
			ModifiedGMT: "2026-11-23 19:00:00"}
		storedModifiedGMT(p)
		if p.ModifiedGMT != tc.want {
			t.Errorf("%+v: ModifiedGMT = %s, want %s", tc, p.ModifiedGMT, tc.want)
		}
	}
}
