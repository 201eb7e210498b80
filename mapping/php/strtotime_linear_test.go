package php

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestParseTimeLinear: ParseTime's work grows with its input no faster than linearly, for strings
// it scans (up to 256 bytes: 3 and 30 relative units, each string new to the memo) and for long ones
// it rejects or reads as a timestamp (1,000 and 10,000 bytes).
func TestParseTimeLinear(t *testing.T) {
	const runs = 3
	relative := func(units int) func() {
		inputs := make([]string, runs+1) // AllocsPerRun runs once more to warm up
		for i := range inputs {
			inputs[i] = strings.Repeat("+1 day ", units) + "+" + strconv.Itoa(i+1000*units) + " sec"
		}
		i := 0
		return func() { ParseTime(inputs[i%len(inputs)], stNow, time.UTC); i++ }
	}
	long := func(s string) func() { return func() { ParseTime(s, stNow, time.UTC) } }

	for _, tc := range []struct {
		name         string
		small, large func()
	}{
		{"relative units", relative(3), relative(30)},
		{"blanks", long(strings.Repeat(" ", 1000) + "x"), long(strings.Repeat(" ", 10000) + "x")},
		{"digits", long(strings.Repeat("1", 1000)), long(strings.Repeat("1", 10000))},
		{"text", long(strings.Repeat("a", 1000)), long(strings.Repeat("a", 10000))},
	} {
		a, b := testing.AllocsPerRun(runs, tc.small), testing.AllocsPerRun(runs, tc.large)
		if b > 12*max(a, 1) {
			t.Errorf("%s: %.0f allocations, %.0f for 10 times the input: more than linear", tc.name, a, b)
		}
	}
}
