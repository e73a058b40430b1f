package main

import (
	"context"
	"fmt"
	"github.com/chromedp/cdproto/browser"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// The browser tests run the built site in Debian's chromium, headless,
// served in-process with the production headers (the CSP included), and
// check what a reader sees. They fail, never skip, when no browser is found:
// `make test` installs one (build/install-deps.sh).

// chromePath finds the browser: $CHROME_PATH, else chromium on PATH.
func chromePath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROME_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium found: run make deps (make test does) or set CHROME_PATH")
	return ""
}

// sharedBrowser returns a fresh browser context (a profile of its own,
// as a new incognito window has: no cookies, storage or cache of another
// test) in the test binary's one headless browser, for a test that opens
// many pages (newTab), so that each test costs a context and each page a
// tab, not a browser's start. The context is disposed of when the test
// ends. extra are more of the browser's flags: a test that needs some gets
// a browser of its own, with a fresh profile, which lives until the test
// ends.
func sharedBrowser(t *testing.T, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	if len(extra) > 0 {
		ctx, cancel, err := startBrowser(chromePath(t), t.TempDir(), extra...)
		t.Cleanup(cancel)
		if err != nil {
			t.Fatal(err)
		}
		return ctx
	}
	path := chromePath(t)
	pb := &packageBrowser
	pb.once.Do(func() {
		if pb.profile, pb.err = os.MkdirTemp("", "sitegen-browser-"); pb.err == nil {
			pb.ctx, pb.cancel, pb.err = startBrowser(path, pb.profile)
		}
	})
	if pb.err != nil {
		t.Fatal(pb.err)
	}
	ctx, cancel := chromedp.NewContext(pb.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a browser context: %v", err)
	}
	return ctx
}

// packageBrowser is the test binary's browser with the default flags,
// started by the first test that asks for one (sharedBrowser) and closed
// by TestMain.
var packageBrowser struct {
	once    sync.Once
	ctx     context.Context
	cancel  func()
	profile string // its user data folder
	err     error
}

// closePackageBrowser closes packageBrowser, if it was started, and
// removes its profile.
func closePackageBrowser() {
	if pb := &packageBrowser; pb.cancel != nil {
		pb.cancel()
	}
	if packageBrowser.profile != "" {
		os.RemoveAll(packageBrowser.profile)
	}
}

// startBrowser starts headless chromium at path with the user data folder
// profile, the flags of every test and extra.
func startBrowser(path, profile string, extra ...chromedp.ExecAllocatorOption) (context.Context, func(), error) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900),
	)
	opts = append(opts, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(actx)
	cancel := func() { cancelBrowser(); cancelAlloc() }
	if err := chromedp.Do(ctx); err != nil {
		return ctx, cancel, fmt.Errorf("starting %s: %w", path, err)
	}
	return ctx, cancel, nil
}

// newTab opens a tab of browser (sharedBrowser) for one page, closed when
// the test ends, with newBrowser's time limit.
func newTab(t *testing.T, browser context.Context) context.Context {
	t.Helper()
	ctx, cancelTab := chromedp.NewContext(browser)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelTab() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	return ctx
}

// newBrowser returns a context for one tab in a fresh browser context of
// the test binary's browser (sharedBrowser). Both are closed when the test
// ends.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	return newTab(t, sharedBrowser(t))
}

// console collects every console message and uncaught exception of a tab.
type console struct {
	mu   sync.Mutex
	msgs []chromedp.ConsoleMessage
}

func watchConsole(ctx context.Context) *console {
	c := &console{}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			c.mu.Lock()
			c.msgs = append(c.msgs, m)
			c.mu.Unlock()
		}
	}()
	return c
}

// problems are the errors, warnings and exceptions seen so far.
func (c *console) problems() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, m := range c.msgs {
		switch m.Type {
		case chromedp.ConsoleError, chromedp.ConsoleException, chromedp.ConsoleWarning:
			out = append(out, string(m.Type)+": "+m.Text+" ("+m.URL+")")
		}
	}
	return out
}

// cspProbe records every Content-Security-Policy violation of a page in
// window.__csp, from before the page's first script runs.
const cspProbe = `window.__csp = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__csp.push(e.violatedDirective + " blocked " + (e.blockedURI || "inline") + " at " + e.sourceFile + ":" + e.lineNumber);
});`

func addCSPProbe(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument,
		page.AddScriptToEvaluateOnNewDocumentParams{Source: cspProbe}); err != nil {
		t.Fatal(err)
	}
}

