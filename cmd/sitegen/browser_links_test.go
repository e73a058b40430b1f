package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// The links in the prose that set a widget (site/markdown/widgetlink.go,
// wasm/links.go), on the double charge's first "what to try": set the
// keys per intent.
const (
	keysLink    = `a[data-widget-link="payment-1"][href*="keys=per-intent"]`
	paymentRoot = `#w-payment-1`
)

// titleInView is true when the widget's title is inside the window.
const titleInView = `(() => { const r = document.querySelector('` + paymentRoot + ` .w-title').getBoundingClientRect();
	return r.top >= 0 && r.bottom <= innerHeight; })()`

// With the module, a click on the link sets the widget in place: its
// control and its figures change, the page neither reloads nor navigates,
// the widget comes into view, and the control that changed is marked for a
// moment, with a transition but none under reduced motion.
func TestBrowserWidgetLink(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx := newBrowser(t)
	p := &wpage{t: t, ctx: ctx, con: watchConsole(ctx), name: "payment"}
	addCSPProbe(t, ctx)
	p.do(chromedp.Navigate(ts.URL+"/double-charge/"),
		chromedp.ScrollIntoView(chromedp.CSS(paymentRoot)),
		chromedp.WaitVisible(chromedp.CSS(paymentRoot+`[data-hydrated="true"]`)))
	if c := p.figure("charges"); c != "2" {
		t.Fatalf("before the click: data-charges=%q, want 2", c)
	}
	// A mark that a navigation or a reload would wipe, and a record of
	// every control the module marks as changed.
	before := evalT[string](t, ctx, `(() => {
		window.__samePage = true;
		window.__marked = [];
		new MutationObserver(ms => { for (const m of ms) {
			const el = m.target;
			if (el.classList.contains("w-changed") && el.name && !window.__marked.includes(el.name)) window.__marked.push(el.name);
		} }).observe(document.querySelector('`+paymentRoot+`'), {subtree: true, attributes: true, attributeFilter: ["class"]});
		document.querySelector('`+keysLink+`').scrollIntoView({block: "center"});
		return location.href + " " + history.length; })()`)
	if evalT[bool](t, ctx, titleInView) {
		t.Fatal("the widget's title is in view before the click: the test cannot see the scroll")
	}

	p.do(chromedp.Click(chromedp.CSS(keysLink)))
	p.waitFigure("charges", "1")
	if r := p.figure("receipt"); r != "ch_1" {
		t.Errorf("after the click: data-receipt=%q, want ch_1", r)
	}
	if v := evalT[string](t, ctx, `document.querySelector('`+p.control("keys")+`').value`); v != "per-intent" {
		t.Errorf("the keys control reads %q, want per-intent", v)
	}
	if same := evalT[bool](t, ctx, `window.__samePage === true`); !same {
		t.Fatal("the click reloaded or left the page")
	}
	if after := evalT[string](t, ctx, `location.href + " " + history.length`); after != before {
		t.Errorf("the click navigated: address and history %q, before it %q", after, before)
	}
	p.waitJS(titleInView)
	// The mark outlasts the scroll, so the reader sees it.
	if on := evalT[bool](t, ctx, `document.querySelector('`+p.control("keys")+`').classList.contains("w-changed")`); !on {
		t.Error("the changed control is no longer marked when the widget comes into view")
	}
	if marked := evalT[[]string](t, ctx, `window.__marked`); strings.Join(marked, ",") != "keys" {
		t.Errorf("controls marked as changed: %v, want [keys]", marked)
	}
	if label := evalT[bool](t, ctx, `document.querySelector('`+paymentRoot+` label[for="w-payment-1-keys"]').classList.contains("w-changed")`); !label {
		t.Error("the changed control's label is not marked")
	}
	// The mark fades in and out, and lasts a moment only.
	if d := evalT[string](t, ctx, `getComputedStyle(document.querySelector('`+p.control("keys")+`')).transitionDuration`); d != "0.3s" {
		t.Errorf("the mark's transition lasts %q", d)
	}
	p.waitJS(`document.querySelectorAll('` + paymentRoot + ` .w-changed').length === 0`)
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}},
	}); err != nil {
		t.Fatal(err)
	}
	if d := evalT[string](t, ctx, `getComputedStyle(document.querySelector('`+p.control("keys")+`')).transitionDuration`); strings.Trim(d, "0s, ") != "" {
		t.Errorf("under reduced motion the mark's transition lasts %q", d)
	}
	// Nor does the page glide to the widget: it is in view as soon as the
	// click has been handled.
	const perAttempt = `a[data-widget-link="payment-1"][href*="keys=per-attempt"]`
	if evalT[bool](t, ctx, `document.querySelector('`+perAttempt+`').scrollIntoView({block: "center"}), `+titleInView) {
		t.Fatal("the widget's title is in view before the second click")
	}
	p.do(chromedp.Click(chromedp.CSS(perAttempt)))
	if !evalT[bool](t, ctx, titleInView) {
		t.Errorf("under reduced motion the widget is not in view at once after the click: %v", evalT[string](t, ctx, `(() => { const q = s => { const r = document.querySelector('`+paymentRoot+` ' + s).getBoundingClientRect(); return s + " " + Math.round(r.top) + ".." + Math.round(r.bottom); };
			return [q(".w-title"), q(".w-output"), q(".w-outcome"), "scrollY " + scrollY, "window " + innerHeight].join(", "); })()`))
	}
	p.waitFigure("charges", "2")
	clean(t, ctx, p.con)
}

// Before the module runs (here: never, its download blocked) the link is
// a permalink: the click navigates to the page with the widget in the
// link's state, which the module, once it can load, restores.
func TestBrowserWidgetLinkWithoutModule(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx := newBrowser(t)
	block := func(on bool) {
		t.Helper()
		var patterns []*network.BlockPattern
		if on {
			patterns = []*network.BlockPattern{{URLPattern: ts.URL + "/*.wasm", Block: true}}
		}
		if _, err := chromedp.Call(ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: patterns}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	block(true)
	p := &wpage{t: t, ctx: ctx, con: watchConsole(ctx), name: "payment"}
	p.do(chromedp.Navigate(ts.URL+"/double-charge/"), chromedp.WaitVisible(chromedp.CSS(keysLink)))
	href := evalT[string](t, ctx, `window.__samePage = true; document.querySelector('`+keysLink+`').href`)
	if want := ts.URL + "/double-charge/?w=payment-1&keys=per-intent#w-payment-1"; href != want {
		t.Errorf("the link's href is %s, want %s", href, want)
	}
	p.do(chromedp.Click(chromedp.CSS(keysLink)))
	// The poll's page goes away with the navigation: ask again until the
	// new one answers.
	navigated := `location.href === "` + href + `" && window.__samePage === undefined && document.readyState === "complete"`
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](navigated)); err == nil && ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the click did not open %s (the page is at %s)", href, evalT[string](t, ctx, `location.href`))
		}
	}
	if c := p.figure("charges"); c != "2" {
		t.Errorf("without the module the page changed the widget: data-charges=%q", c)
	}

	block(false)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(wctx, chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(paymentRoot+`[data-hydrated="true"]`))); err != nil {
		t.Fatalf("the permalink's widget never became interactive: %v (console: %v)", err, p.con.problems())
	}
	p.waitFigure("charges", "1")
	if v := evalT[string](t, ctx, `document.querySelector('`+p.control("keys")+`').value`); v != "per-intent" {
		t.Errorf("the permalink restored the keys control as %q, want per-intent", v)
	}
}
