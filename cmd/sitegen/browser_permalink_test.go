package main

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/retrylab/retrylab/site/widget"
)

// A widget's permalink and Reset, and embeds in another site's page: what
// a reader who links, restores or embeds a widget sees.

// poll waits until js is true, failing the test with what after 15 s.
func poll(t *testing.T, ctx context.Context, js, what string) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if _, err := chromedp.Run(wctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// "Link to this state" is in the widget's toolbar, in view without
// opening Embed. A click copies the link and says so; where the Clipboard
// API cannot be used, the click follows the link, a permalink of the
// state shown.
func TestBrowserToolbarPermalink(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	const root = `[data-widget="payment"]`
	link := root + ` [data-region="permalink"]`
	want := ts.URL + "/double-charge/?w=payment-1&keys=per-intent#w-payment-1"
	openChanged := func(ctx context.Context, con *console) {
		if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/double-charge/"), arrive(),
			chromedp.ScrollIntoView(chromedp.CSS(root)),
			chromedp.WaitVisible(chromedp.CSS(root+`[data-hydrated="true"]`))); err != nil {
			t.Fatalf("the widget never became interactive: %v (console: %v)", err, con.problems())
		}
		sel := chromedp.CSS(root + ` select[name="keys"]`)
		if err := chromedp.Do(ctx, chromedp.Focus(sel), chromedp.SendKeys(sel, "per-i")); err != nil {
			t.Fatal(err)
		}
		waitOutcome(t, ctx, "1", "ch_1")
		// Visible, Embed closed: in the widget's head, a box of its own.
		got := evalT[[]any](t, ctx, `(() => { const a = document.querySelector('`+link+`');
			const r = a.getBoundingClientRect(), head = a.closest('.w-head');
			return [a.href, !!head, r.width > 0 && r.height > 0 && a.checkVisibility(), document.querySelector('`+root+` .w-embed').open]; })()`)
		if got[0] != want || got[1] != true || got[2] != true || got[3] != false {
			t.Fatalf("the link [href, in the head, visible, Embed open] = %v, want [%s true true false]", got, want)
		}
	}

	ctx := newBrowser(t)
	con := watchConsole(ctx)
	addCSPProbe(t, ctx)
	grantClipboard(t, ctx, ts.URL)
	openChanged(ctx, con)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(link))); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, `document.querySelector('`+root+` [data-region="link-copied"]').textContent === "Link copied."`, "the click never said the link was copied")
	if got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise)); err != nil || got != want {
		t.Errorf("the clipboard holds %q (%v), want %s", got, err, want)
	}
	if u := evalT[string](t, ctx, `location.href`); u != ts.URL+"/double-charge/" {
		t.Errorf("copying the link navigated to %s", u)
	}
	// Said of that state only: a change takes it back.
	sel := chromedp.CSS(root + ` select[name="keys"]`)
	if err := chromedp.Do(ctx, chromedp.Focus(sel), chromedp.SendKeys(sel, "o")); err != nil {
		t.Fatal(err)
	}
	waitOutcome(t, ctx, "2", "ch_2")
	if said := evalT[string](t, ctx, `document.querySelector('`+root+` [data-region="link-copied"]').textContent`); said != "" {
		t.Errorf("after a change the toolbar still says %q", said)
	}
	clean(t, ctx, con)

	// No Clipboard API (a page over plain http but localhost has none):
	// the link is a link.
	ctx2 := newBrowser(t)
	con2 := watchConsole(ctx2)
	if _, err := chromedp.Call(ctx2, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `Object.defineProperty(Navigator.prototype, "clipboard", { get() { return undefined; } });`,
	}); err != nil {
		t.Fatal(err)
	}
	openChanged(ctx2, con2)
	if err := chromedp.Do(ctx2, chromedp.Click(chromedp.CSS(link))); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		// Evaluated while the page navigates: an error is a page between
		// documents.
		u, err := chromedp.Run(ctx2, chromedp.Evaluate[string](`location.href`))
		if err == nil && u == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("without the Clipboard API the click did not follow the link: at %q (%v)", u, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	waitHydrated(t, ctx2, con2)
	waitOutcome(t, ctx2, "1", "ch_1")
}

