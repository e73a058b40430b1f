package ordering

import "testing"

// A run formats no sentence; written when shown, they are the Python
// reference's (bench/reference/ordering.py), which make bench compares by
// the last one only: here, every one, for both ways of skipping.
func TestSentences(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Params
		want []string
	}{
		{"dedupe", Params{Strategy: Dedupe, Arrival: []string{"evt_2", "evt_1", "evt_2"}}, []string{
			"evt_2 arrives: plan pro, t = 60.",
			"Apply evt_2: the plan is now pro.",
			"evt_1 arrives: plan starter, t = 0.",
			"Apply evt_1: the plan is now starter.",
			"evt_2 arrives: plan pro, t = 60.",
			"evt_2 was applied before: skip it.",
		}},
		{"version-guard", Params{Strategy: VersionGuard, Arrival: []string{"evt_2", "evt_1", "evt_2"}}, []string{
			"evt_2 arrives: plan pro, t = 60.",
			"Apply evt_2: the plan is now pro.",
			"evt_1 arrives: plan starter, t = 0.",
			"evt_1 (t = 0) is no newer than the newest applied (t = 60): skip it.",
			"evt_2 arrives: plan pro, t = 60.",
			"evt_2 (t = 60) is no newer than the newest applied (t = 60): skip it.",
		}},
	} {
		res, err := Run(c.p)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range res.Trace {
			got = append(got, e.Sentence())
		}
		if len(got) != len(c.want) {
			t.Fatalf("%s: %d events, want %d: %q", c.name, len(got), len(c.want), got)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: event %d says %q, want %q", c.name, i, got[i], c.want[i])
			}
		}
	}
}
