package main

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// contrastJS measures, for each element matching a selector, the contrast
// ratio (WCAG 2) of its text colour against the background it is drawn on:
// the first opaque background of it or its ancestors, blended over the
// ones below when translucent, white at the bottom. It returns the lowest
// ratio with what it was measured on.
const contrastJS = `(sel) => {
  const rgba = (c) => { const m = c.match(/[\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    return layers.reduceRight((under, top) => over(top, under), [255, 255, 255, 1]);
  };
  let worst = null;
  for (const el of document.querySelectorAll(sel)) {
    const fg = rgba(getComputedStyle(el).color), bg = background(el);
    const a = lum(over(fg, bg)), b = lum(bg);
    const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (!worst || ratio < worst.ratio) worst = {ratio, what: el.tagName + " " + getComputedStyle(el).color + " on rgb(" + bg.slice(0, 3).join(", ") + ")"};
  }
  return worst;
}`

// contrast is contrastJS's answer.
type contrast struct {
	Ratio float64
	What  string
}

// checkContrast fails the test when text of the elements matching sel is
// below 4.5:1 against its background (WCAG AA for body text).
func checkContrast(t *testing.T, ctx context.Context, where, sel string) {
	t.Helper()
	c := evalT[*contrast](t, ctx, `(`+contrastJS+`)(`+"`"+sel+"`"+`)`)
	if c == nil {
		t.Errorf("%s: nothing matches %s", where, sel)
		return
	}
	if c.Ratio < 4.5 {
		t.Errorf("%s: %s has a contrast of %.2f:1 (%s), want at least 4.5:1", where, sel, c.Ratio, c.What)
	}
}

// overlayText is every element of the overlay that holds text.
const overlayText = `.sitegen-live-overlay pre, .sitegen-live-overlay strong, .sitegen-live-overlay button`

// The development server shows a failed build over the open page, under the
// production CSP, readable in light and in dark mode over the site's own
// styles (its code blocks' among them), and the next good build reloads
// the page and clears it.
func TestBrowserLiveReloadOverlay(t *testing.T) {
	srv := newServer(builtSite(t), productionRules(t), true)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Cleanup(srv.live.close)

	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			ctx, con := sitePage(t, ts.URL, "/double-charge/", 1280, 900, false, scheme)
			// A page that connects after a build failed is sent the error at
			// once, so there is no race between the page's stream and the report.
			evalT[bool](t, ctx, `window.__before = true`)

			const msg = `content/double-charge.md:41: widget "paymnt": unknown widget (known: payment)`
			srv.live.report(errors.New(msg))
			if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.sitegen-live-overlay[role="alert"]`))); err != nil {
				t.Fatalf("no overlay after a failed build: %v", err)
			}
			text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`.sitegen-live-overlay pre`)))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text, msg) {
				t.Fatalf("overlay says %q, want the build error %q", text, msg)
			}
			checkContrast(t, ctx, scheme, overlayText)

			srv.live.report(nil) // the fix: a good build
			waitReloaded(t, ctx, `!document.querySelector(".sitegen-live-overlay")`)
			if csp := evalT[[]string](t, ctx, `window.__csp`); len(csp) > 0 {
				t.Errorf("CSP violations: %v", csp)
			}
			if p := con.problems(); len(p) > 0 {
				t.Errorf("console problems: %v", p)
			}
		})
	}
}

// waitReloaded waits until the page of ctx has reloaded (window.__before,
// set before, is gone) and cond holds in the new document.
func waitReloaded(t *testing.T, ctx context.Context, cond string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__before === undefined && document.readyState === "complete" && (`+cond+`)`))
		if err == nil && ok {
			return
		}
	}
	t.Fatalf("the page did not reload to a document where %s", cond)
}

