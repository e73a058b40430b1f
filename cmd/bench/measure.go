package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/retrylab/retrylab/internal/precompress"
	"github.com/retrylab/retrylab/site/widget"
)

// Targets, from the handbook's performance goals.
var (
	// The module within 1.5 times the hello-world floor, brotli bytes:
	// what the handbook adds to standard Go's runtime is at most half of it.
	moduleTarget = AtMost(1.5, "≤ 1.50× floor")
	// A widget interactive within 300 ms of entering the viewport: about
	// the time a reader takes to start reading what scrolled in.
	viewportTarget = AtMost(300, "≤ 300 ms")
	// A re-run and re-render within one frame at 60 Hz: 1000 / 60 = 16.7
	// ms, rounded down to 16.
	frameTarget = AtMost(16, "≤ 16 ms")
	// The backoff widget with 100,000 clients within a second.
	bigTarget = AtMost(1000, "< 1 s")
	// Lighthouse's mobile performance score: 0.90 and up is "good"; the
	// handbook asks for more.
	performanceTarget = AtLeast(0.95, "≥ 0.95")
	// The first chapter and the home page: the full score in every
	// category (Lighthouse rounds scores to two decimals).
	fullScore = AtLeast(1, "1.00")
)

// measureModule compares the page's module with the hello-world floor.
func (b *bench) measureModule(ctx context.Context, site string, siteErr error) {
	const sec = "module"
	b.logf("building the hello-world module and compressing both")
	var mod, floor sizes
	modErr := siteErr
	if modErr == nil {
		mod, modErr = siteModuleSizes(site)
	}
	hello, floorErr := buildHello(ctx, b.root, b.tmp)
	if floorErr == nil {
		floor, floorErr = compressedSizes(hello)
	}
	for _, m := range []struct {
		name string
		s    sizes
		err  error
	}{
		{"page module (wasm/)", mod, modErr},
		{"hello-world floor (syscall/js only)", floor, floorErr},
	} {
		if m.err != nil {
			b.add(missing(sec, m.name, m.err.Error()))
			continue
		}
		b.add(measured(sec, m.name+", raw", float64(m.s.Raw), "bytes"),
			measured(sec, m.name+", "+precompress.GzipName, float64(m.s.Gzip), "bytes"),
			measured(sec, m.name+", "+precompress.BrotliName, float64(m.s.Brotli), "bytes"))
	}
	const ratio = "module / floor, brotli"
	if modErr != nil || floorErr != nil {
		b.add(Row{Section: sec, Measure: ratio, Shown: "not measured", Target: moduleTarget})
		return
	}
	r := measured(sec, ratio, float64(mod.Brotli)/float64(floor.Brotli), "ratio")
	r.Target = moduleTarget
	r.Note = "the handbook's own share: " + thousands(mod.Brotli-floor.Brotli) + " B brotli"
	r.Detail = map[string]any{"module": mod, "floor": floor, "gzip_ratio": float64(mod.Gzip) / float64(floor.Gzip)}
	b.add(r)
}

