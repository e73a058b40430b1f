package main

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/retrylab/retrylab/site/widget"
)

// Phones and pages without JavaScript: the widgets on a 390×844 touch
// screen, their list parameters, a figure wider than the screen, and
// what a widget says of its settings when its controls cannot work.

// phoneTab opens path of base in a tab of browser at 390×844, a phone's
// mobile viewport with touch when touch is set (the primary pointer is
// then coarse and cannot hover), with the CSP probe installed, and, with
// the module allowed (script), waits until the page's first widget is
// interactive.
func phoneTab(t *testing.T, browser context.Context, base, path string, touch, script bool) (context.Context, *console) {
	t.Helper()
	ctx := newTab(t, browser)
	con := watchConsole(ctx)
	addCSPProbe(t, ctx)
	opts := []chromedp.EmulateViewportOption{chromedp.EmulateMobile}
	if touch {
		opts = append(opts, chromedp.EmulateTouch)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, opts...)); err != nil {
		t.Fatal(err)
	}
	if !script {
		if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled,
			emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+path)); err != nil {
		t.Fatal(err)
	}
	if script {
		first := chromedp.CSS("[data-widget]")
		if err := chromedp.Do(ctx, chromedp.ScrollIntoView(first), arrive(),
			chromedp.WaitVisible(chromedp.CSS(`[data-widget][data-hydrated="true"]`))); err != nil {
			t.Fatalf("%s: the first widget never became interactive: %v (console: %v)", path, err, con.problems())
		}
	}
	return ctx, con
}

// A touch screen has no keys to press: the replay's keyboard hint is not
// shown there, and is on a desktop.
func TestBrowserTouchHidesKeyHint(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	browser := sharedBrowser(t)
	const shown = `(() => { const k = document.querySelector(".w-keys"); return !!k && k.getClientRects().length > 0; })()`

	ctx, con := phoneTab(t, browser, ts.URL, "/embed/payment/", true, true)
	if !evalT[bool](t, ctx, `matchMedia("(hover: none) and (pointer: coarse)").matches`) {
		t.Fatal("touch emulation does not make the pointer coarse: the test cannot see the hint's rule")
	}
	if evalT[bool](t, ctx, shown) {
		t.Error("on a touch screen the replay shows its keyboard shortcuts")
	}
	clean(t, ctx, con)

	ctx, con = phoneTab(t, browser, ts.URL, "/embed/payment/", false, true)
	if !evalT[bool](t, ctx, shown) {
		t.Error("with a mouse, at a phone's width, the keyboard shortcuts are not shown")
	}
	clean(t, ctx, con)
}

// controlsColumn measures a widget's controls, More parameters open: for
// each a sentence of what is wrong with the one tidy column a phone
// should show. Every control's box lies within the form; every label
// sits above its control and starts where it starts, a list's legend
// where its items start; a list's items sit one under the other, the
// replay's buttons in one row; and the form does not scroll sideways.
const controlsColumn = `(() => {
	const root = document.querySelector("[data-widget]"), form = root.querySelector("form.w-controls");
	const more = form.querySelector("details.w-more"); if (more) more.open = true;
	const f = form.getBoundingClientRect(), out = [];
	const near = (a, b) => Math.abs(a - b) <= 1;
	const name = e => e.getAttribute("aria-label") || e.name || e.textContent.trim().slice(0, 30);
	for (const c of form.querySelectorAll("select, input, button, fieldset")) {
		const r = c.getBoundingClientRect();
		if (r.width === 0) continue;
		if (r.left < f.left - 0.5 || r.right > f.right + 0.5) out.push(name(c) + " runs from " + r.left.toFixed(0) + " to " + r.right.toFixed(0) + ", outside the form's " + f.left.toFixed(0) + " to " + f.right.toFixed(0));
	}
	for (const l of form.querySelectorAll("label.w-field")) {
		const c = document.getElementById(l.htmlFor);
		const a = l.getBoundingClientRect(), b = c.getBoundingClientRect();
		if (!near(a.left, b.left)) out.push("the label " + JSON.stringify(l.textContent) + " starts at " + a.left.toFixed(0) + ", its control at " + b.left.toFixed(0));
		if (a.bottom > b.top + 0.5) out.push("the label " + JSON.stringify(l.textContent) + " is not above its control");
	}
	for (const set of form.querySelectorAll("fieldset.w-list")) {
		const items = [...set.querySelectorAll(".w-item")].filter(i => !i.hidden);
		const lg = set.querySelector("legend").getBoundingClientRect();
		items.forEach((it, i) => {
			const r = it.getBoundingClientRect();
			if (!near(r.left, lg.left)) out.push(set.dataset.param + " item " + (i + 1) + " starts at " + r.left.toFixed(0) + ", its legend at " + lg.left.toFixed(0));
			if (i > 0 && r.top < items[i - 1].getBoundingClientRect().bottom - 0.5) out.push(set.dataset.param + " item " + (i + 1) + " sits beside item " + i);
		});
	}
	const buttons = [...root.querySelectorAll(".w-buttons > button")].map(b => b.getBoundingClientRect());
	if (buttons.some(b => !near(b.top, buttons[0].top))) out.push("the replay's buttons wrap onto two rows");
	if (form.scrollWidth > form.clientWidth) out.push("the form scrolls sideways: " + form.scrollWidth + " px in " + form.clientWidth);
	return out;
})()`

