package widget

import (
	"regexp"
	"strings"
	"testing"
)

var deliveryRE = regexp.MustCompile(`<li class="([a-z]+)"><code>(evt_\d)</code>[^<]*<strong>([^<]*)</strong></li>`)

// Each delivery is marked as what it did to the plan: an event applied
// over a newer one is the step that makes the run wrong, and is marked
// bad, not applied in the colour of what went well; one that sets the
// plan it should is applied, in that colour.
func TestOrderingMarksAStaleApply(t *testing.T) {
	w, _ := Lookup("ordering")
	for _, c := range []struct {
		raw  map[string]string
		want []string // each delivery's class and fate, in arrival order
	}{
		{map[string]string{"strategy": "dedupe"}, []string{"ok applied", "bad applied over a newer plan", "skip skipped"}},
		{map[string]string{"strategy": "none"}, []string{"ok applied", "bad applied over a newer plan", "ok applied"}},
		{map[string]string{"strategy": "version-guard"}, []string{"ok applied", "skip skipped", "skip skipped"}},
		{map[string]string{"strategy": "none", "arrival": "evt_1,evt_2,evt_1"}, []string{"ok applied", "ok applied", "bad applied over a newer plan"}},
	} {
		html, _ := runAt(t, w, c.raw, atEnd)
		var got []string
		for _, m := range deliveryRE.FindAllStringSubmatch(html, -1) {
			got = append(got, m[1]+" "+m[3])
		}
		if strings.Join(got, "; ") != strings.Join(c.want, "; ") {
			t.Errorf("%v: deliveries marked %q, want %q", c.raw, got, c.want)
		}
	}
}
