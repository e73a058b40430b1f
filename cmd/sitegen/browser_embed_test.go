package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The embed pages and embed.js, in the browser, served as deployed.

// waitHydrated waits until every widget of the page is interactive.
func waitHydrated(t *testing.T, ctx context.Context, con *console) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	js := `(() => { const ws = document.querySelectorAll('[data-widget]');
		return ws.length > 0 && [...ws].every(w => w.dataset.hydrated === "true"); })()`
	if _, err := chromedp.Run(wctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		t.Fatalf("the widgets never became interactive: %v (console: %v)", err, con.problems())
	}
}

// clean fails the test on console problems and CSP violations.
func clean(t *testing.T, ctx context.Context, con *console) {
	t.Helper()
	if csp := evalT[[]string](t, ctx, `window.__csp`); len(csp) > 0 {
		t.Errorf("CSP violations: %v", csp)
	}
	if p := con.problems(); len(p) > 0 {
		t.Errorf("console problems: %v", p)
	}
}

// An embed page takes the widget's parameters from its query: the module
// loads at once, without a scroll, draws the widget in that state, and
// sets the controls to match.
func TestBrowserEmbedPageQuery(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx := newBrowser(t)
	con := watchConsole(ctx)
	addCSPProbe(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/embed/payment/?keys=per-intent")); err != nil {
		t.Fatal(err)
	}
	waitHydrated(t, ctx, con)
	waitOutcome(t, ctx, "1", "ch_1")
	if v := evalT[string](t, ctx, `document.querySelector('[data-widget="payment"] select[name="keys"]').value`); v != "per-intent" {
		t.Errorf("the keys control reads %q, want per-intent", v)
	}
	if p := evalT[string](t, ctx, `document.querySelector('[data-widget="payment"]').dataset.params`); !strings.Contains(p, `"keys":"per-intent"`) {
		t.Errorf("data-params %s", p)
	}
	// The snippet of that state names the site the page came from.
	want := `<div data-retrylab="payment" data-keys="per-intent"></div><script src="` + ts.URL + `/embed.js" async></script>`
	if got := evalT[string](t, ctx, `document.querySelector('[data-region="snippet"]').value`); got != want {
		t.Errorf("snippet\n%s, want\n%s", got, want)
	}
	// No site header; the credit links to the chapter.
	if n := evalT[int](t, ctx, `document.querySelectorAll('.site-header, nav').length`); n != 0 {
		t.Errorf("%d header or nav elements on an embed page", n)
	}
	if href := evalT[string](t, ctx, `document.querySelector('.embed-credit a').getAttribute('href')`); href != "/double-charge/" {
		t.Errorf("the credit links to %q", href)
	}
	clean(t, ctx, con)
}

