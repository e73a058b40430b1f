package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"

	"github.com/retrylab/retrylab/site/widget"
)

// The busy section: the heaviest runs a reader can ask for, made off the
// page's main thread by the simulator worker, measured from the page.

var (
	// The Long Tasks API's threshold: a task over 50 ms delays the
	// reader's next input by more than the 100 ms in which an answer
	// feels immediate (half for the task, half for the rest).
	longTaskTarget = AtMost(50, "≤ 50 ms")
	// The widget says it is working within 100 ms of a change.
	busyTarget = AtMost(100, "≤ 100 ms")
)

// heavyCase is a widget set to one of its heaviest states: Setup first,
// then Param turned between Values, each change a fresh heavy run. With
// Seeds, the changes are new seeds instead (seedChanges): the backoff
// widget keeps its runs, and would answer a value it has seen at once.
type heavyCase struct {
	Widget string
	Label  string
	Setup  [][2]string
	Param  string
	Values []string
	Seeds  bool
}

var heavyCases = []heavyCase{
	{Widget: "backoff", Label: "backoff, 100,000 clients, compared with full jitter",
		Setup: [][2]string{{"clients", "100000"}, {"compare", "full"}}, Seeds: true},
	{Widget: "budget", Label: "budget, 100,000 requests",
		Param: "requests", Values: []string{"100000", "99999"}},
}

// heavyChange is one timed change: from the change event's dispatch, to
// aria-busy, to the "running…" drawn (the first frame after names.attr.busy was
// set; 0 if the answer came first), to the result drawn and laid out.
type heavyChange struct {
	Aria  float64 `json:"aria"`
	Shown float64 `json:"shown"`
	Drawn float64 `json:"drawn"`
	Error string  `json:"error"`
}

// heavyResult is what heavyJS returns: the changes, and the durations of
// the long tasks seen meanwhile.
type heavyResult struct {
	Changes []heavyChange `json:"changes"`
	Long    []float64     `json:"long"`
}

// heavyJS makes the changes of one heavyCase and returns them with every
// main-thread task over 50 ms seen meanwhile (a PerformanceObserver of
// long tasks).
const heavyJS = `(async (name, setup, param, values, n) => {
  const root = document.querySelector("[" + names.attr.widget + '="' + name + '"]');
  const long = [];
  new PerformanceObserver(l => { for (const e of l.getEntries()) long.push(e.duration); }).observe({type: "longtask"});
  const frame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  const set = (p, v) => {
    const el = root.querySelector('[name="' + p + '"]');
    if (!el) throw new Error("widget " + name + ": no control named " + p);
    if (el.type === "checkbox") el.checked = (v === "on"); else el.value = v;
    el.dispatchEvent(new Event("change", {bubbles: true}));
  };
  // settled resolves once the widget is no longer busy, and its drawing
  // laid out; shown is when the first frame after names.attr.busy began.
  const settled = (t0) => new Promise(resolve => {
    let shown = 0;
    const done = () => { document.body.offsetHeight; resolve({shown, drawn: performance.now() - t0}); };
    const look = () => {
      if (!shown && root.getAttribute(names.attr.busy) === names.busy.running) requestAnimationFrame(t => { if (!shown) shown = t - t0; });
      if (root.getAttribute("aria-busy") !== "true") { mo.disconnect(); done(); }
    };
    const mo = new MutationObserver(look);
    mo.observe(root, {attributes: true, attributeFilter: ["aria-busy", names.attr.busy]});
    if (root.getAttribute("aria-busy") !== "true") { mo.disconnect(); done(); }
  });
  for (const [p, v] of setup) { set(p, v); await settled(performance.now()); }
  const out = [];
  for (let i = 0; i < n; i++) {
    await frame();
    const t0 = performance.now();
    set(param, values[i % values.length]);
    const aria = root.getAttribute("aria-busy") === "true" ? performance.now() - t0 : -1;
    const s = await settled(t0);
    out.push({aria, shown: s.shown, drawn: s.drawn, error: root.getAttribute(names.attr.error) || ""});
  }
  await frame();
  await new Promise(r => setTimeout(r, 100)); // for the last long task to be reported
  return {changes: out, long};
})`