// A permalink opens its page with the widget's title in view, below
// anything stuck to the top of the window, and the widget's top edge
// showing, on a desktop and on a phone, for widgets high and low in
// their pages, in a state the module redraws.
func TestBrowserPermalinkShowsTheTitle(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	links := []string{
		"/double-charge/?w=payment-1&keys=per-intent#w-payment-1",
		"/metastable-failure/?w=storm-2&skip-expired=off#w-storm-2",
		"/widgets/?w=lock-1&seed=3#w-lock-1",
		"/retry-budgets/?w=budget-1&retries=5#w-budget-1",
	}
	for _, size := range []struct {
		w, h   int64
		mobile bool
	}{{1280, 900, false}, {390, 844, true}} {
		for _, l := range links {
			ctx, con := sitePage(t, ts.URL, "", size.w, size.h, size.mobile, "")
			if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+l)); err != nil {
				t.Fatal(err)
			}
			id := l[strings.Index(l, "#")+1:]
			poll(t, ctx, `document.getElementById("`+id+`").dataset.hydrated === "true"`, l+": never hydrated")
			// Two frames, for the layout after the redraw.
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, chromedp.EvalAwaitPromise)); err != nil {
				t.Fatal(err)
			}
			got := evalT[[]float64](t, ctx, `(() => {
				const w = document.getElementById("`+id+`"), title = w.querySelector('.w-title').getBoundingClientRect();
				// The lowest bottom of anything fixed or sticky at the top.
				let stuck = 0;
				for (const e of document.querySelectorAll('body *')) {
					const p = getComputedStyle(e).position;
					if (p !== 'fixed' && p !== 'sticky') continue;
					const r = e.getBoundingClientRect();
					if (r.top <= 0 && r.bottom > 0 && r.left < title.right && r.right > title.left) stuck = Math.max(stuck, r.bottom);
				}
				const atBottom = Math.ceil(scrollY + innerHeight) >= document.documentElement.scrollHeight;
				return [title.top, title.bottom, stuck, w.getBoundingClientRect().top, innerHeight, atBottom ? 1 : 0];
			})()`)
			title, bottom, stuck, top, height, atBottom := got[0], got[1], got[2], got[3], got[4], got[5] == 1
			t.Logf("%dx%d %s: title %.0f-%.0f, widget's top %.0f, stuck until %.0f", size.w, size.h, l, title, bottom, top, stuck)
			if title < stuck || bottom > height {
				t.Errorf("%dx%d %s: the title is at %.0f-%.0f px in a %.0f px window, below a header to %.0f px", size.w, size.h, l, title, bottom, height, stuck)
			}
			// The widget's border shows, with room above it, unless the
			// page ends before it can scroll that far.
			if top < stuck+8 && !atBottom {
				t.Errorf("%dx%d %s: the widget's top edge is at %.0f px, want at least 8 px below %.0f", size.w, size.h, l, top, stuck)
			}
			if p := con.problems(); len(p) > 0 {
				t.Errorf("%s: console problems: %v", l, p)
			}
		}
	}
}

