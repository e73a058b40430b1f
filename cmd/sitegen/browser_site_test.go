package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// The reader's site around the widgets: the layout's widths, the contents
// in the margin, previous and next, search, the Copy buttons and print.
// Each test loads the built site in headless chromium under the production
// headers, and ends with no console problem and no CSP violation.

// sitePage opens path of the served site at a viewport of w×h (a phone's,
// with touch and a mobile viewport, when mobile) in the colour scheme
// given, with the CSP probe installed. An empty path opens nothing yet.
func sitePage(t *testing.T, base, path string, w, h int64, mobile bool, scheme string) (context.Context, *console) {
	t.Helper()
	ctx := newBrowser(t)
	con := watchConsole(ctx)
	addCSPProbe(t, ctx)
	var opts []chromedp.EmulateViewportOption
	if mobile {
		opts = append(opts, chromedp.EmulateMobile)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h, opts...)); err != nil {
		t.Fatal(err)
	}
	if scheme != "" {
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	if path == "" {
		return ctx, con
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(base+path)); err != nil {
		t.Fatal(err)
	}
	return ctx, con
}

// box is an element's rectangle, in CSS pixels, relative to the page.
type box struct {
	Top, Left, Width, Height float64
	Display                  string
}

func boxOf(t *testing.T, ctx context.Context, sel string) box {
	t.Helper()
	return evalT[box](t, ctx, `(() => { const e = document.querySelector(`+"`"+sel+"`"+`);
		if (!e) return {Top: -1, Left: -1, Width: -1, Height: -1, Display: "missing"};
		const r = e.getBoundingClientRect();
		return {Top: r.top + scrollY, Left: r.left, Width: r.width, Height: r.height, Display: getComputedStyle(e).display}; })()`)
}

// noOverflow fails the test when the page scrolls sideways.
func noOverflow(t *testing.T, ctx context.Context, where string) {
	t.Helper()
	if w := evalT[[]int](t, ctx, `[document.documentElement.scrollWidth, document.documentElement.clientWidth]`); w[0] > w[1] {
		t.Errorf("%s: the page is %d px wide in a %d px window: it scrolls sideways", where, w[0], w[1])
	}
}

