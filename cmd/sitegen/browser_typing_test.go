package main

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// A number re-runs its widget as it is typed: "250" typed into Requests
// shows the run of 250 requests while the field still has the focus, with
// no error on the way; leaving the field then runs nothing again. A value
// the widget does not take, typed, waits for the field's change to be
// refused, as before.
func TestBrowserNumberRunsAsTyped(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx, con := sitePage(t, ts.URL, "", 1280, 900, false, "")
	p := &wpage{t: t, ctx: ctx, con: con, name: "budget"}
	p.do(chromedp.Navigate(ts.URL+"/embed/budget/"), arrive(),
		chromedp.WaitVisible(chromedp.CSS(p.root()+`[data-hydrated="true"]`)))
	// Every run drawn sets data-ms on the root.
	evalT[bool](t, ctx, `(() => { window.__runs = 0; new MutationObserver(ms => { window.__runs += ms.length; })
		.observe(document.querySelector('`+p.root()+`'), {attributes: true, attributeFilter: ["data-ms"]}); return true; })()`)

	field := chromedp.CSS(p.control("requests"))
	p.do(chromedp.Focus(field), chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)), chromedp.KeyEvent("250"))
	p.waitJS(`JSON.parse(document.querySelector('` + p.root() + `').dataset.params).requests === 250 && !document.querySelector('` + p.root() + `').hasAttribute("aria-busy")`)
	if !evalT[bool](t, ctx, `document.activeElement === document.querySelector('`+p.control("requests")+`')`) {
		t.Error("the run of the typed number took the focus from its field")
	}
	if e := p.fieldErrorOf(); e.Message != "" {
		t.Errorf("typing a number the widget takes shows an error: %+v", e)
	}
	runs := evalT[int](t, ctx, `window.__runs`)
	if runs == 0 {
		t.Fatal("no run was drawn for the typed number")
	}
	p.press(kb.Tab)
	if err := chromedp.Do(ctx, chromedp.Sleep(500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if after := evalT[int](t, ctx, `window.__runs`); after != runs {
		t.Errorf("leaving the field ran the typed number again: %d runs drawn, %d before", after, runs)
	}

	// 12 retries, over the 10 allowed: nothing runs while it is typed;
	// the change says what is wrong.
	retries := chromedp.CSS(p.control("retries"))
	p.do(chromedp.Focus(retries), chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)), chromedp.KeyEvent("12"))
	if err := chromedp.Do(ctx, chromedp.Sleep(500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if e := p.fieldErrorOf(); e.Message != "" {
		t.Errorf("while 12 is typed an error already shows: %+v", e)
	}
	p.press(kb.Tab)
	if e := p.waitError(true); e.Before != "retries" {
		t.Errorf("12 retries refused beside %q, want beside retries: %+v", e.Before, e)
	}
	// 2 typed in its place runs, and takes the error away.
	p.do(chromedp.Focus(retries), chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)), chromedp.KeyEvent("2"))
	p.waitError(false)
	p.waitJS(`JSON.parse(document.querySelector('` + p.root() + `').dataset.params).retries === 2`)
	p.clean()
}
