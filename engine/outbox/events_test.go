package outbox

import "testing"

// A run formats no sentence; written when shown, they are the Python
// reference's (bench/reference/outbox.py), which make bench compares by the
// last one only: here, every one, with the inbox and without.
func TestSentences(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Params
		want []string
	}{
		{"two orders, inbox", Params{Orders: 2, RelayCrash: true, Inbox: true}, []string{
			"BEGIN; INSERT order ord_1; INSERT outbox evt_1; COMMIT: both or neither.",
			"BEGIN; INSERT order ord_2; INSERT outbox evt_2; COMMIT: both or neither.",
			"Publish evt_1 to the broker.",
			"The relay crashes before marking evt_1 sent.",
			"The relay restarts and reads the outbox rows not marked sent.",
			"Publish evt_1 to the broker.",
			"UPDATE outbox SET sent = true WHERE id = evt_1.",
			"Publish evt_2 to the broker.",
			"UPDATE outbox SET sent = true WHERE id = evt_2.",
			"Send the email for evt_1, then INSERT inbox evt_1.",
			"evt_1 is in the inbox already: skip it.",
			"Send the email for evt_2, then INSERT inbox evt_2.",
		}},
		{"no inbox", Params{Orders: 1, RelayCrash: true}, []string{
			"BEGIN; INSERT order ord_1; INSERT outbox evt_1; COMMIT: both or neither.",
			"Publish evt_1 to the broker.",
			"The relay crashes before marking evt_1 sent.",
			"The relay restarts and reads the outbox rows not marked sent.",
			"Publish evt_1 to the broker.",
			"UPDATE outbox SET sent = true WHERE id = evt_1.",
			"Send the email for evt_1.",
			"Send the email for evt_1.",
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