// At 1280×900 the prose keeps its measure (42rem) and a widget is at least
// 1.3 times as wide as a paragraph; the contents sit in the right margin,
// and the home page's simulator is in the first screen. On a 390×844
// phone a widget takes the screen's full width, the contents are a closed
// disclosure, and the home page's simulator is no more than a scroll away.
func TestBrowserLayoutWidths(t *testing.T) {
	ts := serveSite(t, builtSite(t))

	t.Run("desktop", func(t *testing.T) {
		ctx, con := sitePage(t, ts.URL, "/double-charge/", 1280, 900, false, "")
		p := boxOf(t, ctx, `.prose > p`)
		w := boxOf(t, ctx, `.prose > .widget`)
		if p.Width < 600 || p.Width > 42*16+0.5 {
			t.Errorf("a paragraph is %.0f px wide; want the 42rem measure (672 px)", p.Width)
		}
		if w.Width < 1.3*p.Width {
			t.Errorf("the widget is %.0f px wide, a paragraph %.0f px: %.2fx, want at least 1.3x", w.Width, p.Width, w.Width/p.Width)
		}
		// Centred on the prose.
		if d := (w.Left + w.Width/2) - (p.Left + p.Width/2); d > 1 || d < -1 {
			t.Errorf("the widget's centre is %.1f px off the paragraph's", d)
		}
		code := boxOf(t, ctx, `.prose > .code`)
		if code.Width < 1.3*p.Width {
			t.Errorf("a code block is %.0f px wide, a paragraph %.0f px: want at least 1.3x", code.Width, p.Width)
		}
		side := boxOf(t, ctx, `.toc-side`)
		if side.Display == "none" || side.Left < w.Left+w.Width {
			t.Errorf("the contents are not in the right margin: %+v, widget ends at %.0f", side, w.Left+w.Width)
		}
		if d := boxOf(t, ctx, `.toc-inline`).Display; d != "none" {
			t.Errorf("the inline contents show beside the margin's (display %s)", d)
		}
		noOverflow(t, ctx, "/double-charge/ at 1280")
		clean(t, ctx, con)

		ctx, con = sitePage(t, ts.URL, "/", 1280, 900, false, "")
		home := boxOf(t, ctx, `[data-widget="payment"]`)
		replay := boxOf(t, ctx, `[data-widget="payment"] .w-replay`)
		if home.Top < 0 || replay.Top+replay.Height > 900 {
			t.Errorf("the home page's simulator is not in the first screen: widget at %.0f px, its Replay button ends at %.0f px (the window is 900 px tall)",
				home.Top, replay.Top+replay.Height)
		}
		if hp := boxOf(t, ctx, `.prose > p`); home.Width < 1.3*hp.Width {
			t.Errorf("the home page's widget is %.0f px wide, a paragraph %.0f px", home.Width, hp.Width)
		}
		noOverflow(t, ctx, "/ at 1280")
		clean(t, ctx, con)
	})

	t.Run("phone", func(t *testing.T) {
		ctx, con := sitePage(t, ts.URL, "/double-charge/", 390, 844, true, "")
		vw := evalT[float64](t, ctx, `document.documentElement.clientWidth`)
		w := boxOf(t, ctx, `.prose > .widget`)
		if w.Left != 0 || w.Width != vw {
			t.Errorf("on a phone the widget spans %.0f..%.0f px of a %.0f px screen; want all of it", w.Left, w.Left+w.Width, vw)
		}
		if d := boxOf(t, ctx, `.toc-side`).Display; d != "none" {
			t.Errorf("the margin's contents show on a phone (display %s)", d)
		}
		inline := evalT[[]bool](t, ctx, `(() => { const d = document.querySelector('.toc-inline');
			return [!!d && d.checkVisibility(), !!d && d.open, !!d && d.querySelector('nav a').checkVisibility()]; })()`)
		if !inline[0] || inline[1] || inline[2] {
			t.Errorf("on a phone the contents should be a closed disclosure: shown %v, open %v, links shown %v", inline[0], inline[1], inline[2])
		}
		if err := chromedp.Do(ctx, chromedp.Click(`.toc-inline summary`)); err != nil {
			t.Fatal(err)
		}
		if !evalT[bool](t, ctx, `document.querySelector('.toc-inline').open && document.querySelector('.toc-inline nav a').checkVisibility()`) {
			t.Error("tapping the contents' summary does not open them")
		}
		noOverflow(t, ctx, "/double-charge/ at 390")
		clean(t, ctx, con)

		ctx, con = sitePage(t, ts.URL, "/", 390, 844, true, "")
		home := boxOf(t, ctx, `[data-widget="payment"]`)
		if home.Top < 0 || home.Top > 844 {
			t.Errorf("on a phone the home page's simulator starts at %.0f px: more than one screen (844 px) down", home.Top)
		}
		noOverflow(t, ctx, "/ at 390")
		clean(t, ctx, con)
	})
}

// The phone's header navigation is plain links: it works with JavaScript
// off.
func TestBrowserPhoneNavigationWithoutJavaScript(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx := newBrowser(t)
	if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled,
		emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile),
		chromedp.Navigate(ts.URL+"/double-charge/")); err != nil {
		t.Fatal(err)
	}
	for _, link := range []struct{ sel, want string }{
		{`.site-nav a[href="/search/"]`, "/search/"},
		{`.site-nav a[href="/#contents"]`, "/"},
	} {
		if b := boxOf(t, ctx, link.sel); b.Display == "none" || b.Width == 0 {
			t.Errorf("%s is not shown on a phone (%+v)", link.sel, b)
			continue
		}
		if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/double-charge/"), chromedp.Click(link.sel)); err != nil {
			t.Fatal(err)
		}
		got := ""
		for range 50 {
			if got = evalT[string](t, ctx, `location.pathname`); got == link.want {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if got != link.want {
			t.Errorf("tapping %s leads to %s, want %s", link.sel, got, link.want)
		}
	}
}

