package guard

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/engine/sim"
)

func run(t *testing.T, p Params, seed uint64) Result {
	t.Helper()
	res, err := Run(seeded(p, seed))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Twenty at once, in lockstep (the package documentation; the step counts are
// on Run).
func TestLockstepFigures(t *testing.T) {
	for _, c := range []struct {
		strategy      Strategy
		rows, charges int
		statuses      map[int]int
	}{
		{CheckThenInsert, 20, 20, map[int]int{201: 20}},
		{ConstraintAfterCharge, 1, 20, map[int]int{201: 1, 409: 19}},
		{ClaimBeforeWork, 1, 1, map[int]int{201: 1, 409: 19}},
	} {
		res := run(t, Params{Isolation: ReadCommitted, N: 20, Strategy: c.strategy}, 1)
		if res.Rows != c.rows || res.Charges != c.charges || !maps.Equal(res.Statuses, c.statuses) {
			t.Errorf("%s: %d rows, %d charges, %v; want %d, %d, %v", c.strategy, res.Rows, res.Charges, res.Statuses, c.rows, c.charges, c.statuses)
		}
	}
}

// Check-then-insert at serializable, twenty in lockstep: the first INSERT
// takes the row; the other nineteen fail with 40001 after charging, run
// again, find the row and replay its 201. One row, twenty charges. At the
// two weaker levels, the figures of read committed.
func TestSerializableCheckThenInsert(t *testing.T) {
	res := run(t, Params{Isolation: Serializable, N: 20, Strategy: CheckThenInsert}, 1)
	if res.Rows != 1 || res.Charges != 20 || res.Aborts != 19 || res.Replayed != 19 || !maps.Equal(res.Statuses, map[int]int{201: 20}) {
		t.Fatalf("%d rows, %d charges, %d aborts, %v (%d replayed); want 1, 20, 19, 201 × 20 (19 replayed)", res.Rows, res.Charges, res.Aborts, res.Statuses, res.Replayed)
	}
	if a := res.Answers[0]; a != (Answer{Status: 201, Payment: "pay_1", Charged: true}) {
		t.Errorf("request 1 answered %+v, want its own 201 pay_1", a)
	}
	for i, a := range res.Answers[1:] {
		if a != (Answer{Status: 201, Payment: "pay_1", Replayed: true, Charged: true, Aborted: true}) {
			t.Errorf("request %d answered %+v, want pay_1 replayed after its own charge and a 40001", i+2, a)
		}
	}
	if n := res.Trace.Count(Abort); n != 19 {
		t.Errorf("%d 40001s in the trace, want 19", n)
	}
	// Each aborted request's lane: its refused INSERT, then a SELECT that
	// finds the row.
	for i, e := range res.Trace {
		if e.Kind != Abort {
			continue
		}
		next := slices.IndexFunc(res.Trace[i+1:], func(f sim.Event) bool { return f.Lane == e.Lane })
		if next < 0 || res.Trace[i+1+next].Kind != Select || !res.Trace[i+1+next].OK {
			t.Fatalf("%s: after its 40001 no SELECT finding the row", e.Lane)
		}
	}
	for seed := range uint64(20) {
		res := run(t, Params{Isolation: Serializable, N: 20, Strategy: CheckThenInsert, Spread: 4}, seed)
		if res.Rows != 1 || res.Charges != 1+res.Aborts || res.Statuses[201] != 20 {
			t.Fatalf("spread 4, seed %d: %d rows, %d charges, %d aborts, %v; want 1 row, a charge for the winner and each abort", seed, res.Rows, res.Charges, res.Aborts, res.Statuses)
		}
	}
	for _, iso := range []Isolation{ReadCommitted, RepeatableRead} {
		for seed := range uint64(5) {
			p := Params{N: 20, Strategy: CheckThenInsert, Spread: 4}
			p.Isolation = ReadCommitted
			want := run(t, p, seed)
			p.Isolation = iso
			if got := run(t, p, seed); got.Rows != want.Rows || got.Charges != want.Charges || got.Aborts != 0 || len(got.Trace) != len(want.Trace) {
				t.Fatalf("%s, seed %d: %d rows, %d charges, %d aborts; want read committed's %d and %d", iso, seed, got.Rows, got.Charges, got.Aborts, want.Rows, want.Charges)
			}
		}
	}
}

// Claim-before-work: the losers answered 409 with Retry-After: 1; a retry
// afterwards replays the 201 with pay_1; the same key with another amount
// answers 422; 1 charge in all.
func TestClaimBeforeWorkFollowUps(t *testing.T) {
	res := run(t, Params{Isolation: ReadCommitted, N: 20, Strategy: ClaimBeforeWork}, 1)
	if a := res.Answers[0]; a.Status != 201 || a.Payment != "pay_1" || !a.Charged {
		t.Fatalf("request 1 answered %+v, want 201 pay_1", a)
	}
	for i, a := range res.Answers[1:] {
		if a.Status != 409 || a.RetryAfter != 1 || a.Charged {
			t.Fatalf("request %d answered %+v, want 409 with Retry-After: 1", i+2, a)
		}
	}
	if want := (Answer{Status: 201, Payment: "pay_1", Replayed: true}); res.Retry != want {
		t.Fatalf("the retry answered %+v, want %+v", res.Retry, want)
	}
	if res.Other.Status != 422 || res.Other.Charged {
		t.Fatalf("another amount answered %+v, want 422 without a charge", res.Other)
	}
	if n := res.Trace.Count(Charge); n != 1 {
		t.Fatalf("the card network charged %d times, want 1", n)
	}
}

// The trap: the constraint keeps the table clean while the card is charged
// by every request, and by every retry after them too.
func TestConstraintAfterChargeChargesEveryRetry(t *testing.T) {
	res := run(t, Params{Isolation: ReadCommitted, N: 20, Strategy: ConstraintAfterCharge}, 1)
	if res.Retry.Status != 409 || !res.Retry.Charged || !res.Other.Charged || res.Trace.Count(Charge) != 22 {
		t.Fatalf("retry %+v, other %+v, %d charges in the trace; want two more charges", res.Retry, res.Other, res.Trace.Count(Charge))
	}
	if res.Trace.Count(Conflict) != 19+2 {
		t.Fatalf("%d unique violations, want 19 in the burst and 2 after", res.Trace.Count(Conflict))
	}
}

// Check-then-insert with requests spread over a few rounds: the rows vary
// run to run, as they did on a real PostgreSQL when the card call was
// short next to how far apart the requests arrived (`make lab`: 9 to 20
// rows over six runs of 20, with card calls of 0 to 5 ms; see
// content/concurrent-duplicates.md). Spread 4 (arrivals over 5 rounds,
// against the 5 rounds from a SELECT to its INSERT) stays within 10 to 20
// over seeds 1 to 40.
func TestCheckThenInsertVariesWithInterleaving(t *testing.T) {
	seen := map[int]bool{}
	for seed := uint64(1); seed <= 40; seed++ {
		res := run(t, Params{Isolation: ReadCommitted, N: 20, Strategy: CheckThenInsert, Spread: 4}, seed)
		if res.Rows < 10 || res.Rows > 20 || res.Rows != res.Charges {
			t.Errorf("seed %d: %d rows, %d charges; want equal, within 10 to 20", seed, res.Rows, res.Charges)
		}
		if res.Statuses[201] != 20 || res.Replayed != 20-res.Rows {
			t.Errorf("seed %d: %v, %d replayed; those who found the row replay it", seed, res.Statuses, res.Replayed)
		}
		seen[res.Rows] = true
	}
	if len(seen) < 3 {
		t.Fatalf("rows took only the values %v over 40 seeds", slices.Collect(maps.Keys(seen)))
	}
}

func TestSameSeedSameRun(t *testing.T) {
	p := Params{Isolation: ReadCommitted, N: 50, Strategy: ClaimBeforeWork, Spread: 10}
	a, b := run(t, p, 9), run(t, p, 9)
	if !slices.Equal(a.Trace, b.Trace) {
		t.Fatal("seed 9 gave two different traces")
	}
	if c := run(t, p, 10); slices.Equal(a.Trace, c.Trace) {
		t.Fatal("seeds 9 and 10 gave the same trace")
	}
}

// Claim-before-work charges exactly once for any N, spread and seed; the
// one charge is pay_1, everyone else answers 409 or replays it, and the
// follow-ups never charge.
func FuzzClaimBeforeWorkChargesOnce(f *testing.F) {
	f.Add(20, 0, uint64(1))
	f.Add(1, 0, uint64(2))
	f.Add(1000, 1000, uint64(3))
	f.Add(57, 6, uint64(4))
	f.Fuzz(func(t *testing.T, n, spread int, seed uint64) {
		p := Params{Isolation: ReadCommitted, N: n, Strategy: ClaimBeforeWork, Spread: spread}
		if p.Validate() != nil {
			return
		}
		res := run(t, p, seed)
		if res.Charges != 1 || res.Rows != 1 || res.Trace.Count(Charge) != 1 {
			t.Fatalf("seed %d n %d spread %d: %d charges, %d rows", seed, n, spread, res.Charges, res.Rows)
		}
		if res.Statuses[201] != 1+res.Replayed || res.Statuses[201]+res.Statuses[409] != n {
			t.Fatalf("seed %d n %d spread %d: %v, %d replayed", seed, n, spread, res.Statuses, res.Replayed)
		}
		for i, a := range res.Answers {
			if a.Status == 201 && a.Payment != "pay_1" {
				t.Fatalf("seed %d: request %d answered %+v", seed, i+1, a)
			}
		}
		if res.Retry.Payment != "pay_1" || !res.Retry.Replayed || res.Other.Status != 422 {
			t.Fatalf("seed %d: retry %+v, other %+v", seed, res.Retry, res.Other)
		}
	})
}

// Within bounds nothing panics and the strategies keep their shapes; out
// of bounds the error names the parameter.
func FuzzRun(f *testing.F) {
	f.Add(20, uint8(0), 0, uint64(1))
	f.Add(0, uint8(1), -1, uint64(2))
	f.Add(1001, uint8(7), 1001, uint64(3))
	f.Add(300, uint8(1), 40, uint64(4))
	f.Fuzz(func(t *testing.T, n int, s uint8, spread int, seed uint64) {
		p := Params{Isolation: ReadCommitted, N: n, Strategy: Strategy("none"), Spread: spread}
		if int(s) < len(Strategies) {
			p.Strategy = Strategies[s]
		}
		res, err := Run(seeded(p, seed))
		if p.Validate() != nil {
			var pe *param.Error
			if !errors.As(err, &pe) || !slices.Contains([]string{"n", "strategy", "spread"}, pe.Param) {
				t.Fatalf("%+v: error %v does not name a parameter", p, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		switch p.Strategy {
		case CheckThenInsert:
			if res.Rows != res.Charges || res.Rows < 1 || res.Statuses[201] != n {
				t.Fatalf("seed %d %+v: %d rows, %d charges, %v", seed, p, res.Rows, res.Charges, res.Statuses)
			}
		case ConstraintAfterCharge:
			if res.Rows != 1 || res.Charges != n || res.Statuses[201] != 1 || res.Statuses[409] != n-1 {
				t.Fatalf("seed %d %+v: %d rows, %d charges, %v", seed, p, res.Rows, res.Charges, res.Statuses)
			}
		}
		if len(res.Answers) != n || len(res.Trace) > sim.MaxEvents+1 {
			t.Fatalf("seed %d %+v: %d answers, %d events", seed, p, len(res.Answers), len(res.Trace))
		}
	})
}

func TestValidateNamesTheParameter(t *testing.T) {
	for _, c := range []struct {
		p    Params
		want string
	}{
		{Params{Isolation: ReadCommitted, N: 0, Strategy: ClaimBeforeWork}, `n: "0" is out of bounds (allowed: 1 to 50)`},
		{Params{Isolation: ReadCommitted, N: 20, Strategy: "lock"}, `strategy: "lock" is not allowed (allowed: check-then-insert, constraint-after-charge, claim-before-work)`},
		{Params{Isolation: ReadCommitted, N: 20, Strategy: ClaimBeforeWork, Spread: -1}, `spread: "-1" is out of bounds (allowed: 0 to 10)`},
	} {
		if _, err := Run(seeded(c.p, 1)); err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

func BenchmarkGuard(b *testing.B) {
	p := Binding.Defaults()
	for b.Loop() {
		if _, err := Run(seeded(p, 1)); err != nil {
			b.Fatal(err)
		}
	}
}

// A run's trace is allocated once, at its size: no run records more
// events than Params.events reserves (so the trace keeps the capacity
// the reservation gave it, rounded up to the allocator's size class), and
// a run in lockstep records exactly that many.
func TestTraceIsReservedAtItsSize(t *testing.T) {
	for _, st := range Strategies {
		for _, n := range []int{1, 2, 20, MaxN} {
			for _, spread := range []int{0, 4, 10} {
				for _, iso := range Isolations {
					p := Params{Isolation: iso, Strategy: st, N: n, Spread: spread}
					for seed := range uint64(5) {
						res, err := Run(seeded(p, seed))
						if err != nil {
							t.Fatal(err)
						}
						reserved := cap(slices.Grow(sim.Trace(nil), p.events()))
						if len(res.Trace) > p.events() || cap(res.Trace) != reserved || (spread == 0 && len(res.Trace) != p.events()) {
							t.Fatalf("%s, %s, %d requests, spread %d, seed %d: %d events in a trace of capacity %d, reserved %d",
								st, iso, n, spread, seed, len(res.Trace), cap(res.Trace), p.events())
						}
					}
				}
			}
		}
	}
}

// seeded is p drawing from seed.
func seeded(p Params, seed uint64) Params {
	p.Seed = seed
	return p
}
