package param

import (
	"errors"
	"math"
	"strconv"
	"testing"
)

var testSchema = Schema{
	{Name: "base", Kind: Float, Default: "0.1", Min: 0.001, Max: 10},
	{Name: "cap", Kind: Float, Default: "10", Min: 0.001, Max: 100, Rules: []Rule{{AtLeast, "base"}}},
	{Name: "from", Kind: Int, Default: "10", Min: 0, Max: 599, Rules: []Rule{{Below, "seconds"}}},
	{Name: "to", Kind: Int, Default: "20", Min: 1, Max: 600, Rules: []Rule{{Above, "from"}, {AtMost, "seconds"}}},
	{Name: "seconds", Kind: Int, Default: "120", Min: 10, Max: 600},
	{Name: "arrival", Kind: EnumList, Default: "a, b", Allowed: []string{"a", "b"}, MinItems: 1, MaxItems: 3},
}

// Rules between parameters are checked once each is within its bounds,
// and the error names the parameter, its value and the other's.
func TestRules(t *testing.T) {
	for _, c := range []struct {
		raw  map[string]string
		want string
	}{
		{map[string]string{"base": "0.2", "cap": "0.1"}, `cap: "0.1" is not at least base (0.2)`},
		{map[string]string{"base": "0.2", "cap": " 0.1 "}, `cap: "0.1" is not at least base (0.2)`},
		{map[string]string{"seconds": "10"}, `from: "10" is not below seconds (10)`}, // from's default
		{map[string]string{"from": "30", "to": "20"}, `to: "20" is not above from (30)`},
		{map[string]string{"from": "20", "to": "20"}, `to: "20" is not above from (20)`},
		{map[string]string{"seconds": "60", "to": "90"}, `to: "90" is not at most seconds (60)`},
		{map[string]string{"seconds": "10", "from": "10", "to": "10"}, `from: "10" is not below seconds (10)`},
		{map[string]string{"cap": "200"}, `cap: "200" is out of bounds (allowed: 0.001 to 100)`},
		{map[string]string{"arrival": ""}, `arrival: "" has 0 items (allowed: at least 1)`},
		{map[string]string{"arrival": "a,a,a,a"}, `arrival: "a,a,a,a" has 4 items (allowed: at most 3)`},
	} {
		err := testSchema.Check(c.raw)
		var pe *Error
		if !errors.As(err, &pe) || err.Error() != c.want {
			t.Errorf("Check(%v) = %v, want %s", c.raw, err, c.want)
		}
	}
	for _, raw := range []map[string]string{
		nil,
		{"base": "0.2", "cap": "0.2"},
		{"from": "0", "to": "1", "seconds": "10"},
		{"from": "9", "to": "10", "seconds": "10"},
	} {
		if err := testSchema.Check(raw); err != nil {
			t.Errorf("Check(%v): %v", raw, err)
		}
	}
}

// Of several unknown parameters, the error names the first in order of
// name, whatever the map's order.
func TestUnknownParameter(t *testing.T) {
	raw := map[string]string{"zeta": "1", "mu": "2", "alpha": "3", "base": "0.2", "omega": "4"}
	for range 20 {
		err := testSchema.Check(raw)
		var pe *Error
		if !errors.As(err, &pe) || pe.Param != "alpha" {
			t.Fatalf("Check(%v) = %v, want an error naming alpha", raw, err)
		}
	}
}

func TestBounds(t *testing.T) {
	for _, c := range []struct {
		p    Param
		want string
	}{
		{testSchema[1], "0.001 to 100, at least base"},
		{testSchema[3], "1 to 600, above from, at most seconds"},
		{testSchema[5], "a list of a, b; 1 to 3 items"},
		{Param{Kind: Bool}, "on, off"},
		{Param{Kind: Enum, Allowed: []string{"x", "y"}}, "x, y"},
	} {
		if got := c.p.Bounds(); got != c.want {
			t.Errorf("Bounds(%s) = %q, want %q", c.p.Name, got, c.want)
		}
	}
}

func TestRawRoundTrip(t *testing.T) {
	v, err := testSchema.Parse(map[string]string{"base": "0.25", "arrival": " b ,a"})
	if err != nil {
		t.Fatal(err)
	}
	back, err := testSchema.Parse(v.Raw())
	if err != nil {
		t.Fatal(err)
	}
	if back.Float("base") != 0.25 || back.Text("arrival") != "b, a" || back.Int("seconds") != 120 {
		t.Fatalf("round trip: %v", back.Raw())
	}
}

// A bool's words are read in any case; a look-alike from outside ASCII is
// refused.
func TestBoolWordsInAnyCase(t *testing.T) {
	p := Param{Name: "keys", Kind: Bool}
	for text, want := range map[string]bool{"ON": true, "True": true, "yEs": true, "Off": false, "FALSE": false, " No ": false} {
		if v, err := p.Parse(text); err != nil || v.Bool != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", text, v.Bool, err, want)
		}
	}
	for _, text := range []string{"\uff2f\uff2e", "o\u0301n", "\u212aeys", "onn"} {
		if _, err := p.Parse(text); err == nil {
			t.Errorf("Parse(%q) accepted a word that is not on, off, true, false, yes or no", text)
		}
	}
}

// Number is exact, reads back, and writes no negative zero.
func TestNumber(t *testing.T) {
	for f, want := range map[float64]string{0: "0", math.Copysign(0, -1): "0", -0.001: "-0.001", 0.1: "0.1",
		100000: "100000", 1e9: "1000000000", 2.5: "2.5"} {
		got := Number(f)
		if got != want {
			t.Errorf("Number(%v) = %q, want %q", f, got, want)
		}
		if back, err := strconv.ParseFloat(got, 64); err != nil || back != f {
			t.Errorf("Number(%v) = %q reads back as %v", f, got, back)
		}
	}
}
