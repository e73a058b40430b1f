package sim

import (
	"math"
	"testing"
	"time"
)

func TestParamErrorsNameTheParameterAndTheAllowed(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{CheckInt("clients", 0, 1, 1000000), "clients: 0 is out of bounds (allowed: 1 to 1000000)"},
		{CheckFloat("ratio", 1.5, 0, 1), "ratio: 1.5 is out of bounds (allowed: 0 to 1)"},
		{CheckFloat("ratio", math.NaN(), 0, 1), "ratio: NaN is out of bounds (allowed: 0 to 1)"},
		{CheckSeconds("slot", 0, time.Millisecond, 10*time.Second), "slot: 0 is out of bounds (allowed: 0.001 to 10 seconds)"},
		{CheckEnum("policy", "jitter", "none", "full"), `policy: "jitter" is not allowed (allowed: none, full)`},
	} {
		if c.err == nil || c.err.Error() != c.want {
			t.Errorf("got %v, want %q", c.err, c.want)
		}
	}
	for _, err := range []error{
		CheckInt("n", 1, 1, 1), CheckFloat("f", 0, 0, 1), CheckSeconds("s", time.Second, time.Second, time.Second),
		CheckEnum("e", "b", "a", "b"), FirstError(nil, nil),
	} {
		if err != nil {
			t.Errorf("rejected a value within bounds: %v", err)
		}
	}
	first := CheckInt("a", -1, 0, 1)
	if FirstError(nil, first, CheckInt("b", -1, 0, 1)) != first {
		t.Error("FirstError did not keep the first error")
	}
}

func TestKeepCutsTheTraceOnce(t *testing.T) {
	var tr Trace
	for i := 0; i < 5; i++ {
		tr.Keep(Event{At: time.Duration(i), Kind: testX}, 3)
	}
	if len(tr) != 4 || tr.Count(testX) != 3 || !tr.Truncated() || tr[3].At != 3 {
		t.Fatalf("trace %+v: want 3 events and one truncated mark at the fourth's time", tr)
	}
	var short Trace
	short.Keep(Event{Kind: testX}, 3)
	if short.Truncated() || len(short) != 1 {
		t.Fatalf("trace %+v", short)
	}
}