// Reset sets a widget back to the article's values, the ones its block
// was built with, not the declaration's defaults nor a permalink's; it
// takes the permalink out of the address. On an embed page it goes back
// to the snippet's values.
func TestBrowserReset(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx := newBrowser(t)
	con := watchConsole(ctx)
	addCSPProbe(t, ctx)
	const root = `[data-widget="payment"]`
	controls := `(() => { const r = document.querySelector('` + root + `');
		return [r.querySelector('select[name="keys"]').value, r.querySelector('input[name="attempts"]').value, r.dataset.params]; })()`
	// /idempotency-keys/ builds its widget with keys per-attempt; the
	// declaration's default is off.
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/idempotency-keys/")); err != nil {
		t.Fatal(err)
	}
	article := evalT[[]string](t, ctx, controls)
	if article[0] != "per-attempt" {
		t.Fatalf("the article's widget has keys %q, want per-attempt", article[0])
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/idempotency-keys/?w=payment-1&keys=per-intent&attempts=4#w-payment-1")); err != nil {
		t.Fatal(err)
	}
	waitHydrated(t, ctx, con)
	if got := evalT[[]string](t, ctx, controls); got[0] != "per-intent" || got[1] != "4" {
		t.Fatalf("the permalink shows keys %q, attempts %q", got[0], got[1])
	}
	reset := chromedp.CSS(root + ` button[data-action="reset"]`)
	if err := chromedp.Do(ctx, chromedp.Click(reset)); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, `document.querySelector('`+root+`').dataset.params === `+jsString(article[2]), "Reset did not bring back the article's values")
	if got := evalT[[]string](t, ctx, controls); got[0] != article[0] || got[1] != article[1] {
		t.Errorf("after Reset: keys %q, attempts %q, want %q, %q", got[0], got[1], article[0], article[1])
	}
	if u := evalT[string](t, ctx, `location.href`); u != ts.URL+"/idempotency-keys/#w-payment-1" {
		t.Errorf("after Reset the address is %s, want the page without the permalink's query", u)
	}
	if href := evalT[string](t, ctx, `document.querySelector('`+root+` [data-region="permalink"]').getAttribute('href')`); href != "?w=payment-1&keys=per-attempt#w-payment-1" {
		t.Errorf("after Reset the permalink is %q", href)
	}
	// A change, then Reset again: the article's values, once more.
	sel := chromedp.CSS(root + ` select[name="keys"]`)
	if err := chromedp.Do(ctx, chromedp.Focus(sel), chromedp.SendKeys(sel, "o"), chromedp.Click(reset)); err != nil {
		t.Fatal(err)
	}
	poll(t, ctx, `document.querySelector('`+root+`').dataset.params === `+jsString(article[2]), "a second Reset did not bring back the article's values")
	clean(t, ctx, con)

	// An embed page: back to the snippet's state.
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/embed/payment/?keys=per-intent")); err != nil {
		t.Fatal(err)
	}
	waitHydrated(t, ctx, con)
	// The module sets the controls to the query's state and runs it.
	poll(t, ctx, `document.querySelector('`+root+`').dataset.params.includes('"keys":"per-intent"')`, "the embed page never showed its query's state")
	snippet := evalT[string](t, ctx, `document.querySelector('`+root+`').dataset.params`)
	if err := chromedp.Do(ctx, chromedp.Focus(sel), chromedp.SendKeys(sel, "o")); err != nil {
		t.Fatal(err)
	}
	waitOutcome(t, ctx, "2", "ch_2")
	if err := chromedp.Do(ctx, chromedp.Click(reset)); err != nil {
		t.Fatal(err)
	}
	waitOutcome(t, ctx, "1", "ch_1")
	if got := evalT[string](t, ctx, `document.querySelector('`+root+`').dataset.params`); got != snippet {
		t.Errorf("Reset on the embed page gives %s, want the snippet's %s", got, snippet)
	}
	if u := evalT[string](t, ctx, `location.href`); u != ts.URL+"/embed/payment/?keys=per-intent" {
		t.Errorf("Reset changed the embed page's address to %s", u)
	}
	clean(t, ctx, con)
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// hostPage serves a page of another site, on another origin (the port
// differs), holding body and embed.js from the handbook at site.
func hostPage(t *testing.T, site, body string) *httptest.Server {
	t.Helper()
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><html lang="en"><head><title>Someone's docs</title>
<style>body { margin: 0 auto; max-width: 720px; font: 16px sans-serif; background: #fff; color: #000; }</style></head>
<body><h1>Someone's docs</h1>` + body + `<script src="` + site + `/embed.js" async></script></body></html>`))
	}))
	t.Cleanup(host.Close)
	return host
}