// measureModels times each model natively and, when python3 is present,
// its reference implementation, and checks that the two agree.
func (b *bench) measureModels(ctx context.Context) {
	const sec = "models"
	python, lookErr := exec.LookPath("python3")
	pyErr := lookErr // or the first script's failure
	// Model by model, the Python script and then the Go runs of its
	// cases, so that the two sides of a ratio are timed a few seconds
	// apart, on the machine as it is then: all the scripts first and then
	// all the Go runs put the scripts right after the browser's sections
	// and the Go runs a minute later.
	for _, model := range referenceModels() {
		py := map[string]pyCase{}
		if pyErr == nil {
			b.logf("timing bench/reference/%s.py, then %s natively", model, model)
			cases, err := runPython(ctx, python, b.root, model, b.cfg.MinTime)
			if err != nil {
				pyErr = err
			}
			for _, c := range cases {
				py[c.Model+"/"+c.Case] = c
			}
		}
		for _, mc := range modelCases {
			if mc.Model != model {
				continue
			}
			name := mc.Label
			goFigs, err := mc.Run()
			if err != nil {
				b.add(missing(sec, name, err.Error()))
				continue
			}
			goSec, goRuns, err := timeGo(mc.Time, b.cfg.MinTime)
			if err != nil {
				b.add(missing(sec, name, err.Error()))
				continue
			}
			detail := map[string]any{"go_s_per_run": goSec, "go_runs": goRuns, "figures": goFigs}
			c, ok := py[mc.Model+"/"+mc.Case]
			if pyErr != nil || !ok {
				why := "no Python run of this case"
				if pyErr != nil {
					why = pyErr.Error()
				}
				if lookErr != nil {
					why = "python3 not found: no reference time"
				}
				r := measured(sec, mc.Label+", Go alone", goSec, "s")
				r.Note, r.Detail = why, detail
				b.add(r)
				continue
			}
			r := measured(sec, name, c.SecondsPerRun/goSec, "ratio")
			r.Shown = fmt.Sprintf("Go %s, Python %s: %s", formatSeconds(goSec), formatSeconds(c.SecondsPerRun), formatRatio(c.SecondsPerRun/goSec))
			// Every figure the Python run prints is the engine's.
			if diffs := disagreements(flatten(c.Result), goFigs, "Python", "Go"); len(diffs) > 0 {
				r.Note = "FIGURES DIFFER: " + strings.Join(diffs, "; ")
			} else {
				r.Note = "same figures: " + figures(flatten(c.Result))
			}
			detail["python_s_per_run"] = c.SecondsPerRun
			detail["python_runs"] = c.Runs
			detail["python_figures"] = c.Result
			r.Detail = detail
			b.add(r)
		}
	}
}

// formatRatio prints a speed-up: 1.8×, 42.0×, 1,250×. A ratio below 100
// keeps a decimal, so that 19.8× does not read as the 20× a target asks
// for.
func formatRatio(x float64) string {
	if x < 100 {
		return fmt.Sprintf("%.1f×", x)
	}
	return thousands(int64(x+0.5)) + "×"
}

// figures prints a model's figures in key order, "calls 1109, denied
// 997", and the length of its trace, whose last sentence is in the
// report's detail.
func figures(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "events" && k != "last_event" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " " + show(m[k])
	}
	out := strings.Join(parts, ", ")
	if n, ok := m["events"]; ok {
		out += fmt.Sprintf("; trace of %v events, the last worded alike", n)
	}
	return out
}

// handbookPage is the page the page section measures: the first chapter.
const handbookPage = "double-charge/"

// embedQueryPage is an embed page whose query asks for a state other than
// the widget's defaults, as an embed snippet's iframe does.
const embedQueryPage = "embed/payment/?keys=per-intent"

// measurePage loads the handbook page and the home page cold, several
// times each, and runs Lighthouse on them and on an embed page opened with
// a query.
func (b *bench) measurePage(ctx context.Context, sg *sitegen, site string, siteErr error, chrome string, chromeErr error) {
	const sec = "page"
	if siteErr == nil {
		siteErr = chromeErr
	}
	if siteErr != nil {
		b.add(missing(sec, "the handbook page in chromium", siteErr.Error()))
		b.add(Row{Section: sec, Measure: "Lighthouse mobile performance", Shown: "not measured", Target: performanceTarget})
		return
	}
	pv, err := sg.preview(ctx, site)
	if err != nil {
		b.add(missing(sec, "the handbook page in chromium", err.Error()))
		return
	}
	defer pv.stop()
	url := pv.URL + handbookPage

	if loads := b.coldLoads(ctx, chrome, url, "/"+handbookPage); len(loads) > 0 {
		b.add(pageRows(loads)...)
	}
	// The home page, whose simulator is in the first screen: the module is
	// ready as the page loads and runs at the reader's first input.
	if loads := b.coldLoads(ctx, chrome, pv.URL, "the home page"); len(loads) > 0 && loads[0].OnScreen == 0 {
		b.add(missing(sec, "home page: the reader's first input → the widget in the first screen interactive",
			"no widget is in the home page's first screen"))
	} else if len(loads) > 0 {
		xs := make([]float64, len(loads))
		for i, c := range loads {
			xs[i] = c.OnScreenMs
		}
		r := measured(sec, fmt.Sprintf("home page: the reader's first input → the %d widget(s) in the first screen interactive", loads[0].OnScreen),
			median(xs), "ms")
		r.Samples = xs
		r.Note = "the module fetched, compiled and instantiated as the page loads; its run starts at the input"
		b.add(r)
	}

	// Lighthouse audits the first chapter, the home page, whose first
	// screen holds a live simulator, and an embed page opened with a query,
	// whose widget the module draws in the query's state.
	bin, err := lighthouseBin(b.root)
	for _, page := range []struct {
		label, path string
		perf, other *Target // the targets of the performance score and of the others
	}{
		{"/" + handbookPage, handbookPage, fullScore, fullScore},
		{"home page", "", fullScore, fullScore},
		{"/" + embedQueryPage, embedQueryPage, performanceTarget, nil},
	} {
		if err == nil {
			b.add(b.lighthouseRows(ctx, bin, chrome, pv.URL+page.path, page.label, page.perf, page.other)...)
		} else {
			r := Row{Section: sec, Measure: "Lighthouse mobile performance, " + page.label, Shown: "not measured", Target: page.perf, Note: err.Error()}
			b.add(r)
		}
	}
}

