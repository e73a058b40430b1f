package storm

import "testing"

// A run formats no sentence; when shown, a second's sentence is the Python
// reference's (bench/reference/storm.py), with its retries, the work
// served for clients that left and the expired work dropped.
func TestTickSentences(t *testing.T) {
	for _, c := range []struct {
		budget, skip bool
		second       int
		want         string
	}{
		{false, false, 0, "Second 0: 80 new; 80 answered in time; 0 waiting."},
		{false, false, 15, "Second 15: 80 new and 40 retries; 0 answered in time, 40 served after their client gave up; 280 waiting."},
		{true, true, 15, "Second 15: 80 new and 9 retries; 40 answered in time, 40 expired dropped; 209 waiting."},
		{false, false, 119, "Second 119: 80 new and 240 retries; 0 answered in time, 100 served after their client gave up; 22760 waiting."},
	} {
		p := Binding.Defaults()
		p.Budget, p.SkipExpired = c.budget, c.skip
		res, err := Run(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range res.Trace {
			if e.Kind != Tick || e.Say == nil {
				t.Fatalf("event %+v: not a tick written when shown", e)
			}
		}
		if got := res.Trace[c.second].Sentence(); got != c.want {
			t.Errorf("budget %v, skip %v: second %d says %q, want %q", c.budget, c.skip, c.second, got, c.want)
		}
	}
}
