package chart

import (
	"math"
	"strconv"
	"strings"

	"github.com/retrylab/retrylab/site/markup"
)

// Axis is one axis of a chart.
type Axis struct {
	Title    string               // what the axis measures, with its unit: "calls per 0.5 s"
	Min, Max float64              // the range drawn; data outside it is clipped
	Ticks    []float64            // the labelled values, within [Min, Max] (Ticks gives round ones)
	Format   func(float64) string // a tick's label; Number if nil
}

func (a Axis) label(v float64) string {
	if a.Format != nil {
		return a.Format(v)
	}
	return Number(v)
}

// frac is where v lies between Min and Max, from 0 to 1.
func (a Axis) frac(v float64) float64 {
	if !(a.Max > a.Min) {
		return 0
	}
	return (v - a.Min) / (a.Max - a.Min)
}

// Chart is a chart being drawn: fill in the fields, add layers in drawing
// order (Band, Bars, Steps, Line, HLine, VLine), then write it with SVG.
type Chart struct {
	Title  string // its accessible name, the <title>: "Calls per 0.5 s, over time"
	Desc   string // its figures in words, the <desc>, for whoever cannot see it
	Class  string // extra classes on the <svg>, for its colours
	Height int    // in CSS pixels, at least MinHeight; the width is the container's
	X, Y   Axis
	// Pad is the least number of bars Bars and Steps draw: past the
	// values, bars of no height and steps of no length. A chart redrawn
	// with as many shapes and commands as before is one the page can move
	// from the old state to the new (widget.css transitions a path's d
	// only between paths of the same commands); give the most values the
	// chart is ever drawn with.
	Pad int
	// Strip makes the chart a time line without a y scale (no y title, no
	// ticks, no HLine key): no row above its plot and no least height, so
	// that it is as tall as Height, which its labels' rows need.
	Strip bool

	data  markup.HTML    // drawn in the plot's stretched viewBox
	marks markup.HTML    // drawn over the data, in the outer coordinates
	drawn map[string]int // how many shapes of each kind so far, for their keys
}

// key names the next shape of a kind, "bars-0", "vline-1", ...: its
// data-key, by which the page keeps the shape from one drawing to the next
// and moves it (wasm/morph.go). The second vertical line of a chart is
// the second in the next drawing too.
func (c *Chart) key(kind string) string {
	if c.drawn == nil {
		c.drawn = map[string]int{}
	}
	n := c.drawn[kind]
	c.drawn[kind] = n + 1
	return kind + "-" + itoa(n)
}

// Geometry of the outer <svg>, in CSS pixels (heights) and fractions of the
// width. Labels are about 12 px high, 15 with their descenders (widget.css).
// Above the plot is a row of its own for the y axis's title, at the left,
// and the reference lines' key (HLine), at the right; the top tick's label
// sits below it, above its gridline. The x ticks' labels and the x axis's
// title take a line each below the plot.
const (
	top    = 38    // plot's top: 18 px for the title row, 20 for the top tick's label
	bottom = 38    // below the plot: 19 px of tick labels, 19 of the x title
	padL   = 0.05  // the plot's left edge, as a fraction of the width: room for most of a y label
	padR   = 0.005 // the right edge, so that a line at the very edge is not cut in half
	inner  = 1000  // the plot's viewBox is inner × inner units
	keyW   = 22    // px: the dashed sample before an HLine's label in the title row
)

// MinHeight is the least Height a chart is drawn at: a plot under 160 px
// would squeeze its bars and lines into a strip.
const MinHeight = 240

// stripTop is a strip's room above its plot, in CSS pixels.
const stripTop = 8

// top is the plot's top, in CSS pixels down the outer <svg>.
func (c *Chart) top() float64 {
	if c.Strip {
		return stripTop
	}
	return top
}

// height is the outer <svg>'s height, in CSS pixels.
func (c *Chart) height() int {
	if c.Strip {
		return c.Height
	}
	return max(c.Height, MinHeight)
}

func (c *Chart) plotHeight() float64 { return float64(c.height()) - c.top() - bottom }

// xFrac is where x lies across the whole width, as a fraction.
func (c *Chart) xFrac(x float64) float64 { return padL + c.X.frac(x)*(1-padL-padR) }

// yPx is where y lies down the outer <svg>, in pixels.
func (c *Chart) yPx(y float64) float64 { return c.top() + c.plotHeight()*(1-c.Y.frac(y)) }