// coldLoads loads url cold cfg.ColdLoads times; nil, with a row saying
// why, when one fails.
func (b *bench) coldLoads(ctx context.Context, chrome, url, label string) []coldLoad {
	var loads []coldLoad
	for i := 0; i < b.cfg.ColdLoads; i++ {
		b.logf("cold load %d of %d of %s", i+1, b.cfg.ColdLoads, label)
		c, err := loadCold(ctx, chrome, url)
		if err != nil {
			b.add(missing("page", "cold loads of "+label, err.Error()))
			return nil
		}
		loads = append(loads, c)
	}
	return loads
}

// pageRows sums up the cold loads.
func pageRows(loads []coldLoad) []Row {
	const sec = "page"
	n := len(loads)
	pick := func(f func(coldLoad) float64) []float64 {
		xs := make([]float64, n)
		for i, c := range loads {
			xs[i] = f(c)
		}
		return xs
	}
	ms := func(measure string, xs []float64) Row {
		r := measured(sec, measure, median(xs), "ms")
		r.Samples = xs
		return r
	}
	rows := []Row{ms("first contentful paint", pick(func(c coldLoad) float64 { return c.FCP }))}
	if loads[0].OnScreen > 0 {
		rows = append(rows, ms(fmt.Sprintf("the reader's first input → the %d widget(s) in the first screen interactive", loads[0].OnScreen),
			pick(func(c coldLoad) float64 { return c.OnScreenMs })))
	}
	if loads[0].Scrolled {
		r := ms("navigation → widget interactive, scrolled to at load", pick(func(c coldLoad) float64 { return c.InteractiveMs }))
		if loads[0].OnScreen == 0 {
			r.Note = fmt.Sprintf("none of the page's widgets (%d) is in the first screen: the module loads when one nears the viewport", loads[0].Widgets)
		}
		v := ms("widget entering the viewport → interactive", pick(func(c coldLoad) float64 { return c.IntoViewMs }))
		v.Target = viewportTarget
		v.Note = "the module is fetched, compiled and run after the scroll"
		rows = append(rows, r, v)
	} else {
		rows = append(rows, Row{Section: sec, Measure: "widget entering the viewport → interactive", Shown: "not measured", Target: viewportTarget,
			Note: "every widget was interactive before one could be scrolled to"})
	}
	load := ms("transferred by the load event (no module yet)", pick(func(c coldLoad) float64 { return float64(c.LoadBytes) }))
	load.Unit, load.Shown = "bytes", formatValue(load.Value0(), "bytes")
	all := ms("transferred, widget interactive", pick(func(c coldLoad) float64 { return float64(c.Bytes) }))
	all.Unit, all.Shown = "bytes", formatValue(all.Value0(), "bytes")
	all.Note = fmt.Sprintf("%d requests, headers included", loads[0].Requests)
	return append(rows, load, all)
}

