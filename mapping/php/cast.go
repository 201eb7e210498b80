package php

import (
	"encoding/json"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
)

// PHP's casts and comparisons, as the original applies them to stored meta and to request values.
// A value of any type is what a decoded request or an encoded answer holds: nil, bool, a string, a
// json.Number or a Go number, or a list or map (a PHP array).

// Trim is PHP's trim with its default character list.
func Trim(s string) string { return strings.Trim(s, " \t\n\r\x00\x0B") }

// Empty is PHP's empty(): nil, false, 0, 0.0, "", "0" and an empty array.
func Empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == "" || x == "0"
	case json.Number:
		f, err := x.Float64()
		return err == nil && f == 0
	case int:
		return x == 0
	case int64:
		return x == 0
	case float64:
		return x == 0
	}

	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Map:
		return rv.Len() == 0
	}
	return false
}

// Bool is PHP's (bool) cast of a string.
func Bool(s string) bool { return !Empty(s) }

// TribeTruthy is tribe_is_truthy: a bool as it is; a string (lower-cased, not trimmed) when it is
// one of 1, enable, enabled, on, y, yes, true, and any other string is false; any other value by
// PHP's (bool) cast.
func TribeTruthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		switch Strtolower(x) {
		case "1", "enable", "enabled", "on", "y", "yes", "true":
			return true
		}
		return false
	}

	return !Empty(v)
}

// FilterBool is filter_var($v, FILTER_VALIDATE_BOOLEAN): true for "1", "true", "on" and "yes"
// (any case, surrounding blanks ignored), false for everything else.
func FilterBool(v string) bool {
	switch Strtolower(strings.Trim(v, " \t\n\r\v")) {
	case "1", "true", "on", "yes":
		return true
	}
	return false
}

// Strtolower is PHP 8's strtolower, which changes A-Z alone and leaves every other byte as it is
// (Go's strings.ToLower folds Unicode: "K", the Kelvin sign, would become "k").
func Strtolower(s string) string { return mapASCII(s, 'A', 'Z', 'a'-'A') }

// Strtoupper is PHP 8's strtoupper: a-z alone ("ſ", the long s, stays; Go's ToUpper makes it "S").
func Strtoupper(s string) string { return mapASCII(s, 'a', 'z', 'A'-'a') }

// mapASCII adds shift to the bytes from lo to hi, copying s only when one is there.
func mapASCII(s string, lo, hi byte, shift int) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r >= rune(lo) && r <= rune(hi) })
	if i < 0 {
		return s
	}

	b := []byte(s)
	for ; i < len(b); i++ {
		if b[i] >= lo && b[i] <= hi {
			b[i] = byte(int(b[i]) + shift)
		}
	}
	return string(b)
}

// Float is PHP's (float) cast of a string: its leading numeric part, 0 when there is none.
func Float(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\r\v\f")
	if m := phpNumericPrefix.FindString(s); m != "" {
		f, _ := strconv.ParseFloat(m, 64)
		return f
	}

	return 0
}

var phpNumericPrefix = regexp.MustCompile(
	`^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?`)

// LooseEqual is PHP 8's == between two strings: numerically when both are numeric, else byte-wise.
func LooseEqual(a, b string) bool {
	if IsNumeric(a) && IsNumeric(b) {
		return Float(a) == Float(b)
	}

	return a == b
}

// KeyLess orders array keys like PHP 8's ksort: numerically when both look numeric (equal numbers,
// "1" and "1.0", keep their order in a stable sort, as in ksort), else as bytes.
func KeyLess(a, b string) bool {
	if IsNumeric(a) && IsNumeric(b) {
		return Float(a) < Float(b)
	}

	return a < b
}

// Int is PHP 8's (int) cast (intval) on a 64-bit build. A string gives its leading number, read as
// PHP reads numeric strings ("1e3" and "1e3abc" are 1000, "1.9" is 1), saturated beyond the integer
// range, 0 when there is none (or it is infinite); a float truncates, wrapping around beyond the
// range; a bool is 0 or 1; an array is 0 when empty, else 1.
func Int(v any) int {
	switch x := v.(type) {
	case string:
		return intOfString(x)
	case json.Number: // json_decode's int, or its float when it is not one
		if n, err := x.Int64(); err == nil {
			return int(n)
		}
		f, _ := x.Float64()
		return wrapFloat(f)
	case int:
		return x
	case float64:
		return wrapFloat(x)
	}

	if Empty(v) {
		return 0
	}
	return 1
}

func intOfString(s string) int {
	m := phpNumericPrefix.FindString(strings.TrimLeft(s, " \t\n\r\v\f"))
	if !strings.ContainsAny(m, ".eE") {
		if n, err := strconv.ParseInt(m, 10, 64); err == nil {
			return int(n)
		}
	}

	f, _ := strconv.ParseFloat(m, 64) // beyond float64's range: ±Inf, which is 0 as in PHP
	return intOfFloat(f)
}

// wrapFloat is zend_dval_to_lval, PHP's (int) of a float: infinities and NaN are 0, values beyond
// the integer range wrap around modulo 2^64.
func wrapFloat(f float64) int {
	const twoPow64 = 1 << 64
	switch {
	case math.IsInf(f, 0) || math.IsNaN(f):
		return 0
	case f >= math.MinInt64 && f < math.MaxInt64:
		return int(f)
	}
	m := math.Mod(f, twoPow64)
	if m < 0 {
		m += twoPow64
	}
	if m > math.MaxInt64 {
		m -= twoPow64
	}
	return int(m)
}

// intOfFloat is zend_dval_to_lval_cap, which the (int) of a numeric string uses: infinities and
// NaN are 0, values beyond the integer range the nearest end of it.
func intOfFloat(f float64) int {
	switch {
	case math.IsInf(f, 0) || math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f < math.MinInt64:
		return math.MinInt64
	}
	return int(f)
}

// PositiveInt is Tribe__Validator__Base::is_positive_int on a string: is_numeric, (int)$v == $v
// and (int)$v > 0 ("2", " 2", "2.0", "1e3"; not "2.5", "0x2" or "0"), with that integer.
func PositiveInt(s string) (int, bool) {
	if !IsNumeric(s) {
		return 0, false
	}
	n := intOfString(s)
	return n, n > 0 && float64(n) == Float(s)
}
