package widget

import (
	"math"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/engine/sim"
	"github.com/retrylab/retrylab/site/chart"
)

// The words every view writes its sentences with, once. An outcome's
// sentence writes every count with Count (or Figure and Plural), every
// other figure with Figure, chart.Number or Decimal (all three grouped
// by chart.Group), and lists with List, so that a reader reads
// "1 call", "99,997 refused" and "19,932.7 s" in every widget:
//
//	Count(calls, "call") + " in all; " + Figure(gaveUp) + " gave up"
//	"served at " + Decimal(last, 1) + " s"
//	List(ids) + " " + Pick(len(ids), "is", "are") + " money taken"

// Figure writes n with its thousands separated: 99997 is "99,997".
func Figure(n int) string { return chart.Group(strconv.Itoa(n)) }

// Decimal writes f rounded to places decimals, its thousands separated:
// Decimal(19932.74, 1) is "19,932.7", Decimal(4, 1) is "4.0".
func Decimal(f float64, places int) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "–"
	}
	return chart.Group(strconv.FormatFloat(f, 'f', places, 64))
}

// Count is n and the noun, plural unless n is 1: "1 call", "99,997 calls",
// "2 retries", "3 deliveries".
func Count(n int, noun string) string { return Figure(n) + " " + Plural(n, noun) }

// Plural is the noun alone, plural unless n is 1: "retry" becomes
// "retries", "box" "boxes", "call" "calls". A noun of several words
// changes its last: "replayed answers".
func Plural(n int, noun string) string {
	if n == 1 || noun == "" {
		return noun
	}
	last := noun[len(noun)-1]
	switch {
	case last == 'y' && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	case last == 's' || last == 'x' || strings.HasSuffix(noun, "ch") || strings.HasSuffix(noun, "sh"):
		return noun + "es"
	}
	return noun + "s"
}

// Pick is one when n is 1, else many: a verb that agrees with a count,
// Pick(n, "is", "are").
func Pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// List joins items as a sentence does: "a", "a and b", "a, b and c".
func List(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// Clauses joins clauses that have commas of their own, as List joins
// items but with semicolons: "a; b; and c".
func Clauses(cs []string) string {
	switch len(cs) {
	case 0:
		return ""
	case 1:
		return cs[0]
	}
	return strings.Join(cs[:len(cs)-1], "; ") + "; and " + cs[len(cs)-1]
}

// Times says how many times: "never", "once", "twice", "3 times".
func Times(n int) string {
	switch n {
	case 0:
		return "never"
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return Figure(n) + " times"
}

// Capital is s with its first letter upper-case: a sentence's start.
func Capital(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// Money formats cents as units with two decimals, thousands separated:
// 2500 is "25.00", 123456789 "1,234,567.89".
func Money(cents int64) string { return chart.Group(sim.Money(cents)) }

// Seconds formats a virtual time as seconds with two decimals: "1.04 s".
var Seconds = sim.Seconds

// MaxSeed bounds a random widget's seed.
const MaxSeed = param.MaxSeed

// when is s if b holds, else "": for classes that come and go.
func when(b bool, s string) string {
	if b {
		return s
	}
	return ""
}
