package widget

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A replayable widget gets the replay controls: one button to play, pause
// and, at the run's end, replay from the start (a submit button of the
// parameters' form), a step back and forward, a labelled scrubber over the steps, the step's number and the
// keyboard shortcuts. Guard at its defaults has 10 steps: 6 for the burst
// in lockstep (SELECT, three card hops, INSERT, answer), 2 for each
// follow-up (SELECT finds the row, answer).
func TestRenderPlayer(t *testing.T) {
	html := render(t, &Guard, nil)
	for _, want := range []string{
		`<form class="w-controls" id="w-guard-1-form"`,
		`<div class="w-player" role="group" aria-label="Replay" data-region="player">`,
		`<button type="submit" form="w-guard-1-form" class="w-play w-replay" data-action="play" aria-keyshortcuts="k Space"><span aria-hidden="true">↺</span> Replay</button>`,
		`data-action="back" aria-label="Step back"`,
		`data-action="forward" aria-label="Step forward"`,
		`<label for="w-guard-1-step" class="w-label">Step</label>`,
		`<input type="range" id="w-guard-1-step" class="w-scrubber" data-action="scrub" min="0" max="10" step="1" value="10" aria-valuetext="Step 10 of 10"`,
		`data-region="stepno">10 of 10</output>`,
		`<kbd>K</kbd>`, `<kbd>Home</kbd>`,
		`<p class="w-sr" role="status" data-region="status"></p>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("missing %s", want)
		}
	}
	// A widget that only shows its end state has a Run button instead.
	budget := render(t, &Budget, nil)
	if strings.Contains(budget, "w-player") || !strings.Contains(budget, `<button type="submit" class="w-replay" data-action="run">Run</button>`) {
		t.Error("the budget widget has replay controls, or no Run button")
	}
}

// The knobs a reader turns second sit under "More parameters", a
// disclosure that opens by itself when one of them is not at its default.
func TestRenderMoreParameters(t *testing.T) {
	closed := render(t, &Storm, nil)
	if !strings.Contains(closed, `<details class="w-more"><summary>More parameters</summary>`) {
		t.Fatal("storm's numbers are not under More parameters, closed")
	}
	if i, j := strings.Index(closed, `name="budget"`), strings.Index(closed, "<details"); i < 0 || i > j {
		t.Error("the budget toggle is not before the disclosure")
	}
	if !strings.Contains(closed, `<details class="w-more"><summary>More parameters</summary><div class="w-more-fields"><label class="w-field" for="w-storm-1-new"`) {
		t.Error("new requests are not the first of the more parameters")
	}
	open := render(t, &Storm, map[string]string{"timeout": "5"})
	if !strings.Contains(open, `<details class="w-more" open>`) {
		t.Error("a changed timeout leaves More parameters closed")
	}
}

var (
	styleRE = regexp.MustCompile(`(?i)\sstyle=`)
	idRE    = regexp.MustCompile(`\sid="([^"]+)"`)
	svgRE   = regexp.MustCompile(`<svg [^>]*>`)
)

var (
	imgRE       = regexp.MustCompile(`<[a-z]+\s[^>]*\brole="img"[^>]*>`)
	ariaLabelRE = regexp.MustCompile(`\saria-label="[^"]+"`)
	titleRE     = regexp.MustCompile(`^<title>[^<]+</title>`)
)

// imagesNamed checks that each element of html with role=img has its own
// accessible name: a non-empty aria-label, or a non-empty <title> as its
// first child.
func imagesNamed(t *testing.T, what, html string) {
	t.Helper()
	for _, loc := range imgRE.FindAllStringIndex(html, -1) {
		tag := html[loc[0]:loc[1]]
		if !ariaLabelRE.MatchString(tag) && !titleRE.MatchString(html[loc[1]:]) {
			t.Errorf("%s: an image with neither an aria-label nor a <title> first: %s%s", what, tag, html[loc[1]:min(len(html), loc[1]+60)])
		}
	}
}

// Every widget, at its defaults: no style attribute anywhere (the pages'
// Content-Security-Policy has style-src 'self'); ids unique; every chart
// an image with a title; every parameter a named control with a label.
func TestRenderIsCSPSafeAndLabelled(t *testing.T) {
	for _, w := range All() {
		html := render(t, w, nil)
		if loc := styleRE.FindStringIndex(html); loc != nil {
			t.Errorf("%s: a style attribute: %s", w.Name, html[loc[0]:min(len(html), loc[1]+40)])
		}
		// The page draws every step of a replay with Output too.
		_, run := runAt(t, w, nil, 0)
		for step := 0; step < run.Steps(); step++ {
			var h HTML
			run.Output(&h, step)
			imagesNamed(t, w.Name+" at step "+strconv.Itoa(step), h.String())
			if loc := styleRE.FindStringIndex(h.String()); loc != nil {
				t.Errorf("%s at step %d: a style attribute: %s", w.Name, step, h.String()[loc[0]:min(h.Len(), loc[1]+40)])
			}
		}
		seen := map[string]bool{}
		for _, m := range idRE.FindAllStringSubmatch(html, -1) {
			if seen[m[1]] {
				t.Errorf("%s: id %q twice", w.Name, m[1])
			}
			seen[m[1]] = true
		}
		for _, svg := range svgRE.FindAllString(html, -1) {
			if !strings.Contains(svg, `class="plot"`) && !strings.Contains(svg, `role="img"`) && !strings.Contains(svg, `aria-hidden="true"`) {
				t.Errorf("%s: an svg without role=img: %s", w.Name, svg)
			}
		}
		imagesNamed(t, w.Name, html)
		for _, p := range w.Schema {
			if !strings.Contains(html, `name="`+p.Name+`"`) {
				t.Errorf("%s: no control named %s", w.Name, p.Name)
			}
			if p.Kind != EnumList && !strings.Contains(html, `for="w-`+w.Name+`-1-`+p.Name+`"`) {
				t.Errorf("%s: no label for %s", w.Name, p.Name)
			}
		}
	}
}
