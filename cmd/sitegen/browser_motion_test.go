package main

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/retrylab/retrylab/site/widget"
)

// motion sets backoff's capacity to 100 through its control, as a change
// event, and samples the chart at every frame for half a second (the
// transition takes 250 ms once the page draws again): the capacity line's
// vertical place, the no-jitter run's "all served" line's place along the
// plot, and whether the bars' path is neither the old one nor the new. It
// also says whether the three are the elements drawn before the change,
// and where the new attributes put the two lines.
const motion = `new Promise(done => {
  const root = document.querySelector('[data-widget="backoff"]');
  const q = s => root.querySelector(s);
  const cap = q('.chart .ref.cap'), at = q('.chart svg.at line.p-none'), bars = q('.chart .bars');
  const sample = () => ({
    cap: new DOMMatrix(getComputedStyle(cap).transform).f,
    at: new DOMMatrix(getComputedStyle(at).transform).e,
    d: getComputedStyle(bars).d,
  });
  const before = sample();
  const input = q('[name="capacity"]');
  input.value = "100";
  input.dispatchEvent(new Event("change", {bubbles: true}));
  // The run is made in the simulator worker: the chart moves from the
  // frame its answer is drawn in (the widget is busy until then).
  const samples = [];
  let t0 = 0, kept = false, target = null;
  const tick = () => {
    samples.push(sample());
    if (!t0 && !root.hasAttribute("aria-busy")) {
      t0 = performance.now();
      kept = q('.chart .ref.cap') === cap && q('.chart svg.at line.p-none') === at && q('.chart .bars') === bars;
      target = {
        cap: cap.transform.baseVal.consolidate().matrix.f,
        at: at.transform.baseVal.consolidate().matrix.e,
      };
    }
    if (!t0 || performance.now() - t0 < 500) return requestAnimationFrame(tick);
    const after = samples[samples.length - 1];
    done({
      before: {cap: before.cap, at: before.at}, after: {cap: after.cap, at: after.at}, target, kept,
      caps: samples.map(s => s.cap), ats: samples.map(s => s.at),
      barsMoving: samples.map(s => s.d !== before.d && s.d !== after.d),
      barsChanged: after.d !== before.d,
    });
  };
  tick();
})`

type motionPlace struct {
	Cap float64 `json:"cap"`
	At  float64 `json:"at"`
}

type motionRun struct {
	Before, After, Target motionPlace
	Kept                  bool
	Caps, Ats             []float64
	BarsMoving            []bool
	BarsChanged           bool
}