func evalT[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

const paymentOutcome = `[data-widget="payment"] .w-outcome`

// outcomeOf reads the payment widget's headline figures.
func outcomeOf(t *testing.T, ctx context.Context) (charges, receipt string) {
	t.Helper()
	got := evalT[[]string](t, ctx, `(() => { const o = document.querySelector('`+paymentOutcome+`');
		return o ? [o.dataset.charges, o.dataset.receipt] : ["", ""]; })()`)
	return got[0], got[1]
}

// With JavaScript off the article is complete: the widget shows the run its
// markdown block asks for, already played.
func TestBrowserWithoutJavaScript(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx := newBrowser(t)
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled,
		emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/double-charge/"),
		chromedp.WaitVisible(chromedp.CSS(paymentOutcome))); err != nil {
		t.Fatal(err)
	}
	res, err := chromedp.Run(ctx, chromedp.Attributes(chromedp.CSS(paymentOutcome)))
	if err != nil {
		t.Fatal(err)
	}
	if res["data-charges"] != "2" || res["data-receipt"] != "ch_2" {
		t.Fatalf("without JavaScript: data-charges=%q data-receipt=%q, want 2 and ch_2", res["data-charges"], res["data-receipt"])
	}
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(paymentOutcome)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "ch_2") || !strings.Contains(text, "ch_1") {
		t.Fatalf("the outcome does not name both charges: %q", text)
	}
	// The page says the controls need JavaScript rather than offering dead ones.
	if hidden := evalT[bool](t, ctx, `getComputedStyle(document.querySelector('[data-widget] .w-controls')).display === "none"`); !hidden {
		t.Error("with JavaScript off the widget's controls are shown, though they cannot work")
	}
}

// With JavaScript on, a reader switches keys to per-intent and replays: the
// second charge disappears. No console errors and no CSP violations.
func TestBrowserPaymentReplayWithKeys(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx := newBrowser(t)
	con := watchConsole(ctx)
	addCSPProbe(t, ctx)

	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/double-charge/")); err != nil {
		t.Fatal(err)
	}
	if c, r := outcomeOf(t, ctx); c != "2" || r != "ch_2" {
		t.Fatalf("before any change: charges %s receipt %s, want 2 ch_2", c, r)
	}
	// The module loads when the widget nears the viewport.
	if err := chromedp.Do(ctx,
		chromedp.ScrollIntoView(chromedp.CSS(`[data-widget="payment"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-widget="payment"][data-hydrated="true"]`)),
	); err != nil {
		t.Fatalf("the widget never became interactive: %v (console: %v)", err, con.problems())
	}

	// A reader picks per-intent in the select (keyboard: focus, then the
	// option's first letters, as a person would on a desktop).
	sel := chromedp.CSS(`[data-widget="payment"] select[name="keys"]`)
	if err := chromedp.Do(ctx, chromedp.Focus(sel), chromedp.SendKeys(sel, "per-i")); err != nil {
		t.Fatal(err)
	}
	if v := evalT[string](t, ctx, `document.querySelector('[data-widget="payment"] select[name="keys"]').value`); v != "per-intent" {
		t.Fatalf("keys select = %q after typing, want per-intent", v)
	}
	// A change re-runs at once: the end state with keys.
	waitOutcome(t, ctx, "1", "ch_1")

	// At the end, Play reads Replay and steps through the trace from the start.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-widget="payment"] button[data-action="play"]`))); err != nil {
		t.Fatal(err)
	}
	// The first step is drawn once the simulator worker answers.
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := chromedp.Run(pctx, chromedp.Poll[bool](`document.querySelector('[data-widget="payment"]').dataset.step === "0"`,
		chromedp.WithPollingInterval(10*time.Millisecond))); err != nil {
		t.Fatalf("replay did not start from the beginning: step %s of %s", evalT[string](t, ctx, `document.querySelector('[data-widget="payment"]').dataset.step`),
			evalT[string](t, ctx, `document.querySelector('[data-widget="payment"]').dataset.steps`))
	}
	if c, _ := outcomeOf(t, ctx); c != "0" {
		t.Fatalf("at the start of the replay %s charges are shown, want 0", c)
	}
	waitOutcome(t, ctx, "1", "ch_1")
	if n := evalT[int](t, ctx, `document.querySelectorAll('[data-widget="payment"] .ledger tbody tr').length`); n != 1 {
		t.Fatalf("the ledger shows %d charges after the replay, want 1", n)
	}

	// Stepping back shows the state before the receipt.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-widget="payment"] button[data-action="back"]`))); err != nil {
		t.Fatal(err)
	}
	bctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := chromedp.Run(bctx, chromedp.Poll[bool](`(() => { const w = document.querySelector('[data-widget="payment"]');
		return w.dataset.step === String(w.dataset.steps - 1) && w.getAttribute("aria-busy") === null; })()`,
		chromedp.WithPollingInterval(10*time.Millisecond))); err != nil {
		t.Fatalf("one step back from the end never drawn: %v", err)
	}
	if _, r := outcomeOf(t, ctx); r != "" {
		t.Fatalf("one step back from the end the receipt is still %q", r)
	}

	if csp := evalT[[]string](t, ctx, `window.__csp`); len(csp) > 0 {
		t.Errorf("CSP violations: %v", csp)
	}
	if p := con.problems(); len(p) > 0 {
		t.Errorf("console problems: %v", p)
	}
}

