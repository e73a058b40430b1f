package widget

import (
	"strings"
	"testing"
)

// engine/budget's figures: 1,000 failing requests with 3 retries each send
// 4,000 calls without a budget and exactly 1,109 with one (a full bank of
// 10 and 999 × 0.1 tokens pay for 109 retries).
func TestBudgetFigures(t *testing.T) {
	html := render(t, &Budget, nil)
	want(t, "defaults", figures(t, html), map[string]string{"data-calls-without": "4000", "data-calls-with": "1109"})
	if !strings.Contains(html, `<svg class="chart hbars bu-chart" role="img"`) || !strings.Contains(html, "<title>Calls sent while the upstream is down") {
		t.Error("the bars are not an image with a title")
	}
	// No retries: nothing for a budget to save.
	want(t, "no retries", figures(t, render(t, &Budget, map[string]string{"retries": "0"})),
		map[string]string{"data-calls-without": "1000", "data-calls-with": "1000"})
	// A whole token per request pays for one retry each: with one retry
	// allowed the budget never refuses; with three, it pays for about one.
	want(t, "ratio 1, 1 retry", figures(t, render(t, &Budget, map[string]string{"ratio": "1", "retries": "1"})),
		map[string]string{"data-calls-without": "2000", "data-calls-with": "2000", "data-denied": "0"})
	f := figures(t, render(t, &Budget, map[string]string{"ratio": "1"}))
	if with := mustAtoi(t, f["data-calls-with"]); with < 2000 || with > 2020 {
		t.Errorf("ratio 1, 3 retries: %d calls with the budget, want about 2,000 (a retry each, and the bank's 10)", with)
	}
}
