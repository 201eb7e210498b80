package adapter

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"calshim/mapping/php"

	"github.com/gin-gonic/gin"

	"calshim/internal/testkit/wpfake"
)

// FuzzArgValidators runs every validate and sanitize callback of the route table, and the list
// readers behind them, on each value a query string or JSON body parses to: none panics, whatever
// the shape (nested lists, maps, JSON numbers, null), and the lists they read are consistent.
func FuzzArgValidators(f *testing.F) {
	for _, s := range []string{"include=17,18&exclude[]=jazz&exclude[]=3", "start_date=tomorrow&end_date=%2B2+weeks",
		"venue[venue]=V&organizer[0][id]=12&organizer[]=13", "image=https://example.com/a.png&image=21",
		"per_page=1e3&page=-0&status[]=publish&timezone=Europe/Paris", "a[][][]=1&b[05]=x&c=%zz"} {
		f.Add(s, false)
	}
	for _, s := range []string{`{"venue":{"id":5},"organizer":[12,{"organizer":"O"}],"all_day":true}`,
		`{"include":[1.5,"2",null,[3]],"cost":1e400,"start_date":{"a":1}}`} {
		f.Add(s, true)
	}

	wp := wpfake.New(f)
	cat := fakeCatalog(f, wp)
	f.Fuzz(func(t *testing.T, raw string, isJSON bool) {
		params := parseForm(raw)
		if isJSON {
			p, err := parseJSONBody([]byte(raw))
			if err != nil {
				return
			}
			params = p
		}

		r := &request{gc: &gin.Context{Request: httptest.NewRequest(http.MethodGet, "/", nil)},
			params: params, snap: cat.Snapshot(), now: recordingNow, cms: cat.Client()}
		for _, v := range params {
			for _, validate := range validators {
				_ = validate(r, v)
			}
			for _, sanitize := range sanitizers {
				_, _ = sanitize(r, v)
			}
			for _, typ := range []string{"integer", "boolean", "string"} {
				_, _ = schemaParse("x", typ, v)
			}
			checkIDList(t, termIDList(v))
			if isPositiveIntList(r, v) {
				for _, it := range php.ListToArray(v) {
					if s, _ := php.Scalar(it); !php.IsNumeric(s) || php.Int(s) < 1 {
						t.Fatalf("positive_int_list accepted %#v with item %#v", v, it)
					}
				}
			}
		}
	})
}

// checkIDList: wp_parse_id_list gives IDs of at least 0, each once, at positions 1..n.
func checkIDList(t *testing.T, l idList) {
	seen := make([]bool, len(l.pos)+1)
	for id, pos := range l.pos {
		if id < 0 || pos < 1 || pos > len(l.pos) || seen[pos] {
			t.Fatalf("id list %v: id %d at %d", l.pos, id, pos)
		}
		seen[pos] = true
	}
}