// Before the first build is done there is no site: the browser gets a page
// that says it is being built; when that build fails, the same page with
// the error over it, readable; when a build succeeds, the site.
func TestBrowserLiveFirstBuild(t *testing.T) {
	site := builtSite(t)
	dir := filepath.Join(t.TempDir(), "public")
	srv := newServer(dir, productionRules(t), true)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Cleanup(srv.live.close)

	for _, scheme := range []string{"light", "dark"} {
		t.Run(scheme, func(t *testing.T) {
			os.RemoveAll(dir)
			srv.live.publish(liveEvent{Name: "reload"}) // no failure on record
			ctx, con := sitePage(t, ts.URL, "/double-charge/", 390, 844, true, scheme)
			if h := evalT[string](t, ctx, `document.querySelector("h1").textContent`); h != "Building the site…" {
				t.Fatalf("before the first build the page says %q, want Building the site…", h)
			}
			checkContrast(t, ctx, scheme+", building", `h1, p`)
			evalT[bool](t, ctx, `window.__before = true`)

			const msg = `content/double-charge.md:9: link to /double-charg/: no such page (did you mean /double-charge/?)`
			srv.live.report(errors.New(msg))
			if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.sitegen-live-overlay[role="alert"]`))); err != nil {
				t.Fatalf("no overlay after the first build failed: %v", err)
			}
			if text := evalT[string](t, ctx, `document.querySelector(".sitegen-live-overlay pre").textContent`); text != msg {
				t.Fatalf("overlay says %q, want %q", text, msg)
			}
			if head := evalT[string](t, ctx, `document.querySelector(".sitegen-live-overlay strong").textContent`); head != "Build failed: there is no site to show yet" {
				t.Errorf("the overlay's heading is %q on the page of no site", head)
			}
			checkContrast(t, ctx, scheme+", failed", overlayText)
			// A page opened now says the build failed, with the error over it.
			ctx2, _ := sitePage(t, ts.URL, "/", 1280, 900, false, scheme)
			if err := chromedp.Do(ctx2, chromedp.WaitVisible(chromedp.CSS(`.sitegen-live-overlay[role="alert"]`))); err != nil {
				t.Fatalf("a page opened after the failure shows no overlay: %v", err)
			}
			if h := evalT[string](t, ctx2, `document.querySelector("h1").textContent`); h != "The build failed" {
				t.Errorf("after the first build failed a page says %q, want The build failed", h)
			}

			// The fix: a good build writes the site and reports it.
			if err := os.CopyFS(dir, os.DirFS(site)); err != nil {
				t.Fatal(err)
			}
			srv.live.report(nil)
			waitReloaded(t, ctx, `document.querySelector("h1").textContent === "The double charge" && !document.querySelector(".sitegen-live-overlay")`)
			if csp := evalT[[]string](t, ctx, `window.__csp`); len(csp) > 0 {
				t.Errorf("CSP violations: %v", csp)
			}
			for _, p := range con.problems() {
				// The page before the site is a 503, which Chromium logs.
				if !strings.Contains(p, "status of 503") {
					t.Errorf("console problem: %s", p)
				}
			}
		})
	}
}

// The overlay keeps the reader's place: its Close button takes focus
// without scrolling the page, after a failed rebuild of the open page and
// on a page opened after the failure.
func TestBrowserLiveOverlayKeepsPlace(t *testing.T) {
	srv := newServer(builtSite(t), productionRules(t), true)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Cleanup(srv.live.close)

	ctx, _ := sitePage(t, ts.URL, "/double-charge/", 1280, 900, false, "light")
	evalT[bool](t, ctx, `window.scrollTo(0, 200), true`)
	srv.live.report(errors.New("content/double-charge.md:41: widget \"paymnt\": unknown widget"))
	checkPlace := func(ctx context.Context, where string, want float64) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`.sitegen-live-overlay[role="alert"]`))); err != nil {
			t.Fatalf("%s: no overlay: %v", where, err)
		}
		time.Sleep(200 * time.Millisecond) // a late scroll would show by now
		if y := evalT[float64](t, ctx, `scrollY`); y != want {
			t.Errorf("%s: the overlay moved the page from scrollY %v to %v", where, want, y)
		}
		if f := evalT[string](t, ctx, `document.activeElement.textContent`); f != "Close" {
			t.Errorf("%s: focus is on %q, want the overlay's Close button", where, f)
		}
		if pos := evalT[string](t, ctx, `getComputedStyle(document.querySelector(".sitegen-live-overlay")).position`); pos != "fixed" {
			t.Errorf("%s: the overlay is drawn unstyled (position %s)", where, pos)
		}
	}
	checkPlace(ctx, "after a failed rebuild", 200)
	fresh, _ := sitePage(t, ts.URL, "/double-charge/", 1280, 900, false, "light")
	checkPlace(fresh, "a page opened after the failure", 0)
}
