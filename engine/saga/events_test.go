package saga

import "testing"

// A run formats no sentence; written when shown, they are the Python
// reference's (bench/reference/saga.py), which make bench compares by the
// last one only: here, every one, with keys and without.
func TestSentences(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Params
		want []string
	}{
		{"keys", Params{Fail: Hotel, CrashAfter: Flight, Keys: true}, []string{
			"Log: charge started.",
			"Call charge with key saga:charge: done.",
			"Log: charge done.",
			"Log: flight started.",
			"Call flight with key saga:flight: done.",
			"The runner crashes before logging the flight call's result.",
			"The runner restarts and reads the log: flight started, not done; call it again.",
			"Call flight with key saga:flight: the key is known, the saved answer is replayed.",
			"Log: flight done.",
			"Log: hotel started.",
			"Call hotel with key saga:hotel: refused.",
			"Log: hotel failed; compensate.",
			"Call undo flight with key saga:flight:undo: done.",
			"Log: flight undone.",
			"Call undo charge with key saga:charge:undo: done.",
			"Log: charge undone.",
		}},
		{"no keys", Params{Fail: Hotel, CrashAfter: Flight}, []string{
			"Log: charge started.",
			"Call charge: done.",
			"Log: charge done.",
			"Log: flight started.",
			"Call flight: done.",
			"The runner crashes before logging the flight call's result.",
			"The runner restarts and reads the log: flight started, not done; call it again.",
			"Call flight: done.",
			"Log: flight done.",
			"Log: hotel started.",
			"Call hotel: refused.",
			"Log: hotel failed; compensate.",
			"Call undo flight: done.",
			"Log: flight undone.",
			"Call undo charge: done.",
			"Log: charge undone.",
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
