package mapping

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"calshim/internal/memo"
	"calshim/mapping/php"
)

// CostFormat is how an event's cost is displayed: the event's currency meta and TEC's site options.
type CostFormat struct {
	// Symbol is the first row of _EventCurrencySymbol; "" (or "0", PHP-empty) means DefaultSymbol.
	Symbol string
	// Position is the first row of _EventCurrencyPosition: "prefix" puts the symbol before the number,
	// any other value after it; "" (or "0") means Reverse decides.
	Position string
	// DefaultSymbol is TEC's defaultCurrencySymbol option; "" means "$".
	DefaultSymbol string
	// Reverse is TEC's reverseCurrencyPosition option: the symbol goes after the number when the event
	// has no position of its own.
	Reverse bool
}

// EventCost is an event's cost as TEC derives it from its _EventCost rows.
type EventCost struct {
	// Cost is the event's "cost": "" when there is none, else the lowest and highest price with the
	// currency symbol ("$5 – $10", EN DASH), "Free" for zero, or the text of a non-numeric cost;
	// HTML-escaped.
	Cost string
	// Values is "cost_details.values": each price found, as a string with "." decimals, or the
	// sanitize_title slug of a non-numeric cost ("free"), ordered numerically; empty, never
	// nil-encoded as null.
	Values []string
	// Price is the JSON-LD offer price: Cost without currency symbols, a lone "Free" written "0"
	// ("Free – 30" stays as is); "" when there is no cost, and then there is no offer.
	Price string
}

// costEntry is one member of the PHP array TEC keeps costs in: a sortable index and the cost text.
type costEntry struct{ key, value string }

// costRegex is Tribe__Cost_Utils::get_cost_regex: optional separator, digits, optional separator,
// digits.
var costRegex = regexp.MustCompile(`[,.]?([0-9]+)[,.]?([0-9]*)`)

// Cost reproduces tribe_get_cost (with and without currency) and the REST cost values from the rows
// of _EventCost (Tribe__Events__Cost_Utils, tribe-common Tribe__Cost_Utils). The site locale is
// taken to be en_US ("." decimal point, "," thousands separator), as on the recorded site.
func Cost(rows []string, f CostFormat) EventCost {
	return costMemo.Get(costKey(rows, f), func(string) EventCost { return cost(rows, f) })
}

// costMemo keeps Cost's answers: its regexps were a seventh of an uncached event list's CPU, while
// events share a few costs. The key holds every input, so equal keys give equal answers.
var costMemo = memo.New[EventCost](4096)

