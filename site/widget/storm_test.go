package widget

import (
	"strings"
	"testing"
)

// The three rows of engine/storm's figures: goodput healthy / during the
// trigger / recovery after it.
func TestStormFigures(t *testing.T) {
	for _, c := range []struct {
		budget, skip                string
		healthy, slow, recovered, v string
	}{
		{"off", "off", "80", "20", "never", "bad"},
		{"on", "off", "80", "20", "20", "good"},
		{"on", "on", "80", "40", "0", "good"},
	} {
		html := render(t, &Storm, map[string]string{"budget": c.budget, "skip-expired": c.skip})
		want(t, "budget "+c.budget+" skip "+c.skip, figures(t, html), map[string]string{
			"data-healthy": c.healthy, "data-slow": c.slow, "data-recovered": c.recovered, "data-verdict": c.v})
		// Two line charts, the trigger shaded in both, the recovery marked
		// when there is one.
		if n := strings.Count(html, `<rect class="band trigger"`); n != 2 {
			t.Errorf("%d shaded triggers, want 2", n)
		}
		if got := strings.Contains(html, `class="ref ok"`); got != (c.recovered != "never") {
			t.Errorf("budget %s skip %s: recovery line drawn: %v", c.budget, c.skip, got)
		}
	}
}

// A slowdown that ends before it starts is refused by the declaration's
// rules, so a widget block, an embed query and a form all say so.
func TestStormRefusesABadTrigger(t *testing.T) {
	for _, c := range []struct {
		raw  map[string]string
		want string
	}{
		{map[string]string{"slow-from": "30", "slow-to": "20"}, `slow-to: "20" is not above slow-from (30)`},
		{map[string]string{"seconds": "60", "slow-to": "90"}, `slow-to: "90" is not at most seconds (60)`},
		{map[string]string{"seconds": "10", "slow-from": "10"}, `slow-from: "10" is not below seconds (10)`},
	} {
		_, err := Storm.Schema.Parse(c.raw)
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: error %v, want %s", c.raw, err, c.want)
		}
	}
}
