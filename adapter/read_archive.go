package adapter

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"calshim/mapping/php"

	"calshim/mapping"
)

// page is the paging of an archive: 1-based page and per_page after capping.
type page struct{ num, size int }

// pageOf reads page and per_page from the sanitized arguments (the pipeline has checked them with
// is_positive_int; sanitize_per_page gives false for an empty per_page) and caps per_page.
func (s *Server) pageOf(r *request, a Params) page {
	p := page{num: 1, size: r.snap.PerPage}
	if n, ok := a["page"].(int); ok {
		p.num = n
	}

	if n, ok := a["per_page"].(int); ok && n > 0 {
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

// archiveLinks builds rest_url, next_rest_url and previous_rest_url as TEC's
// Archive_Base::get_current_rest_url and get_next_rest_url do, with WordPress' add_query_arg: the
// effective arguments go in raw (values unencoded, as clients see them); extra arguments (TEC's
// venue, organizer and featured), when there are any, go in through a second add_query_arg, which
// re-encodes what the URL already holds. next/previous re-encode everything, drop page and append
// the new one (none for page 1).
func archiveLinks(url string, args, extra []queryArg, p page, total int, into *mapping.Object) {
	query := buildQuery(args)
	if extra != nil {
		query = buildQuery(append(encodeQuery(parseQuery(query)), extra...))
	}

	into.Set("rest_url", withQuery(url, query))

	isPage := func(a queryArg) bool { return a.key == "page" }
	rest := slices.DeleteFunc(encodeQuery(parseQuery(query)), isPage)
	link := func(n int) string {
		q := slices.Clone(rest)
		if n > 1 {
			q = append(q, queryArg{"page", strconv.Itoa(n)})
		}
		return withQuery(url, buildQuery(q))
	}
	if p.num*p.size < total {
		into.Set("next_rest_url", link(p.num+1))
	}

	if p.num > 1 {
		into.Set("previous_rest_url", link(p.num-1))
	}
}

// buildQuery is add_query_arg's build_query (no encoding of its own) followed by its removal of "="
// before "&" or the end ("has_events=" becomes "has_events", a raw "search=&" becomes "search&").
func buildQuery(args []queryArg) string {
	parts := make([]string, len(args))
	for i, a := range args {
		if a.key != "" { // an empty array leaves an empty member
			parts[i] = a.key + "=" + a.value
		}
	}
	return emptyValue.ReplaceAllString(strings.Join(parts, "&"), "$1")
}

var emptyValue = regexp.MustCompile(`=(&|$)`)

// parseQuery is a query string's pairs as wp_parse_str reads them (php.ParseStr).
func parseQuery(q string) []queryArg {
	pairs := php.ParseStr(q)
	out := make([]queryArg, len(pairs))
	for i, p := range pairs {
		out[i] = queryArg{p.Key, p.Value}
	}
	return out
}

// encodeQuery is urlencode_deep on the parsed query.
func encodeQuery(args []queryArg) []queryArg {
	out := make([]queryArg, len(args))
	for i, a := range args {
		out[i] = queryArg{a.key, php.URLEncode(a.value)}
	}
	return out
}

// ints formats a list of IDs as TEC's CSV.
func ints(l []int) string {
	s := make([]string, len(l))
	for i, n := range l {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
