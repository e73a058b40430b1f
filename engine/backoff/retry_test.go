package backoff

import (
	"errors"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/param"
	"github.com/retrylab/retrylab/engine/sim"
)

// script returns a do func that answers the given outcomes in order and
// fails the test if called more often.
func script(t *testing.T, outs ...Outcome) func(int) Outcome {
	return func(call int) Outcome {
		if call >= len(outs) {
			t.Fatalf("call %d: only %d were expected", call, len(outs))
		}
		return outs[call]
	}
}

// Two 503s then a success: 3 calls and 2 waits, the n-th wait within
// [0, base * 2^n] (the package documentation), for every seed.
func TestRetryTwo503sThenSuccess(t *testing.T) {
	p := DefaultRetryPolicy()
	for seed := uint64(1); seed <= 40; seed++ {
		rep, err := Retry(p, sim.NewRand(seed), script(t, Outcome{Status: 503}, Outcome{Status: 503}, Outcome{Status: 201}))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Calls != 3 || len(rep.Waits) != 2 || rep.Last.Status != 201 || rep.Stopped != StopFinal {
			t.Fatalf("seed %d: %d calls, waits %v, last %d, stopped %q; want 3 calls, 2 waits, 201, final", seed, rep.Calls, rep.Waits, rep.Last.Status, rep.Stopped)
		}
		for n, w := range rep.Waits {
			if hi := p.Base << n; w < 0 || w > hi {
				t.Fatalf("seed %d: wait %d is %v, want within [0, %v]", seed, n, w, hi)
			}
		}
		if rep.Elapsed != rep.Waits[0]+rep.Waits[1] || rep.Trace.Count(Call) != 3 || rep.Trace.Count(Wait) != 2 {
			t.Fatalf("seed %d: elapsed %v, trace %+v", seed, rep.Elapsed, rep.Trace)
		}
	}
}

// A 422 is the server saying "not this request": 1 call, returned at once.
// So are the other statuses a retry cannot change: a 409 without
// Retry-After (a real conflict), and the 5xx that name a missing feature
// (501) or protocol version (505) rather than a passing failure.
func TestRetryNeverRepeatsAFinalAnswer(t *testing.T) {
	for _, status := range []int{200, 201, 400, 401, 403, 404, 409, 422, 501, 505} {
		rep, err := Retry(DefaultRetryPolicy(), sim.NewRand(1), script(t, Outcome{Status: status}))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Calls != 1 || len(rep.Waits) != 0 || rep.Elapsed != 0 || rep.Last.Status != status || rep.Stopped != StopFinal {
			t.Errorf("%d: %d calls, waits %v, elapsed %v; want 1 call, returned at once", status, rep.Calls, rep.Waits, rep.Elapsed)
		}
	}
}

// Connection errors, timeouts, 408, 429, 500, 502, 503, 504 and a 409 with
// Retry-After (the key's first request still running) are retried until
// the attempts run out.
func TestRetryRepeatsTransientFailures(t *testing.T) {
	transient := []Outcome{
		{Err: errors.New("connection refused")}, {Err: errors.New("timeout")}, {},
		{Status: 408}, {Status: 429}, {Status: 500}, {Status: 502}, {Status: 503}, {Status: 504},
		{Status: 409, RetryAfter: time.Second},
	}
	for _, o := range transient {
		p := DefaultRetryPolicy()
		rep, err := Retry(p, sim.NewRand(1), func(int) Outcome { return o })
		if err != nil {
			t.Fatal(err)
		}
		if rep.Calls != p.Attempts || rep.Stopped != StopAttempts || len(rep.Waits) != p.Attempts-1 {
			t.Errorf("%+v: %d calls, stopped %q; want %d, attempts", o, rep.Calls, rep.Stopped, p.Attempts)
		}
	}
}