// lighthouseRows runs Lighthouse cfg.Lighthouse times and reports the run
// with the median performance score, against perfTarget for the
// performance score and other for the other categories (nil: none).
func (b *bench) lighthouseRows(ctx context.Context, bin, chrome, url, page string, perfTarget, other *Target) []Row {
	const sec = "page"
	name := "Lighthouse mobile performance, " + page
	var runs []lighthouseRun
	var perf []float64
	for i := 0; i < b.cfg.Lighthouse; i++ {
		b.logf("Lighthouse run %d of %d, %s", i+1, b.cfg.Lighthouse, page)
		dir, err := os.MkdirTemp(b.tmp, "lighthouse-")
		if err != nil {
			return []Row{missing(sec, name, err.Error())}
		}
		// Lighthouse asks to be run again when its trace of the load is
		// incomplete (NO_NAVSTART, NO_FCP), which a busy machine causes
		// now and then: one more try before giving up.
		var run lighthouseRun
		for try := 0; try < 2; try++ {
			lctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
			run, err = runLighthouse(lctx, bin, chrome, url, dir)
			cancel()
			if err == nil || ctx.Err() != nil {
				break
			}
			b.logf("Lighthouse failed, trying again: %v", err)
		}
		if err != nil {
			r := missing(sec, name, err.Error())
			r.Target = perfTarget
			return []Row{r}
		}
		runs = append(runs, run)
		perf = append(perf, run.Scores["performance"])
	}
	med := runs[medianIndex(perf)]
	var rows []Row
	for _, id := range lighthouseCategories {
		label := map[string]string{"performance": "performance", "accessibility": "accessibility", "best-practices": "best practices", "seo": "SEO"}[id]
		r := measured(sec, "Lighthouse mobile "+label+", "+page, med.Scores[id], "score")
		r.Target = other
		if id == "performance" {
			r.Target = perfTarget
			r.Samples = perf
			m := med.Metrics
			r.Note = fmt.Sprintf("simulated: FCP %s, LCP %s, TBT %s, CLS %.3f, speed index %s",
				formatMs(m["first-contentful-paint"]), formatMs(m["largest-contentful-paint"]),
				formatMs(m["total-blocking-time"]), m["cumulative-layout-shift"], formatMs(m["speed-index"]))
			r.Detail = map[string]any{"metrics": m}
		}
		rows = append(rows, r)
	}
	return rows
}

// measureWidgets builds one page per registered widget and times each
// widget's re-run and re-render in the browser.
func (b *bench) measureWidgets(ctx context.Context, sg *sitegen, sgErr error, chrome string, chromeErr error) {
	const sec = "widgets"
	if sgErr == nil {
		sgErr = chromeErr
	}
	ws := widget.All()
	if sgErr != nil {
		b.add(missing(sec, "every widget", sgErr.Error()))
		return
	}
	pv, err := b.widgetSite(ctx, sg, "widget-site")
	if err != nil {
		b.add(missing(sec, "every widget", err.Error()))
		return
	}
	defer pv.stop()
	br, err := startBrowser(ctx, chrome)
	if err != nil {
		b.add(missing(sec, "every widget", err.Error()))
		return
	}
	defer br.close()

	n := b.cfg.Changes
	for _, w := range ws {
		name := w.Name + ", defaults"
		c, ok := planChanges(w.Schema, n)
		if !ok {
			b.add(missing(sec, name, "no seed, enum, switch or number parameter to change"))
			continue
		}
		b.logf("widget %s: %s", w.Name, c.About)
		if err := openWidget(br, pv.URL+widgetPageSlug(w.Name)+"/", w.Name); err != nil {
			b.add(missing(sec, name, err.Error()))
			continue
		}
		b.add(b.changeRow(br, w, c, name, frameTarget, 5*time.Minute))
	}
	b.measureBackoff(br, pv.URL)
}

// changeRow times the changes c of the open widget w and makes their row.
func (b *bench) changeRow(br *browser, w *widget.Widget, c change, name string, target *Target, timeout time.Duration) Row {
	const sec = "widgets"
	ts, err := timeChanges(br, w, c, len(c.Values), timeout)
	if err != nil {
		r := missing(sec, name, err.Error())
		r.Target = target
		return r
	}
	ms, goMs := c.timed(ts)
	r := measured(sec, name, median(ms), "ms")
	r.Target, r.Samples = target, ms
	r.Note = fmt.Sprintf("%s; max %s; the module's own count of run and drawing %s",
		c.About, formatMs(maxOf(ms)), formatMs(median(goMs)))
	r.Detail = map[string]any{"param": c.Param, "setup": c.Setup, "changes": ts}
	return r
}

