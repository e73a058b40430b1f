package main

import (
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The outbox chapter's widget draws the system (site/widget/system.go) on
// a phone: each step moves its row or message between the parts it goes
// between, the drawing fits the width, and "Crash here" on the relay sets
// the crash as its checkbox does, from the pointer and the keyboard.
func TestBrowserSystem(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx := newBrowser(t)
	p := &wpage{t: t, ctx: ctx, con: watchConsole(ctx), name: "outbox"}
	addCSPProbe(t, ctx)
	const root = `#w-outbox-1`
	const fig = root + ` [data-figure="system"]`
	p.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
		chromedp.Navigate(ts.URL+"/outbox-and-inbox/"),
		chromedp.ScrollIntoView(chromedp.CSS(root)), arrive(),
		chromedp.WaitVisible(chromedp.CSS(root+`[data-hydrated="true"]`)))

	move := func() string {
		return evalT[string](t, ctx, `(f => f.dataset.from ? f.dataset.from + ">" + f.dataset.to + " " + f.dataset.item : "")(document.querySelector('`+fig+`'))`)
	}
	// What a phone shows wider than itself: the page, or a part of the
	// drawing (but the text alternative, which is clipped to a pixel).
	wide := func() []string {
		return evalT[[]string](t, ctx, `(() => {
			const out = [];
			if (document.documentElement.scrollWidth > innerWidth) out.push("the page: " + document.documentElement.scrollWidth + " px");
			for (const e of document.querySelectorAll('`+fig+`, `+fig+` *'))
				if (!e.closest('.w-sr') && e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) out.push(e.className + ": " + e.scrollWidth + " px in " + e.clientWidth);
			return out; })()`)
	}
	want := []string{"", "app>outbox evt_1", "relay>broker evt_1", "", "", "relay>broker evt_1", "relay>outbox evt_1", "broker>consumer evt_1", "broker>consumer evt_1"}
	if got := move(); got != want[len(want)-1] {
		t.Errorf("the page's first state moves %q, want the last step's %q", got, want[len(want)-1])
	}
	forward := chromedp.CSS(root + ` button[data-action="forward"]`)
	p.do(chromedp.Focus(forward))
	p.press(kb.Home)
	p.waitJS(`document.querySelector('` + root + `').dataset.step === "0"`)
	for step, w := range want {
		if step > 0 {
			p.do(chromedp.Click(forward))
			p.waitJS(`document.querySelector('` + root + `').dataset.step === "` + strconv.Itoa(step) + `"`)
		}
		if got := move(); got != w {
			t.Errorf("step %d moves %q, want %q", step, got, w)
		}
		if w := wide(); len(w) > 0 {
			t.Errorf("step %d: wider than a phone: %v", step, w)
		}
	}
	crashMarked := `!!document.querySelector('` + fig + ` [data-part="relay"] .w-fault:not(.held)')`
	if !evalT[bool](t, ctx, crashMarked) {
		t.Error("at the end, the relay's crash is not marked on it")
	}

	// "Crash here", clicked, turns the crash off: the checkbox follows,
	// the run is the one without a crash, and the button keeps the focus.
	button := fig + ` button[data-action="toggle"][data-param="relay-crash"]`
	p.do(chromedp.Click(chromedp.CSS(button)))
	p.waitJS(`document.querySelector('` + root + ` .w-outcome').dataset.published === "1"`)
	p.waitJS(`JSON.parse(document.querySelector('` + root + `').dataset.params)["relay-crash"] === false`)
	if evalT[bool](t, ctx, `document.querySelector('`+root+` input[name="relay-crash"]').checked`) {
		t.Error("after Crash here, the relay-crash checkbox is still checked")
	}
	if got := evalT[string](t, ctx, `document.querySelector('`+button+`').getAttribute("aria-pressed")`); got != "false" {
		t.Errorf("after Crash here turned the crash off, the button is pressed: %s", got)
	}
	if evalT[bool](t, ctx, `!!document.querySelector('`+fig+` .w-fault')`) {
		t.Error("without the crash, the relay is marked")
	}
	if !evalT[bool](t, ctx, `document.activeElement === document.querySelector('`+button+`')`) {
		t.Error("the redrawn figure took the focus off Crash here")
	}
	// From the keyboard, the crash again.
	p.press(kb.Enter)
	p.waitJS(`document.querySelector('` + root + ` .w-outcome').dataset.published === "2"`)
	if !evalT[bool](t, ctx, `document.querySelector('`+root+` input[name="relay-crash"]').checked`) {
		t.Error("after Crash here again, the relay-crash checkbox is not checked")
	}
	if got := evalT[string](t, ctx, `document.querySelector('`+button+`').getAttribute("aria-pressed")`); got != "true" {
		t.Errorf("with the crash on again, the button is not pressed: %s", got)
	}
	if !evalT[bool](t, ctx, crashMarked) {
		t.Error("with the crash on again, it is not marked")
	}
	if w := wide(); len(w) > 0 {
		t.Errorf("wider than a phone: %v", w)
	}
	p.clean()
}
