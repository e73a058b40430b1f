package backoff

import (
	"errors"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/sim"
)

// The herd's trace formats nothing while it runs; its sentences, written
// when shown, are the Python reference's (bench/reference/backoff.py),
// which make bench compares by the last one.
func TestSlotSentences(t *testing.T) {
	res, err := Run(Binding.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Trace {
		if e.Kind != Slot {
			t.Fatalf("event %+v: not a slot", e)
		}
	}
	for i, want := range map[int]string{
		0:                  "Slot 0 (0 s): 1000 calls, 50 served, 950 failed.",
		1:                  "Slot 1 (0.1 s): 950 calls, 50 served, 900 failed.",
		len(res.Trace) - 1: "Slot 1327 (132.7 s): 50 calls, 50 served, 0 failed.",
	} {
		if got := res.Trace[i].Sentence(); got != want {
			t.Errorf("event %d says %q, want %q", i, got, want)
		}
	}
}

// Retry's trace: a call's outcome, the waits, and the give-up at the
// deadline.
func TestRetrySentences(t *testing.T) {
	outcomes := []Outcome{
		{Status: 0, Took: 30 * time.Millisecond},
		{Status: 429, Took: 13700 * time.Microsecond},
		{Status: 503, RetryAfter: time.Second, Took: 20 * time.Millisecond},
		{Err: errors.New("connection refused"), Took: time.Millisecond},
		{Status: 429, Took: time.Millisecond},
	}
	rep, err := Retry(RetryPolicy{Attempts: 6, Base: 100 * time.Millisecond, Cap: 10 * time.Second, Deadline: 2 * time.Second},
		sim.NewRand(3), func(call int) Outcome { return outcomes[call] })
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range rep.Trace {
		got = append(got, e.Sentence())
	}
	want := []string{"Call 1: no answer.", "Wait 0.069 s.", "Call 2: 429.", "Wait 0.128 s.",
		"Call 3: 503 with Retry-After 1 s.", "Wait 1 s.", "Call 4: connection refused.", "Wait 0.427 s.",
		"Call 5: 429.", "Waiting 0.679 s would pass the deadline of 2 s: give up."}
	if len(got) != len(want) {
		t.Fatalf("trace %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d says %q, want %q", i, got[i], want[i])
		}
	}
}