// A snippet embed.js cannot show, an unknown name or theme, is a short
// message in its place, in the snippet's words; a data- value the
// widget refuses is told inside the frame in the same words. The link
// inside an embed opens the article in a new tab, in the embed's state.
func TestBrowserEmbedSnippetMistakes(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	host := hostPage(t, ts.URL, `
<div id="a" data-retrylab="paymnt"></div>
<div id="b" data-retrylab="payment" data-theme="blue"></div>
<div id="c" data-retrylab="payment" data-keys="bogus"></div>
<div id="d" data-retrylab="payment" data-keys="per-intent"></div>`)
	ctx := newBrowser(t)
	con := watchConsole(ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(host.URL+"/")); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		"a": `retrylab: data-retrylab="paymnt" on the embed snippet: no simulator has that name (known: backoff, budget, `,
		"b": `retrylab: data-theme="blue" on the embed snippet is not allowed (allowed: light, dark, auto).`,
	} {
		got := evalT[[]any](t, ctx, `(() => { const d = document.getElementById("`+id+`");
			return [d.textContent, d.querySelectorAll('iframe').length, d.getBoundingClientRect().height]; })()`)
		if !strings.HasPrefix(got[0].(string), want) || got[1].(float64) != 0 || got[2].(float64) > 80 {
			t.Errorf("#%s: [text, frames, height] = %v, want a box under 80 px that says %q", id, got, want)
		}
	}
	if n := evalT[int](t, ctx, `document.querySelectorAll('iframe').length`); n != 2 {
		t.Fatalf("%d frames, want the two good names'", n)
	}

	// Inside the frames: each page, by its own tab at the frame's address
	// (the frame's name is what embed.js gives it).
	frame := func(id string) context.Context {
		src := evalT[string](t, ctx, `document.querySelector('#`+id+` iframe').src`)
		name := evalT[string](t, ctx, `document.querySelector('#`+id+` iframe').name`)
		tab, cancel := chromedp.NewContext(ctx)
		t.Cleanup(cancel)
		if _, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.name = ` + jsString(name) + `;`,
		}); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(tab, chromedp.Navigate(src)); err != nil {
			t.Fatal(err)
		}
		return tab
	}
	c := frame("c")
	ccon := watchConsole(c)
	waitHydrated(t, c, ccon)
	msg := evalT[string](t, c, `document.querySelector('.w-error').textContent`)
	if want := `data-keys="bogus" on the embed snippet is not allowed (allowed: off, per-intent, per-attempt).`; msg != want {
		t.Errorf("the frame says %q, want %q", msg, want)
	}
	d := frame("d")
	dcon := watchConsole(d)
	waitHydrated(t, d, dcon)
	links := evalT[[][]string](t, d, `[...document.querySelectorAll('a[href]')].map(a => [a.getAttribute('href'), a.target, a.rel])`)
	if len(links) != 2 {
		t.Fatalf("the embed page's links: %q, want the toolbar's and the credit's", links)
	}
	for _, l := range links {
		if l[1] != "_blank" || l[2] != "noopener" {
			t.Errorf("the link %q opens in %q (rel %q), want a new tab", l[0], l[1], l[2])
		}
	}
	poll(t, d, `document.querySelector('a[href]').getAttribute('href') === "/double-charge/?w=payment-1&keys=per-intent#w-payment-1"`, "the toolbar's link never named the embed's state")
	links = evalT[[][]string](t, d, `[...document.querySelectorAll('a[href]')].map(a => [a.getAttribute('href'), a.target, a.rel])`)
	if links[0][0] != "/double-charge/?w=payment-1&keys=per-intent#w-payment-1" {
		t.Errorf("the toolbar's link is %q, want the chapter in the embed's state", links[0][0])
	}
	if p := con.problems(); len(p) > 0 {
		t.Errorf("console problems on the host page: %v", p)
	}
}

// data-theme: an embed is light by default whatever the reader's system
// prefers, dark when asked, and follows the system with auto. Read from
// the pixels of the host page, at the top of each frame's widget. The
// system's preference is the browser's own setting, as the OS gives it
// (blink-settings): emulating prefers-color-scheme instead would force
// it on every frame, whatever the frame's color-scheme.
func TestBrowserEmbedTheme(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	host := hostPage(t, ts.URL, `
<div id="none" data-retrylab="cas"></div>
<div id="light" data-retrylab="cas" data-theme="light"></div>
<div id="dark" data-retrylab="cas" data-theme="dark"></div>
<div id="auto" data-retrylab="cas" data-theme="auto"></div>`)
	// Blink's preferredColorScheme: 0 is dark, 1 light.
	for system, setting := range map[string]string{"dark": "preferredColorScheme=0", "light": "preferredColorScheme=1"} {
		ctx := newTab(t, sharedBrowser(t, chromedp.Flag("blink-settings", setting)))
		con := watchConsole(ctx)
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 4000), chromedp.Navigate(host.URL+"/")); err != nil {
			t.Fatal(err)
		}
		// Every frame loaded and sized to its page.
		poll(t, ctx, `[...document.querySelectorAll('iframe')].every(f => f.getBoundingClientRect().height !== 400)`, system+": the frames never took their pages' heights")
		time.Sleep(500 * time.Millisecond)
		shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"none": "light", "light": "light", "dark": "dark", "auto": system}
		for id, theme := range want {
			// The middle of the widget's top padding: 8 px of the page's
			// margin, the border, 3 px in.
			at := evalT[[]float64](t, ctx, `(() => { const r = document.querySelector('#`+id+` iframe').getBoundingClientRect();
				return [r.left + r.width / 2, r.top + 12]; })()`)
			r, g, b, _ := img.At(int(at[0]), int(at[1])).RGBA()
			lum := (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 65535
			got := "light"
			if lum < 0.5 {
				got = "dark"
			}
			if got != theme {
				t.Errorf("system %s, %s: the widget is %s (luminance %.2f), want %s", system, id, got, lum, theme)
			}
		}
		if p := con.problems(); len(p) > 0 {
			t.Errorf("console problems: %v", p)
		}
	}
}

// A permalink to a widget far down a page of many lands with the widget's
// title at the top of the window, below its scroll margin, and stays there
// while the widgets above it are made interactive and its own state is
// run: on a desktop and on a phone whose CPU is four times slower.
func TestBrowserPermalinkLandsOnItsWidget(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	browser := sharedBrowser(t)
	for _, page := range []string{"/widgets/", "/concurrent-duplicates/"} {
		for _, phone := range []bool{false, true} {
			ctx := newTab(t, browser)
			con := watchConsole(ctx)
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(ts.URL+page)); err != nil {
				t.Fatal(err)
			}
			// A permalink to the last widget, with its first choice of
			// several set to another value than the page's: the module
			// sets it and the simulator worker runs it after the landing.
			last := evalT[[]string](t, ctx, `(w => [w.id, w.dataset.widget, w.dataset.params])([...document.querySelectorAll('[data-widget]')].at(-1))`)
			w, err := widget.Find(last[1])
			if err != nil {
				t.Fatal(err)
			}
			v, err := w.Schema.ParseJSON(last[2])
			if err != nil {
				t.Fatal(err)
			}
			changed := false
			for _, p := range w.Schema {
				if p.Kind == widget.Enum && len(p.Allowed) > 1 {
					other := p.Allowed[0]
					if other == v.String(p.Name) {
						other = p.Allowed[1]
					}
					if v, err = v.With(p.Name, other); err != nil {
						t.Fatal(err)
					}
					changed = true
					break
				}
			}
			if !changed {
				t.Fatalf("%s: the last widget, %s, has no choice to change", page, w.Name)
			}
			href := ts.URL + page + widget.Permalink(last[0], v)
			size := chromedp.EmulateViewport(1280, 900)
			if phone {
				size = chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)
				if _, err := chromedp.Call(ctx, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: 4}); err != nil {
					t.Fatal(err)
				}
			}
			if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), size, chromedp.Navigate(href)); err != nil {
				t.Fatal(err)
			}
			waitHydrated(t, ctx, con)
			poll(t, ctx, `![...document.querySelectorAll('[data-widget]')].some(w => w.hasAttribute("aria-busy"))`, page+": the widgets never settled")
			if got := evalT[string](t, ctx, `document.getElementById(`+strconv.Quote(last[0])+`).dataset.params`); got != v.JSON() {
				t.Fatalf("%s: the widget shows %s, want the permalink's %s", page, got, v.JSON())
			}
			// Long enough for a late layout shift to show.
			if err := chromedp.Do(ctx, chromedp.Sleep(500*time.Millisecond)); err != nil {
				t.Fatal(err)
			}
			off := evalT[float64](t, ctx, `(() => { const r = document.getElementById(new URL(`+strconv.Quote(href)+`).hash.slice(1));
				return Math.round(r.getBoundingClientRect().top - parseFloat(getComputedStyle(r).scrollMarginTop)) + 0; })()`) // + 0: never -0
			if off != 0 {
				t.Errorf("%s (phone %v, now at %s): the widget %s landed %v px below its scroll margin (negative: its title is above the window)", page, phone, evalT[string](t, ctx, "location.href"), href, off)
			}
			clean(t, ctx, con)
		}
	}
}
