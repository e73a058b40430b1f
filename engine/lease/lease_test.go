package lease

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
)

func params(c Crash, retry int, recovery bool) Params {
	return Params{Crash: c, Lease: time.Minute, Retry: time.Duration(retry) * time.Second, Recovery: recovery}
}

// Every crash point, with and without recovery points, retried before the
// minute's lease ends (30 s) and after it (90 s). Before the lease the
// retry gets a 409 whose Retry-After sends it back as the lease ends; a
// saved answer is replayed whenever the retry comes; and only a takeover
// without recovery points, after a crash that charged, charges twice.
func TestCrashRetryRecovery(t *testing.T) {
	for _, c := range []struct {
		crash    Crash
		retry    int
		recovery bool
		want     Summary
	}{
		{NoCrash, 30, true, Summary{Charges: 1, Payments: 1, Retry: "none", Receipt: "ch_1", Sends: 1, DoneAtS: 1}},
		{NoCrash, 90, false, Summary{Charges: 1, Payments: 1, Retry: "none", Receipt: "ch_1", Sends: 1, DoneAtS: 1}},

		{BeforeCharge, 30, true, Summary{Charges: 1, Payments: 1, Retry: "409", Receipt: "ch_1", Sends: 3, ResumedFrom: "payment pay_1", DoneAtS: 61}},
		{BeforeCharge, 90, true, Summary{Charges: 1, Payments: 1, Retry: "201", Receipt: "ch_1", Sends: 2, ResumedFrom: "payment pay_1", DoneAtS: 91}},
		{BeforeCharge, 30, false, Summary{Charges: 1, Payments: 2, Retry: "409", Receipt: "ch_1", Sends: 3, DoneAtS: 61}},
		{BeforeCharge, 90, false, Summary{Charges: 1, Payments: 2, Retry: "201", Receipt: "ch_1", Sends: 2, DoneAtS: 91}},

		{AfterCharge, 30, true, Summary{Charges: 1, Payments: 1, Retry: "409", Receipt: "ch_1", Sends: 3, ResumedFrom: "charged pay_1 ch_1", DoneAtS: 60}},
		{AfterCharge, 90, true, Summary{Charges: 1, Payments: 1, Retry: "201", Receipt: "ch_1", Sends: 2, ResumedFrom: "charged pay_1 ch_1", DoneAtS: 90}},
		{AfterCharge, 30, false, Summary{Charges: 2, Payments: 2, Retry: "409", Receipt: "ch_2", Sends: 3, DoneAtS: 61}},
		{AfterCharge, 90, false, Summary{Charges: 2, Payments: 2, Retry: "201", Receipt: "ch_2", Sends: 2, DoneAtS: 91}},

		{AfterSaving, 30, true, Summary{Charges: 1, Payments: 1, Retry: "replay", Receipt: "ch_1", Sends: 2, DoneAtS: 30}},
		{AfterSaving, 90, true, Summary{Charges: 1, Payments: 1, Retry: "replay", Receipt: "ch_1", Sends: 2, DoneAtS: 90}},
		{AfterSaving, 30, false, Summary{Charges: 1, Payments: 1, Retry: "replay", Receipt: "ch_1", Sends: 2, DoneAtS: 30}},
		{AfterSaving, 90, false, Summary{Charges: 1, Payments: 1, Retry: "replay", Receipt: "ch_1", Sends: 2, DoneAtS: 90}},

		// The owner that pauses past its lease: the takeover charges with
		// the payment's key, and the woken owner gets the same charge from
		// the processor, then the fence stops its write. Without recovery
		// points the takeover made another payment, and the woken owner's
		// charge is a new one: the fence guards the store, not the card.
		{Pauses, 30, true, Summary{Charges: 1, Payments: 1, Retry: "409", Receipt: "ch_1", Sends: 3, ResumedFrom: "payment pay_1", DoneAtS: 61}},
		{Pauses, 90, true, Summary{Charges: 1, Payments: 1, Retry: "201", Receipt: "ch_1", Sends: 2, ResumedFrom: "payment pay_1", DoneAtS: 91}},
		{Pauses, 30, false, Summary{Charges: 2, Payments: 2, Retry: "409", Receipt: "ch_1", Sends: 3, DoneAtS: 61}},
		// A retry after the owner woke: nobody took the key over, and
		// the owner, whose fence still holds, finishes.
		{Pauses, 200, true, Summary{Charges: 1, Payments: 1, Retry: "none", Receipt: "ch_1", Sends: 1, DoneAtS: 121}},
	} {
		p := params(c.crash, c.retry, c.recovery)
		res, err := Run(p)
		if err != nil {
			t.Fatal(err)
		}
		if res.Summary != c.want {
			t.Errorf("%s, retry at %d s, recovery %v:\n got %+v\nwant %+v", c.crash, c.retry, c.recovery, res.Summary, c.want)
		}
		n := 0
		for _, e := range res.Trace {
			if e.Kind == Charge && !e.OK { // OK: the processor gave a charge back
				n++
			}
		}
		if n != res.Charges {
			t.Errorf("%+v: %d charge events for %d charges", p, n, res.Charges)
		}
	}
}

