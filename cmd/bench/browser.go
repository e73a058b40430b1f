package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/retrylab/retrylab/site/widget"
)

// The browser figures come from Debian's chromium, headless, driven over
// the DevTools protocol, against the site served by `sitegen preview` on
// the loopback: no network throttling, so they are the page's own costs
// (parsing, compiling and running the module, rendering), not a network's.

// browserWidth and browserHeight are the window: a laptop screen.
const browserWidth, browserHeight = 1280, 900

// chromeFlags are the flags of every browser the bench starts, for
// chromedp and Lighthouse alike: headless, no sandbox (the bench may run
// as root), no GPU, and none of the background traffic a profile's first
// run makes (QUIC probes, component updates, sync), which would otherwise
// share the machine with the page.
var chromeFlags = []string{
	"--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
}

// findChrome is $CHROME_PATH, else chromium on PATH.
func findChrome() (string, error) {
	if p := os.Getenv("CHROME_PATH"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium found: run make bench-deps, or set CHROME_PATH")
}

// chromeVersion is `chromium --version`, trimmed.
func chromeVersion(chrome string) string {
	out, err := exec.Command(chrome, "--version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// browser is one headless chromium with a profile of its own, and one tab.
type browser struct {
	ctx    context.Context
	cancel func()
	dir    string
}

// startBrowser starts chromium with a fresh, empty profile: a cold cache.
func startBrowser(parent context.Context, chrome string) (*browser, error) {
	dir, err := os.MkdirTemp("", "bench-chromium-")
	if err != nil {
		return nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome),
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(browserWidth, browserHeight),
	)
	for _, f := range chromeFlags {
		opts = append(opts, chromedp.Flag(strings.TrimPrefix(f, "--"), true))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(parent, opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	b := &browser{ctx: ctx, dir: dir, cancel: func() { cancelTab(); cancelAlloc() }}
	if err := chromedp.Do(ctx); err != nil {
		b.close()
		return nil, fmt.Errorf("starting %s: %w", chrome, err)
	}
	return b, nil
}

func (b *browser) close() {
	b.cancel()
	os.RemoveAll(b.dir)
}

// arrive moves the pointer over the page: a reader's first input, at
// which the loader starts the module once a widget is near the viewport
// (site/static/loader.js).
func (b *browser) arrive() error {
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	return chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 10, 10))
}

// eval evaluates js in the tab, awaiting a promise, within timeout.
func eval[T any](b *browser, timeout time.Duration, js string) (T, error) {
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](withNames(js), chromedp.EvalAwaitPromise))
}

// poll waits until js gives a truthy value, and returns it.
func poll[T any](b *browser, timeout time.Duration, js string) (T, error) {
	ctx, cancel := context.WithTimeout(b.ctx, timeout)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Poll[T](withNames(js), chromedp.WithPollingInterval(5*time.Millisecond)))
}

// withNames is the expression js with names bound to the names the page's
// scripts share (site/widget.ScriptNames), as the site's own scripts have
// them: names.attr.hydrated is "data-hydrated".
func withNames(js string) string { return "((names) => (" + js + "))(" + scriptNames + ")" }

