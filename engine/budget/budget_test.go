package budget

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/engine/sim"
)

// 1,000 requests with 3 retries each: 4,000 calls without a budget, exactly
// 1,109 with one (the package documentation has the arithmetic).
func TestFigures(t *testing.T) {
	p := Binding.Defaults()
	p.Budget = false
	res, err := Run(p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 4000 || res.Retries != 3000 || res.Denied != 0 {
		t.Fatalf("no budget: %d calls, %d retries, %d denied; want 4000, 3000, 0", res.Calls, res.Retries, res.Denied)
	}
	res, err = Run(Binding.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	if res.Calls != 1109 || res.Retries != 109 {
		t.Fatalf("budget: %d calls, %d retries; want 1109, 109", res.Calls, res.Retries)
	}
	// 109.9 tokens came in and 109 went out: 0.9 left.
	if math.Abs(res.Tokens-0.9) > 1e-9 {
		t.Fatalf("tokens left %v, want 0.9", res.Tokens)
	}
	// The first four requests spend the bank: 3 + 3 + 3 + 1 retries.
	want := []string{"call", "retry", "retry", "retry", "call", "retry", "retry", "retry", "call", "retry", "retry", "retry", "call", "retry", "denied", "call", "denied"}
	var got []string
	for _, e := range res.Trace[:len(want)] {
		got = append(got, e.Kind.String())
	}
	if !slices.Equal(got, want) {
		t.Fatalf("trace starts %v, want %v", got, want)
	}
	if res.Trace.Count(Call)+res.Trace.Count(Retry) != res.Calls {
		t.Fatal("trace and summary disagree on the calls")
	}
}

// The budget's promise: retries never exceed ratio * requests + bank, for
// any parameters; without it, every failure is retried.
func FuzzBudgetBound(f *testing.F) {
	f.Add(1000, 3, 0.1, 10.0, true)
	f.Add(1, 0, 0.0, 0.0, true)
	f.Add(100_000, 10, 1.0, 1000.0, true)
	f.Add(77, 5, 0.33, 2.5, false)
	f.Add(0, -1, math.NaN(), -3.0, true)
	f.Fuzz(func(t *testing.T, requests, retries int, ratio, bank float64, on bool) {
		p := Params{Requests: requests, Retries: retries, Ratio: ratio, Bank: bank, Budget: on}
		res, err := Run(p)
		if p.Validate() != nil {
			var pe *param.Error
			if !errors.As(err, &pe) || !slices.Contains([]string{"requests", "retries", "ratio", "bank"}, pe.Param) {
				t.Fatalf("%+v: error %v does not name a parameter", p, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if res.Calls != p.Requests+res.Retries {
			t.Fatalf("%+v: %d calls for %d requests and %d retries", p, res.Calls, p.Requests, res.Retries)
		}
		if !on {
			if res.Retries != p.Requests*p.Retries {
				t.Fatalf("%+v: %d retries without a budget, want %d", p, res.Retries, p.Requests*p.Retries)
			}
			return
		}
		// In micro-tokens, as the bucket counts: exact.
		if limit := int64(math.Round(ratio*micro))*int64(requests) + int64(math.Round(bank*micro)); int64(res.Retries)*micro > limit {
			t.Fatalf("%+v: %d retries, more than ratio * requests + bank = %v", p, res.Retries, float64(limit)/micro)
		}
		if res.Retries > p.Requests*p.Retries || len(res.Trace) > sim.MaxEvents+1 {
			t.Fatalf("%+v: %d retries, trace %d", p, res.Retries, len(res.Trace))
		}
	})
}

func TestValidateNamesTheParameter(t *testing.T) {
	for _, c := range []struct {
		set  func(*Params)
		want string
	}{
		{func(p *Params) { p.Requests = 0 }, `requests: "0" is out of bounds (allowed: 1 to 100000)`},
		{func(p *Params) { p.Retries = 11 }, `retries: "11" is out of bounds (allowed: 0 to 10)`},
		{func(p *Params) { p.Ratio = 1.5 }, `ratio: "1.5" is out of bounds (allowed: 0 to 1)`},
		{func(p *Params) { p.Ratio = math.NaN() }, `ratio: "NaN" is not a number (allowed: 0 to 1)`},
		{func(p *Params) { p.Bank = -1 }, `bank: "-1" is out of bounds (allowed: 0 to 1000)`},
	} {
		p := Binding.Defaults()
		c.set(&p)
		if _, err := Run(p); err == nil || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

func BenchmarkBudget(b *testing.B) {
	p := Binding.Defaults()
	for b.Loop() {
		if _, err := Run(p); err != nil {
			b.Fatal(err)
		}
	}
}

// A retry spends a whole token and may not empty the bucket.
func TestBucketNeverEmptiedByARetry(t *testing.T) {
	b := NewBucket(0.1, 10)
	if got := b.Spend(20); got != 9 || b.Tokens() != 1 {
		t.Fatalf("a full bucket of 10 let %d retries through and kept %v; want 9 and 1", got, b.Tokens())
	}
	if got := b.Spend(1); got != 0 {
		t.Fatal("a retry took the last token")
	}
	b.Earn(1) // 1.1 tokens
	if got := b.Spend(5); got != 1 || b.String() != "0.1 tokens" {
		t.Fatalf("1.1 tokens let %d retries through and kept %s; want 1 and 0.1 tokens", got, b)
	}
	b.Earn(10_000)
	if b.Tokens() != 10 {
		t.Fatalf("the bank cap let the bucket reach %v", b.Tokens())
	}
	if NewBucket(0.1, 0).Spend(1) != 0 || b.Spend(0) != 0 || b.Spend(-3) != 0 {
		t.Fatal("an empty bucket or a request for no retries let one through")
	}
}

// Events carry their figures; the sentence is written from them only when
// asked for, and says what the bucket held.
func TestEventsAreData(t *testing.T) {
	res, err := Run(Binding.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	e := res.Trace[1]
	if e.Kind != Retry || e.N != 1 || e.M != 1 || e.Amount != 9_000_000 {
		t.Fatalf("second event %+v", e)
	}
	for i, want := range []string{
		"Request 1 calls and fails (bucket: 10.0 tokens).",
		"Retry 1 of request 1 fails (bucket: 9.0 tokens).",
	} {
		if got := res.Trace[i].Sentence(); got != want {
			t.Errorf("event %d says %q, want %q", i, got, want)
		}
	}
	p := Binding.Defaults()
	p.Budget = false
	res, _ = Run(p)
	if got := res.Trace[0].Sentence(); got != "Request 1 calls and fails." {
		t.Errorf("without a budget, event 0 says %q", got)
	}
}

// A run allocates its trace once, at its size, and its lanes in a few
// blocks: what it allocates does not grow with the events it records
// (before, a run of the defaults made 4,024 allocations and copied its
// trace as it grew; now 4, natively and in WebAssembly).
func TestTraceAllocatedOnce(t *testing.T) {
	for _, on := range []bool{true, false} {
		p := Binding.Defaults()
		p.Budget = on
		res, err := Run(p)
		if err != nil {
			t.Fatal(err)
		}
		if cap(res.Trace) != len(res.Trace) {
			t.Errorf("budget %v: a trace of %d events in room for %d", on, len(res.Trace), cap(res.Trace))
		}
		if n := testing.AllocsPerRun(20, func() { Run(p) }); n > 5 {
			t.Errorf("budget %v: %v allocations for a run of %d events; want at most 5", on, n, len(res.Trace))
		}
	}
}
