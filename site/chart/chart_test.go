package chart

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		n      int
		want   string
	}{
		{0, 1000, 4, "0 250 500 750 1,000"},
		{0, 132.7, 6, "0 25 50 75 100 125 150"},
		{0, 4.3, 6, "0 1 2 3 4 5"},
		{0, 0.3, 3, "0 0.1 0.2 0.3"},
		{0, 2100, 4, "0 1,000 2,000 3,000"},
		{0, 0, 4, "0 0.25 0.5 0.75 1"}, // an empty range still draws an axis
		{10, 19, 3, "10 15 20"},
	} {
		var got []string
		for _, v := range Ticks(c.lo, c.hi, c.n) {
			got = append(got, Number(v))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("Ticks(%v, %v, %d) = %v, want %s", c.lo, c.hi, c.n, got, c.want)
		}
		ticks := Ticks(c.lo, c.hi, c.n)
		if len(ticks)-1 > c.n || ticks[0] > c.lo || ticks[len(ticks)-1] < c.hi {
			t.Errorf("Ticks(%v, %v, %d) = %v: more than %d intervals or not covering the range", c.lo, c.hi, c.n, ticks, c.n)
		}
	}
}

func TestNumber(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0", 7: "7", 999: "999", 1000: "1,000", 10500: "10,500", 100050000: "100,050,000",
		0.5: "0.5", 2.25: "2.25", 132.7: "132.7", 1234.567: "1,234.57", -3: "−3", -0.001: "0", -0.004: "0",
		-0.006: "−0.01", -1234.5: "−1,234.5", 0.001: "0", math.Copysign(0, -1): "0", math.NaN(): "–", math.Inf(-1): "–",
	} {
		if got := Number(f); got != want {
			t.Errorf("Number(%v) = %q, want %q", f, got, want)
		}
	}
	for s, want := range map[string]string{"-0.0": "0.0", "-0": "0", "-1234567": "−1,234,567", "1234.50": "1,234.50", "999": "999"} {
		if got := Group(s); got != want {
			t.Errorf("Group(%q) = %q, want %q", s, got, want)
		}
	}
}

var (
	pathRE = regexp.MustCompile(`<path class="([^"]*)" data-key="[a-z]+-0" d="([^"]*)"`)
	numRE  = regexp.MustCompile(`-?[0-9.]+`)
)

// A chart is an image named by its title, described by its figures, with
// its data in a stretched 1000 × 1000 viewBox and no style attribute.
func TestChartSVG(t *testing.T) {
	c := Chart{
		Title: `Calls <per> slot`, Desc: "No jitter: 10,500 calls.", Class: "bo", Height: 200,
		X:   Axis{Title: "time (s)", Min: 0, Max: 10, Ticks: Ticks(0, 10, 5)},
		Y:   Axis{Title: "calls", Min: 0, Max: 100, Ticks: Ticks(0, 100, 4)},
		Pad: 6,
	}
	c.Band(2, 4, "trigger", "slow")
	c.Bars(0, 1, []float64{50, 0, 100, 150}, "s1") // 150 is past the axis: clipped
	c.Steps(0, 1, []float64{10, 20}, "s2")
	c.Series(0.5, 1, []float64{0, 100}, "s3")
	c.HLine(50, "cap", "capacity 50")
	c.VLine(3, "ok", "recovered", 0)
	svg := c.SVG()
	for _, want := range []string{
		`<svg class="chart bo" role="img" width="100%" height="240" xmlns="http://www.w3.org/2000/svg"><title>Calls &lt;per&gt; slot</title><desc>No jitter: 10,500 calls.</desc>`,
		`viewBox="0 0 1000 1000" preserveAspectRatio="none"`,
		`<rect class="band trigger" data-key="band-0" width="1" height="1000" transform="translate(200 0) scale(200 1)"/>`,
		`<line class="ref cap" data-key="hline-0" x1="5%" x2="99.5%" y1="0" y2="0" transform="translate(0 120)"/>`,
		`<text class="axis-title" x="0" y="13">calls</text>`,
		`>capacity 50</text>`, `>recovered</text>`, `>slow</text>`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("missing %s in\n%s", want, svg)
		}
	}
	if strings.Contains(svg, "style=") {
		t.Error("a style attribute")
	}
	paths := pathRE.FindAllStringSubmatch(svg, -1)
	if len(paths) != 3 {
		t.Fatalf("%d paths, want bars, steps and a line", len(paths))
	}
	// Four bars (the 0 one of no height), each a closed shape from the
	// baseline, and the Pad's two more of no size at the end.
	if bars := paths[0][2]; paths[0][1] != "bars s1" || strings.Count(bars, "M") != 6 || strings.Count(bars, "Z") != 6 ||
		!strings.Contains(bars, "M100 1000V1000H200V1000Z") || !strings.HasSuffix(bars, "M400 1000V1000H400V1000ZM400 1000V1000H400V1000Z") {
		t.Errorf("bars: %s %s", paths[0][1], bars)
	}
	// The outline has as many steps, the padding ones of no length.
	if steps := paths[1][2]; steps != "M0 1000V900H100V800H200V1000H200V1000H200V1000H200V1000H200V1000" {
		t.Errorf("steps: %s", steps)
	}
	// The reference line down the plot is placed by its transform, in the
	// plot's units, where 3 s of 10 falls.
	if !strings.Contains(svg, `<line class="ref ok" y2="1000" transform="translate(300 0)" vector-effect="non-scaling-stroke"/>`) {
		t.Errorf("no vertical line at x = 300 in\n%s", svg)
	}
	// Every coordinate in the plot's viewBox, the clipped bar at its edge.
	for _, p := range paths {
		for _, n := range numRE.FindAllString(p[2], -1) {
			if f := mustParse(t, n); f < -1 || f > 1001 {
				t.Errorf("%s: coordinate %s outside the viewBox", p[1], n)
			}
		}
	}
	if !strings.Contains(paths[0][2], "V-1") {
		t.Errorf("the bar past the axis is not clipped at its top: %s", paths[0][2])
	}
	if !strings.Contains(paths[2][2], `M50 1000L150 0`) {
		t.Errorf("line: %s, want M50 1000L150 0", paths[2][2])
	}
}

func TestHBars(t *testing.T) {
	svg := HBars("Calls", "4,000 against 1,109.", "bu", 4000, []Bar{
		{Label: "Without", Segments: []Segment{{1000, "first"}, {3000, "retry"}}},
		{Label: "With", Segments: []Segment{{1000, "first"}, {109, "retry"}}},
		{Label: "Without retries", Segments: []Segment{{1000, "first"}, {0, "retry"}}},
	})
	for _, want := range []string{
		`role="img"`, `<title>Calls</title>`, `<desc>4,000 against 1,109.</desc>`,
		`<svg class="bar" aria-hidden="true" y="16" width="100%" height="22" viewBox="0 0 1000 22" preserveAspectRatio="none">`,
		`<rect class="seg first" data-key="seg-0" width="1" height="22" transform="translate(0 0) scale(200 1)"/>`,
		`<rect class="seg retry" data-key="seg-1" width="1" height="22" transform="translate(200 0) scale(600 1)"/>`,
		`<rect class="seg retry" data-key="seg-1" width="1" height="22" transform="translate(200 0) scale(0 1)"/>`, // a 0 has a place
		`x="80%" dx="6" y="32">4,000</text>`,
		`>4,000</text>`, `>1,109</text>`,
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("missing %s in\n%s", want, svg)
		}
	}
}

func mustParse(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return f
}
