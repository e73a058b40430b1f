package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/retrylab/retrylab/site/widget"
)

// serveBroken serves the built site at dir with rules for headers, and
// answers 404 for every path broken matches (nil: none).
func serveBroken(t *testing.T, dir string, rules []HeaderRule, broken *regexp.Regexp) *httptest.Server {
	t.Helper()
	site := newServer(dir, rules, false)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if broken != nil && broken.MatchString(r.URL.Path) {
			http.NotFound(w, r)
			return
		}
		site.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// withoutWasmEval is the production rules with a Content-Security-Policy
// that does not let the page compile WebAssembly ('wasm-unsafe-eval'), as
// a deploy that lost it would send.
func withoutWasmEval(t *testing.T) []HeaderRule {
	rules := productionRules(t)
	n := 0
	for i, r := range rules {
		vals := make([]HeaderField, len(r.Values))
		copy(vals, r.Values)
		for j, f := range vals {
			if f.Name == "Content-Security-Policy" && strings.Contains(f.Value, " 'wasm-unsafe-eval'") {
				vals[j].Value = strings.ReplaceAll(f.Value, " 'wasm-unsafe-eval'", "")
				n++
			}
		}
		rules[i].Values = vals
	}
	if n == 0 {
		t.Fatal("netlify.toml's Content-Security-Policy has no 'wasm-unsafe-eval' to take away")
	}
	return rules
}

// When the module cannot start, because it or its runtime is missing or
// the page's Content-Security-Policy refuses to compile it, every widget
// of the page says so in an error box above its output, with the reason,
// and keeps the run the page was built with; a change made while the
// module was on its way is no longer shown as loading. When the simulator
// worker cannot start, the widgets work all the same: the page computes
// the runs itself.
func TestBrowserLoaderFailures(t *testing.T) {
	dir := builtSite(t)
	browser := sharedBrowser(t)
	const root = `[data-widget="payment"]`
	for _, c := range []struct {
		name   string
		rules  []HeaderRule
		broken string // the paths answered 404
		why    string // in the error box
	}{
		{"the module is missing", productionRules(t), `^/static/retrylab\.[0-9a-f]+\.wasm$`, "HTTP 404 for /static/retrylab."},
		{"its runtime is missing", productionRules(t), `^/static/wasm_exec\.[0-9a-f]+\.js$`, "could not load /static/wasm_exec."},
		{"the policy refuses to compile it", withoutWasmEval(t), "", "WebAssembly module violates the following Content Security policy directive"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var broken *regexp.Regexp
			if c.broken != "" {
				broken = regexp.MustCompile(c.broken)
			}
			ts := serveBroken(t, dir, c.rules, broken)
			ctx := newTab(t, browser)
			if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/double-charge/"),
				chromedp.WaitVisible(chromedp.CSS(paymentOutcome))); err != nil {
				t.Fatal(err)
			}
			built := evalT[string](t, ctx, `document.querySelector('`+root+` [data-region="output"]').innerHTML`)
			// The reader changes the keys before the module has arrived:
			// the widget says it is loading the simulator.
			evalT[bool](t, ctx, `(() => { const s = document.querySelector('`+root+` select[name="keys"]');
				s.value = "per-intent"; s.dispatchEvent(new Event("change", {bubbles: true})); return true; })()`)
			wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			if _, err := chromedp.Run(wctx, chromedp.Poll[bool](`document.querySelector("script[data-wasm]").dataset.state === "failed"`,
				chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
				t.Fatalf("the loader never said the module failed: %v (state %q)", err,
					evalT[string](t, ctx, `document.querySelector("script[data-wasm]").dataset.state || ""`))
			}
			type box struct {
				Widget, Text, Role, Error, Busy, AriaBusy string
				BeforeOutput                              bool
			}
			boxes := evalT[[]box](t, ctx, `[...document.querySelectorAll('`+widget.Simulators+`')].map((w) => {
				const b = w.querySelector(".`+widget.ClassError+`");
				const out = w.querySelector('`+widget.RegionOutput.Selector()+`');
				return {Widget: w.id, Text: b ? b.textContent : "", Role: b ? b.getAttribute("role") : "",
					Error: w.getAttribute("data-error") || "", Busy: w.getAttribute("data-busy") || "",
					AriaBusy: w.getAttribute("aria-busy") || "",
					BeforeOutput: !!b && !!out && b.nextElementSibling === out};
			})`)
			if len(boxes) == 0 {
				t.Fatal("no widget on the page")
			}
			for _, b := range boxes {
				if !strings.HasPrefix(b.Text, "The simulator could not start (") || !strings.Contains(b.Text, c.why) ||
					!strings.HasSuffix(b.Text, "): the run shown is the one this page was built with.") {
					t.Errorf("%s: the error box says %q, want the simulator could not start, because %q", b.Widget, b.Text, c.why)
				}
				if b.Role != "alert" || b.Error != b.Text || !b.BeforeOutput {
					t.Errorf("%s: the error box has role %q, data-error %q, just above the output %v: want an alert above the output", b.Widget, b.Role, b.Error, b.BeforeOutput)
				}
				if b.Busy != "" || b.AriaBusy != "" {
					t.Errorf("%s: still busy (data-busy %q, aria-busy %q) after the module failed", b.Widget, b.Busy, b.AriaBusy)
				}
			}
			if now := evalT[string](t, ctx, `document.querySelector('`+root+` [data-region="output"]').innerHTML`); now != built {
				t.Error("the run the page was built with is no longer shown")
			}
			if c, r := outcomeOf(t, ctx); c != "2" || r != "ch_2" {
				t.Errorf("the outcome shows %s charges, receipt %q: want the built run's 2 and ch_2", c, r)
			}
		})
	}

	// The worker's script is missing: the module computes the runs on the
	// page, and says so in the console only.
	t.Run("the worker is missing", func(t *testing.T) {
		ts := serveBroken(t, dir, productionRules(t), regexp.MustCompile(`^/static/simworker\.[0-9a-f]+\.js$`))
		ctx := newTab(t, browser)
		con := watchConsole(ctx)
		if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/double-charge/"),
			chromedp.ScrollIntoView(chromedp.CSS(root)), arrive(),
			chromedp.WaitVisible(chromedp.CSS(root+`[data-hydrated="true"]`))); err != nil {
			t.Fatalf("the widget never became interactive: %v (console: %v)", err, con.problems())
		}
		if c, r := outcomeOf(t, ctx); c != "2" || r != "ch_2" {
			t.Errorf("before any change the outcome shows %s charges, receipt %q: want the built run's 2 and ch_2", c, r)
		}
		sel := chromedp.CSS(root + ` select[name="keys"]`)
		if err := chromedp.Do(ctx, chromedp.Focus(sel), chromedp.SendKeys(sel, "per-i")); err != nil {
			t.Fatal(err)
		}
		waitOutcome(t, ctx, "1", "ch_1")
		if n := evalT[int](t, ctx, `document.querySelectorAll(".`+widget.ClassError+`").length`); n != 0 {
			t.Errorf("%d error boxes, want none: the page computes the runs itself", n)
		}
		warned := false
		for _, p := range con.problems() {
			warned = warned || strings.Contains(p, "the simulator worker failed") && strings.Contains(p, "the page computes the runs itself")
		}
		if !warned {
			t.Errorf("no warning that the worker failed in the console: %v", con.problems())
		}
	})
}
