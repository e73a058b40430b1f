package param

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// A number parameter's limits are its declared bounds narrowed by every
// rule that names it, from either side, each moved by one for a strict
// rule on an Int.
func TestLimits(t *testing.T) {
	num := map[string]float64{"base": 0.2, "cap": 5, "from": 10, "to": 20, "seconds": 120}
	for _, c := range []struct {
		name             string
		min, max         float64
		minRule, maxRule string
	}{
		{"base", 0.001, 5, "", "at most cap"},
		{"cap", 0.2, 100, "at least base", ""},
		{"from", 0, 19, "", "below to"},
		{"to", 11, 120, "above from", "at most seconds"},
		{"seconds", 20, 600, "at least to", ""},
	} {
		l := testSchema.Limits(c.name, num)
		if l.Min != c.min || l.Max != c.max || ruleText(l.MinRule) != c.minRule || ruleText(l.MaxRule) != c.maxRule {
			t.Errorf("Limits(%s) = %v to %v (%q, %q), want %v to %v (%q, %q)", c.name, l.Min, l.Max,
				ruleText(l.MinRule), ruleText(l.MaxRule), c.min, c.max, c.minRule, c.maxRule)
		}
	}
	// A parameter that is not a number yet narrows nothing.
	delete(num, "to")
	if l := testSchema.Limits("seconds", num); l.Min != 11 || ruleText(l.MinRule) != "above from" {
		t.Errorf("seconds without to: from %v (%q), want 11 (above from)", l.Min, ruleText(l.MinRule))
	}
}

func ruleText(r *Rule) string {
	if r == nil {
		return ""
	}
	return r.Op.String() + " " + r.Other
}

// Parse accepts a set of numbers exactly when each lies within its limits
// given the others: the controls' min and max and the readers' messages,
// which both come from Limits, never disagree with the check.
func TestLimitsAgreeWithParse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	nums := []string{"from", "to", "seconds"}
	for i := 0; i < 20000; i++ {
		num := map[string]float64{}
		raw := map[string]string{}
		for _, n := range nums {
			p, _ := testSchema.Param(n)
			v := float64(rng.IntN(int(p.Max-p.Min)+1)) + p.Min
			if rng.IntN(4) == 0 { // near the others, where the rules bite
				v = float64(rng.IntN(30) + 5)
			}
			num[n], raw[n] = v, strconv.Itoa(int(v))
		}
		within := true
		for _, n := range nums {
			within = within && testSchema.Limits(n, num).Holds(num[n])
		}
		if err := testSchema.Check(raw); (err == nil) != within {
			t.Fatalf("%v: Check says %v, the limits say within = %v", raw, err, within)
		}
	}
}
