package widget

import (
	"regexp"
	"strings"
	"testing"
)

var plainOutcomeRE = regexp.MustCompile(`<p class="w-outcome"[^>]*>([^<]*)</p>`)

// A replay holds the place of what it will show, hidden: at every step of
// every replayable widget there is one outcome, saying only the step's own
// sentence (the page announces its text), and the last step's sentence
// has its place beside it, held and hidden from screen readers. The
// widgets that only show their end state (endOnly) have no steps, and
// their one outcome holds no place.
func TestHeldPlaces(t *testing.T) {
	endOnly := map[string]bool{"backoff": true, "budget": true, "storm": true}
	for _, w := range All() {
		out, run := runAt(t, w, nil, 0)
		steps := run.Steps()
		if endOnly[w.Name] {
			if steps != 0 {
				t.Errorf("%s: %d steps, want none (it shows its end state only)", w.Name, steps)
			}
			if m := plainOutcomeRE.FindAllStringSubmatch(out, -1); len(m) != 1 || strings.Contains(out, "w-outcome-held") {
				t.Errorf("%s: %d plain outcomes (want 1), a held place: %v", w.Name, len(m), strings.Contains(out, "w-outcome-held"))
			}
			continue
		}
		if steps == 0 {
			t.Errorf("%s: no steps to replay at its defaults", w.Name)
			continue
		}
		end, _ := runAt(t, w, nil, steps)
		last := plainOutcomeRE.FindStringSubmatch(end)
		if last == nil {
			t.Fatalf("%s: no plain outcome at the end in\n%s", w.Name, end)
		}
		for step := 0; step < steps; step++ {
			out, _ = runAt(t, w, nil, step)
			m := plainOutcomeRE.FindAllStringSubmatch(out, -1)
			if len(m) != 1 {
				t.Fatalf("%s at step %d: %d plain outcomes, want 1", w.Name, step, len(m))
			}
			if m[0][1] == last[1] {
				t.Errorf("%s at step %d already says the end's sentence: %q", w.Name, step, last[1])
			}
			held := `<p class="w-outcome-held held" aria-hidden="true">` + last[1] + `</p>`
			if !strings.Contains(out, held) {
				t.Errorf("%s at step %d: the end's sentence has no held place (%s)", w.Name, step, held)
			}
		}
	}
}
