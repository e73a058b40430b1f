package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A widget's figure and the outcome under it fit one screen: a reader who
// changes a control, or follows a link in the prose that changes it, sees
// what changed and how the run ended without scrolling between them.

// widgetPages lists the pages of the built site in dir that hold a widget,
// the embed pages left out (each is one widget of an article's).
func widgetPages(t *testing.T, dir string) []string {
	t.Helper()
	var pages []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "index.html" {
			return err
		}
		rel, err := filepath.Rel(dir, filepath.Dir(path))
		if err != nil || strings.HasPrefix(rel, "embed") {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(b), `class="widget"`) {
			pages = append(pages, strings.TrimSuffix("/"+filepath.ToSlash(rel), ".")+"/")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// figureSpan is, for each widget of the page, its id, the distance from
// its figure's top (the output region) to its outcome's bottom, in CSS
// pixels, and whether it has an outcome at all.
const figureSpan = `[...document.querySelectorAll(".widget")].map(w => {
	const f = w.querySelector(".w-output"), o = w.querySelector(".w-output .w-outcome");
	if (!f || !o) return [w.id, -1];
	return [w.id, Math.round(o.getBoundingClientRect().bottom - f.getBoundingClientRect().top)]; })`

// At 1280×900, on every page, every widget's figure and outcome lie within
// one window's height of each other.
func TestBrowserFigureAndOutcomeFitOneScreen(t *testing.T) {
	dir := builtSite(t)
	ts := serveSite(t, dir)
	pages := widgetPages(t, dir)
	if len(pages) < 10 {
		t.Fatalf("found %d pages with widgets: %v", len(pages), pages)
	}
	ctx := newTab(t, sharedBrowser(t))
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, page := range pages {
		if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+page)); err != nil {
			t.Fatal(err)
		}
		for _, w := range evalT[[][]any](t, ctx, figureSpan) {
			id, span := w[0].(string), w[1].(float64)
			kinds[strings.TrimRight(strings.TrimPrefix(id, "w-"), "-0123456789")] = true
			t.Logf("%s#%s: figure top to outcome bottom %.0f px", page, id, span)
			if span < 0 {
				t.Errorf("%s#%s: no figure or no outcome to measure", page, id)
			} else if span > 900 {
				t.Errorf("%s#%s: the outcome ends %.0f px below the figure's top, past a 900 px window", page, id, span)
			}
		}
	}
	if len(kinds) < 12 {
		t.Errorf("measured %d kinds of widget, want all 12: %v", len(kinds), kinds)
	}
}

// After a click on each of /double-charge/'s links that set its payment
// widget, the widget's outcome is inside the window.
func TestBrowserWidgetLinkShowsOutcome(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx := newTab(t, sharedBrowser(t))
	con := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(ts.URL+"/double-charge/"),
		chromedp.ScrollIntoView(chromedp.CSS(paymentRoot)), arrive(),
		chromedp.WaitVisible(chromedp.CSS(paymentRoot+`[data-hydrated="true"]`))); err != nil {
		t.Fatal(err)
	}
	n := evalT[float64](t, ctx, `document.querySelectorAll('a[data-widget-link="payment-1"]').length`)
	if n < 4 {
		t.Fatalf("found %.0f links that set payment-1, want 4 or more", n)
	}
	for i := 0; i < int(n); i++ {
		link := fmt.Sprintf(`document.querySelectorAll('a[data-widget-link="payment-1"]')[%d]`, i)
		text := evalT[string](t, ctx, link+`.scrollIntoView({block: "center"}), `+link+`.textContent`)
		if err := chromedp.Do(ctx, arrive(), chromedp.Click(chromedp.JSPath(link))); err != nil {
			t.Fatal(err)
		}
		// Settled: the scroll has ended and the run shown is the link's.
		// The third figure is 1 when what lies at the outcome's middle is
		// the outcome, not the replay controls kept at the window's edge.
		box, err := chromedp.Run(ctx, chromedp.Poll[[]float64](`(() => {
			const e = document.querySelector("#w-payment-1 .w-output .w-outcome"), o = e.getBoundingClientRect();
			const seen = e.contains(document.elementFromPoint(o.left + o.width / 2, (o.top + o.bottom) / 2)) ? 1 : 0;
			if (window.__last === scrollY + ":" + o.top) return [o.top, o.bottom, seen];
			window.__last = scrollY + ":" + o.top; return null; })()`, chromedp.WithPollingInterval(300*time.Millisecond)))
		if err != nil {
			t.Fatal(err)
		}
		top, bottom := box[0], box[1]
		t.Logf("link %d %q: outcome at %.0f to %.0f px", i+1, text, top, bottom)
		if top < 0 || bottom > 900 {
			t.Errorf("after the link %q the outcome lies at %.0f to %.0f px, outside the 900 px window", text, top, bottom)
		} else if box[2] != 1 {
			t.Errorf("after the link %q the outcome, at %.0f to %.0f px, is covered by something else", text, top, bottom)
		}
	}
	clean(t, ctx, con)
}

// On a phone the home page's first screen shows a figure: the first
// widget's output begins above the screen's bottom edge.
func TestBrowserPhoneHomeShowsFigure(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx, con := phoneTab(t, sharedBrowser(t), ts.URL, "/", true, true)
	top := evalT[float64](t, ctx, `document.querySelector(".widget .w-output").getBoundingClientRect().top + scrollY`)
	t.Logf("the first figure's top at %.0f px", top)
	if top >= 844 {
		t.Errorf("on a 390×844 phone the home page's first figure begins at %.0f px, below the first screen", top)
	}
	clean(t, ctx, con)
}
