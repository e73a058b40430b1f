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
	"strings"
)

// writer builds SVG markup with escaping.
type writer struct{ b strings.Builder }

// open writes a start tag; attrs are name, value pairs.
func (w *writer) open(tag string, attrs ...string) {
	w.b.WriteByte('<')
	w.b.WriteString(tag)
	w.attrs(attrs)
	w.b.WriteByte('>')
}

// void writes a self-closing element.
func (w *writer) void(tag string, attrs ...string) {
	w.b.WriteByte('<')
	w.b.WriteString(tag)
	w.attrs(attrs)
	w.b.WriteString("/>")
}

func (w *writer) attrs(attrs []string) {
	for i := 0; i+1 < len(attrs); i += 2 {
		if attrs[i+1] == "" && attrs[i] == "class" {
			continue
		}
		w.b.WriteByte(' ')
		w.b.WriteString(attrs[i])
		w.b.WriteString(`="`)
		escape(&w.b, attrs[i+1])
		w.b.WriteByte('"')
	}
}

func (w *writer) close(tag string) {
	w.b.WriteString("</")
	w.b.WriteString(tag)
	w.b.WriteByte('>')
}

// elem writes an element with escaped text.
func (w *writer) elem(tag, text string, attrs ...string) {
	w.open(tag, attrs...)
	escape(&w.b, text)
	w.close(tag)
}

func escape(b *strings.Builder, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		var rep string
		switch s[i] {
		case '&':
			rep = "&amp;"
		case '<':
			rep = "&lt;"
		case '>':
			rep = "&gt;"
		case '"':
			rep = "&#34;"
		case '\'':
			rep = "&#39;"
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(rep)
		last = i + 1
	}
	b.WriteString(s[last:])
}

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
