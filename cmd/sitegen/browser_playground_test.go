package main

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

const (
	pgReady   = `[data-playground][data-pg-state="ready"]`
	pgText    = `[data-pg-text]`
	pgWidget  = `[data-pg-preview] [data-widget="payment"]`
	pgProblem = `[data-pg-problems] li`
)

// waitJS polls js until it is true, or fails the test with what show
// evaluates to.
func waitJS(t *testing.T, ctx context.Context, what, js, show string) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := chromedp.Run(wctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		t.Fatalf("waiting for %s: %v (%s)", what, err, evalT[string](t, ctx, show))
	}
}

// openPlayground opens /playground/ at url in ctx and waits for its
// module.
func openPlayground(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url), arrive()); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the editor", `!!document.querySelector('`+pgReady+`')`,
		`document.querySelector("[data-pg-status]").textContent`)
}

// typeText replaces the editor's text by typing s, as an author would.
func typeText(t *testing.T, ctx context.Context, s string) {
	t.Helper()
	evalT[bool](t, ctx, `document.querySelector('`+pgText+`').select(), true`)
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(pgText), s)); err != nil {
		t.Fatal(err)
	}
}

// The playground in a real browser: an author types a widget block with
// a bad value and sees the build's message at its line over the last
// good preview, dimmed; fixes it and gets the widget, live (a control
// re-runs it); reloads and finds the text; shares it as a link that a
// fresh browser opens with the same text. No console errors and no CSP
// violations on the way.
func TestBrowserPlayground(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	res, err := http.Get(ts.URL + "/playground/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{"Loading the editor…", "it needs JavaScript", `data-wasm="/static/playground.`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/playground/ as served lacks %q", want)
		}
	}

	ctx := newBrowser(t)
	con := watchConsole(ctx)
	addCSPProbe(t, ctx)
	openPlayground(t, ctx, ts.URL+"/playground/")
	// The example's widget is hydrated by the handbook's module.
	waitJS(t, ctx, "the example's widget", `!!document.querySelector('`+pgWidget+`[data-hydrated="true"]')`, `document.querySelector("[data-pg-preview]").innerHTML.slice(0, 300)`)

	const draft = "---\ntitle: Try\n---\n\n```widget payment\nkeys: sometimes\n```\n"
	typeText(t, ctx, draft)
	// A pause while typing may show a problem of the text so far (a fence
	// not closed yet): the one that counts is the whole text's.
	const msg = `line 6widget payment: keys: "sometimes" is not allowed (allowed: off, per-intent, per-attempt)`
	waitJS(t, ctx, "the problem", `[...document.querySelectorAll('`+pgProblem+`')].map(li => li.textContent).join("\n") === `+strconv.Quote(msg),
		`document.querySelector("[data-pg-problems]").textContent`)
	if bad := evalT[string](t, ctx, `[...document.querySelectorAll("[data-pg-lines] .pg-bad")].map(s => s.textContent).join()`); bad != "6" {
		t.Errorf("the gutter marks lines %q, want 6", bad)
	}
	// The last good preview stays, dimmed.
	if !evalT[bool](t, ctx, `document.querySelector("[data-pg-preview]").dataset.stale === "true" && !!document.querySelector('`+pgWidget+`')`) {
		t.Error("with a problem the last good preview is not kept, dimmed")
	}

	// The fix: per-intent in place of the bad value.
	evalT[bool](t, ctx, `(() => { const ta = document.querySelector('`+pgText+`'); const at = ta.value.indexOf("sometimes");
		ta.focus(); ta.setSelectionRange(at, at + "sometimes".length); return true; })()`)
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(pgText), "per-intent")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the fixed preview", `document.querySelector("[data-pg-problems]").hidden && !document.querySelector("[data-pg-preview]").hasAttribute("data-stale")`,
		`document.querySelector("[data-pg-problems]").textContent`)
	waitJS(t, ctx, "the new widget, hydrated", `(() => { const w = document.querySelector('`+pgWidget+`[data-hydrated="true"]');
		return !!w && JSON.parse(w.dataset.params).keys === "per-intent"; })()`, `document.querySelector('`+pgWidget+`').outerHTML.slice(0, 300)`)
	waitOutcome(t, ctx, "1", "ch_1")
	// Its controls work: keys off re-runs it, and the lost response is
	// charged twice.
	sel := chromedp.CSS(pgWidget + ` select[name="keys"]`)
	if err := chromedp.Do(ctx, chromedp.Focus(sel), chromedp.SendKeys(sel, "off")); err != nil {
		t.Fatal(err)
	}
	waitOutcome(t, ctx, "2", "ch_2")

	want := strings.Replace(draft, "sometimes", "per-intent", 1)
	if got := evalT[string](t, ctx, `document.querySelector('`+pgText+`').value`); got != want {
		t.Fatalf("the editor holds %q, want %q", got, want)
	}
	// A reload keeps the text.
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	openPlayground(t, ctx, ts.URL+"/playground/")
	if got := evalT[string](t, ctx, `document.querySelector('`+pgText+`').value`); got != want {
		t.Errorf("after a reload the editor holds %q, want %q", got, want)
	}

	// The link holds the text, compressed.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-pg-share]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the link", `!document.querySelector("[data-pg-link]").hidden`, `document.querySelector("[data-pg-said]").textContent`)
	link := evalT[string](t, ctx, `document.querySelector("[data-pg-link]").value`)
	if !strings.HasPrefix(link, ts.URL+"/playground/#z=") {
		t.Fatalf("the link is %q, want %s/playground/#z=...", link, ts.URL)
	}
	fresh := newBrowser(t) // another profile: nothing kept
	openPlayground(t, fresh, link)
	if got := evalT[string](t, fresh, `document.querySelector('`+pgText+`').value`); got != want {
		t.Errorf("the shared link opens %q, want %q", got, want)
	}
	waitJS(t, fresh, "the shared text's widget", `!!document.querySelector('`+pgWidget+`[data-hydrated="true"]')`, `document.querySelector("[data-pg-status]").textContent`)

	// A text too long for a link is refused with the reason, not cut.
	evalT[bool](t, ctx, `(() => { const ta = document.querySelector('`+pgText+`'); let s = "---\ntitle: Long\n---\n\n";
		for (let i = 0; i < 3000; i++) s += Math.random().toString(36).slice(2, 8) + " ";
		ta.value = s; ta.dispatchEvent(new Event("input")); return true; })()`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-pg-share]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the refusal", `document.querySelector("[data-pg-said]").textContent.includes("more than the 8,000")`, `document.querySelector("[data-pg-said]").textContent`)
	if !evalT[bool](t, ctx, `document.querySelector("[data-pg-link]").hidden`) {
		t.Error("a link too long is offered")
	}

	// Reset brings the example back.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`[data-pg-reset]`))); err != nil {
		t.Fatal(err)
	}
	if !evalT[bool](t, ctx, `(() => { const ta = document.querySelector('`+pgText+`'); return ta.value === ta.defaultValue; })()`) {
		t.Error("Reset to example did not bring the example back")
	}

	if csp := evalT[[]string](t, ctx, `window.__csp`); len(csp) > 0 {
		t.Errorf("CSP violations: %v", csp)
	}
	if p := con.problems(); len(p) > 0 {
		t.Errorf("console problems: %v", p)
	}
}

// With JavaScript off the playground says what it is and that it needs
// JavaScript, and offers no editor that could not work.
func TestBrowserPlaygroundWithoutJavaScript(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx := newBrowser(t)
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled,
		emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/playground/")); err != nil {
		t.Fatal(err)
	}
	text := evalT[string](t, ctx, `document.querySelector("main").innerText`)
	for _, want := range []string{"Playground", "see the page the site's build makes of it", "it needs JavaScript"} {
		if !strings.Contains(text, want) {
			t.Errorf("without JavaScript the page does not say %q: %q", want, text)
		}
	}
	if shown := evalT[bool](t, ctx, `document.querySelector(".pg-panes").getClientRects().length > 0 || document.querySelector(".pg-bar").getClientRects().length > 0`); shown {
		t.Error("without JavaScript the editor and its buttons are shown, though they cannot work")
	}
}

// The playground refuses the links the build refuses, in the build's
// words: a page the site lacks, a section a page lacks, a section the
// draft lacks. While an author edits far down a long draft, the problem
// nearest the caret is in view under the editor, at 1280×900 and on a
// 390×844 phone, and it follows the caret to another problem.
func TestBrowserPlaygroundChecksLinks(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx := newBrowser(t)
	con := watchConsole(ctx)
	var draft strings.Builder
	draft.WriteString("---\ntitle: Links\n---\n\n[back](#nowhere) and [up](#later).\n\n## Later\n\n")
	for i := 0; i < 80; i++ {
		draft.WriteString("A line of prose, one of many.\n\n")
	}
	draft.WriteString("See [the timeout](/double-charge/#what-a-timeout-tells-yo) and [this](/nope/).\n")
	lines := strings.Count(draft.String(), "\n")
	want := []string{
		`line 5link to #nowhere: /playground/ has no section or widget with the id "nowhere"`,
		`line ` + strconv.Itoa(lines) + `link to /double-charge/#what-a-timeout-tells-yo: /double-charge/ has no section or widget with the id "what-a-timeout-tells-yo" (did you mean #what-a-timeout-tells-you?)`,
		`line ` + strconv.Itoa(lines) + `link to /nope/: no such page`,
	}
	for _, phone := range []bool{false, true} {
		size := chromedp.EmulateViewport(1280, 900)
		if phone {
			size = chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)
		}
		if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), size); err != nil {
			t.Fatal(err)
		}
		openPlayground(t, ctx, ts.URL+"/playground/")
		// The caret at the end, where the author typed last, with the
		// editor scrolled into view as typing there leaves it.
		evalT[bool](t, ctx, `(() => { const ta = document.querySelector('`+pgText+`');
			ta.value = `+strconv.Quote(draft.String())+`; ta.focus(); ta.setSelectionRange(ta.value.length, ta.value.length);
			ta.dispatchEvent(new Event("input")); ta.scrollIntoView({block: "nearest"}); return true; })()`)
		waitJS(t, ctx, "the link problems", `[...document.querySelectorAll('`+pgProblem+`')].map(li => li.textContent).join("\n") === `+strconv.Quote(strings.Join(want, "\n")),
			`[...document.querySelectorAll('`+pgProblem+`')].map(li => li.textContent).join("\n")`)
		inView := `(() => { const r = document.querySelector("[data-pg-here]").getBoundingClientRect();
			return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight; })()`
		if !evalT[bool](t, ctx, inView) {
			t.Errorf("phone %v: the problem under the editor is out of view: %v, window %v", phone,
				evalT[any](t, ctx, `document.querySelector("[data-pg-here]").getBoundingClientRect().toJSON()`), evalT[float64](t, ctx, `innerHeight`))
		}
		if got := evalT[string](t, ctx, `document.querySelector("[data-pg-here]").textContent`); got != want[1]+" (2 of 3 problems)" {
			t.Errorf("phone %v: under the editor %q, want the problem at the caret's line, %q", phone, got, want[1])
		}
		// The caret on line 5: the problem there.
		evalT[bool](t, ctx, `(() => { const ta = document.querySelector('`+pgText+`'); const at = ta.value.indexOf("[back]");
			ta.focus(); ta.setSelectionRange(at, at); return true; })()`)
		waitJS(t, ctx, "the problem at line 5", `document.querySelector("[data-pg-here]").textContent.startsWith(`+strconv.Quote(want[0])+`)`,
			`document.querySelector("[data-pg-here]").textContent`)
		if !evalT[bool](t, ctx, inView) {
			t.Errorf("phone %v: with the caret on line 5 the problem under the editor is out of view", phone)
		}
	}
	// Fixed, the draft is taken and nothing is shown under the editor.
	evalT[bool](t, ctx, `(() => { const ta = document.querySelector('`+pgText+`');
		ta.value = ta.value.replace("#nowhere", "#later").replace("#what-a-timeout-tells-yo", "#what-a-timeout-tells-you").replace("/nope/", "/");
		ta.dispatchEvent(new Event("input")); return true; })()`)
	waitJS(t, ctx, "the fixed draft", `document.querySelector("[data-pg-problems]").hidden && document.querySelector("[data-pg-here]").hidden && !document.querySelector("[data-pg-preview]").hasAttribute("data-stale")`,
		`document.querySelector("[data-pg-problems]").textContent`)
	if p := con.problems(); len(p) > 0 {
		t.Errorf("console problems: %v", p)
	}
}
