package widget

import (
	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/engine/sim"
)

// The small helpers every view writes its words and classes with, once.

// Money formats cents as units with two decimals: 2500 -> "25.00".
var Money = sim.Money

// Seconds formats a virtual time as seconds with two decimals: "1.04 s".
var Seconds = sim.Seconds

// MaxSeed bounds a random widget's seed.
const MaxSeed = param.MaxSeed

// plural is n and the word, plural unless n is 1: "1 charge", "2 charges".
func plural(n int, word string) string { return Itoa(n) + " " + pluralWord(n, word) }

// pluralWord is the word alone, plural unless n is 1.
func pluralWord(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// when is s if b holds, else "": for classes that come and go.
func when(b bool, s string) string {
	if b {
		return s
	}
	return ""
}
