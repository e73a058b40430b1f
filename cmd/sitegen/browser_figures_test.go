package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The figures as a reader sees them: charts tall enough to read, text
// that never lies over other text, and one colour and one name for each
// backoff policy in every figure of the site.

// chartPages are the pages whose widgets draw site/chart plots, at the
// articles' values and at other ones (a policy alone, on its own time
// axis; a herd ten times larger, whose ticks run to five digits).
var chartPages = []settledPage{
	{"/backoff-and-jitter/", ""},
	{"/metastable-failure/", ""},
	{"/embed/backoff/?policy=full&compare=off", `"compare":"off"`},
	{"/embed/backoff/?clients=10000&capacity=20", `"clients":10000`},
	{"/embed/storm/?budget=on&skip-expired=on", `"skip-expired":true`},
}

// settledPage is a page to measure and, for an embed page that takes
// parameters from its query, what its widget's data-params hold once the
// module has drawn them: the static page shows the defaults until then.
type settledPage struct{ path, params string }

// openSettled opens pg at a viewport of w×h and waits until it shows what
// it is meant to.
func openSettled(t *testing.T, base string, pg settledPage, w, h int64, mobile bool, scheme string) (context.Context, *console) {
	t.Helper()
	ctx, con := sitePage(t, base, pg.path, w, h, mobile, scheme)
	if pg.params == "" {
		return ctx, con
	}
	waitHydrated(t, ctx, con)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	js := `(() => { const w = document.querySelector("[data-widget]"), o = w.querySelector(".w-output");
		return w.dataset.params.includes(` + strconv.Quote(pg.params) + `) && !!o && !o.hasAttribute("data-stale") && o.getAttribute("aria-busy") !== "true"; })()`
	if _, err := chromedp.Run(wctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		t.Fatalf("%s: the widget never showed %s: %v (console: %v)", pg.path, pg.params, err, con.problems())
	}
	return ctx, con
}

// chartLayout measures every plot of a page: its height, and every pair
// of its labels (ticks, axis titles, reference and band labels) whose
// boxes meet, or a label that reaches past the plot's sides.
const chartLayout = `(() => {
	const out = {Heights: [], Problems: []};
	document.querySelectorAll("svg.chart:not(.hbars)").forEach((svg, n) => {
		const s = svg.getBoundingClientRect();
		out.Heights.push(s.height);
		const boxes = [...svg.querySelectorAll("text")].filter(t => t.textContent.trim() !== "")
			.map(t => ({text: t.textContent, r: t.getBoundingClientRect()}));
		const name = "chart " + (n + 1) + " (" + svg.querySelector("title").textContent + ")";
		for (const b of boxes) {
			if (b.r.left < s.left - 0.5 || b.r.right > s.right + 0.5) {
				out.Problems.push(name + ": " + JSON.stringify(b.text) + " reaches past the chart's side");
			}
		}
		for (let i = 0; i < boxes.length; i++) {
			for (let j = i + 1; j < boxes.length; j++) {
				const a = boxes[i].r, b = boxes[j].r;
				const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
				const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
				if (w > 0.5 && h > 0.5) {
					out.Problems.push(name + ": " + JSON.stringify(boxes[i].text) + " overlaps " + JSON.stringify(boxes[j].text) +
						" by " + w.toFixed(1) + "×" + h.toFixed(1) + " px");
				}
			}
		}
	});
	return out;
})()`

type chartMeasure struct {
	Heights  []float64
	Problems []string
}

// At 1280×900 every plot is at least 240 px tall, on a 390×844 phone at
// least 180, and at both no label's box meets another's or leaves the
// chart.
func TestBrowserChartLayout(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	for _, size := range []struct {
		w, h   int64
		mobile bool
		least  float64
	}{{1280, 900, false, 240}, {390, 844, true, 180}} {
		for _, pg := range chartPages {
			ctx, con := openSettled(t, ts.URL, pg, size.w, size.h, size.mobile, "")
			where := pg.path + " at " + strconv.FormatInt(size.w, 10) + " px"
			m := evalT[chartMeasure](t, ctx, chartLayout)
			if len(m.Heights) == 0 {
				t.Errorf("%s: no chart", where)
			}
			for i, h := range m.Heights {
				if h < size.least {
					t.Errorf("%s: chart %d is %.0f px tall, want at least %.0f", where, i+1, h, size.least)
				}
			}
			for _, p := range m.Problems {
				t.Errorf("%s: %s", where, p)
			}
			if probs := con.problems(); len(probs) > 0 {
				t.Errorf("%s: console problems: %v", where, probs)
			}
		}
	}
}

// policyMarks lists every mark of a page that stands for a backoff
// policy (class p-<policy>): its policy, what it is, its colour as the
// browser paints it, and the name written beside it, if any.
const policyMarks = `[...document.querySelectorAll(".widget [class*='p-']")].flatMap(e => {
	const p = [...e.classList].find(c => /^p-[a-z]+$/.test(c));
	if (!p) return [];
	const cs = getComputedStyle(e);
	const tag = e.tagName.toLowerCase();
	let colour;
	if (e.classList.contains("w-swatch")) colour = cs.backgroundColor;
	else if (tag === "text") colour = cs.fill;
	else if (e.classList.contains("bars")) colour = cs.fill;
	else colour = cs.stroke;
	const named = e.classList.contains("w-swatch") && e.nextElementSibling ? e.nextElementSibling.textContent : "";
	return [{Policy: p.slice(2), Mark: tag + "." + [...e.classList].join("."), Colour: colour, Name: named}];
})`

