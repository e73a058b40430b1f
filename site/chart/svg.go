// Package chart draws the handbook's small SVG charts: a frame with
// gridlines and tick labels, bars, lines, a shaded band and reference
// lines, with the accessible text a figure needs.
//
// The same code draws a chart into the static page and, compiled into the
// WebAssembly module, into the live widget, so it keeps to small standard
// packages: no fmt, no reflection.
//
// Text never scales with the chart. The outer <svg> has no viewBox: it is
// as wide as its box, its height is fixed, and its labels are placed in
// percentages of the width and pixels of the height, so they keep their
// CSS size on a phone and on a desktop alike. The data are drawn in a
// nested <svg> whose viewBox is stretched over the plot area
// (preserveAspectRatio="none"); its lines keep their width with
// vector-effect="non-scaling-stroke". Colours come from CSS classes, never
// from style attributes: the pages' Content-Security-Policy forbids those.
package chart

import (
	"math"
	"strconv"
)

// coord formats a coordinate with at most one decimal: the plot's viewBox
// is 1000 units wide, so a tenth of a unit is far below a pixel.
func coord(f float64) string {
	return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64)
}

// pct formats a fraction of the width as a percentage, to a hundredth of a
// percent (a tenth of a pixel on a 1,000 px wide chart).
func pct(f float64) string {
	return strconv.FormatFloat(math.Round(f*10000)/100, 'f', -1, 64) + "%"
}
