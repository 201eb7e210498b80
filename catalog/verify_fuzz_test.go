package catalog

import (
	"encoding/json"
	"testing"

	"calshim/cmsclient"
)

// A checksum answer of any content either fails to decode or is compared without a panic, and the
// spans it yields lie within the range it names.
func FuzzChecksumAnswer(f *testing.F) {
	f.Add([]byte(`{"from":0,"to":100,"parts":16,"ranges":[{"part":3,"count":2,"digest":"ff"}]}`))
	f.Add([]byte(`{"from":5,"to":5,"parts":16,"ranges":[{"part":-1,"count":1,"digest":"0"}]}`))
	ids := []int{1, 7, 20, 21, 99, 100}
	local := heldSums{ids: ids, sums: map[int]cmsclient.Digest{1: 1, 7: 2, 20: 3, 21: 4, 99: 5, 100: 6}}
	f.Fuzz(func(t *testing.T, b []byte) {
		var rs cmsclient.RangeSums
		if json.Unmarshal(b, &rs) != nil || rs.Parts != verifyParts || rs.To < rs.From || rs.From < 0 ||
			rs.To > allIDs {
			return
		}
		for _, s := range differingSpans(&rs, local) {
			if s.from < rs.From || s.to > rs.To || s.from > s.to {
				t.Fatalf("span %+v outside [%d, %d]", s, rs.From, rs.To)
			}
		}
	})
}