// On a 390 px phone every widget's controls sit in one tidy column.
func TestBrowserPhoneControlsColumn(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	browser := sharedBrowser(t)
	for _, w := range widget.All() {
		ctx, con := phoneTab(t, browser, ts.URL, "/embed/"+w.Name+"/", true, true)
		for _, p := range evalT[[]string](t, ctx, controlsColumn) {
			t.Errorf("%s: %s", w.Name, p)
		}
		noOverflow(t, ctx, w.Name)
		clean(t, ctx, con)
	}
	// On a desktop a list keeps to the form's two columns: its legend
	// where the labels start, its items where the controls do.
	for _, name := range []string{"payment", "ordering"} {
		ctx := newTab(t, browser)
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(ts.URL+"/embed/"+name+"/")); err != nil {
			t.Fatal(err)
		}
		cols := evalT[[]float64](t, ctx, `(() => { const f = document.querySelector("form.w-controls"), left = s => f.querySelector(s).getBoundingClientRect().left;
			return [left("label.w-field"), left("fieldset.w-list legend"), left("label.w-field + select, label.w-field + input"), left(".w-item")]; })()`)
		if cols[0] != cols[1] || cols[2] != cols[3] {
			t.Errorf("%s at 1280 px: labels start at %.0f, the list's legend at %.0f; controls at %.0f, its items at %.0f", name, cols[0], cols[1], cols[2], cols[3])
		}
	}
}

// list reads a widget's list control: its items' values, which of them
// are hidden, and whether Add is enabled.
type list struct {
	Values []string
	Hidden []bool
	Add    bool
	Rest   string // what the items past the list stand for, if shown
}

func listOf(t *testing.T, ctx context.Context, param string) list {
	t.Helper()
	return evalT[list](t, ctx, `(() => { const set = document.querySelector('fieldset[data-param="`+param+`"]');
		const items = [...set.querySelectorAll(".w-item")], rest = set.querySelector(".w-item-rest");
		return {Values: items.map(i => i.querySelector("select").value), Hidden: items.map(i => i.hidden),
			Add: !set.querySelector(".w-add").disabled, Rest: rest && !rest.hidden ? rest.textContent : ""}; })()`)
}

// focused names the element that has the focus.
func focused(t *testing.T, ctx context.Context) string {
	t.Helper()
	return evalT[string](t, ctx, `document.activeElement.getAttribute("aria-label") || document.activeElement.tagName`)
}