// measureBusy times heavyCases on the widget site: the longest main-thread
// task, and the time from a change to the busy state.
func (b *bench) measureBusy(ctx context.Context, sg *sitegen, sgErr error, chrome string, chromeErr error) {
	const sec = "busy"
	if sgErr == nil {
		sgErr = chromeErr
	}
	if sgErr != nil {
		b.add(missing(sec, "the heaviest runs", sgErr.Error()))
		return
	}
	pv, err := b.widgetSite(ctx, sg, "busy-site")
	if err != nil {
		b.add(missing(sec, "the heaviest runs", err.Error()))
		return
	}
	defer pv.stop()
	br, err := startBrowser(ctx, chrome)
	if err != nil {
		b.add(missing(sec, "the heaviest runs", err.Error()))
		return
	}
	defer br.close()
	n := b.cfg.BigChanges
	for _, hc := range heavyCases {
		if _, ok := widget.Lookup(hc.Widget); !ok {
			b.add(missing(sec, hc.Label, "the "+hc.Widget+" widget is not registered"))
			continue
		}
		if hc.Seeds {
			w, _ := widget.Lookup(hc.Widget)
			c, ok := seedChanges(w.Schema, n)
			if !ok {
				b.add(missing(sec, hc.Label, "the "+hc.Widget+" widget has no whole-number seed"))
				continue
			}
			hc.Param, hc.Values = c.Param, c.Values
		}
		b.logf("busy: %s, %d changes", hc.Label, n)
		if err := openWidget(br, pv.URL+widgetPageSlug(hc.Widget)+"/", hc.Widget); err != nil {
			b.add(missing(sec, hc.Label, err.Error()))
			continue
		}
		b.add(heavyRows(br, hc, n)...)
	}
}

func heavyRows(br *browser, hc heavyCase, n int) []Row {
	const sec = "busy"
	args, err := json.Marshal([]any{hc.Widget, setupPairs(hc.Setup), hc.Param, hc.Values, n})
	if err != nil {
		return []Row{missing(sec, hc.Label, err.Error())}
	}
	tr, err := startTrace(br)
	if err != nil {
		return []Row{missing(sec, hc.Label, err.Error())}
	}
	got, err := eval[heavyResult](br, 10*time.Minute, heavyJS+"(..."+string(args)+")")
	tasks, terr := tr.mainTasks(br)
	if err == nil {
		err = terr
	}
	if err != nil {
		return []Row{missing(sec, hc.Label, err.Error())}
	}
	var aria, shown, drawn []float64
	for _, c := range got.Changes {
		if c.Error != "" {
			return []Row{missing(sec, hc.Label, "the widget shows an error: "+c.Error)}
		}
		aria = append(aria, c.Aria)
		drawn = append(drawn, c.Drawn)
		if c.Shown > 0 {
			shown = append(shown, c.Shown)
		}
	}
	about := fmt.Sprintf("%s ↔ %s, %d changes", hc.Values[0], hc.Values[1], len(got.Changes))
	if hc.Seeds {
		about = fmt.Sprintf("%s to %s, %d changes", hc.Values[0], hc.Values[len(hc.Values)-1], len(got.Changes))
	}
	if len(hc.Setup) > 0 {
		var s []string
		for _, p := range hc.Setup {
			s = append(s, p[0]+" "+p[1])
		}
		about = strings.Join(s, ", ") + "; " + hc.Param + " " + about
	} else {
		about = hc.Param + " " + about
	}

	// The thread's own time is what the page asks of its main thread; the
	// wall time adds what the thread waited for a core, which a shared
	// machine's load makes many times the work.
	var own []float64
	for _, tk := range tasks {
		own = append(own, tk.own)
	}
	longest := measured(sec, hc.Label+": longest main-thread task, the thread's own time", maxOf(append([]float64{0}, own...)), "ms")
	longest.Target = longTaskTarget
	longest.Note = fmt.Sprintf("%d of the main thread's %d tasks over 50 ms of its own time while %s (the browser's trace: toplevel tasks' thread time)",
		countOver(own, 50), len(own), about)
	wall := measured(sec, hc.Label+": longest main-thread task, wall time", maxOf(append([]float64{0}, got.Long...)), "ms")
	wall.Samples = got.Long
	wall.Note = fmt.Sprintf("%d task(s) over 50 ms (a long-task PerformanceObserver), the time the thread waited for a core included (load %s)", len(got.Long), loadAverage())
	rows := []Row{longest, wall}

	if len(shown) == 0 {
		r := missing(sec, hc.Label+": change → \"running…\" drawn", "every answer came before the word was due")
		r.Target = busyTarget
		rows = append(rows, r)
	} else {
		r := measured(sec, hc.Label+": change → \"running…\" drawn", median(shown), "ms")
		r.Target, r.Samples = busyTarget, shown
		r.Note = fmt.Sprintf("median; aria-busy in the change's own task (%s); the word after 50 ms, at the next frame", formatMs(median(aria)))
		rows = append(rows, r)
	}
	d := measured(sec, hc.Label+": change → result drawn", median(drawn), "ms")
	d.Samples = drawn
	d.Note = "median; the run in the simulator worker, the answer drawn and laid out on the main thread; max " + formatMs(maxOf(drawn))
	d.Detail = map[string]any{"changes": got.Changes}
	return append(rows, d)
}