func sampleMotion(t *testing.T, p *wpage) motionRun {
	t.Helper()
	got, err := chromedp.Run(p.ctx, chromedp.Evaluate[motionRun](motion, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("sampling the motion: %v", err)
	}
	if !got.Kept {
		t.Fatal("the change drew new elements: the chart's lines and bars were replaced, so nothing can move")
	}
	if got.Before == got.After || !got.BarsChanged {
		t.Fatalf("capacity 100 moved nothing: before %+v, after %+v, bars changed: %v", got.Before, got.After, got.BarsChanged)
	}
	// The attribute's matrix is in single precision.
	if math.Abs(got.After.Cap-got.Target.Cap) > 1e-3 || math.Abs(got.After.At-got.Target.At) > 1e-3 {
		t.Fatalf("half a second on, the lines are at %+v, not where their attributes put them, %+v", got.After, got.Target)
	}
	return got
}

// on counts the samples strictly between a and b.
func on(xs []float64, a, b float64) int {
	n := 0
	for _, x := range xs {
		if (a < x && x < b) || (b < x && x < a) {
			n++
		}
	}
	return n
}

func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// A change of parameters moves the chart from its old state to the new:
// on the way, the capacity line and the "all served" line are drawn
// between their old and new places and the bars between their old and new
// heights. Under prefers-reduced-motion they are at the new state from the
// first frame.
func TestBrowserChartsMove(t *testing.T) {
	ts := serveSite(t, builtSite(t))

	p := open(t, ts, "backoff")
	m := sampleMotion(t, p)
	if on(m.Caps, m.Before.Cap, m.After.Cap) == 0 {
		t.Errorf("the capacity line jumped from %v to %v px: %v", m.Before.Cap, m.After.Cap, m.Caps)
	}
	if on(m.Ats, m.Before.At, m.After.At) == 0 {
		t.Errorf("the all-served line jumped from %v to %v: %v", m.Before.At, m.After.At, m.Ats)
	}
	if count(m.BarsMoving) == 0 {
		t.Errorf("the bars jumped to their new heights")
	}
	p.clean()

	q := open(t, ts, "backoff", "prefers-reduced-motion", "reduce")
	m = sampleMotion(t, q)
	if n := on(m.Caps, m.Before.Cap, m.After.Cap) + on(m.Ats, m.Before.At, m.After.At) + count(m.BarsMoving); n > 0 {
		t.Errorf("under prefers-reduced-motion the chart moved, in %d samples: capacity line %v, all-served line %v", n, m.Caps, m.Ats)
	}
	q.clean()
}

// morphStep changes the widget's first parameter to its next allowed
// value (or a number to another in bounds), or, with step >= 0, moves the
// replay's scrubber to step, then returns the output region's markup as
// the page holds it, and how many of the output's keyed shapes (the ones
// its figures move) there were before the change, are after it, and are
// the same elements.
const morphStep = `((step) => {
  const root = document.querySelector(ROOT), out = root.querySelector('[data-region="output"]');
  const before = [...out.querySelectorAll("[data-key]")], paramsBefore = root.dataset.params;
  if (step >= 0) {
    const s = root.querySelector('[data-action="scrub"]');
    s.value = String(step);
    s.dispatchEvent(new Event("input", {bubbles: true}));
  } else {
    const c = root.querySelector('[data-region="controls"] select[name], [data-region="controls"] input[name]:not([type=checkbox])');
    if (c.tagName === "SELECT") c.selectedIndex = (c.selectedIndex + 1) % c.options.length;
    else c.value = String(Number(c.value) + 1);
    c.dispatchEvent(new Event("change", {bubbles: true}));
  }
  // The simulator worker answers: wait for the answer drawn.
  return new Promise(done => {
    const t0 = performance.now();
    const check = () => {
      const drawn = !root.hasAttribute("aria-busy") && (step < 0 ? root.dataset.params !== paramsBefore : root.dataset.step === String(step));
      if (!drawn && performance.now() - t0 < 10000) return requestAnimationFrame(check);
      done({drawn, params: root.dataset.params, step: Number(root.dataset.step), html: out.innerHTML,
        keyed: before.length, keyedNow: out.querySelectorAll("[data-key]").length,
        kept: before.filter(e => out.contains(e)).length, error: root.dataset.error || ""});
    };
    requestAnimationFrame(check);
  });
})`

type morphResult struct {
	Drawn    bool   `json:"drawn"` // the answer drawn, within 10 s
	Params   string `json:"params"`
	Step     int    `json:"step"`
	HTML     string `json:"html"`
	Keyed    int    `json:"keyed"`
	KeyedNow int    `json:"keyedNow"`
	Kept     int    `json:"kept"`
	Error    string `json:"error"`
}

// The page patches a widget's output in place: after every change and
// every replay step the output's DOM is the one the view's markup parses
// to (what setting innerHTML gave), and the shapes its figures move are
// the elements drawn before.
func TestBrowserOutputPatchedInPlace(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	for _, name := range []string{"backoff", "budget", "storm", "payment", "lease", "guard", "lock"} {
		w, err := widget.Find(name)
		if err != nil {
			t.Fatal(err)
		}
		p := open(t, ts, name)
		root, _ := json.Marshal(p.root())
		fn := "(" + strings.ReplaceAll(morphStep, "ROOT", string(root)) + ")"
		steps := []int{-1, -1}
		if p.rootData("steps") != "0" && p.rootData("steps") != "" {
			steps = append(steps, 0, 3, 2, 5)
		}
		keyedSeen := false
		for _, step := range steps {
			got, err := chromedp.Run(p.ctx, chromedp.Evaluate[morphResult](fn+"("+strconv.Itoa(step)+")", chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if got.Error != "" {
				t.Fatalf("%s: %s", name, got.Error)
			}
			if !got.Drawn {
				t.Fatalf("%s, step %d: the answer was never drawn (the widget shows %s, step %d)", name, step, got.Params, got.Step)
			}
			v, err := w.Schema.ParseJSON(got.Params)
			if err != nil {
				t.Fatal(err)
			}
			run, err := w.Run(v)
			if err != nil {
				t.Fatal(err)
			}
			var h widget.HTML
			run.Output(&h, got.Step)
			src, _ := json.Marshal(h.String())
			// The same DOM: the same nodes, each with the same attributes,
			// in whatever order (a kept element's new attribute comes last).
			same := evalT[bool](t, p.ctx, `(() => {
				const want = document.createElement("div"), got = document.createElement("div");
				want.innerHTML = `+string(src)+`;
				got.append(...document.querySelector(`+string(root)+` + ' [data-region="output"]').cloneNode(true).childNodes);
				return want.isEqualNode(got); })()`)
			want := evalT[string](t, p.ctx, `(() => { const t = document.createElement("template"); t.innerHTML = `+string(src)+`; return t.innerHTML; })()`)
			if !same {
				t.Errorf("%s, step %d (%s): the patched output is not the view's markup:\n got %.300s\nwant %.300s", name, step, got.Params, firstDiff(got.HTML, want), firstDiff(want, got.HTML))
			}
			if got.Keyed > 0 && got.KeyedNow > 0 && got.Kept == 0 {
				t.Errorf("%s, step %d: none of the %d shapes the figures move was kept", name, step, got.Keyed)
			}
			keyedSeen = keyedSeen || got.Kept > 0
		}
		if chart := name == "backoff" || name == "budget" || name == "storm" || name == "lease"; chart && !keyedSeen {
			t.Errorf("%s: no shape of its chart was kept from one drawing to the next", name)
		}
		p.clean()
	}
}

// firstDiff is a from where it first differs from b.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[max(0, i-60):]
}