// A list parameter shows the items in use with Add and Remove, from the
// keyboard: the widget re-runs on each, the focus stays in the list, and
// the permalink carries the list. Payment's faults stop at the attempts;
// a link in the prose sets a list of another length in place.
func TestBrowserListParameters(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	browser := sharedBrowser(t)

	ctx, con := phoneTab(t, browser, ts.URL, "/embed/ordering/", true, true)
	p := &wpage{t: t, ctx: ctx, con: con, name: "ordering"}
	if l := listOf(t, ctx, "arrival"); strings.Join(l.Values, ",") != "evt_2,evt_1,evt_2" || !l.Add {
		t.Fatalf("ordering's arrivals: %+v, want evt_2, evt_1, evt_2 and Add", l)
	}
	if n := evalT[int](t, ctx, `document.querySelectorAll('[data-param="arrival"] option[value=""]').length`); n != 0 {
		t.Errorf("%d blank choices among the arrivals", n)
	}
	add := chromedp.CSS(p.root() + ` [data-param="arrival"] .w-add`)
	p.do(chromedp.Focus(add), chromedp.KeyEvent(kb.Enter))
	p.waitJS(`document.querySelector('` + p.root() + `').dataset.params.includes('"arrival":["evt_2","evt_1","evt_2","evt_2"]')`)
	if f := focused(t, ctx); f != "Arrival order 4" {
		t.Errorf("after Add the focus is on %q, want the new item, Arrival order 4", f)
	}
	// The new item is a select like the others: set it from the keyboard.
	p.do(chromedp.SendKeys(chromedp.CSS(p.root()+` select[aria-label="Arrival order 4"]`), "evt_1"))
	p.waitJS(`document.querySelector('` + p.root() + `').dataset.params.includes('"arrival":["evt_2","evt_1","evt_2","evt_1"]')`)
	remove := chromedp.CSS(p.root() + ` [aria-label="Remove Arrival order 1"]`)
	p.do(chromedp.Focus(remove), chromedp.KeyEvent(kb.Enter))
	p.waitJS(`document.querySelector('` + p.root() + `').dataset.params.includes('"arrival":["evt_1","evt_2","evt_1"]')`)
	if f := focused(t, ctx); f != "Remove Arrival order 1" {
		t.Errorf("after Remove the focus is on %q, want the Remove button now first", f)
	}
	if link := evalT[string](t, ctx, `document.querySelector('`+p.root()+` [data-region="permalink"]').href`); !strings.Contains(link, "arrival=evt_1%2Cevt_2%2Cevt_1") {
		t.Errorf("the permalink %s does not carry the arrivals", link)
	}
	// Down to one arrival, which cannot go.
	for range 2 {
		p.do(chromedp.Focus(remove), chromedp.KeyEvent(kb.Enter))
	}
	p.waitJS(`document.querySelector('` + p.root() + `').dataset.params.includes('"arrival":["evt_1"]')`)
	if !evalT[bool](t, ctx, `document.querySelector('`+p.root()+` [aria-label="Remove Arrival order 1"]').disabled`) {
		t.Error("the last arrival can be removed")
	}
	p.clean()

	// Payment: one fault in use, the other attempts go through; Add stops
	// at the attempts, and offers again when they grow.
	ctx, con = phoneTab(t, browser, ts.URL, "/embed/payment/", true, true)
	p = &wpage{t: t, ctx: ctx, con: con, name: "payment"}
	if l := listOf(t, ctx, "faults"); strings.Join(l.Values, ",") != "lose-response" || !l.Add || l.Rest != "After these: ok" {
		t.Fatalf("payment's faults: %+v, want lose-response, Add, and the rest ok", l)
	}
	add = chromedp.CSS(p.root() + ` [data-param="faults"] .w-add`)
	p.do(chromedp.Click(add))
	p.do(chromedp.SendKeys(chromedp.CSS(p.root()+` select[aria-label="Network, attempt by attempt 2"]`), "lose-res"))
	p.waitFigure("charges", "3")
	p.do(chromedp.Click(add))
	if l := listOf(t, ctx, "faults"); len(l.Values) != 3 || l.Add || l.Rest != "" {
		t.Errorf("three faults for three attempts: %+v, want Add off and no rest", l)
	}
	p.typeNumber("attempts", "2")
	p.waitJS(`document.querySelector('` + p.root() + `').dataset.params.includes('"attempts":2')`)
	if l := listOf(t, ctx, "faults"); strings.Join(boolWords(l.Hidden), ",") != "shown,shown,hidden" || l.Add {
		t.Errorf("two attempts: %+v, want the third fault hidden and Add off", l)
	}
	p.typeNumber("attempts", "4")
	p.waitJS(`document.querySelector('` + p.root() + `').dataset.params.includes('"attempts":4')`)
	if l := listOf(t, ctx, "faults"); strings.Contains(strings.Join(boolWords(l.Hidden), ","), "hidden") || !l.Add {
		t.Errorf("four attempts: %+v, want every fault shown and Add on", l)
	}
	// Every fault removed: the network loses nothing, and the list reads
	// as empty, not as its default.
	first := chromedp.CSS(p.root() + ` [aria-label="Remove Network, attempt by attempt 1"]`)
	for range 3 {
		p.do(chromedp.Click(first))
	}
	p.waitJS(`document.querySelector('` + p.root() + `').dataset.params.includes('"faults":[]')`)
	p.waitFigure("charges", "1")
	if l := listOf(t, ctx, "faults"); len(l.Values) != 0 || l.Rest != "All: ok" || !l.Add {
		t.Errorf("no fault: %+v, want no item, every attempt ok, and Add", l)
	}
	if f := focused(t, ctx); f != "Add to Network, attempt by attempt" {
		t.Errorf("after the last Remove the focus is on %q, want Add", f)
	}
	p.clean()

	// A link in the prose with two faults, on a widget that shows one.
	ctx, con = phoneTab(t, browser, ts.URL, "/double-charge/", true, true)
	const worse = `a[data-widget-link="payment-1"][href*="faults=lose-response%2Close-response"]`
	if !evalT[bool](t, ctx, `!!document.querySelector('`+worse+`')`) {
		t.Fatal("no link in /double-charge/ sets two faults")
	}
	p = &wpage{t: t, ctx: ctx, con: con, name: "payment"}
	p.do(chromedp.Click(chromedp.CSS(worse)))
	p.waitFigure("charges", "3")
	if l := listOf(t, ctx, "faults"); strings.Join(l.Values, ",") != "lose-response,lose-response" {
		t.Errorf("after the link the faults read %v, want lose-response, lose-response", l.Values)
	}
	p.clean()
}