type policyMark struct {
	Policy, Mark, Colour, Name string
}

// Every figure of the site that shows a backoff policy shows it in one
// colour and under one name, in light and in dark mode, and no two
// policies share a colour: the pages that hold such figures are found in
// the built site, so a new one is checked too.
func TestBrowserPolicyColours(t *testing.T) {
	dir := builtSite(t)
	ts := serveSite(t, dir)
	var pages []settledPage
	for _, p := range sitePaths(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p), "index.html"))
		if err == nil && strings.Contains(string(b), `data-widget="backoff"`) {
			pages = append(pages, settledPage{p, ""})
		}
	}
	if len(pages) < 2 {
		t.Fatalf("backoff is on %v only", pages)
	}
	// The embed page at every policy, so that each is seen at least once
	// as bars and once as an outline.
	pages = append(pages, settledPage{"/embed/backoff/?policy=equal&compare=decorrelated", `"policy":"equal"`},
		settledPage{"/embed/backoff/?policy=decorrelated&compare=equal", `"policy":"decorrelated"`},
		settledPage{"/embed/backoff/?policy=full&compare=none", `"compare":"none"`})
	for _, scheme := range []string{"light", "dark"} {
		colours := map[string]map[string]string{} // policy → colour → where first seen
		names := map[string]map[string]bool{}
		for _, pg := range pages {
			path := pg.path
			ctx, _ := openSettled(t, ts.URL, pg, 1280, 900, false, scheme)
			for _, m := range evalT[[]policyMark](t, ctx, policyMarks) {
				if colours[m.Policy] == nil {
					colours[m.Policy], names[m.Policy] = map[string]string{}, map[string]bool{}
				}
				if _, ok := colours[m.Policy][m.Colour]; !ok {
					colours[m.Policy][m.Colour] = path + " " + m.Mark
				}
				if m.Name != "" {
					names[m.Policy][m.Name] = true
				}
			}
		}
		owner := map[string]string{}
		for _, p := range []string{"none", "full", "equal", "decorrelated"} {
			if len(colours[p]) != 1 {
				t.Errorf("%s: policy %s is drawn in %d colours: %v", scheme, p, len(colours[p]), colours[p])
			}
			if len(names[p]) != 1 {
				t.Errorf("%s: policy %s is named %d ways: %v", scheme, p, len(names[p]), names[p])
			}
			for c := range colours[p] {
				if o, ok := owner[c]; ok {
					t.Errorf("%s: policies %s and %s share the colour %s", scheme, o, p, c)
				}
				owner[c] = p
			}
		}
	}
}

// laneCrossings lists every label of the page's sequence diagrams whose
// text crosses a lifeline: each lane's line runs down the middle of its
// heading, 2 px wide (widget.css). The text's own extent is measured, not
// its padded box.
const laneCrossings = `(() => {
	const out = [];
	document.querySelectorAll(".seq").forEach(seq => {
		const lines = [...seq.querySelectorAll(".seq-lanes span")].map(s => {
			const r = s.getBoundingClientRect();
			return {lane: s.textContent, x: (r.left + r.right) / 2};
		});
		seq.querySelectorAll(".seq-rows .label").forEach(l => {
			const range = document.createRange();
			range.selectNodeContents(l);
			for (const r of range.getClientRects()) {
				for (const line of lines) {
					if (r.left < line.x + 1 && r.right > line.x - 1) {
						out.push(JSON.stringify(l.textContent) + " crosses the " + line.lane + " line (" +
							r.left.toFixed(0) + " to " + r.right.toFixed(0) + " px, the line at " + line.x.toFixed(0) + ")");
					}
				}
			}
		});
	});
	return out;
})()`

// In the payment's sequence diagram no label crosses a lane's line, at
// 1280 px and on a phone, for runs with and without keys and with every
// kind of fault: every row is laid out, shown or not yet, so the
// finished replay's rows are all measured.
func TestBrowserSequenceLabelsInLanes(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	for _, size := range []struct {
		w, h   int64
		mobile bool
	}{{1280, 900, false}, {390, 844, true}} {
		for _, query := range []string{"", "?keys=per-intent", "?faults=lose-request,timeout,lose-response,ok&attempts=4"} {
			ctx, con := sitePage(t, ts.URL, "/embed/payment/"+query, size.w, size.h, size.mobile, "")
			where := "payment" + query + " at " + strconv.FormatInt(size.w, 10) + " px"
			if n := evalT[int](t, ctx, `document.querySelectorAll(".seq-rows .label").length`); n < 5 {
				t.Fatalf("%s: %d labels in the sequence diagram", where, n)
			}
			for _, c := range evalT[[]string](t, ctx, laneCrossings) {
				t.Errorf("%s: %s", where, c)
			}
			if probs := con.problems(); len(probs) > 0 {
				t.Errorf("%s: console problems: %v", where, probs)
			}
		}
	}
}