// A query the schema refuses: the widget keeps its defaults and says, as
// text, which parameter, what value and what is allowed. Nothing of the
// query becomes markup: no script element appears, no dialog opens.
func TestBrowserEmbedPageRefusesBadQuery(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx := newBrowser(t)
	con := watchConsole(ctx)
	addCSPProbe(t, ctx)
	var (
		mu      sync.Mutex
		dialogs []string
	)
	if err := chromedp.Listen(ctx, func(ev any) {
		if d, ok := ev.(*page.EventJavascriptDialogOpening); ok {
			mu.Lock()
			dialogs = append(dialogs, d.Message)
			mu.Unlock()
			go chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}); err != nil {
		t.Fatal(err)
	}
	const bad = `<script>alert(1)</script>`
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+`/embed/payment/?amount=2500&attempts=<img src=x onerror=alert(2)>`)); err != nil {
		t.Fatal(err)
	}
	waitHydrated(t, ctx, con)
	// The defaults: keys off, the first response lost, two charges.
	waitOutcome(t, ctx, "2", "ch_2")
	msg := evalT[string](t, ctx, `document.querySelector('[data-widget="payment"] .w-error').textContent`)
	want := `attempts: "<img src=x onerror=alert(2)>" is not a whole number (allowed: 1 to 10)`
	if !strings.Contains(msg, want) {
		t.Errorf("the message reads %q, want it to say %q", msg, want)
	}
	if n := evalT[int](t, ctx, `document.querySelector('[data-widget="payment"] .w-error').childElementCount`); n != 0 {
		t.Errorf("the message holds %d elements", n)
	}
	if role := evalT[string](t, ctx, `document.querySelector('[data-widget="payment"] .w-error').getAttribute('role')`); role != "alert" {
		t.Errorf("the message's role is %q", role)
	}
	// The only scripts are the page's own and the module's runtime.
	scripts := evalT[[]string](t, ctx, `[...document.scripts].map(s => s.src || s.textContent)`)
	for _, s := range scripts {
		if !strings.HasPrefix(s, ts.URL+"/static/") {
			t.Errorf("a script that is not the site's: %q", s)
		}
	}
	if n := evalT[int](t, ctx, `document.querySelectorAll('img, [onerror]').length`); n != 0 {
		t.Errorf("%d img or onerror elements", n)
	}
	if v := evalT[string](t, ctx, `document.querySelector('[data-widget="payment"] select[name="keys"]').value`); v != "off" {
		t.Errorf("keys = %q after a bad query, want the default off", v)
	}

	// The same for keys alone: the message names keys and its values.
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+`/embed/payment/?keys=`+bad)); err != nil {
		t.Fatal(err)
	}
	waitHydrated(t, ctx, con)
	waitOutcome(t, ctx, "2", "ch_2")
	msg = evalT[string](t, ctx, `document.querySelector('[data-widget="payment"] .w-error').textContent`)
	if want := `keys: "` + bad + `" is not allowed (allowed: off, per-intent, per-attempt)`; !strings.Contains(msg, want) {
		t.Errorf("the message reads %q, want it to say %q", msg, want)
	}
	if n := evalT[int](t, ctx, `document.scripts.length`); n != 2 {
		t.Errorf("%d scripts in the page, want the loader and the module's runtime", n)
	}
	// A change the schema accepts clears the message.
	sel := chromedp.CSS(`[data-widget="payment"] select[name="keys"]`)
	if err := chromedp.Do(ctx, chromedp.Focus(sel), chromedp.SendKeys(sel, "per-i")); err != nil {
		t.Fatal(err)
	}
	waitOutcome(t, ctx, "1", "ch_1")
	if n := evalT[int](t, ctx, `document.querySelectorAll('.w-error').length`); n != 0 {
		t.Error("the message stays after a good change")
	}

	mu.Lock()
	defer mu.Unlock()
	if len(dialogs) > 0 {
		t.Errorf("dialogs opened: %q", dialogs)
	}
	clean(t, ctx, con)
}