func boolWords(bs []bool) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = "shown"
		if b {
			out[i] = "hidden"
		}
	}
	return out
}

// A figure wider than a phone scrolls sideways inside its widget and
// shows that it does: a hint, and a shadow at the edge it goes on past;
// the keyboard scrolls it and a screen reader hears what it is. At a
// width it fits, it says nothing. On every widget's page at 390 px,
// anything wider than its box is such a scroller.
func TestBrowserWideFigureScrolls(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	browser := sharedBrowser(t)
	type scroller struct {
		Wide, Hint, Shadow bool
		Label, Tab         string
		Left               float64
	}
	const measure = `(() => { const s = document.querySelector(".g-scroll"), h = s.querySelector(".w-scroll-hint");
		return {Wide: s.scrollWidth > s.clientWidth, Hint: h.getClientRects().length > 0,
			Shadow: getComputedStyle(s).backgroundImage.includes("gradient"),
			Label: s.getAttribute("aria-label") || "", Tab: s.getAttribute("tabindex") || "", Left: s.scrollLeft}; })()`

	ctx, con := phoneTab(t, browser, ts.URL, "/embed/guard/?spread=10&n=30", true, true)
	p := &wpage{t: t, ctx: ctx, con: con, name: "guard"}
	p.waitJS(`document.querySelector('[data-widget]').dataset.params.includes('"spread":10')`)
	p.settled()
	// A scroll-state query answers a frame or more after the layout that
	// makes the box scroll.
	p.do(chromedp.Sleep(300 * time.Millisecond))
	s := evalT[scroller](t, ctx, measure)
	if !s.Wide {
		t.Fatal("guard's timeline of 30 requests spread over 10 steps fits a phone: the test cannot see the scroll")
	}
	if !s.Hint || !s.Shadow {
		t.Errorf("the timeline is wider than the phone and does not show it: hint shown %v, edge shadow %v", s.Hint, s.Shadow)
	}
	if s.Tab != "0" || !strings.Contains(s.Label, "scrolls sideways") {
		t.Errorf("the timeline's tabindex is %q and its name %q: the keyboard cannot reach it, or a screen reader is not told", s.Tab, s.Label)
	}
	p.do(chromedp.Focus(chromedp.CSS(".g-scroll")), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight), chromedp.Sleep(300*time.Millisecond))
	if s := evalT[scroller](t, ctx, measure); s.Left <= 0 {
		t.Error("the arrow keys do not scroll the timeline")
	}
	p.clean()

	// The default burst fits a desktop's widget: no hint.
	dctx := newTab(t, browser)
	if err := chromedp.Do(dctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(ts.URL+"/embed/guard/")); err != nil {
		t.Fatal(err)
	}
	if s := evalT[scroller](t, dctx, measure); s.Wide || s.Hint {
		t.Errorf("at 1280 px the default timeline is wide %v, shows its hint %v", s.Wide, s.Hint)
	}

	// Nothing else on a phone is wider than its box but a scroller (or
	// by an arrowhead's 2 px; the text for screen readers alone, in a
	// box of 1 px, is never seen).
	const unscrolled = `[...document.querySelectorAll("[data-widget] *")]
		.filter(e => !e.closest(".w-scroll") && e.clientWidth > 1 && e.scrollWidth > e.clientWidth + 2)
		.map(e => e.tagName.toLowerCase() + "." + [...e.classList].join(".") + " (" + e.scrollWidth + " px in " + e.clientWidth + ")")`
	for _, w := range widget.All() {
		ctx, con := phoneTab(t, browser, ts.URL, "/embed/"+w.Name+"/", true, true)
		if wide := evalT[[]string](t, ctx, unscrolled); len(wide) > 0 {
			t.Errorf("%s: wider than their box on a phone, and not a scroller: %v", w.Name, wide)
		}
		clean(t, ctx, con)
	}
}

