package main

import (
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/retrylab/retrylab/site/widget"
)

// replayed are the widgets that step through a trace: every registered
// widget whose default run has steps, so a new one is held to it too.
var replayed = func() []string {
	var names []string
	for _, w := range widget.All() {
		if run, err := w.Run(w.Schema.Defaults()); err == nil && run.Steps() > 0 {
			names = append(names, w.Name)
		}
	}
	return names
}()

// A replay never changes a widget's height, from its first step to its
// last, at 1280 px and on a phone, so that nothing below it jumps; and the
// Play button keeps its width when it turns into Pause.
func TestBrowserReplayKeepsItsSize(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	for _, size := range []struct {
		w, h   int64
		mobile bool
	}{{1280, 900, false}, {390, 844, true}} {
		for _, name := range replayed {
			ctx, con := sitePage(t, ts.URL, "", size.w, size.h, size.mobile, "")
			p := &wpage{t: t, ctx: ctx, con: con, name: name}
			// arrive: the module runs at the reader's first input.
			p.do(chromedp.Navigate(ts.URL+"/embed/"+name+"/"), arrive(),
				chromedp.WaitVisible(chromedp.CSS(p.root()+`[data-hydrated="true"]`)))
			where := name + " at " + strconv.FormatInt(size.w, 10) + " px"
			height := func() float64 {
				return evalT[float64](t, ctx, `document.querySelector('`+p.root()+`').getBoundingClientRect().height`)
			}
			steps, _ := strconv.Atoi(p.rootData("steps"))
			forward := chromedp.CSS(p.root() + ` button[data-action="forward"]`)
			p.do(chromedp.Focus(forward))
			p.press(kb.Home)
			p.waitRoot("step", "0")
			first, least, most := height(), height(), height()
			at := map[float64]int{first: 0}
			for s := 1; s <= steps; s++ {
				p.do(chromedp.Click(forward))
				p.waitRoot("step", strconv.Itoa(s))
				h := height()
				if _, ok := at[h]; !ok {
					at[h] = s
				}
				least, most = min(least, h), max(most, h)
			}
			if most-least > 0.5 {
				t.Errorf("%s: the widget is %.0f px tall at step 0 and %.0f to %.0f px over the replay (first seen at steps %v)",
					where, first, least, most, at)
			}

			play := p.root() + ` button[data-action="play"]`
			width := func() float64 {
				return evalT[float64](t, ctx, `document.querySelector('`+play+`').getBoundingClientRect().width`)
			}
			p.press(kb.Home)
			p.waitRoot("step", "0")
			paused := width()
			p.do(chromedp.Click(chromedp.CSS(play)))
			p.waitRoot("playing", "true")
			if playing := width(); playing != paused {
				t.Errorf("%s: the Play button is %.1f px wide, Pause %.1f", where, paused, playing)
			}
			p.do(chromedp.Click(chromedp.CSS(play)))
			p.waitRoot("playing", "")
			p.clean()
		}
	}
}

// moving lists the elements of the widget that declare a transition or
// an animation longer than zero, with what they animate.
const moving = `(root => [...document.querySelectorAll(root + " *")].flatMap(e => {
	const cs = getComputedStyle(e);
	const long = s => s.split(",").some(d => parseFloat(d) > 0);
	const out = [];
	if (long(cs.transitionDuration)) out.push(e.tagName.toLowerCase() + "." + [...e.classList].join(".") + " transition " + cs.transitionProperty);
	if (cs.animationName !== "none" && long(cs.animationDuration)) out.push(e.tagName.toLowerCase() + " animation " + cs.animationName);
	return out;
}))`

// A replay fades its rows in; a reader who asks for reduced motion gets
// no transition and no animation anywhere in a widget.
func TestBrowserReducedMotion(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	for _, name := range []string{"payment", "saga", "storm"} {
		p := open(t, ts, name)
		if got := evalT[[]string](t, p.ctx, moving+`('`+p.root()+`')`); len(got) == 0 {
			t.Errorf("%s: nothing in the widget declares a transition", name)
		}
		p.clean()
		q := open(t, ts, name, "prefers-reduced-motion", "reduce")
		for _, m := range evalT[[]string](t, q.ctx, moving+`('`+q.root()+`')`) {
			t.Errorf("%s under prefers-reduced-motion: %s", name, m)
		}
		q.clean()
	}
}
