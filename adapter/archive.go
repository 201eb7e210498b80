package adapter

import (
	"strconv"
	"strings"

	"calshim/mapping"
)

// page is the paging of an archive: 1-based page and per_page after capping.
type page struct{ num, size int }

// pageArgs validates page and per_page (TEC's is_positive_int) and caps per_page. Failures are added
// to bad in declaration order.
func (s *Server) pageArgs(r *request, bad *mapping.Object) page {
	p := page{num: 1, size: r.snap.PerPage}
	if r.params.has("page") {
		n, ok := positiveInt(r.params["page"])
		if !ok {
			bad.Set("page", "Invalid parameter.")
		}
		p.num = n
	}
	if r.params.has("per_page") {
		n, ok := positiveInt(r.params["per_page"])
		if !ok {
			bad.Set("per_page", "Invalid parameter.")
		}
		p.size = n
	}
	p.size = min(p.size, s.opt.MaxPerPage)
	return p
}

// window returns the slice of n items that p selects.
func (p page) window(n int) (from, to int) {
	from = min((p.num-1)*p.size, n)
	return from, min(from+p.size, n)
}

// totalPages is ceil(total/size), 0 when total is 0.
func (p page) totalPages(total int) int { return (total + p.size - 1) / p.size }

// queryArg is one member of an archive's rest_url query, in the original's order.
type queryArg struct{ key, value string }

// archiveLinks builds rest_url, next_rest_url and previous_rest_url the way TEC does: rest_url appends
// the effective values raw (no URL encoding, a QUIRK clients see), unless encode is set (TEC passes
// some arguments through add_query_arg, which encodes them all); next/previous drop `page`, re-encode
// every value with PHP's urlencode and append the new page (none for page 1).
func archiveLinks(url string, args []queryArg, encode bool, p page, total int, into *mapping.Object) {
	var raw, enc []string
	for _, a := range args {
		enc = append(enc, a.key+"="+phpURLEncode(a.value))
		if encode {
			raw = append(raw, a.key+"="+phpURLEncode(a.value))
		} else {
			raw = append(raw, a.key+"="+a.value)
		}
	}
	into.Set("rest_url", withQuery(url, strings.Join(raw, "&")))
	rest := enc[1:] // without page, which is always first
	link := func(n int) string {
		q := append([]string(nil), rest...)
		if n > 1 {
			q = append(q, "page="+strconv.Itoa(n))
		}
		return withQuery(url, strings.Join(q, "&"))
	}
	if p.num*p.size < total {
		into.Set("next_rest_url", link(p.num+1))
	}
	if p.num > 1 {
		into.Set("previous_rest_url", link(p.num-1))
	}
}

// phpURLEncode is PHP's urlencode: letters, digits and "-_." kept, space as "+", the rest %XX.
func phpURLEncode(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '_', c == '.':
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// ints formats a list of IDs as TEC's CSV.
func ints(l []int) string {
	s := make([]string, len(l))
	for i, n := range l {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