// Without JavaScript every widget says which settings produced the run it
// shows, in words, generated from its declaration, and that trying others
// needs JavaScript; so does a link in the prose that would set a widget.
// With JavaScript the controls say it, and the caption is hidden; in
// print, where the controls are not, the caption is there again.
func TestBrowserSettingsCaption(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	browser := sharedBrowser(t)
	type caption struct{ Settings, Note string }
	const read = `(() => { const w = document.querySelector("[data-widget]"), shown = e => !!e && e.getClientRects().length > 0;
		const s = w.querySelector(".w-settings"), n = w.querySelector(".w-nojs");
		return {Settings: shown(s) ? s.textContent : "", Note: shown(n) ? n.textContent : ""}; })()`
	for _, w := range widget.All() {
		query := ""
		v := w.Schema.Defaults()
		if w.Name == "payment" {
			query = "?faults=lose-request,lose-response&attempts=4"
			var err error
			if v, err = w.Schema.ParseQuery(query[1:]); err != nil {
				t.Fatal(err)
			}
		}
		ctx, _ := phoneTab(t, browser, ts.URL, "/embed/"+w.Name+"/", false, false)
		c := evalT[caption](t, ctx, read)
		if want := "Settings: " + widget.Settings(w.Schema.Defaults()) + "."; c.Settings != want {
			t.Errorf("%s without JavaScript: the caption reads %q, want %q", w.Name, c.Settings, want)
		}
		if !strings.Contains(c.Note, "turn JavaScript on") {
			t.Errorf("%s without JavaScript: the note reads %q", w.Name, c.Note)
		}
		if query == "" {
			continue
		}
		// With JavaScript, once the module has drawn a query's state, the
		// controls say it: no caption.
		ctx, con := phoneTab(t, browser, ts.URL, "/embed/"+w.Name+"/"+query, false, true)
		p := &wpage{t: t, ctx: ctx, con: con, name: w.Name}
		p.waitJS(`document.querySelector('[data-widget]').dataset.params.includes('"attempts":4')`)
		if c := evalT[caption](t, ctx, read); c.Settings != "" || c.Note != "" {
			t.Errorf("%s with JavaScript: caption %q and note %q shown", w.Name, c.Settings, c.Note)
		}
		// The caption in the markup follows the state drawn.
		if got := evalT[string](t, ctx, `document.querySelector(".w-settings").textContent`); got != "Settings: "+widget.Settings(v)+"." {
			t.Errorf("%s: the redrawn caption reads %q", w.Name, got)
		}
		// On paper the controls are gone: the caption says the settings,
		// and no note speaks of JavaScript.
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"}); err != nil {
			t.Fatal(err)
		}
		if c := evalT[caption](t, ctx, read); c.Settings != "Settings: "+widget.Settings(v)+"." || c.Note != "" {
			t.Errorf("%s in print: caption %q, note %q", w.Name, c.Settings, c.Note)
		}
		// A reader's change is printed in its own settings too.
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: ""}); err != nil {
			t.Fatal(err)
		}
		p.typeNumber("attempts", "3")
		p.waitJS(`document.querySelector('[data-widget]').dataset.params.includes('"attempts":3')`)
		p.settled()
		changed, err := w.Schema.ParseQuery("faults=lose-request,lose-response&attempts=3")
		if err != nil {
			t.Fatal(err)
		}
		if got := evalT[string](t, ctx, `document.querySelector(".w-settings").textContent`); got != "Settings: "+widget.Settings(changed)+"." {
			t.Errorf("%s: after a change the caption reads %q, want %q", w.Name, got, "Settings: "+widget.Settings(changed)+".")
		}
		p.clean()
	}

	ctx, _ := phoneTab(t, browser, ts.URL, "/double-charge/", false, false)
	after := evalT[[]string](t, ctx, `[...document.querySelectorAll("a[data-widget-link]")].map(a => getComputedStyle(a, "::after").content)`)
	if len(after) == 0 {
		t.Fatal("no widget link in /double-charge/")
	}
	for i, a := range after {
		if a != `"(needs JavaScript)"` {
			t.Errorf("widget link %d says %s after it without JavaScript", i+1, a)
		}
	}
}