// measureBackoff times the backoff widget with 100,000 clients, if it is
// registered: the heaviest run a reader can ask for. (Its defaults, 1,000
// clients, are the widget's row above.)
func (b *bench) measureBackoff(br *browser, base string) {
	const sec = "widgets"
	big := "backoff, 100,000 clients"
	w, ok := widget.Lookup("backoff")
	if !ok {
		r := missing(sec, big, "the backoff widget is not registered (site/widget has: "+strings.Join(widget.Names(), ", ")+")")
		r.Target = bigTarget
		b.add(r)
		return
	}
	clients, ok := w.Schema.Param("clients")
	if !ok || clients.Kind != widget.Int {
		b.add(missing(sec, big, "the backoff widget has no whole-number clients parameter"))
		return
	}
	if clients.Max < 100_000 {
		b.add(missing(sec, big, "the widget allows at most "+thousands(int64(clients.Max))+" clients"))
		return
	}
	if err := openWidget(br, base+widgetPageSlug(w.Name)+"/", w.Name); err != nil {
		b.add(missing(sec, big, err.Error()))
		return
	}
	n := b.cfg.BigChanges
	def := w.Schema.Defaults()
	// The defaults with 100,000 clients, then each policy alone (no
	// second policy to compare with, where the widget has one).
	type setup struct {
		label string
		pairs [][2]string
	}
	setups := []setup{{"defaults", nil}}
	if p, ok := w.Schema.Param("policy"); ok && p.Kind == widget.Enum {
		cmp, hasCompare := w.Schema.Param("compare")
		for _, pol := range p.Allowed {
			s := setup{label: "policy " + pol, pairs: [][2]string{{"policy", pol}}}
			if hasCompare && contains(cmp.Allowed, "off") {
				s.label += " alone"
				s.pairs = append(s.pairs, [2]string{"compare", "off"})
			}
			setups = append(setups, s)
		}
	}
	if v, ok := def.Raw()["policy"]; ok {
		setups[0].label = v
		if c, ok := def.Raw()["compare"]; ok && c != "off" {
			setups[0].label += " vs " + c
		}
		setups[0].label += " (the defaults)"
	}
	for si, st := range setups {
		name := fmt.Sprintf("%s, %s (median of %d)", big, st.label, n)
		// Seeds of its own for each setup: the widget keeps its last runs,
		// and would draw a seed an earlier setup ran from them.
		c, ok := seedChanges(w.Schema, (si+1)*n)
		if ok {
			c.Values = c.Values[si*n:]
			c.About = "seed: " + c.Values[0] + " to " + c.Values[n-1] + ", a fresh run each"
		}
		if !ok {
			// No seed: turn the clients between 100,000 and 99,999, both
			// counted.
			c = change{Param: "clients", About: "clients: 100,000 ↔ 99,999"}
			for i := 0; i < n; i++ {
				c.Values = append(c.Values, []string{"99999", "100000"}[i%2])
			}
		}
		c.Setup = append([][2]string{{"clients", "100000"}}, st.pairs...)
		b.logf("widget %s, %s", big, st.label)
		b.add(b.changeRow(br, w, c, name, bigTarget, 10*time.Minute))
	}
}

// corpusGenerator is a site generator timed on the generated corpus.
type corpusGenerator struct {
	name  string
	write func(dir string, n int) error // the corpus of n articles as its source
	build func(ctx context.Context, src, out string) (buildTime, error)
}

// corpusTimes are a generator's builds of one corpus.
type corpusTimes struct {
	n     int
	times []float64 // wall time of each build, s
	cpu   []float64 // CPU time of each build (buildTime), s
	pages int       // the HTML files it wrote
}