// A retry within the lease is told the time left on it, and comes back
// then, whatever the lease: the 409's Retry-After is the keeper's, not a
// figure of the model.
func TestRetryAfterIsTheLeaseLeft(t *testing.T) {
	for _, c := range []struct{ lease, retry int }{{60, 30}, {60, 59}, {300, 2}, {5, 2}, {45, 44}} {
		p := Params{Crash: AfterCharge, Lease: time.Duration(c.lease) * time.Second, Retry: time.Duration(c.retry) * time.Second, Recovery: true}
		res, err := Run(p)
		if err != nil {
			t.Fatal(err)
		}
		var retryAfter int
		var takeover time.Duration = -1
		for _, e := range res.Trace {
			switch e.Kind {
			case Answer:
				if e.N == statusConflict {
					retryAfter = e.M
				}
			case Takeover:
				takeover = e.At
			}
		}
		if retryAfter != c.lease-c.retry || takeover != time.Duration(c.lease)*time.Second || res.Charges != 1 {
			t.Errorf("lease %d, retry %d: Retry-After %d, takeover at %v, %d charges; want %d, %d s, 1",
				c.lease, c.retry, retryAfter, takeover, res.Charges, c.lease-c.retry, c.lease)
		}
	}
	// At the lease's very end the key is taken over at once.
	res, _ := Run(Params{Crash: AfterCharge, Lease: time.Minute, Retry: time.Minute, Recovery: true})
	if res.Retry != "201" || res.Sends != 2 {
		t.Errorf("a retry as the lease ends: %+v", res.Summary)
	}
}

// The key store is left as the protocol leaves it: done, with the answer
// the client holds, and with recovery points the last step.
func TestStoreAfterTheRun(t *testing.T) {
	for _, c := range Crashes {
		for _, recovery := range []bool{true, false} {
			p := params(c, 30, recovery)
			res, store, err := play(p)
			if err != nil {
				t.Fatal(err)
			}
			rec, ok, _ := store.Get(context.Background(), Account, Key)
			point := ""
			if recovery {
				point = "charged pay_" + strconv.Itoa(res.Payments) + " " + res.Receipt
			}
			if !ok || rec.State != idem.Done || rec.Status != statusCreated || chargeOf(rec.Body) != res.Receipt || rec.RecoveryPoint != point {
				t.Errorf("%+v: the key's record is %+v (%s); want done, 201, %s, recovery point %q", p, rec, rec.Body, res.Receipt, point)
			}
		}
	}
}

// The paused owner is refused by the fence exactly when its key was taken
// over while it slept, and the client hears one 201 either way.
func TestPausedOwnerFenced(t *testing.T) {
	for _, c := range []struct {
		retry  int
		fenced int
	}{{30, 1}, {90, 1}, {119, 1}, {120, 1}, {121, 1}, {122, 0}, {200, 0}} {
		// At 121 s the retry comes while the woken owner is in its
		// processor call: its lease lapsed long ago, so the retry takes
		// the key over, and the owner's answer is refused.
		res, err := Run(params(Pauses, c.retry, true))
		if err != nil {
			t.Fatal(err)
		}
		created := 0
		for _, e := range res.Trace {
			if e.Kind == Answer && e.N == statusCreated {
				created++
			}
		}
		if n := res.Trace.Count(Fenced); n != c.fenced || created != 1 {
			t.Errorf("retry at %d s: %d refusals by the fence, %d answers of 201; want %d and 1", c.retry, n, created, c.fenced)
		}
	}
}

func TestSentences(t *testing.T) {
	for _, c := range Crashes {
		res, _ := Run(params(c, 30, true))
		for i, e := range res.Trace {
			if s := e.Sentence(); s == "" || s == e.Kind.String() {
				t.Errorf("%s: event %d (%s) has no sentence", c, i, e.Kind)
			}
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		p    Params
		want string
	}{
		{Params{Crash: "later", Lease: time.Minute, Retry: time.Minute}, `crash: "later" is not allowed (allowed: none, before-charge, after-charge, after-saving, pauses)`},
		{Params{Crash: NoCrash, Lease: time.Second, Retry: time.Minute}, `lease: "1" is out of bounds (allowed: 5 to 300)`},
		{Params{Crash: NoCrash, Lease: time.Minute, Retry: 1500 * time.Millisecond}, `retry: "1.5" is not a whole number (allowed: 2 to 600)`},
	} {
		if _, err := Run(c.p); err == nil || err.Error() != c.want {
			t.Errorf("%+v: error %v, want %s", c.p, err, c.want)
		}
	}
}

func BenchmarkLease(b *testing.B) {
	p := Binding.Defaults()
	for b.Loop() {
		if _, err := Run(p); err != nil {
			b.Fatal(err)
		}
	}
}
