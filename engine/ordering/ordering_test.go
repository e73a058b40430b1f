package ordering

import (
	"slices"
	"strings"
	"testing"
)

// evt_2 (pro, t=60), evt_1 (starter, t=0), evt_2 again: dedupe ends on
// starter, a version guard on event time ends on pro (the package documentation).
func TestFigures(t *testing.T) {
	for _, c := range []struct {
		s       Strategy
		plan    string
		applied []string
	}{
		{Dedupe, "starter", []string{"evt_2", "evt_1"}},
		{VersionGuard, "pro", []string{"evt_2"}},
		// Applying everything ends on pro only because evt_2 came again.
		{NoGuard, "pro", []string{"evt_2", "evt_1", "evt_2"}},
	} {
		p := Binding.Defaults()
		p.Strategy = c.s
		res, err := Run(p)
		if err != nil {
			t.Fatal(err)
		}
		if res.Plan != c.plan || !slices.Equal(res.Applied, c.applied) || res.Correct != (c.plan == "pro") {
			t.Errorf("%s: %+v; want plan %s after %v", c.s, res.Summary, c.plan, c.applied)
		}
	}
}

// The version guard is right for every arrival order; dedupe only when the
// events come in order.
func TestVersionGuardIsRightForEveryOrder(t *testing.T) {
	orders := [][]string{
		{"evt_1", "evt_2"}, {"evt_2", "evt_1"}, {"evt_1", "evt_1", "evt_2", "evt_2"},
		{"evt_2", "evt_2", "evt_1"}, {"evt_1"}, {"evt_2", "evt_1", "evt_1", "evt_2", "evt_1"},
	}
	for _, o := range orders {
		res, err := Run(Params{Strategy: VersionGuard, Arrival: o})
		if err != nil || !res.Correct || len(res.Trace) != len(o)*2 {
			t.Errorf("version-guard, %v: %+v, %v", o, res.Summary, err)
		}
	}
	if res, _ := Run(Params{Strategy: Dedupe, Arrival: []string{"evt_2", "evt_1"}}); res.Correct {
		t.Error("dedupe got a reordering right")
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		p    Params
		want string
	}{
		{Params{Strategy: "lww", Arrival: []string{"evt_1"}}, `strategy: "lww" is not allowed (allowed: none, dedupe, version-guard)`},
		{Params{Strategy: Dedupe, Arrival: []string{"evt_1", "evt_9"}}, `arrival: "evt_9" is not allowed (did you mean evt_1? allowed: evt_1, evt_2)`},
		{Params{Strategy: Dedupe}, `arrival: "" has 0 items (allowed: at least 1)`},
		{Params{Strategy: Dedupe, Arrival: strings.Split("evt_1,evt_1,evt_1,evt_1,evt_1,evt_1,evt_1,evt_1,evt_2", ",")}, `arrival: "evt_1,evt_1,evt_1,evt_1,evt_1,evt_1,evt_1,evt_1,evt_2" has 9 items (allowed: at most 8)`},
	} {
		if _, err := Run(c.p); err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

func BenchmarkOrdering(b *testing.B) {
	p := Binding.Defaults()
	for b.Loop() {
		if _, err := Run(p); err != nil {
			b.Fatal(err)
		}
	}
}