// xIn and yIn are the coordinates of x and y in the plot's viewBox,
// clamped to just outside it so that an outlier draws as a cut shape.
func (c *Chart) xIn(x float64) float64 { return clamp(inner*c.X.frac(x), -1, inner+1) }
func (c *Chart) yIn(y float64) float64 { return clamp(inner*(1-c.Y.frac(y)), -1, inner+1) }

func clamp(f, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, f)) }

// round is f as coord writes it, so that a width taken between two rounded
// edges ends where the edge would be written.
func round(f float64) float64 { return math.Round(f*10) / 10 }

// Band shades the stretch of x from from to to over the plot's height,
// with label centred above it, in the row of the top tick's label, clear
// of the lines drawn across the band: a trigger, a slowdown. The band is a unit
// of width placed and stretched by its transform, so that a redrawn band
// slides and widens from where it was.
func (c *Chart) Band(from, to float64, class, label string) {
	x0, x1 := c.xIn(from), c.xIn(to)
	c.data.Void("rect", "class", join("band", class), "data-key", c.key("band"), "width", "1", "height", coord(inner),
		"transform", "translate("+coord(x0)+" 0) scale("+coord(x1-x0)+" 1)")
	if label != "" {
		c.marks.Elem("text", label, "class", join("band-label", class), "x", pct((c.xFrac(from)+c.xFrac(to))/2),
			"y", coord(c.top()-6), "text-anchor", "middle", "paint-order", "stroke")
	}
}

// Bars draws values[i] as a bar over [x0 + i*dx, x0 + (i+1)*dx), from 0 up,
// as one path: a few hundred bars stay one element, painted as one shape
// (separate rectangles would show seams between neighbours, where their
// antialiased edges meet). Every value is a bar, a 0 one of no height, and
// the chart's Pad more follow, so that a bar keeps its place in the path
// from one drawing to the next and grows or shrinks to its new height.
func (c *Chart) Bars(x0, dx float64, values []float64, class string) {
	if len(values) == 0 {
		return
	}
	var d strings.Builder
	base := coord(c.yIn(0))
	bar := func(l, t, r string) {
		d.WriteString("M" + l + " " + base + "V" + t + "H" + r + "V" + base + "Z")
	}
	for i, v := range values {
		bar(coord(c.xIn(x0+float64(i)*dx)), coord(c.yIn(v)), coord(c.xIn(x0+float64(i+1)*dx)))
	}
	end := coord(c.xIn(x0 + float64(len(values))*dx))
	for range c.Pad - len(values) {
		bar(end, base, end)
	}
	c.data.Void("path", "class", join("bars", class), "data-key", c.key("bars"), "d", d.String())
}

// Steps draws the outline of the bars Bars would draw: a step line, so that
// a second series can lie over the first and both stay readable. The
// chart's Pad steps of no length follow its end.
func (c *Chart) Steps(x0, dx float64, values []float64, class string) {
	if len(values) == 0 {
		return
	}
	var d strings.Builder
	base := coord(c.yIn(0))
	d.WriteString("M" + coord(c.xIn(x0)) + " " + base)
	for i, v := range values {
		d.WriteString("V" + coord(c.yIn(v)) + "H" + coord(c.xIn(x0+float64(i+1)*dx)))
	}
	end := coord(c.xIn(x0 + float64(len(values))*dx))
	for range c.Pad - len(values) {
		d.WriteString("V" + base + "H" + end)
	}
	d.WriteString("V" + base)
	c.data.Void("path", "class", join("steps", class), "data-key", c.key("steps"), "d", d.String(), "vector-effect", "non-scaling-stroke")
}

// Line joins (xs[i], ys[i]) in order. Use Series for evenly spaced values.
func (c *Chart) Line(xs, ys []float64, class string) {
	n := min(len(xs), len(ys))
	if n == 0 {
		return
	}
	var d strings.Builder
	for i := 0; i < n; i++ {
		if i == 0 {
			d.WriteByte('M')
		} else {
			d.WriteByte('L')
		}
		d.WriteString(coord(c.xIn(xs[i])) + " " + coord(c.yIn(ys[i])))
	}
	c.data.Void("path", "class", join("line", class), "data-key", c.key("line"), "d", d.String(), "vector-effect", "non-scaling-stroke")
}

