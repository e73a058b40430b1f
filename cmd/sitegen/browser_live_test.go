package main

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The development server shows a failed build over the open page, under the
// production CSP, and the next good build reloads the page and clears it.
func TestBrowserLiveReloadOverlay(t *testing.T) {
	srv := newServer(builtSite(t), productionRules(t), true)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	t.Cleanup(srv.live.close)

	ctx := newBrowser(t)
	con := watchConsole(ctx)
	addCSPProbe(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/double-charge/")); err != nil {
		t.Fatal(err)
	}
	// A page that connects after a build failed is sent the error at once,
	// so there is no race between the page's stream and the report.
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

	srv.live.report(nil) // the fix: a good build
	// The page reloads: evaluate until the new document answers.
	reloaded := false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__before === undefined && document.readyState === "complete" && !document.querySelector(".sitegen-live-overlay")`))
		if err == nil && ok {
			reloaded = true
			break
		}
	}
	if !reloaded {
		t.Fatal("the page did not reload without the overlay after a good build")
	}
	if csp := evalT[[]string](t, ctx, `window.__csp`); len(csp) > 0 {
		t.Errorf("CSP violations: %v", csp)
	}
	if p := con.problems(); len(p) > 0 {
		t.Errorf("console problems: %v", p)
	}
}