// The home page's simulator is in the first screen. The loader fetches
// and instantiates the module as the page loads but runs it only once a
// reader gives any input: a page nobody uses runs no Go. Hydrating binds
// the controls and leaves the output the static page drew as it is (the
// state is the same); the reader's first change redraws it.
func TestBrowserModuleWaitsForTheReader(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx := newBrowser(t)
	con := watchConsole(ctx)
	addCSPProbe(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/")); err != nil {
		t.Fatal(err)
	}
	const root = `[data-widget="payment"]`
	const loader = `script[data-wasm]`
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(wctx, chromedp.Poll[bool](`document.querySelector('`+loader+`').dataset.state === "ready"`,
		chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		t.Fatalf("the module was never made ready: %v (state %q, console: %v)", err,
			evalT[string](t, ctx, `document.querySelector('`+loader+`').dataset.state || ""`), con.problems())
	}
	// Mark the output the build drew, to tell it from a redrawn one.
	evalT[bool](t, ctx, `document.querySelector('`+root+` [data-region="output"]').firstElementChild.dataset.drawnBy = "build", true`)
	// Nothing runs while nobody is there: a generous wait, since a loader
	// that ran at once would hydrate within a fraction of it.
	time.Sleep(time.Second)
	if st := evalT[string](t, ctx, `document.querySelector('`+loader+`').dataset.state`); st != "ready" {
		t.Fatalf("with no input the module is %q, want ready (not running)", st)
	}
	if evalT[bool](t, ctx, `document.querySelector('`+root+`').hasAttribute("data-hydrated")`) {
		t.Fatal("the widget was hydrated before any input")
	}

	if err := chromedp.Do(ctx, arrive(), chromedp.WaitVisible(chromedp.CSS(root+`[data-hydrated="true"]`))); err != nil {
		t.Fatalf("the widget never became interactive after the reader's input: %v (console: %v)", err, con.problems())
	}
	if by := evalT[string](t, ctx, `document.querySelector('`+root+` [data-region="output"]').firstElementChild.dataset.drawnBy || ""`); by != "build" {
		t.Error("hydrating redrew the output, whose state was the one the page showed")
	}
	if ms := evalT[string](t, ctx, `document.querySelector('`+root+`').dataset.ms || ""`); ms != "" {
		t.Errorf("hydrating re-ran the widget (data-ms %s)", ms)
	}

	// The first change redraws it.
	sel := chromedp.CSS(root + ` select[name="keys"]`)
	if err := chromedp.Do(ctx, chromedp.Focus(sel), chromedp.SendKeys(sel, "per-i")); err != nil {
		t.Fatal(err)
	}
	waitOutcome(t, ctx, "1", "ch_1")
	if by := evalT[string](t, ctx, `document.querySelector('`+root+` [data-region="output"]').firstElementChild.dataset.drawnBy || ""`); by != "" {
		t.Error("the first change did not redraw the output")
	}
	clean(t, ctx, con)
}

// waitOutcome waits until the payment widget's outcome shows charges and
// receipt at the end of its run.
func waitOutcome(t *testing.T, ctx context.Context, charges, receipt string) {
	t.Helper()
	js := `(() => { const o = document.querySelector('` + paymentOutcome + `');
		return !!o && o.dataset.done === "true" && o.dataset.charges === "` + charges + `" && o.dataset.receipt === "` + receipt + `"; })()`
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.Run(wctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		c, r := outcomeOf(t, ctx)
		t.Fatalf("waiting for %s charges and receipt %s: %v (shown: %s, %q)", charges, receipt, err, c, r)
	}
}

// arrive is a reader's first input on the page: the pointer moving over
// it. The loader starts the module at the reader's first input once a
// widget is near the viewport (site/static/loader.js): a page nobody uses
// never runs it.
func arrive() chromedp.Action[chromedp.Void] {
	return chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 10, 10)
}

// grantClipboard lets the page at origin read and write the clipboard in
// ctx's browser context (a permission set without the context's id would
// go to the browser's default context, which no test's tab is in).
func grantClipboard(t *testing.T, ctx context.Context, origin string) {
	t.Helper()
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		if _, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission:       &browser.PermissionDescriptor{Name: name, AllowWithoutSanitization: true},
			Setting:          browser.PermissionSettingGranted,
			Origin:           origin,
			BrowserContextID: chromedp.FromContext(ctx).BrowserContextID,
		}); err != nil {
			t.Fatal(err)
		}
	}
}