// Series joins values[i] at x0 + i*dx.
func (c *Chart) Series(x0, dx float64, values []float64, class string) {
	xs := make([]float64, len(values))
	for i := range xs {
		xs[i] = x0 + float64(i)*dx
	}
	c.Line(xs, values, class)
}

// HLine draws a dashed reference line across the plot at y: a capacity, a
// threshold. Its label goes in the title row, at the right, after a short
// sample of the line, as a key: over the plot it would cover the data.
// A chart has room for one such key. The line is placed by its transform,
// so that a redrawn one glides to its new height.
func (c *Chart) HLine(y float64, class, label string) {
	c.marks.Void("line", "class", join("ref", class), "data-key", c.key("hline"), "x1", pct(padL), "x2", pct(1-padR), "y1", "0", "y2", "0",
		"transform", "translate(0 "+coord(c.yPx(y))+")")
	if label != "" {
		c.marks.Elem("text", label, "class", join("ref-label key", class), "x", pct(1-padR), "dx", itoa(-keyW-6),
			"y", "13", "text-anchor", "end")
		// The sample, keyW px long, ends at the right edge: a nested <svg>
		// of no size at that edge draws it in pixels to its left.
		c.marks.Open("svg", "class", "key", "aria-hidden", "true", "x", pct(1-padR), "y", "0", "width", "1", "height", "1", "overflow", "visible")
		c.marks.Void("line", "class", join("ref", class), "x1", itoa(-keyW), "x2", "0", "y1", "9", "y2", "9")
		c.marks.Close("svg")
	}
}

// VLine draws a reference line down the plot at x, with label beside it,
// on whichever side has room, in label row row from the top (0, 1, ...),
// or, for a negative row, from the bottom (-1 the lowest), so that two
// lines' labels do not meet and a label can sit where the data are not. The line lies in a layer of the
// plot's own coordinates, placed by its transform, so that a redrawn line
// glides along the axis; the layer draws over the plot's edges, where the
// line may fall.
func (c *Chart) VLine(x float64, class, label string, row int) {
	f := c.xFrac(x)
	c.marks.Open("svg", "class", "at", "data-key", c.key("vline"), "aria-hidden", "true", "x", pct(padL), "y", coord(c.top()), "width", pct(1-padL-padR), "height", coord(c.plotHeight()),
		"viewBox", "0 0 1000 1000", "preserveAspectRatio", "none", "overflow", "visible")
	// At the place pct would write across the whole width, to a
	// ten-thousandth of a unit: the line falls on the same pixels as a
	// line placed in percentages would.
	at := (math.Round(f*10000)/10000 - padL) / (1 - padL - padR) * inner
	c.marks.Void("line", "class", join("ref", class), "y2", coord(inner),
		"transform", "translate("+strconv.FormatFloat(math.Round(at*10000)/10000, 'f', -1, 64)+" 0)", "vector-effect", "non-scaling-stroke")
	c.marks.Close("svg")
	if label != "" {
		anchor, dx := "start", "4"
		if f > 0.6 {
			anchor, dx = "end", "-4"
		}
		// Row 0 sits 32 px down; a row is 16 px; row -1 sits 6 px above
		// the plot's bottom.
		y := c.top() + 32 + 16*float64(row)
		if c.Strip {
			y = c.top() + 14 + 16*float64(row)
		}
		if row < 0 {
			y = c.top() + c.plotHeight() - 6 + 16*float64(row+1)
		}
		c.marks.Elem("text", label, "class", join("ref-label", class), "x", pct(f), "dx", dx,
			"y", coord(y), "text-anchor", anchor, "paint-order", "stroke")
	}
}

