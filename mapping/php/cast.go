package php

import (
	"regexp"
	"strconv"
	"strings"
)

// PHP's casts and comparisons of strings, as the original applies them to stored meta.

// Trim is PHP's trim with its default character list.
func Trim(s string) string { return strings.Trim(s, " \t\n\r\x00\x0B") }

// EmptyString reports whether PHP's empty() is true for a string: "" and "0".
func EmptyString(s string) bool { return s == "" || s == "0" }

// Bool is PHP's (bool) cast of a string.
func Bool(s string) bool { return !EmptyString(s) }

// TribeTruthy is tribe_is_truthy for a string: one of 1, enable, enabled, on, y, yes, true (any
// case).
func TribeTruthy(s string) bool {
	switch strings.ToLower(s) {
	case "1", "enable", "enabled", "on", "y", "yes", "true":
		return true
	}

	return false
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

// KeyLess orders array keys like PHP 8's ksort: numerically when both look numeric, else as bytes.
func KeyLess(a, b string) bool {
	if IsNumeric(a) && IsNumeric(b) {
		if fa, fb := Float(a), Float(b); fa != fb {
			return fa < fb
		}
	}

	return a < b
}

var phpIntPrefix = regexp.MustCompile(`^[ \t\n\r\v\f]*[+-]?[0-9]+`)

// Int is PHP's (int) cast of a string: its leading integer, 0 when there is none.
func Int(s string) int {
	n, _ := strconv.Atoi(strings.TrimLeft(phpIntPrefix.FindString(s), " \t\n\r\v\f"))
	return n
}