var scriptNames = func() string {
	b, err := json.Marshal(widget.ScriptNames())
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// coldLoad is one load of a page in a fresh browser.
type coldLoad struct {
	FCP      float64 // first contentful paint, ms after navigation start
	Widgets  int     // widgets on the page
	OnScreen int     // of which in the first screen once the page loaded
	// OnScreenMs is the time from the reader's first input (a pointer
	// moving over the page, once the module is ready) to the last of them
	// being interactive; 0 when there are none.
	OnScreenMs float64
	// Scrolled is whether a widget below the fold was scrolled to while
	// the module was not loaded yet; IntoViewMs is the time from the
	// scroll to its being interactive, InteractiveMs the same moment after
	// navigation start.
	Scrolled                  bool
	IntoViewMs, InteractiveMs float64
	LoadBytes                 int64 // transferred by the load event: the page without the module
	Bytes                     int64 // transferred once every widget seen is interactive
	Requests                  int
}

// transferredJS sums what the page has transferred so far, headers
// included: the document's navigation entry and every resource entry
// (resource timing's transferSize; same-origin, so none is hidden).
const transferredJS = `(() => {
  const nav = performance.getEntriesByType("navigation")[0];
  let n = nav ? nav.transferSize : 0;
  const rs = performance.getEntriesByType("resource");
  for (const r of rs) n += r.transferSize;
  return [n, rs.length + 1];
})()`

// loadCold loads url in a fresh browser and measures it; see coldLoad.
func loadCold(parent context.Context, chrome, url string) (coldLoad, error) {
	var c coldLoad
	b, err := startBrowser(parent, chrome)
	if err != nil {
		return c, err
	}
	defer b.close()
	nctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	err = chromedp.Do(nctx, chromedp.Navigate(url))
	cancel()
	if err != nil {
		return c, fmt.Errorf("loading %s: %w", url, err)
	}
	if c.FCP, err = poll[float64](b, 10*time.Second,
		`(performance.getEntriesByName("first-contentful-paint")[0] || {}).startTime`); err != nil {
		return c, fmt.Errorf("no first-contentful-paint entry: %w", err)
	}
	load, err := eval[[]int64](b, 10*time.Second, transferredJS)
	if err != nil {
		return c, err
	}
	c.LoadBytes = load[0]

	// The widgets in the first screen, marked so that the next steps find
	// them again.
	counts, err := eval[[]int](b, 10*time.Second, `(() => {
  const ws = document.querySelectorAll(names.sel.simulators);
  let n = 0;
  for (const w of ws) {
    const r = w.getBoundingClientRect();
    if (r.top < innerHeight && r.bottom > 0) { w.setAttribute("data-bench-onscreen", ""); n++; }
  }
  return [ws.length, n];
})()`)
	if err != nil {
		return c, err
	}
	c.Widgets, c.OnScreen = counts[0], counts[1]
	if c.OnScreen > 0 {
		// The module is fetched and made ready as the page loads, and runs
		// at the reader's first input: the figure runs from that input,
		// once the module is ready, to the widgets' being interactive.
		if _, err := poll[bool](b, 30*time.Second, `(() => {
  const s = document.querySelector("script[data-wasm]");
  if (s.dataset.state === "failed") throw new Error("the module failed to load");
  return s.dataset.state === "ready" || s.dataset.state === "running";
})()`); err != nil {
			return c, fmt.Errorf("waiting for the module to be ready: %w", err)
		}
		if _, err := eval[bool](b, 10*time.Second, `(addEventListener("pointermove", e => { window.__benchInput = e.timeStamp; }, {once: true, capture: true}), true)`); err != nil {
			return c, err
		}
		if err := b.arrive(); err != nil {
			return c, err
		}
		got, err := poll[string](b, 30*time.Second, `(() => {
  const ws = [...document.querySelectorAll("[data-bench-onscreen]")];
  const bad = ws.find(w => w.getAttribute(names.attr.error));
  if (bad) return "error: " + bad.getAttribute(names.attr.error);
  if (!ws.every(w => w.getAttribute(names.attr.hydrated) === "true")) return "";
  return String(Math.max(...ws.map(w => parseFloat(w.getAttribute(names.attr.hydratedAt)))));
})()`)
		if err != nil {
			return c, fmt.Errorf("waiting for the widgets in the first screen: %w", err)
		}
		at, err := hydratedAt(got)
		if err != nil {
			return c, err
		}
		input, err := eval[float64](b, 10*time.Second, `window.__benchInput`)
		if err != nil {
			return c, err
		}
		c.OnScreenMs = max(0, at-input)
	}

	// A widget below the fold that is not interactive yet: scroll it into
	// view at once, as a reader jumping to it from the table of contents.
	t0, err := eval[float64](b, 10*time.Second, `(() => {
  const w = [...document.querySelectorAll(names.sel.simulators)].find(w => w.getAttribute(names.attr.hydrated) !== "true");
  if (!w) return -1;
  w.setAttribute("data-bench-target", "");
  const t0 = performance.now();
  w.scrollIntoView({block: "center"});
  return t0;
})()`)
	if err != nil {
		return c, err
	}
	if t0 >= 0 {
		got, err := poll[string](b, 30*time.Second, `(() => {
  const w = document.querySelector("[data-bench-target]");
  if (w.getAttribute(names.attr.error)) return "error: " + w.getAttribute(names.attr.error);
  return w.getAttribute(names.attr.hydrated) === "true" ? w.getAttribute(names.attr.hydratedAt) : "";
})()`)
		if err != nil {
			return c, fmt.Errorf("waiting for the widget scrolled into view: %w", err)
		}
		at, err := hydratedAt(got)
		if err != nil {
			return c, err
		}
		c.Scrolled = true
		c.InteractiveMs = at
		c.IntoViewMs = max(0, at-t0) // 0: it was already becoming interactive
	}
	end, err := eval[[]int64](b, 10*time.Second, transferredJS)
	if err != nil {
		return c, err
	}
	c.Bytes, c.Requests = end[0], int(end[1])
	return c, nil
}

// hydratedAt reads a widget's data-hydrated-at, or the error the poll
// found.
func hydratedAt(s string) (float64, error) {
	if msg, ok := strings.CutPrefix(s, "error: "); ok {
		return 0, fmt.Errorf("the widget shows an error: %s", msg)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("data-hydrated-at = %q: %w", s, err)
	}
	return v, nil
}

// openWidget loads the page of one widget and scrolls it into view, and
// returns once the module has made it interactive.
func openWidget(b *browser, url, name string) error {
	nctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	err := chromedp.Do(nctx, chromedp.Navigate(url))
	cancel()
	if err != nil {
		return fmt.Errorf("loading %s: %w", url, err)
	}
	sel := `document.querySelector("[" + names.attr.widget + "=" + ` + strconv.Quote(strconv.Quote(name)) + ` + "]")`
	if _, err := eval[bool](b, 10*time.Second, `(() => { const w = `+sel+`; if (!w) return false; w.scrollIntoView({block: "center"}); return true; })()`); err != nil {
		return err
	}
	if err := b.arrive(); err != nil {
		return err
	}
	got, err := poll[string](b, 60*time.Second, `(() => { const w = `+sel+`;
  if (!w) return "error: no widget on the page";
  if (w.getAttribute(names.attr.error)) return "error: " + w.getAttribute(names.attr.error);
  return w.getAttribute(names.attr.hydrated) === "true" ? w.getAttribute(names.attr.hydratedAt) : ""; })()`)
	if err != nil {
		return fmt.Errorf("%s never became interactive: %w", name, err)
	}
	_, err = hydratedAt(got)
	return err
}

// change is a parameter of a widget, the values to set it to in turn,
// and which of those changes the figure is made of.
type change struct {
	Param  string
	Values []string // set in turn, from the first
	// Timed is the value whose changes make the figure; "" for all.
	Timed string
	// Setup is set once before the timed changes: parameter, value pairs.
	Setup [][2]string
	// About says what the changes are, for the table's note.
	About string
}

// timedChange is one timed change of a control.
type timedChange struct {
	Value  string  `json:"value"`
	Script float64 `json:"script"` // ms: setting the control and its change event, which asks the simulator worker for the run
	Layout float64 `json:"layout"` // ms: from the same to the answer drawn, and the style and layout of the redrawn widget
	Go     float64 `json:"go"`     // ms: the module's own count from the change to the answer drawn (data-ms); -1 if absent
	Params string  `json:"params"` // data-params afterwards
	Error  string  `json:"error"`  // data-error afterwards
}

// changesJS times n changes of one control of the widget called name: for
// each, after the previous frame has been painted, it sets the control and
// dispatches its change event, which the module answers by asking the
// simulator worker for the run (the widget is aria-busy until its answer is
// drawn), waits for the output region redrawn, then forces style and layout
// so that the figure runs to the next paint of the result.
var changesJS = `(async (name, param, values, n, setup) => {
  const root = document.querySelector("[" + names.attr.widget + '="' + name + '"]');
  const frame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const set = (p, v) => {
    const el = root.querySelector('` + widget.RegionControls.Selector() + ` [name="' + p + '"]');
    if (!el) throw new Error("widget " + name + ": no control named " + p);
    if (el.type === "checkbox") el.checked = (v === "on"); else el.value = v;
    el.dispatchEvent(new Event("change", {bubbles: true}));
  };
  // drawn resolves once the widget is no longer busy: at the end of the
  // task that drew the answer (a mutation observer's callback), or at once.
  const drawn = () => new Promise(resolve => {
    const idle = () => root.getAttribute("aria-busy") !== "true";
    if (idle()) return resolve();
    const mo = new MutationObserver(() => { if (idle()) { mo.disconnect(); resolve(); } });
    mo.observe(root, {attributes: true, attributeFilter: ["aria-busy"]});
  });
  for (const [p, v] of setup) { set(p, v); await drawn(); }
  const out = [];
  for (let i = 0; i < n; i++) {
    const v = values[i % values.length];
    await frame();
    const t0 = performance.now();
    set(param, v);
    const t1 = performance.now();
    await drawn();
    document.body.offsetHeight;
    const t2 = performance.now();
    out.push({value: v, script: t1 - t0, layout: t2 - t0,
      go: root.hasAttribute(names.attr.ms) ? parseFloat(root.getAttribute(names.attr.ms)) : -1,
      params: root.getAttribute(names.attr.params) || "", error: root.getAttribute(names.attr.error) || ""});
  }
  return out;
})`

// timeChanges runs changesJS for c, n changes in all, on the open page of
// the widget w, and checks that every change took: the widget's
// data-params name the value set, and it shows no error.
func timeChanges(b *browser, w *widget.Widget, c change, n int, timeout time.Duration) ([]timedChange, error) {
	args, err := json.Marshal([]any{w.Name, c.Param, c.Values, n, setupPairs(c.Setup)})
	if err != nil {
		return nil, err
	}
	js := changesJS + "(..." + string(args) + ")"
	got, err := eval[[]timedChange](b, timeout, js)
	if err != nil {
		return nil, fmt.Errorf("%s: changing %s: %w", w.Name, c.Param, err)
	}
	for _, t := range got {
		if t.Error != "" {
			return nil, fmt.Errorf("%s: %s = %s: the widget shows an error: %s", w.Name, c.Param, t.Value, t.Error)
		}
		v, err := w.Schema.ParseJSON(t.Params)
		if err != nil {
			return nil, fmt.Errorf("%s: data-params %q: %w", w.Name, t.Params, err)
		}
		want, err := v.With(c.Param, t.Value)
		if err != nil {
			return nil, err
		}
		if v.Text(c.Param) != want.Text(c.Param) {
			return nil, fmt.Errorf("%s: set %s to %s, but the widget ran with %s", w.Name, c.Param, t.Value, v.Text(c.Param))
		}
		for _, s := range c.Setup {
			want, err := v.With(s[0], s[1])
			if err != nil {
				return nil, err
			}
			if v.Text(s[0]) != want.Text(s[0]) {
				return nil, fmt.Errorf("%s: set %s to %s, but the widget ran with %s", w.Name, s[0], s[1], v.Text(s[0]))
			}
		}
	}
	return got, nil
}

func setupPairs(pairs [][2]string) [][]string {
	out := make([][]string, 0, len(pairs))
	for _, p := range pairs {
		out = append(out, []string{p[0], p[1]})
	}
	return out
}

// timed returns the layout-inclusive times, and the module's own counts,
// of the changes that make c's figure.
func (c change) timed(ts []timedChange) (layout, goMs []float64) {
	for _, t := range ts {
		if c.Timed == "" || t.Value == c.Timed {
			layout = append(layout, t.Layout)
			goMs = append(goMs, t.Go)
		}
	}
	return layout, goMs
}

// planChanges chooses how the bench re-runs a widget n times at its
// default parameters. A widget with a seed is given a new seed each time
// (2, 3, ...): every change is a fresh run of the engine, however many
// runs the widget keeps to answer a change back at once, and with the
// other parameters at their defaults it costs what a run at the defaults
// costs. Another widget has one control turned to another value and back
// to its default (see pickChange), 2n changes of which the n back to the
// default make the figure.
func planChanges(s widget.Schema, n int) (change, bool) {
	if c, ok := seedChanges(s, n); ok {
		return c, true
	}
	param, def, other, ok := pickChange(s)
	if !ok {
		return change{}, false
	}
	vals := make([]string, 0, 2*n)
	for range n {
		vals = append(vals, other, def)
	}
	return change{Param: param, Values: vals, Timed: def,
		About: param + ": " + other + " → " + def}, true
}

// seedChanges sets a widget's seed to n new values, 2, 3, ..., n+1 for the
// default seed 1; ok is false for a widget without a whole-number seed.
func seedChanges(s widget.Schema, n int) (change, bool) {
	p, ok := s.Param("seed")
	if !ok || p.Kind != widget.Int {
		return change{}, false
	}
	def, err := strconv.Atoi(s.Defaults().Text("seed"))
	if err != nil {
		return change{}, false
	}
	vals := make([]string, 0, n)
	for seed := def + 1; len(vals) < n && float64(seed) <= p.Max; seed++ {
		vals = append(vals, strconv.Itoa(seed))
	}
	if len(vals) < n {
		return change{}, false
	}
	return change{Param: "seed", Values: vals,
		About: "seed: " + vals[0] + " to " + vals[n-1] + ", a fresh run each"}, true
}

// pickChange chooses the control the bench turns on a widget: the first
// enum parameter, else the first switch, else the first number, set in
// turn to another valid value and back to its default. A list parameter is
// never chosen: its control is several selects. ok is false when the
// widget has no parameter to turn.
func pickChange(s widget.Schema) (param, def, other string, ok bool) {
	d := s.Defaults()
	for _, kind := range []widget.Kind{widget.Enum, widget.Bool, widget.Int, widget.Float} {
		for _, p := range s {
			if p.Kind != kind {
				continue
			}
			def := d.Text(p.Name)
			for _, cand := range candidates(p, def) {
				v, err := d.With(p.Name, cand)
				if err == nil && v.Text(p.Name) != def {
					return p.Name, def, v.Text(p.Name), true
				}
			}
		}
	}
	return "", "", "", false
}

// candidates are values to try for p, near its default def.
func candidates(p widget.Param, def string) []string {
	switch p.Kind {
	case widget.Enum:
		return p.Allowed
	case widget.Bool:
		if def == "on" {
			return []string{"off"}
		}
		return []string{"on"}
	case widget.Int, widget.Float:
		f, err := strconv.ParseFloat(def, 64)
		if err != nil {
			return nil
		}
		step := 1.0
		if p.Kind == widget.Float && p.Step > 0 {
			step = p.Step
		}
		// As many decimals as the step has: 0.1 + 0.05 is 0.15, not
		// 0.15000000000000002.
		_, frac, _ := strings.Cut(strconv.FormatFloat(step, 'f', -1, 64), ".")
		num := func(x float64) string { return strconv.FormatFloat(x, 'f', len(frac), 64) }
		return []string{num(f + step), num(f - step)}
	}
	return nil
}
