package idem

import (
	"strconv"
	"unicode/utf8"
)

// Excerpt quotes s for an error message, cut to its first 32 bytes (and
// "..." after them), so that an answer never echoes much of what was
// sent.
func Excerpt(s string) string {
	const max = 32
	if len(s) <= max {
		return strconv.Quote(s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "..."
}