// costKey encodes Cost's inputs without ambiguity: each string with its length.
func costKey(rows []string, f CostFormat) string {
	var b strings.Builder
	for _, s := range append(rows[:len(rows):len(rows)], f.Symbol, f.Position, f.DefaultSymbol) {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	b.WriteString(strconv.FormatBool(f.Reverse))
	return b.String()
}

func cost(rows []string, f CostFormat) EventCost {
	costs := eventCosts(rows)
	if len(costs) == 0 {
		return EventCost{Values: []string{}}
	}

	price := formatCost(costs, nil)
	if freeWord.MatchString(price) {
		price = "0"
	}

	return EventCost{Cost: formatCost(costs, &f), Values: costValues(costs), Price: price}
}

// freeWord is the JSON-LD price normalisation of Tribe__Events__JSON_LD__Event::normalize_price.
var freeWord = regexp.MustCompile(`(?i)^\s*Free\s*$`)

// eventCosts is get_event_costs: every non-empty row parsed on its own, merged with PHP's array
// union (an index already present keeps its first cost).
func eventCosts(rows []string) []costEntry {
	var out []costEntry
	for _, row := range rows {
		if row == "" {
			continue
		}
		for _, e := range parseCostRange([]string{row}) {
			if indexOf(out, e.key) < 0 {
				out = append(out, e)
			}
		}
	}

	return out
}

func indexOf(es []costEntry, key string) int {
	for i, e := range es {
		if e.key == key {
			return i
		}
	}
	return -1
}

// parseCostRange is parse_cost_range: the numbers found in each cost (a cost without digits is kept
// whole), indexed by their value scaled to the largest number of decimals seen (or by the slug of a
// non-numeric cost), later duplicates overwriting earlier ones in place, sorted by index like
// ksort.
func parseCostRange(costs []string) []costEntry {
	var parts []string
	decimals := 0
	for _, c := range costs {
		ms := costRegex.FindAllStringSubmatch(c, -1)
		if ms == nil {
			parts = append(parts, c)
			continue
		}
		for _, m := range ms {
			parts = append(parts, m[0])
			decimals = max(decimals, len(m[2]))
		}
	}

	var out []costEntry
	for _, c := range parts {
		numeric := commaToDot.Replace(c)
		var key string
		if php.IsNumeric(numeric) {
			formatted := strconv.FormatFloat(php.Float(numeric), 'f', decimals, 64)
			key = dropSeparators.Replace(formatted)
		} else {
			key = php.SanitizeTitle(numeric)
		}
		if i := indexOf(out, key); i >= 0 {
			out[i].value = c
		} else {
			out = append(out, costEntry{key, c})
		}
	}

	sort.SliceStable(out, func(i, j int) bool { return php.KeyLess(out[i].key, out[j].key) })
	return out
}

// costBound is get_cost_by_func: the lowest (or highest) numeric cost, a lone non-numeric cost as
// is, or "0" when nothing is numeric.
func costBound(costs []costEntry, highest bool) string {
	values := make([]string, len(costs))
	for i, e := range costs {
		values[i] = e.value
	}

	parsed := parseCostRange(values)
	if len(parsed) == 1 && !php.IsNumeric(parsed[0].value) {
		return parsed[0].value
	}

	var numeric []string
	for _, e := range parsed {
		if php.IsNumeric(e.value) {
			numeric = append(numeric, e.value)
		}
	}

	if len(numeric) == 0 {
		return "0"
	}

	if highest {
		return numeric[len(numeric)-1]
	}

	return numeric[0]
}

// formatCost is get_formatted_event_cost, with the currency symbol when f is not nil.
func formatCost(costs []costEntry, f *CostFormat) string {
	low := formatBound(costBound(costs, false), f)
	high := formatBound(costBound(costs, true), f)
	if php.LooseEqual(low, high) {
		return low
	}

	return low + " \u2013 " + high
}

// formatBound formats one end of the cost range: "Free" for zero, the currency symbol when f is
// not nil, HTML-escaped.
func formatBound(c string, f *CostFormat) string {
	c = replaceFree(c)
	if f != nil {
		c = withCurrency(c, *f)
	}
	return php.EscHTML(c)
}

// The cost's replacers, built once (a Replacer builds its tables on first use: built per event
// rendered, they were a large part of a list's allocations).
var (
	commaToDot     = strings.NewReplacer(",", ".")
	dropSeparators = strings.NewReplacer(".", "", ",", "")
)

// replaceFree is maybe_replace_cost_with_free: a cost that rounds to 0.00 reads "Free".
func replaceFree(c string) string {
	p := commaToDot.Replace(c)
	if php.IsNumeric(p) && strconv.FormatFloat(php.Float(p), 'f', 2, 64) == "0.00" {
		return "Free"
	}
	return c
}

// withCurrency is maybe_format_with_currency + tribe_format_currency: a number gets the symbol
// before or after it, without a space; anything else is left alone.
func withCurrency(c string, f CostFormat) string {
	if !php.IsNumeric(dropSeparators.Replace(c)) {
		return c
	}

	symbol := f.Symbol
	if php.Empty(symbol) {
		symbol = f.DefaultSymbol
		if symbol == "" {
			symbol = "$"
		}
	}

	position := f.Position
	if php.Empty(position) {
		position = "prefix"
		if f.Reverse {
			position = "suffix"
		}
	}

	if position == "prefix" {
		return symbol + c
	}

	return c + symbol
}

// costValues is Post_Repository::get_cost_values: each cost with its thousands separator removed
// and its decimal separator made ".", or its index when that is not a number, sorted numerically
// (stable).
func costValues(costs []costEntry) []string {
	out := make([]string, 0, len(costs))
	for _, e := range costs {
		dec, thou := parseSeparators(e.value)
		v := strings.ReplaceAll(e.value, thou, "")
		v = strings.ReplaceAll(v, dec, ".")
		if !php.IsNumeric(v) {
			v = e.key
		}
		out = append(out, v)
	}

	sort.SliceStable(out, func(i, j int) bool { return php.Float(out[i]) < php.Float(out[j]) })
	return out
}

var separatorRuns = regexp.MustCompile(`[.,]+`)

// parseSeparators is Tribe__Cost_Utils::parse_separators for an en_US site: with two kinds of
// separator the last one is the decimal point; with one kind, it is the decimal point unless
// exactly three digits follow its last occurrence (then "." and "," keep their locale meaning).
func parseSeparators(v string) (dec, thou string) {
	dec, thou = ".", ","
	seps := separatorRuns.FindAllString(v, -1)
	if len(seps) == 0 {
		return dec, thou
	}

	last := seps[len(seps)-1]
	for _, s := range seps {
		if s != seps[0] {
			return last, seps[0]
		}
	}

	frags := strings.Split(v, last)
	if len(frags[len(frags)-1]) != 3 {
		dec = last
		if dec == "." {
			thou = ","
		} else {
			thou = "."
		}
	}

	return dec, thou
}