// Scrolling a section to the top of the window marks its link in the
// margin's contents, and only that one; scrolling back marks the earlier
// one again.
func TestBrowserTOCHighlight(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx, con := sitePage(t, ts.URL, "/double-charge/", 1280, 900, false, "")
	ids := evalT[[]string](t, ctx, `[...document.querySelectorAll('[data-toc] a')].map(a => a.getAttribute('href').slice(1))`)
	if len(ids) < 4 {
		t.Fatalf("the contents list %d headings", len(ids))
	}
	current := func() []string {
		return evalT[[]string](t, ctx, `[...document.querySelectorAll('[data-toc] a[aria-current]')].map(a => a.getAttribute('href').slice(1))`)
	}
	for _, id := range []string{ids[3], ids[1], ids[len(ids)/2]} {
		evalT[int](t, ctx, `(() => { const h = document.getElementById('`+id+`');
			scrollTo(0, h.getBoundingClientRect().top + scrollY - 40); return 0; })()`)
		var got []string
		for range 40 {
			if got = current(); len(got) == 1 && got[0] == id {
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
		if len(got) != 1 || got[0] != id {
			t.Errorf("with #%s at the top, the contents mark %v", id, got)
		}
		// The marked link looks different from the others.
		if st := evalT[[]string](t, ctx, `(() => { const a = document.querySelector('[data-toc] a[aria-current]'), b = document.querySelector('[data-toc] a:not([aria-current])');
			return [getComputedStyle(a).borderLeftColor, getComputedStyle(b).borderLeftColor]; })()`); st[0] == st[1] {
			t.Errorf("the marked link's border is the same as the others' (%s)", st[0])
		}
	}
	clean(t, ctx, con)
}

// Every article ends with previous and next links in handbook order, the
// same order as the home page's contents, and its head has the matching
// <link rel>: following "next" from the first article visits every
// article once. concurrent-duplicates says isolation-levels comes next,
// and clicking its Next link goes there.
func TestBrowserPrevNext(t *testing.T) {
	dir := builtSite(t)
	ts := serveSite(t, dir)
	// The chain, from the built pages (the links are static HTML).
	attr := func(page, re string) string {
		if m := regexp.MustCompile(re).FindStringSubmatch(page); m != nil {
			return m[1]
		}
		return ""
	}
	home := readFile(t, filepath.Join(dir, "index.html"))
	var order []string
	for _, m := range regexp.MustCompile(`<a class="article-card" href="([^"]+)"`).FindAllStringSubmatch(home, -1) {
		order = append(order, m[1])
	}
	if len(order) < 17 {
		t.Fatalf("the home page lists %d articles", len(order))
	}
	var visited []string
	path := order[0]
	for path != "" && len(visited) <= len(order) {
		visited = append(visited, path)
		page := readFile(t, filepath.Join(dir, filepath.FromSlash(strings.Trim(path, "/")), "index.html"))
		got := []string{
			attr(page, `<a class="pager-prev" rel="prev" href="([^"]+)"`), attr(page, `<a class="pager-next" rel="next" href="([^"]+)"`),
			attr(page, `<link rel="prev" href="([^"]+)">`), attr(page, `<link rel="next" href="([^"]+)">`),
		}
		i := len(visited) - 1
		wantPrev, wantNext := "", ""
		if i > 0 {
			wantPrev = order[i-1]
		}
		if i+1 < len(order) {
			wantNext = order[i+1]
		}
		if got[0] != wantPrev || got[2] != wantPrev || got[1] != wantNext || got[3] != wantNext {
			t.Errorf("%s: previous %q (link %q), next %q (link %q); want %q and %q", path, got[0], got[2], got[1], got[3], wantPrev, wantNext)
		}
		path = got[1]
	}
	if strings.Join(visited, " ") != strings.Join(order, " ") {
		t.Errorf("following next visits\n%v\nwant the contents' order\n%v", visited, order)
	}

	// In the browser: the links are there, at the article's end, and work.
	ctx, con := sitePage(t, ts.URL, "/concurrent-duplicates/", 1280, 900, false, "")
	pager := boxOf(t, ctx, `.pager`)
	if prose := boxOf(t, ctx, `.prose`); pager.Display == "none" || pager.Top < prose.Top+prose.Height {
		t.Errorf("the previous/next links are not shown after the article (%+v)", pager)
	}
	if err := chromedp.Do(ctx, chromedp.Click(`.pager a[rel=next]`)); err != nil {
		t.Fatal(err)
	}
	// While the next page replaces this one, an evaluation can find its
	// context gone ("Inspected target navigated or closed"): ask again.
	got := ""
	for range 100 {
		if p, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`)); err == nil {
			if got = p; got != "/concurrent-duplicates/" {
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got != "/isolation-levels/" {
		t.Errorf("Next on concurrent-duplicates leads to %s; its text says isolation-levels comes next", got)
	}
	clean(t, ctx, con)
}

// Searching "Retry-After" on the search page finds which-errors-to-retry
// and the API page, each with a section's heading and an excerpt marking
// the match. The header's field is reached with "/" and leads there.
func TestBrowserSearch(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx, con := sitePage(t, ts.URL, "/double-charge/", 1280, 900, false, "")
	// "/" as a keyboard sends it: one keyDown carrying its text, which
	// the page's handler may cancel (chromedp.KeyEvent would send the text
	// in a separate char event, which no handler can cancel).
	for _, ev := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeKeyDown, input.DispatchKeyEventTypeKeyUp} {
		p := input.DispatchKeyEventParams{Type: ev, Key: "/", Code: "Slash", WindowsVirtualKeyCode: 191, NativeVirtualKeyCode: 191}
		if ev == input.DispatchKeyEventTypeKeyDown {
			p.Text, p.UnmodifiedText = "/", "/"
		}
		if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, p); err != nil {
			t.Fatal(err)
		}
	}
	if id := evalT[string](t, ctx, `document.activeElement.id`); id != "site-search-q" {
		t.Fatalf(`"/" focused #%s, want the header's search field`, id)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent("Retry-After\r")); err != nil {
		t.Fatal(err)
	}
	var results []string
	for range 200 {
		results = evalT[[]string](t, ctx, `location.pathname === "/search/" ? [...document.querySelectorAll('.search-result-title a')].map(a => a.getAttribute('href')) : []`)
		if len(results) > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if q := evalT[string](t, ctx, `new URLSearchParams(location.search).get("q") || ""`); q != "Retry-After" {
		t.Errorf("the search page's query is %q", q)
	}
	for _, want := range []string{"/which-errors-to-retry/", "/api/"} {
		found := false
		for _, r := range results {
			found = found || r == want
		}
		if !found {
			t.Errorf("searching Retry-After does not find %s; results: %v", want, results)
		}
	}
	first := evalT[[]string](t, ctx, `(() => { const li = document.querySelector('.search-result');
		const s = li.querySelector('.search-section'), m = li.querySelector('.search-excerpt mark');
		return [s ? s.textContent : "", s ? s.getAttribute('href') : "", m ? m.textContent : ""]; })()`)
	if first[0] == "" || !strings.Contains(first[1], "#") || !strings.Contains(strings.ToLower(first[2]), "retry") {
		t.Errorf("the first result has no section heading, link to it, and marked match: %q", first)
	}
	if strings.Contains(first[0], "#") {
		t.Errorf("a section heading carries the anchor's #: %q", first[0])
	}
	clean(t, ctx, con)
}

// Every code block has a Copy button, reached with the keyboard, which
// puts the block's text on the clipboard. On the API page the blocks of
// an exchange are labelled Request and Response.
func TestBrowserCopyButton(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx, con := sitePage(t, ts.URL, "/api/", 1280, 900, false, "")
	grantClipboard(t, ctx, ts.URL)
	counts := evalT[[]int](t, ctx, `[document.querySelectorAll('pre').length, document.querySelectorAll('.code > pre').length,
		document.querySelectorAll('.code > .copy-code').length,
		[...document.querySelectorAll('.code-label')].filter(l => l.textContent === "Request").length,
		[...document.querySelectorAll('.code-label')].filter(l => l.textContent === "Response").length]`)
	if counts[0] == 0 || counts[1] != counts[0] || counts[2] != counts[0] {
		t.Errorf("%d code blocks, %d wrapped, %d Copy buttons: want one each", counts[0], counts[1], counts[2])
	}
	if counts[3] < 10 || counts[4] < 10 {
		t.Errorf("the API page labels %d blocks Request and %d Response; want every curl exchange labelled", counts[3], counts[4])
	}
	// The first block labelled Request is a curl request.
	const first = `document.querySelector('.code[data-label="request"]')`
	want := evalT[string](t, ctx, first+`.querySelector('pre').textContent.replace(/\n$/, "")`)
	if !strings.HasPrefix(want, "curl ") || strings.Contains(want, "\n\n") {
		t.Fatalf("the first Request block is not a request of consecutive lines: %q", want)
	}
	// Tab from the block reaches its button.
	evalT[int](t, ctx, `(`+first+`.querySelector('pre').focus(), 0)`)
	if err := chromedp.Do(ctx, chromedp.KeyEvent("\t")); err != nil {
		t.Fatal(err)
	}
	if got := evalT[string](t, ctx, `document.activeElement.className + " " + (document.activeElement.closest('.code') === `+first+`)`); got != "copy-code true" {
		t.Fatalf("Tab from the block focuses %q, not its Copy button", got)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent("\r")); err != nil {
		t.Fatal(err)
	}
	var said string
	for range 40 {
		if said = evalT[string](t, ctx, `document.activeElement.textContent`); said != "Copy" {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	if said != "Copied" {
		t.Errorf("after Enter the button says %q, want Copied", said)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("the clipboard holds\n%s\nwant\n%s", got, want)
	}
	clean(t, ctx, con)
}

// Printed, an article keeps its prose and each widget's figure (title,
// summary, the run) and drops the site's navigation and every control,
// the replay buttons, scrubber and keys line included; code wraps.
func TestBrowserPrint(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx, con := sitePage(t, ts.URL, "/double-charge/", 1280, 900, false, "")
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"}); err != nil {
		t.Fatal(err)
	}
	shown := func(sel string) []bool {
		return evalT[[]bool](t, ctx, `[...document.querySelectorAll('`+sel+`')].map(e => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden")`)
	}
	for _, sel := range []string{".site-header", ".site-footer", ".toc-side", ".toc-inline", ".pager", ".copy-code",
		".widget .w-controls", ".widget .w-player", ".widget .w-scrubber", ".widget .w-keys", ".widget .w-embed", ".widget button", ".widget select"} {
		got := shown(sel)
		if len(got) == 0 && !strings.HasPrefix(sel, ".site") && sel != ".toc-inline" && sel != ".pager" {
			t.Errorf("no %s on the page to check", sel)
		}
		for i, s := range got {
			if s {
				t.Errorf("printed, %s #%d shows", sel, i)
			}
		}
	}
	for _, sel := range []string{".prose > p", ".widget .w-head", ".widget .w-output"} {
		got := shown(sel)
		if len(got) == 0 {
			t.Errorf("printed, no %s", sel)
		}
		for i, s := range got {
			if !s {
				t.Errorf("printed, %s #%d is hidden", sel, i)
			}
		}
	}
	if ws := evalT[string](t, ctx, `getComputedStyle(document.querySelector('pre')).whiteSpace`); ws != "pre-wrap" {
		t.Errorf("printed, code has white-space %s: long lines would be cut", ws)
	}
	clean(t, ctx, con)
}

// A column's alignment (":---:", "---:") reaches the cells, which the
// stylesheet must not override; cells without one align left.
func TestBrowserTableAlignment(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	ctx, con := sitePage(t, ts.URL, "/double-charge/", 1280, 900, false, "")
	// The markdown package writes a column's alignment as an align
	// attribute (site/markdown); this table is what it writes for
	// | a | b | c | over |:--|:-:|--:|.
	got := evalT[[]string](t, ctx, `(() => { const d = document.createElement('div');
		d.innerHTML = '<table><thead><tr><th>a</th><th align="center">b</th><th align="right">c</th></tr></thead><tbody><tr><td>1</td><td align="center">2</td><td align="right">3</td></tr></tbody></table>';
		document.querySelector('.prose').appendChild(d.firstChild);
		return [...document.querySelectorAll('.prose > table:last-child :is(th, td)')].map(c => getComputedStyle(c).textAlign.replace(/^-webkit-/, "")); })()`)
	// (The align attribute computes to -webkit-center and -webkit-right.)
	want := []string{"left", "center", "right", "left", "center", "right"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("cells align %v, want %v", got, want)
	}
	clean(t, ctx, con)
}

// The pages this work changed most, at a phone's size, light and dark,
// the search page with results: axe-core finds no violation (the axe test
// of every page runs at 1280×900).
func TestBrowserAxePhone(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	axe := axeSource(t)
	for _, p := range []string{"/", "/double-charge/", "/search/?q=Retry-After"} {
		t.Run(strings.Trim(p, "/"), func(t *testing.T) {
			ctx, con := sitePage(t, ts.URL, "", 390, 844, true, "")
			// The page's CSP would refuse axe-core from the page: it comes
			// in through the protocol, as in the every-page test.
			if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument,
				page.AddScriptToEvaluateOnNewDocumentParams{Source: axe}); err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+p)); err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(p, "/search/") {
				if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll('.search-result').length > 0`,
					chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
					t.Fatal(err)
				}
			}
			for _, scheme := range []string{"light", "dark"} {
				if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
					Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
				}); err != nil {
					t.Fatal(err)
				}
				vs, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](axeRun, chromedp.EvalAwaitPromise))
				if err != nil {
					t.Fatalf("running axe-core: %v", err)
				}
				for _, v := range vs {
					t.Errorf("%s: %s (%s): %s\n\t%s", scheme, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n\t"))
				}
			}
			clean(t, ctx, con)
		})
	}
}

// A code block marked {.wrap} wraps its long lines at the block's width,
// each continuation under a hanging indent, where another block scrolls
// sideways: on a phone and a desktop, the chapter on retrylab check shows
// every line of the command's output without a scroll, and its text is
// still the command's lines, one finding to a line, for Copy.
func TestBrowserWrappedOutput(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	type layout struct {
		Blocks, Scrolling, Hanging, Unwrapped int
		Longest                               int
		Commands                              int
	}
	// For each wrapped block: does it scroll; and does its first line
	// longer than the block is wide go on, on its second visual line,
	// further right than it began. Then: the longest line of text in a
	// wrapped block, and the command blocks still wider than their box.
	const measure = `(() => { const pres = [...document.querySelectorAll("pre.wrap")];
		let scrolling = 0, hanging = 0, unwrapped = 0, longest = 0;
		for (const p of pres) {
			if (p.scrollWidth > p.clientWidth + 1) scrolling++;
			for (const l of p.textContent.split("\n")) longest = Math.max(longest, l.length);
			const long = [...p.querySelectorAll(".line")].find(l => l.getClientRects()[0].height > 2 * parseFloat(getComputedStyle(p).lineHeight));
			if (!long) { unwrapped++; continue; }
			const r = document.createRange(); r.selectNodeContents(long);
			const rects = [...r.getClientRects()].filter(x => x.width > 0);
			const lefts = [...new Set(rects.map(x => Math.round(x.top)))].map(top => Math.min(...rects.filter(x => Math.round(x.top) === top).map(x => x.left)));
			if (lefts.length > 1 && lefts[1] > lefts[0] + 20) hanging++;
		}
		const commands = [...document.querySelectorAll('.code[data-label="command"] pre')].filter(p => p.scrollWidth > p.clientWidth + 1).length;
		return {Blocks: pres.length, Scrolling: scrolling, Hanging: hanging, Unwrapped: unwrapped, Longest: longest, Commands: commands}; })()`
	for _, size := range []struct {
		w, h   int64
		mobile bool
	}{{390, 844, true}, {1280, 900, false}} {
		ctx, con := sitePage(t, ts.URL, "/test-your-own-api/", size.w, size.h, size.mobile, "")
		got := evalT[layout](t, ctx, measure)
		where := fmt.Sprintf("at %d px", size.w)
		switch {
		case got.Blocks != 7:
			t.Errorf("%s: %d wrapped blocks, want the chapter's 7 outputs", where, got.Blocks)
		case got.Scrolling > 0:
			t.Errorf("%s: %d of the wrapped blocks scroll sideways", where, got.Scrolling)
		case got.Unwrapped > 0 || got.Hanging != got.Blocks:
			t.Errorf("%s: %d blocks with no line wrapped, %d of %d with a hanging indent", where, got.Unwrapped, got.Hanging, got.Blocks)
		}
		// The text is the command's: a finding of 200 characters and
		// more stays one line of it.
		if got.Longest < 200 {
			t.Errorf("%s: the longest line of a wrapped block's text has %d characters: the wrap changed the text", where, got.Longest)
		}
		if size.mobile && got.Commands == 0 {
			t.Errorf("%s: no command block scrolls: the wrap reached blocks not marked for it", where)
		}
		clean(t, ctx, con)
	}
}