// widgetSite builds the site of one page per registered widget
// (widgetContent) into the folder dir of the run's temporary folder, and
// serves it.
func (b *bench) widgetSite(ctx context.Context, sg *sitegen, dir string) (*preview, error) {
	b.logf("building a page per widget (%s)", strings.Join(widget.Names(), ", "))
	content := filepath.Join(b.tmp, dir+"-content")
	if err := writeFiles(content, widgetContent(widget.All())); err != nil {
		return nil, err
	}
	site := filepath.Join(b.tmp, dir)
	if _, _, err := sg.build(ctx, content, site, true); err != nil {
		return nil, err
	}
	return sg.preview(ctx, site)
}

func countOver(xs []float64, limit float64) int {
	n := 0
	for _, x := range xs {
		if x > limit {
			n++
		}
	}
	return n
}

// trace is a recording of the browser's trace: the top-level tasks of
// every thread, with the thread's own time of each.
type trace struct {
	mu     sync.Mutex
	events [][]byte
	over   bool          // the trace is complete
	done   chan struct{} // closed once it is
}

// task is one top-level task of a thread: its wall time and the thread's
// own time in it, in milliseconds.
type task struct{ wall, own float64 }

func startTrace(br *browser) (*trace, error) {
	tr := &trace{done: make(chan struct{})}
	if err := chromedp.Listen(br.ctx, func(ev any) {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		if tr.over {
			return // a later trace's events, for the listener of that one
		}
		switch e := ev.(type) {
		case *tracing.EventDataCollected:
			for _, v := range e.Value {
				tr.events = append(tr.events, append([]byte(nil), v...))
			}
		case *tracing.EventTracingComplete:
			tr.over = true
			close(tr.done)
		}
	}); err != nil {
		return nil, err
	}
	_, err := chromedp.Call(br.ctx, tracing.Start, tracing.StartParams{
		TransferMode: tracing.StartTransferModeReportEvents,
		TraceConfig:  &tracing.TraceConfig{IncludedCategories: []string{"toplevel", "__metadata"}},
	})
	return tr, err
}

// mainTasks ends the trace and returns the tasks of the page's main
// thread (CrRendererMain).
func (tr *trace) mainTasks(br *browser) ([]task, error) {
	if _, err := chromedp.Call(br.ctx, tracing.End, cdp.Empty{}); err != nil {
		return nil, err
	}
	select {
	case <-tr.done:
	case <-time.After(time.Minute):
		return nil, fmt.Errorf("the browser's trace never completed")
	}
	type event struct {
		Name string  `json:"name"`
		Ph   string  `json:"ph"`
		Pid  int     `json:"pid"`
		Tid  int     `json:"tid"`
		Dur  float64 `json:"dur"`  // µs
		Tdur float64 `json:"tdur"` // µs
		Args struct {
			Name string `json:"name"`
		} `json:"args"`
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	evs := make([]event, 0, len(tr.events))
	main := map[[2]int]bool{}
	for _, raw := range tr.events {
		var e event
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, fmt.Errorf("a trace event: %w", err)
		}
		if e.Ph == "M" && e.Name == "thread_name" && e.Args.Name == "CrRendererMain" {
			main[[2]int{e.Pid, e.Tid}] = true
		}
		evs = append(evs, e)
	}
	if len(main) == 0 {
		return nil, fmt.Errorf("the browser's trace names no renderer main thread")
	}
	var out []task
	for _, e := range evs {
		if e.Ph == "X" && (e.Name == "ThreadControllerImpl::RunTask" || e.Name == "RunTask") && main[[2]int{e.Pid, e.Tid}] {
			out = append(out, task{wall: e.Dur / 1000, own: e.Tdur / 1000})
		}
	}
	return out, nil
}