// SVG returns the chart's markup: an <svg role="img"> named by its Title
// and described by its Desc, with gridlines, the data, the reference lines
// and the axes' labels.
func (c *Chart) SVG() string {
	var w markup.HTML
	ph := c.plotHeight()
	w.Open("svg", "class", join("chart", c.Class), "role", "img", "width", "100%", "height", itoa(c.height()),
		"xmlns", "http://www.w3.org/2000/svg")
	w.Elem("title", c.Title)
	if c.Desc != "" {
		w.Elem("desc", c.Desc)
	}

	w.Open("g", "class", "grid")
	for _, t := range c.Y.Ticks {
		y := coord(c.yPx(t))
		w.Void("line", "x1", "0", "x2", pct(1-padR), "y1", y, "y2", y)
	}
	w.Close("g")

	w.Open("svg", "class", "plot", "x", pct(padL), "y", coord(c.top()), "width", pct(1-padL-padR), "height", coord(ph),
		"viewBox", "0 0 1000 1000", "preserveAspectRatio", "none")
	w.Raw(c.data.String())
	w.Close("svg")

	w.Raw(c.marks.String())

	w.Open("g", "class", "axis")
	top := c.top()
	base := coord(top + ph)
	w.Void("line", "class", "baseline", "x1", pct(padL), "x2", pct(1-padR), "y1", base, "y2", base)
	for _, t := range c.Y.Ticks {
		// Above its gridline, from the left edge: in the margin on a wide
		// chart, reaching a little into the plot on a narrow one, and read
		// along the line it names.
		w.Elem("text", c.Y.label(t), "class", "tick", "x", "0", "y", coord(c.yPx(t)-4), "paint-order", "stroke")
	}
	for _, t := range c.X.Ticks {
		f := c.xFrac(t)
		px := pct(f)
		w.Void("line", "x1", px, "x2", px, "y1", base, "y2", coord(top+ph+4))
		anchor := "middle"
		switch {
		case f < 0.04:
			anchor = "start"
		case f > 0.96:
			anchor = "end"
		}
		w.Elem("text", c.X.label(t), "class", "tick", "x", px, "y", coord(top+ph+16), "text-anchor", anchor)
	}
	if c.Y.Title != "" {
		w.Elem("text", c.Y.Title, "class", "axis-title", "x", "0", "y", "13")
	}
	if c.X.Title != "" {
		w.Elem("text", c.X.Title, "class", "axis-title", "x", pct(1-padR), "y", coord(top+ph+34), "text-anchor", "end")
	}
	w.Close("g")
	w.Close("svg")
	return w.String()
}

func join(a, b string) string {
	if b == "" {
		return a
	}
	return a + " " + b
}

func itoa(i int) string { return strconv.Itoa(i) }

// Bar is one bar of a horizontal bar chart: its label, written above it,
// and its segments, stacked from the left.
type Bar struct {
	Label    string
	Segments []Segment
}

// Segment is a part of a Bar.
type Segment struct {
	Value float64
	Class string // its colour
}

// HBars draws bars across the width, scaled so that max fills it, each
// under its label and followed by its total. Like Chart, it keeps its text
// at its CSS size whatever the width: each bar is drawn in a layer whose
// viewBox is stretched across it, 1000 units wide, and its segments are
// units of width placed and stretched by their transforms, so that a
// redrawn bar's segments grow and slide from where they were. A segment
// of 0 is one of no width, for the same reason.
func HBars(title, desc, class string, max float64, bars []Bar) string {
	const (
		label = 16 // px: a label's line above its bar
		thick = 22 // px: a bar
		gap   = 12 // px: between a bar and the next label
	)
	var w markup.HTML
	height := len(bars)*(label+thick+gap) - gap
	w.Open("svg", "class", join("chart hbars", class), "role", "img", "width", "100%", "height", itoa(height),
		"xmlns", "http://www.w3.org/2000/svg")
	w.Elem("title", title)
	if desc != "" {
		w.Elem("desc", desc)
	}
	// The bars use at most 80% of the width, leaving room for the total.
	scale := 0.8 / max
	if !(max > 0) {
		scale = 0
	}
	for i, b := range bars {
		y := float64(i * (label + thick + gap))
		w.Elem("text", b.Label, "class", "bar-label", "x", "0", "y", coord(y+12))
		w.Open("svg", "class", "bar", "aria-hidden", "true", "y", coord(y+label), "width", "100%", "height", itoa(thick),
			"viewBox", "0 0 "+itoa(inner)+" "+itoa(thick), "preserveAspectRatio", "none")
		x, total := 0.0, 0.0
		for j, s := range b.Segments {
			v := math.Max(s.Value, 0)
			l, r := round(x*inner), round((x+v*scale)*inner)
			w.Void("rect", "class", join("seg", s.Class), "data-key", "seg-"+itoa(j), "width", "1", "height", itoa(thick),
				"transform", "translate("+coord(l)+" 0) scale("+coord(r-l)+" 1)")
			x += v * scale
			total += v
		}
		w.Close("svg")
		w.Elem("text", Number(total), "class", "bar-total", "x", pct(x), "dx", "6", "y", coord(y+label+thick/2+5))
	}
	w.Close("svg")
	return w.String()
}
