package widget

import (
	"regexp"
	"testing"

	fig "github.com/retrylab/retrylab/engine/figures"
)

// render runs w with raw parameters and returns the whole widget's markup
// at its end state.
func render(t *testing.T, w *Widget, raw map[string]string) string {
	t.Helper()
	v, err := w.Schema.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	var h HTML
	if err := Render(&h, w, v, Place{ID: "w-" + w.Name + "-1", Origin: "https://retrylab.example"}); err != nil {
		t.Fatalf("%s %v: %v", w.Name, raw, err)
	}
	return h.String()
}

// atEnd is a step past any run's last: Output draws the end state.
const atEnd = 1 << 30

// runAt runs w with raw parameters and returns its output at step.
func runAt(t *testing.T, w *Widget, raw map[string]string, step int) (string, Run) {
	t.Helper()
	v, err := w.Schema.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	run, err := w.Run(v)
	if err != nil {
		t.Fatalf("%s %v: %v", w.Name, raw, err)
	}
	var h HTML
	run.Output(&h, step)
	return h.String(), run
}

var (
	outcomeTagRE = regexp.MustCompile(`<p class="w-outcome"([^>]*)>`)
	attrRE       = regexp.MustCompile(`\s(data-[a-z-]+)="([^"]*)"`)
)

// figures reads the data-* attributes of the one outcome element in html.
func figures(t *testing.T, html string) map[string]string {
	t.Helper()
	tags := outcomeTagRE.FindAllStringSubmatch(html, -1)
	if len(tags) != 1 {
		t.Fatalf("%d outcome elements, want 1, in:\n%s", len(tags), html)
	}
	out := map[string]string{}
	for _, m := range attrRE.FindAllStringSubmatch(tags[0][1], -1) {
		out[m[1]] = m[2]
	}
	return out
}

// want checks figures against wanted values.
func want(t *testing.T, what string, got map[string]string, wanted map[string]string) {
	t.Helper()
	for k, v := range wanted {
		if got[k] != v {
			t.Errorf("%s: %s = %q, want %q (all: %v)", what, k, got[k], v, got)
		}
	}
}

// Every row of the published figures (engine/figures) a widget can show,
// as its outcome carries it.
func TestWidgetFigures(t *testing.T) {
	for _, r := range fig.Rows {
		if r.Model == "budget" { // its widget shows both runs: checked below
			continue
		}
		w, ok := Lookup(r.Model)
		if !ok {
			t.Errorf("%s, %s: no widget shows this published row", r.Model, r.Case)
			continue
		}
		wanted := map[string]string{}
		for k, v := range r.Want {
			wanted["data-"+k] = v
		}
		want(t, r.Model+", "+r.Case, figures(t, render(t, w, r.Params)), wanted)
	}
	wanted := map[string]string{}
	for k, v := range fig.BudgetBoth {
		wanted["data-"+k] = v
	}
	want(t, "budget", figures(t, render(t, &Budget, nil)), wanted)
}