// A page of another site, on another origin, with the snippet: embed.js
// turns the div into an iframe of the embed page with the div's
// parameters, and the frame takes the height of its page, measured on its
// own at the frame's width.
func TestBrowserEmbedCrossOrigin(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	// The host page sends no Content-Security-Policy and its origin differs
	// from the site's by its port.
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><html lang="en"><head><title>Someone's docs</title>
<style>body { margin: 0 auto; max-width: 720px; font: 16px sans-serif; }</style></head>
<body><h1>Someone's docs</h1><p>Retries without keys charge twice:</p>
<div data-retrylab="payment" data-keys="per-intent" data-faults="lose-response,lose-response,ok" data-attempts="4"></div>
<script src="` + ts.URL + `/embed.js" async></script>
<p>And a storm:</p>
<div data-retrylab="storm" data-skip-expired="on"></div>
<script src="` + ts.URL + `/embed.js" async></script>
</body></html>`))
	}))
	t.Cleanup(host.Close)

	ctx := newBrowser(t)
	con := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(host.URL+"/")); err != nil {
		t.Fatal(err)
	}
	if n := evalT[int](t, ctx, `document.querySelectorAll('iframe').length`); n != 2 {
		t.Fatalf("%d iframes, want one per div, though embed.js is loaded twice", n)
	}
	srcs := evalT[[]string](t, ctx, `[...document.querySelectorAll('iframe')].map(f => f.src)`)
	wantSrc := ts.URL + "/embed/payment/?keys=per-intent&faults=lose-response%2Close-response%2Cok&attempts=4"
	if srcs[0] != wantSrc || srcs[1] != ts.URL+"/embed/storm/?skip-expired=on" {
		t.Fatalf("iframe sources %q, want %q and the storm's", srcs, wantSrc)
	}
	for _, attr := range []string{"title", "loading"} {
		if v := evalT[string](t, ctx, `document.querySelector('iframe').getAttribute('`+attr+`') || ""`); v == "" {
			t.Errorf("the iframe has no %s", attr)
		}
	}

	// The frame's height settles at its page's.
	frameHeight := func() float64 {
		return evalT[float64](t, ctx, `document.querySelector('iframe').getBoundingClientRect().height`)
	}
	var h float64
	deadline := time.Now().Add(30 * time.Second)
	for stable := 0; stable < 5; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the frame's height never settled above 400 px: %.0f (console: %v)", frameHeight(), con.problems())
		}
		next := frameHeight()
		if next != 400 && next == h {
			stable++
		} else {
			stable = 0
		}
		h = next
	}
	width := evalT[float64](t, ctx, `document.querySelector('iframe').getBoundingClientRect().width`)

	// The same page, alone in a tab as wide as the frame: its height.
	tab, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	tcon := watchConsole(tab)
	addCSPProbe(t, tab)
	if err := chromedp.Do(tab, chromedp.EmulateViewport(int64(width), 600), chromedp.Navigate(wantSrc)); err != nil {
		t.Fatal(err)
	}
	waitHydrated(t, tab, tcon)
	waitOutcome(t, tab, "1", "ch_1")
	// Two frames, for the layout to settle.
	if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	doc := evalT[float64](t, tab, `document.documentElement.getBoundingClientRect().height`)
	t.Logf("frame %.0f x %.0f px; its page alone at that width: %.0f px tall", width, h, doc)
	if h <= 300 || h < doc-3 || h > doc+3 {
		t.Errorf("the frame is %.0f px tall, its page %.0f px", h, doc)
	}
	clean(t, tab, tcon)
	if p := con.problems(); len(p) > 0 {
		t.Errorf("console problems on the host page: %v", p)
	}
}

// The Embed button of a widget in an article: from the keyboard, it opens
// the panel whose snippet follows the controls; Copy copies it; the
// permalink, opened afresh, shows the widget in the same state.
func TestBrowserEmbedButtonAndPermalink(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx := newBrowser(t)
	con := watchConsole(ctx)
	addCSPProbe(t, ctx)
	const root = `[data-widget="payment"]`
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/double-charge/"),
		chromedp.ScrollIntoView(chromedp.CSS(root)),
		chromedp.WaitVisible(chromedp.CSS(root+`[data-hydrated="true"]`))); err != nil {
		t.Fatalf("the widget never became interactive: %v (console: %v)", err, con.problems())
	}
	// The test reads the clipboard back.
	grantClipboard(t, ctx, ts.URL)
	sel := chromedp.CSS(root + ` select[name="keys"]`)
	attempts := chromedp.CSS(root + ` input[name="attempts"]`)
	if err := chromedp.Do(ctx, chromedp.Focus(sel), chromedp.SendKeys(sel, "per-i")); err != nil {
		t.Fatal(err)
	}
	waitOutcome(t, ctx, "1", "ch_1")
	if err := chromedp.Do(ctx, chromedp.Focus(attempts),
		chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)), chromedp.KeyEvent("4"+kb.Tab)); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.Run(wctx, chromedp.Poll[bool](`document.querySelector('`+root+`').dataset.params.includes('"attempts":4')`)); err != nil {
		t.Fatalf("attempts never became 4: %v", err)
	}
	// One fault per attempt: the fault in use, and Add for the others.
	if n := evalT[int](t, ctx, `[...document.querySelectorAll('`+root+` [data-param="faults"] .w-item')].filter(e => !e.hidden).length`); n != 1 {
		t.Errorf("4 attempts show %d faults, want the 1 in use", n)
	}
	if evalT[bool](t, ctx, `document.querySelector('`+root+` [data-param="faults"] .w-add').disabled`) {
		t.Error("4 attempts with 1 fault offer no Add")
	}

	// The panel opens from the keyboard: Enter on its summary.
	summary := chromedp.CSS(root + ` .w-embed summary`)
	if err := chromedp.Do(ctx, chromedp.Focus(summary), chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	if open := evalT[bool](t, ctx, `document.querySelector('`+root+` .w-embed').open`); !open {
		t.Fatal("Enter on Embed did not open the panel")
	}
	want := `<div data-retrylab="payment" data-keys="per-intent" data-attempts="4"></div><script src="` + ts.URL + `/embed.js" async></script>`
	if got := evalT[string](t, ctx, `document.querySelector('`+root+` [data-region="snippet"]').value`); got != want {
		t.Errorf("snippet\n%s, want\n%s", got, want)
	}

	// Copy, with Enter on the button. Where the clipboard may not be
	// written, the snippet is selected instead, for Ctrl+C.
	copyBtn := chromedp.CSS(root + ` button[data-action="copy"]`)
	if err := chromedp.Do(ctx, chromedp.Focus(copyBtn), chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	wctx, cancel = context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	said, err := chromedp.Run(wctx, chromedp.Poll[string](`document.querySelector('`+root+` [data-region="copied"]').textContent`))
	if err != nil {
		t.Fatalf("Copy said nothing: %v", err)
	}
	switch {
	case said == "Copied.":
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
		if err != nil || got != want {
			t.Errorf("the clipboard holds %q (%v)", got, err)
		}
	case strings.HasPrefix(said, "Selected"):
		if got := evalT[string](t, ctx, `(() => { const a = document.activeElement; return a.value.slice(a.selectionStart, a.selectionEnd); })()`); got != want {
			t.Errorf("selected %q", got)
		}
	default:
		t.Errorf("Copy said %q", said)
	}
	t.Logf("Copy: %s", said)

	// The permalink: this page, the widget and its state.
	link := evalT[string](t, ctx, `document.querySelector('`+root+` [data-region="permalink"]').href`)
	if wantLink := ts.URL + "/double-charge/?w=payment-1&attempts=4&keys=per-intent#w-payment-1"; link != wantLink {
		t.Fatalf("permalink %s, want %s", link, wantLink)
	}
	clean(t, ctx, con)

	// Opened in a fresh browser: the module loads without a scroll, and the
	// widget shows that state, controls included, scrolled into view.
	ctx2 := newBrowser(t)
	con2 := watchConsole(ctx2)
	addCSPProbe(t, ctx2)
	if err := chromedp.Do(ctx2, chromedp.Navigate(link)); err != nil {
		t.Fatal(err)
	}
	waitHydrated(t, ctx2, con2)
	waitOutcome(t, ctx2, "1", "ch_1")
	got := evalT[[]string](t, ctx2, `(() => { const r = document.querySelector('`+root+`');
		return [r.querySelector('select[name="keys"]').value, r.querySelector('input[name="attempts"]').value,
			r.querySelector('[data-region="snippet"]').value,
			String(Math.round(r.getBoundingClientRect().top) - parseFloat(getComputedStyle(r).scrollMarginTop))]; })()`)
	if got[0] != "per-intent" || got[1] != "4" || got[2] != want {
		t.Errorf("from the permalink: keys %q, attempts %q, snippet %q", got[0], got[1], got[2])
	}
	if got[3] != "0" {
		t.Errorf("from the permalink the widget is %s px from its scroll margin below the top of the window", got[3])
	}
	if n := evalT[int](t, ctx2, `[...document.querySelectorAll('`+root+` [data-param="faults"] .w-item')].filter(e => !e.hidden).length`); n != 1 {
		t.Errorf("from the permalink 4 attempts show %d faults, want the 1 in use", n)
	}
	if evalT[bool](t, ctx2, `document.querySelector('`+root+` [data-param="faults"] .w-add').disabled`) {
		t.Error("from the permalink 4 attempts with 1 fault offer no Add")
	}
	clean(t, ctx2, con2)
}