// measureCorpus times sitegen and Hugo (the anchor), alone and followed by
// Pagefind on its pages (the search index sitegen builds for its own), on
// generated corpora of cfg.Corpus articles and of one, each build into a
// fresh folder, the generators taking turns. It reports for each the pages
// per second between the two corpora, and sitegen's time per page against
// Hugo's, the target, and against Hugo's with Pagefind's.
func (b *bench) measureCorpus(ctx context.Context, sg *sitegen) {
	const sec = "sitegen"
	n := b.cfg.Corpus
	name := fmt.Sprintf("pages per second, corpus of %s articles", thousands(int64(n)))
	hugoName := fmt.Sprintf("Hugo %s: pages per second, the same corpus", hugoVersion)
	gens, hugoErr := b.corpusGenerators(ctx, sg)
	runs := b.buildCorpora(ctx, gens, n)

	ours, r := runs.perPage("sitegen", name)
	if r.Value != nil {
		r.Note += ": a 1-article build's fixed costs, the module's link among them, subtracted; the search index (Pagefind) included"
	}
	b.add(r)
	if hugoErr != nil {
		b.add(missing(sec, hugoName, hugoErr.Error()))
		return
	}
	theirs, r := runs.perPage("hugo", hugoName)
	if r.Value != nil {
		r.Note += ": its own layout of the same pages (single, list, table of contents, highlighting with classes), the widget blocks as code, no search index"
	}
	b.add(r)
	if ours == 0 || theirs == 0 {
		return
	}
	indexed, r := runs.perPage("hugo+pagefind", "Hugo "+hugoVersion+" and Pagefind: pages per second, the same corpus")
	if r.Value != nil {
		r.Note += ": Hugo's build, then Pagefind on its pages, as sitegen's build indexes its own"
	}
	b.add(r)
	b.add(
		measured(sec, "time per page, sitegen", 1000*ours, "ms"),
		measured(sec, "time per page, Hugo "+hugoVersion, 1000*theirs, "ms"),
	)
	ratio := measured(sec, "time per page, sitegen against Hugo", ours/theirs, "ratio")
	ratio.Target = AtMost(1, "≤ 1.00× (at most Hugo's)")
	ratio.Note = fmt.Sprintf("marginal time per page, the %s-article build less the 1-article build, of each generator in this run", thousands(int64(n)))
	b.add(ratio)
	if indexed != 0 {
		r := measured(sec, "time per page, sitegen against Hugo and Pagefind", ours/indexed, "ratio")
		r.Note = fmt.Sprintf("the same, Hugo's time per page with Pagefind's on its pages (%s)", formatMs(1000*indexed))
		b.add(r)
	}
	// The same builds by CPU time, which the other users of a shared
	// machine move much less than the wall time.
	cpuOurs, cpuTheirs := runs.cpuPerPage("sitegen"), runs.cpuPerPage("hugo")
	cpu := measured(sec, "CPU per page, sitegen", 1000*cpuOurs, "ms")
	cpu.Note = "user and system time of the build and of the processes it waited for (Pagefind, the go command), marginal as the time per page"
	b.add(cpu, measured(sec, "CPU per page, Hugo "+hugoVersion, 1000*cpuTheirs, "ms"))
	if indexed != 0 {
		b.add(measured(sec, "CPU per page, Hugo "+hugoVersion+" and Pagefind", 1000*runs.cpuPerPage("hugo+pagefind"), "ms"))
	}
	b.add(measured(sec, "CPU per page, sitegen against Hugo", cpuOurs/cpuTheirs, "ratio"))
}

// corpusGenerators are the generators measureCorpus compares: sitegen,
// and when Hugo can be had, Hugo alone and Hugo followed by Pagefind.
// Both sitegen corpora are built quick (no brotli copy of the module).
// A build's fixed costs (linking the module, which runs beside the
// articles' conversion, hashing the assets, compressing the module with
// gzip, Hugo's start) are the whole of the one-article build: subtracting
// its time leaves the pages' own, each page converted, highlighted, its
// widget run and rendered (Hugo: its widget block written as code),
// written, and for sitegen indexed by Pagefind.
func (b *bench) corpusGenerators(ctx context.Context, sg *sitegen) ([]corpusGenerator, error) {
	gens := []corpusGenerator{{
		name:  "sitegen",
		write: func(dir string, n int) error { return writeFiles(dir, corpusContent(n)) },
		build: func(ctx context.Context, src, out string) (buildTime, error) {
			took, _, err := sg.run(ctx, src, out, true)
			return took, err
		},
	}}
	hugo, err := hugoBin(ctx)
	if err != nil {
		return gens, err
	}
	return append(gens, corpusGenerator{
		name:  "hugo",
		write: func(dir string, n int) error { return writeFiles(dir, hugoSite(n)) },
		build: func(ctx context.Context, src, out string) (buildTime, error) {
			return hugoBuild(ctx, hugo, src, out)
		},
	}, corpusGenerator{
		// Hugo's pages given the search index sitegen builds for its
		// own: the same work as sitegen's build.
		name:  "hugo+pagefind",
		write: func(dir string, n int) error { return writeFiles(dir, hugoSite(n)) },
		build: func(ctx context.Context, src, out string) (buildTime, error) {
			took, err := hugoBuild(ctx, hugo, src, out)
			if err != nil {
				return buildTime{}, err
			}
			index, err := pagefind(ctx, b.root, out)
			return buildTime{Wall: took.Wall + index.Wall, CPU: took.CPU + index.CPU}, err
		},
	}), nil
}

