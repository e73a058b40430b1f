package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// axeFile is axe-core's browser build, which make deps (run by
// make test) installs at the version build/axe/package.json pins.
const axeFile = "build/axe/node_modules/axe-core/axe.min.js"

// axeSource reads axe-core, and fails the test when it is missing.
func axeSource(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(axeFile)))
	if errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("no %s: run make deps (make test does)", axeFile)
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// sitePaths lists the URL path of every page of the built site at dir:
// each index.html by its folder, and 404.html.
func sitePaths(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	walkFiles(t, dir, func(p string, _ []byte) {
		if filepath.Base(p) != "index.html" {
			return
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(p))
		if rel == "." {
			paths = append(paths, "/")
			return
		}
		paths = append(paths, "/"+filepath.ToSlash(rel)+"/")
	})
	return append(paths, "/404.html")
}

// axeViolation is one rule an axe run found broken, with the elements
// that break it.
type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"` // each a CSS selector and what to fix
}

// axeRun runs axe-core on the document and keeps what a report needs.
const axeRun = `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations.map(v => ({
	id: v.id, impact: v.impact || "", help: v.help,
	nodes: v.nodes.map(n => n.target.flat().join(" ") + ": " + (n.failureSummary || "").replace(/\s+/g, " ")),
})))`

// Every page of the site, its embed pages and its 404 page included, in
// light and in dark mode, with JavaScript on: axe-core finds no
// violation. Each page is checked once its widgets are interactive and
// every disclosure (More parameters, Embed) is open, so that what they
// hold is checked too. axe-core is injected through the DevTools protocol,
// as the page's Content-Security-Policy would refuse it from the page.
func TestBrowserAxe(t *testing.T) {
	dir := builtSite(t)
	ts := serveSite(t, dir)
	axe := axeSource(t)
	paths := sitePaths(t, dir)
	if len(paths) < 20 {
		t.Fatalf("only %d pages: %v", len(paths), paths)
	}
	// One browser, a tab per page, a few pages at once: starting a browser
	// per page, one after another, took most of the suite's time.
	browser := sharedBrowser(t)
	tabs := make(chan struct{}, axeTabs)
	t.Run("pages", func(t *testing.T) {
		for _, p := range paths {
			t.Run(strings.Trim(p, "/"), func(t *testing.T) {
				t.Parallel()
				tabs <- struct{}{}
				defer func() { <-tabs }()
				axePage(t, newTab(t, browser), ts.URL, p, axe)
			})
		}
	})
}

// axeTabs is how many pages the axe test checks at once: the machine's
// two cores are kept busy by the browser and the server, and more tabs
// only wait on them.
const axeTabs = 4

// axePage loads p in the tab ctx, with axe-core injected, waits for its
// widgets, opens every disclosure and runs axe-core in light and dark.
func axePage(t *testing.T, ctx context.Context, base, p, axe string) {
	con := watchConsole(ctx)
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument,
		page.AddScriptToEvaluateOnNewDocumentParams{Source: axe}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+p)); err != nil {
		t.Fatal(err)
	}
	if evalT[int](t, ctx, `document.querySelectorAll('`+simulators+`').length`) > 0 {
		// The first widget near the viewport, once a reader is there,
		// starts the module, which hydrates them all.
		if err := chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS(simulators)), arrive()); err != nil {
			t.Fatal(err)
		}
		waitHydrated(t, ctx, con)
	}
	evalT[int](t, ctx, `document.querySelectorAll('details').forEach(d => d.open = true), 0`)
	for _, scheme := range []string{"light", "dark"} {
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		}); err != nil {
			t.Fatal(err)
		}
		vs, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](axeRun, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s, %s: running axe-core: %v", p, scheme, err)
		}
		for _, v := range vs {
			t.Errorf("%s, %s: %s (%s): %s\n\t%s", p, scheme, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n\t"))
		}
	}
	if probs := con.problems(); len(probs) > 0 {
		t.Errorf("%s: console problems: %v", p, probs)
	}
}

// simulators are the widgets the module hydrates: every one but the live
// API panel (live.js; browser_liveapi_test.go).
const simulators = `[data-widget]:not([data-widget=live])`

// With JavaScript off every page reads in full: each widget shows its run,
// played to the end, and says that its controls need JavaScript instead of
// offering dead ones; the Embed panel still opens and shows its snippet,
// without a Copy button that could not work.
func TestBrowserEveryPageWithoutJavaScript(t *testing.T) {
	dir := builtSite(t)
	ts := serveSite(t, dir)
	ctx := newBrowser(t)
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled,
		emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	widgets := 0
	for _, p := range sitePaths(t, dir) {
		if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+p)); err != nil {
			t.Fatal(err)
		}
		// For each widget: [outcome text, done, controls shown, Copy shown,
		// note shown, snippet].
		got := evalT[[][]string](t, ctx, `[...document.querySelectorAll('`+simulators+`')].map(w => {
			const shown = sel => { const e = w.querySelector(sel); return e ? String(e.getClientRects().length > 0) : "absent"; };
			const d = w.querySelector('details.w-embed'); if (d) d.open = true;
			const o = w.querySelector('.w-outcome');
			return [o ? o.textContent.trim() : "", o ? (o.dataset.done || "") : "", shown('.w-controls'), shown('.w-copy'),
				shown('.w-nojs'), (w.querySelector('.w-snippet') || {}).value || ""];
		})`)
		for i, w := range got {
			widgets++
			where := p + " widget " + strconv.Itoa(i+1)
			if w[0] == "" || (w[1] != "" && w[1] != "true") {
				t.Errorf("%s: outcome %q, done %q", where, w[0], w[1])
			}
			if w[2] != "false" || w[3] != "false" || w[4] != "true" {
				t.Errorf("%s: controls shown %s, Copy shown %s, the note shown %s", where, w[2], w[3], w[4])
			}
			if !strings.HasPrefix(w[5], `<div data-retrylab="`) {
				t.Errorf("%s: the snippet reads %q", where, w[5])
			}
		}
		if text := evalT[string](t, ctx, `document.querySelector('main').innerText.trim()`); len(text) < 40 {
			t.Errorf("%s: the page reads %q", p, text)
		}
	}
	// As many as the built pages hold: the articles' widget blocks and one
	// per embed page.
	want := 0
	walkFiles(t, dir, func(p string, data []byte) {
		if filepath.Ext(p) == ".html" {
			want += strings.Count(string(data), ` data-widget="`) - strings.Count(string(data), ` data-widget="live"`)
		}
	})
	if widgets != want || want == 0 {
		t.Errorf("%d widgets read, of %d in the pages", widgets, want)
	}
	t.Logf("%d widgets read without JavaScript", widgets)
}
