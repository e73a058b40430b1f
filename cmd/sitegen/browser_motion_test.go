package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/site/widget"
)

// morphStep changes the widget's first parameter to its next allowed
// value (or a number to another in bounds), or, with step >= 0, moves the
// replay's scrubber to step, then returns the output region's markup as
// the page holds it, the markup the generator's view code gives for the
// widget's new state parsed by the browser, and how many of the output's
// elements before the change are still in it.
const morphStep = `((step) => {
  const root = document.querySelector(ROOT), out = root.querySelector('[data-region="output"]');
  const before = [...out.querySelectorAll("*")];
  if (step >= 0) {
    const s = root.querySelector('[data-action="scrub"]');
    s.value = String(step);
    s.dispatchEvent(new Event("input", {bubbles: true}));
  } else {
    const c = root.querySelector('[data-region="controls"] select[name], [data-region="controls"] input[name]:not([type=checkbox])');
    if (c.tagName === "SELECT") c.selectedIndex = (c.selectedIndex + 1) % c.options.length;
    else c.value = String(Number(c.value) + 1);
    c.dispatchEvent(new Event("change", {bubbles: true}));
  }
  return {params: root.dataset.params, step: Number(root.dataset.step), html: out.innerHTML,
    kept: before.filter(e => out.contains(e)).length, error: root.dataset.error || ""};
})`

type morphResult struct {
	Params string `json:"params"`
	Step   int    `json:"step"`
	HTML   string `json:"html"`
	Kept   int    `json:"kept"`
	Error  string `json:"error"`
}

// The page patches a widget's output in place: after every change and
// every replay step the output's DOM is the one the view's markup parses
// to (what setting innerHTML gave), and most of its elements are the ones
// drawn before.
func TestBrowserOutputPatchedInPlace(t *testing.T) {
	ts := serveSite(t, builtSite(t))
	for _, name := range []string{"backoff", "budget", "storm", "payment", "lease", "guard", "lock"} {
		w, err := widget.Find(name)
		if err != nil {
			t.Fatal(err)
		}
		p := open(t, ts, name)
		root, _ := json.Marshal(p.root())
		fn := "(" + strings.ReplaceAll(morphStep, "ROOT", string(root)) + ")"
		steps := []int{-1, -1}
		if p.rootData("steps") != "0" && p.rootData("steps") != "" {
			steps = append(steps, 0, 3, 2, 5)
		}
		for _, step := range steps {
			got := evalT[morphResult](t, p.ctx, fn+"("+strconv.Itoa(step)+")")
			if got.Error != "" {
				t.Fatalf("%s: %s", name, got.Error)
			}
			v, err := w.Schema.ParseJSON(got.Params)
			if err != nil {
				t.Fatal(err)
			}
			run, err := w.Run(v)
			if err != nil {
				t.Fatal(err)
			}
			var h widget.HTML
			run.Output(&h, got.Step)
			src, _ := json.Marshal(h.String())
			// The same DOM: the same nodes, each with the same attributes,
			// in whatever order (a kept element's new attribute comes last).
			same := evalT[bool](t, p.ctx, `(() => {
				const want = document.createElement("div"), got = document.createElement("div");
				want.innerHTML = `+string(src)+`;
				got.append(...document.querySelector(`+string(root)+` + ' [data-region="output"]').cloneNode(true).childNodes);
				return want.isEqualNode(got); })()`)
			want := evalT[string](t, p.ctx, `(() => { const t = document.createElement("template"); t.innerHTML = `+string(src)+`; return t.innerHTML; })()`)
			if !same {
				t.Errorf("%s, step %d (%s): the patched output is not the view's markup:\n got %.300s\nwant %.300s", name, step, got.Params, firstDiff(got.HTML, want), firstDiff(want, got.HTML))
			}
			if got.Kept == 0 {
				t.Errorf("%s, step %d: no element of the output was kept", name, step)
			}
		}
		p.clean()
	}
}

// firstDiff is a from where it first differs from b.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return a[max(0, i-60):]
}