// corpusRuns are the timed builds of each generator's corpora, the
// 1-article one first, and the first error of a generator that failed.
type corpusRuns struct {
	times  map[string][]*corpusTimes
	failed map[string]error
	builds int
}

// buildCorpora writes each generator's corpora of 1 and n articles and
// builds each b.cfg.Builds times into a fresh folder, the generators
// taking turns.
func (b *bench) buildCorpora(ctx context.Context, gens []corpusGenerator, n int) corpusRuns {
	runs := corpusRuns{times: map[string][]*corpusTimes{}, failed: map[string]error{}, builds: b.cfg.Builds}
	for _, g := range gens {
		for _, c := range []int{1, n} {
			dir := filepath.Join(b.tmp, fmt.Sprintf("corpus-%s-%d", g.name, c))
			if err := g.write(dir, c); err != nil {
				runs.failed[g.name] = err
			}
			runs.times[g.name] = append(runs.times[g.name], &corpusTimes{n: c})
		}
	}
	for i := 0; i < b.cfg.Builds; i++ {
		for _, g := range gens {
			for _, c := range runs.times[g.name] {
				if runs.failed[g.name] != nil {
					continue
				}
				b.logf("%s: building the %d-article corpus (%d of %d)", g.name, c.n, i+1, b.cfg.Builds)
				src := filepath.Join(b.tmp, fmt.Sprintf("corpus-%s-%d", g.name, c.n))
				out := src + "-site"
				took, err := g.build(ctx, src, out)
				if err == nil {
					c.pages, err = countPages(out)
				}
				os.RemoveAll(out)
				if err != nil {
					runs.failed[g.name] = err
					continue
				}
				c.times = append(c.times, took.Wall.Seconds())
				c.cpu = append(c.cpu, took.CPU.Seconds())
			}
		}
	}
	return runs
}

// perPage is generator g's marginal seconds per page, with the row of
// its pages per second, called measure.
func (runs corpusRuns) perPage(g, measure string) (float64, Row) {
	const sec = "sitegen"
	if err := runs.failed[g]; err != nil {
		return 0, missing(sec, measure, err.Error())
	}
	small, big := runs.times[g][0], runs.times[g][1]
	dt := median(big.times) - median(small.times)
	pages := big.pages - small.pages
	if dt <= 0 || pages <= 0 {
		return 0, missing(sec, measure, fmt.Sprintf("the large corpus (%d pages) built no slower than the small one (%d pages)", big.pages, small.pages))
	}
	r := measured(sec, measure, float64(pages)/dt, "pages/s")
	r.Note = fmt.Sprintf("(%s − %d pages) / (%.2f s − %.2f s)", thousands(int64(big.pages)), small.pages, median(big.times), median(small.times))
	if runs.builds > 1 {
		r.Note += fmt.Sprintf(", medians of %d builds each", runs.builds)
	}
	r.Detail = map[string]any{"small_s": small.times, "large_s": big.times, "small_cpu_s": small.cpu, "large_cpu_s": big.cpu,
		"small_pages": small.pages, "large_pages": big.pages}
	return dt / float64(pages), r
}

// cpuPerPage is generator g's marginal CPU seconds per page, measured as
// perPage measures its wall time.
func (runs corpusRuns) cpuPerPage(g string) float64 {
	small, big := runs.times[g][0], runs.times[g][1]
	return (median(big.cpu) - median(small.cpu)) / float64(big.pages-small.pages)
}