// A 409 "still running" with Retry-After is waited out, and the retry gets
// the first request's answer: 2 calls, one wait of at least Retry-After.
func TestRetryWaitsOutAnInFlight409(t *testing.T) {
	rep, err := Retry(DefaultRetryPolicy(), sim.NewRand(1), script(t, Outcome{Status: 409, RetryAfter: time.Second}, Outcome{Status: 201}))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Calls != 2 || len(rep.Waits) != 1 || rep.Waits[0] < time.Second || rep.Last.Status != 201 || rep.Stopped != StopFinal {
		t.Errorf("%d calls, waits %v, last %d, stopped %q; want 2 calls, one wait >= 1 s, 201", rep.Calls, rep.Waits, rep.Last.Status, rep.Stopped)
	}
}

// Retry-After is a floor: the jitter never makes a client call back sooner
// than the server asked, and a floor above the ceiling wins.
func TestRetryAfterIsAFloor(t *testing.T) {
	p := DefaultRetryPolicy() // first ceiling 0.1 s, far below 2 s
	for seed := uint64(1); seed <= 40; seed++ {
		rep, _ := Retry(p, sim.NewRand(seed), script(t, Outcome{Status: 429, RetryAfter: 2 * time.Second}, Outcome{Status: 200}))
		if len(rep.Waits) != 1 || rep.Waits[0] != 2*time.Second {
			t.Fatalf("seed %d: waits %v, want exactly the 2 s asked for", seed, rep.Waits)
		}
	}
}

// Retry gives up rather than wait past the caller's deadline; the
// calls' own time counts against it.
func TestRetryStopsAtTheDeadline(t *testing.T) {
	p := DefaultRetryPolicy()
	p.Attempts = 10
	p.Deadline = 3 * time.Second
	slow := Outcome{Status: 503, Took: time.Second}
	rep, err := Retry(p, sim.NewRand(1), func(int) Outcome { return slow })
	if err != nil {
		t.Fatal(err)
	}
	// Each call takes 1 s and each wait is under 0.1 * 2^n s, so the
	// third call ends after 3 s plus two short waits: no time for a fourth.
	if rep.Stopped != StopDeadline || rep.Calls != 3 || rep.Elapsed > p.Deadline+time.Second {
		t.Fatalf("%d calls, stopped %q, elapsed %v; want 3, deadline", rep.Calls, rep.Stopped, rep.Elapsed)
	}
	if rep.Trace.Count(GiveUp) != 1 {
		t.Fatalf("trace %+v lacks the give-up", rep.Trace)
	}
	// A Retry-After beyond the deadline ends it at once.
	rep, _ = Retry(p, sim.NewRand(1), script(t, Outcome{Status: 503, RetryAfter: time.Minute}))
	if rep.Calls != 1 || rep.Stopped != StopDeadline {
		t.Fatalf("%d calls, stopped %q; want 1, deadline", rep.Calls, rep.Stopped)
	}
}

// A policy out of bounds is refused with a *param.Error that names the
// field, its value and what is allowed.
func TestRetryPolicyValidate(t *testing.T) {
	for _, c := range []struct {
		set  func(*RetryPolicy)
		want string
	}{
		{func(p *RetryPolicy) { p.Attempts = 0 }, `attempts: "0" is out of bounds (allowed: 1 to 100)`},
		{func(p *RetryPolicy) { p.Base = 0 }, `base: "0" is out of bounds (allowed: 0.001 to 3600)`},
		{func(p *RetryPolicy) { p.Cap = 50 * time.Millisecond }, `cap: "0.05" is not at least base (0.1)`},
		{func(p *RetryPolicy) { p.Deadline = 25 * time.Hour }, `deadline: "90000" is out of bounds (allowed: 0 to 86400)`},
	} {
		p := DefaultRetryPolicy()
		c.set(&p)
		_, err := Retry(p, sim.NewRand(1), nil)
		var pe *param.Error
		if !errors.As(err, &pe) || err.Error() != c.want {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	if err := DefaultRetryPolicy().Validate(); err != nil {
		t.Fatal(err)
	}
}
