package widget

import (
	"strconv"

	"github.com/retrylab/retrylab/site/markup"
)

// HTML is the markup writer every view writes to.
type HTML = markup.HTML

// Escape returns s with &, <, >, " and ' escaped for text and attributes.
func Escape(s string) string { return markup.Escape(s) }

// Num formats a number for SVG coordinates: at most two decimals.
func Num(f float64) string {
	return strconv.FormatFloat(float64(int64(f*100+sign(f)*0.5))/100, 'f', -1, 64)
}

func sign(f float64) float64 {
	if f < 0 {
		return -1
	}
	return 1
}

// Itoa is strconv.Itoa, here so views read short.
func Itoa(i int) string { return strconv.Itoa(i) }
