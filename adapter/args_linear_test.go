package adapter

import (
	"calshim/mapping/php"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
)

// assertLinear checks that the work of run grows no faster than its input: the allocations for an
// input of 10n items stay within 12 times those for n (10 plus what fixed costs blur). Inputs are
// built before counting.
func assertLinear[T any](t *testing.T, name string, n int, input func(n int) T, run func(T)) {
	t.Helper()
	small, large := input(n), input(10*n)
	a := testing.AllocsPerRun(2, func() { run(small) })
	b := testing.AllocsPerRun(2, func() { run(large) })
	if b > 12*max(a, 1) {
		t.Errorf("%s: %.0f allocations for %d items, %.0f for %d: more than linear", name, a, n, b, 10*n)
	}
}

// formEntries alternates named keys and appends in one array, the input that made each "a[]" scan
// all the keys before it.
func formEntries(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "a[]"
		if i%2 == 0 {
			keys[i] = "a[k" + strconv.Itoa(i) + "]"
		}
	}
	return keys
}

func formInput(n int) string { return strings.Join(formEntries(n), "=v&") + "=v" }

func multipartInput(n int) []byte {
	parts := make([][2]string, n)
	for i, k := range formEntries(n) {
		parts[i] = [2]string{k, "-"}
	}
	return multipartBody(parts...)
}

func jsonInput(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"a":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"k` + strconv.Itoa(i) + `":[1,"x",true,null]}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

func csvInput(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = strconv.Itoa(i + 1)
	}
	return strings.Join(items, ",")
}

// TestParsersLinear: every parser of client input does work in proportion to what it is sent:
// below PHP's 1000-variable limit (90 and 900 entries) and past it (1,000 and 10,000).
func TestParsersLinear(t *testing.T) {
	for _, n := range []int{90, 1000} {
		assertLinear(t, "query string", n, formInput, func(s string) { parseForm(s) })
		assertLinear(t, "POST form", n, formInput, func(s string) { parseFormWith(php.EachPostPair, s) })
		assertLinear(t, "multipart", n, multipartInput, func(b []byte) { parseMultipart(b, "B") })
		assertLinear(t, "JSON", n, jsonInput, func(b []byte) { _, _ = parseJSONBody(b) })
		assertLinear(t, "query order", n, queryRequest, func(r *request) { paramOrder(r, nil) })
		assertLinear(t, "list_to_array", n, csvInput, func(s string) { isPositiveIntList(nil, s) })
		assertLinear(t, "wp_parse_id_list", n, csvInput, func(s string) { termIDList(s) })
	}
}

// queryRequest is a request whose query string is formInput(n).
func queryRequest(n int) *request {
	return &request{gc: &gin.Context{Request: httptest.NewRequest(http.MethodGet, "/?"+formInput(n), nil)}}
}