// No page of the site is wider than a phone: a page that is makes the
// phone's browser zoom the whole of it out (a table of 440 px did, on
// /concurrent-duplicates/). A figure wider than the screen scrolls in a
// box of its own. Without JavaScript, so that every page is laid out as
// the build wrote it.
func TestBrowserNoPageWiderThanAPhone(t *testing.T) {
	dir := builtSite(t)
	ts := serveSite(t, dir)
	browser := sharedBrowser(t)
	var pages []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "index.html" {
			return err
		}
		rel, err := filepath.Rel(dir, filepath.Dir(path))
		if err == nil && !strings.HasPrefix(rel, "embed") {
			pages = append(pages, strings.TrimSuffix("/"+filepath.ToSlash(rel), ".")+"/")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 20 {
		t.Fatalf("found %d pages: %v", len(pages), pages)
	}
	ctx := newTab(t, browser)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	// The page's width, and the outermost elements past the screen's edge.
	const wide = `(() => { const edge = document.documentElement.clientWidth + 1, past = e => e.getBoundingClientRect().right > edge;
		return [document.documentElement.scrollWidth, ...[...document.querySelectorAll("body *")]
		.filter(e => past(e) && !past(e.parentElement))
		.slice(0, 3).map(e => e.tagName.toLowerCase() + (e.className ? "." + String(e.className).split(" ").join(".") : ""))]; })()`
	for _, page := range pages {
		if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+page)); err != nil {
			t.Fatal(err)
		}
		got := evalT[[]any](t, ctx, wide)
		if w := got[0].(float64); w > 390 {
			t.Errorf("%s is %v px wide on a 390 px phone; too wide: %v", page, w, got[1:])
		}
	}
}
