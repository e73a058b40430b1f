package backoff

import (
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/sim"
)

// Outcome is what one call came to, as a retrying client sees it.
type Outcome struct {
	Status     int           // the HTTP status; 0 when nothing was answered
	Err        error         // a connection error or a timeout; Status is then 0
	RetryAfter time.Duration // the server's Retry-After; 0 when it sent none
	Took       time.Duration // how long the call took on the virtual clock
}

// Retryable reports whether a call that came to o is worth repeating: no
// answer at all (a connection error, a timeout), a status that says "not
// now" rather than "not this" (408, 429, 500, 502, 503, 504), or a 409 that
// carries Retry-After, which is how an idempotency-key server says "the
// first request with this key is still running": the retry will get that
// request's answer. A 409 without Retry-After is a real conflict (a taken
// name, a stale version) and final. Every other status is final too, a
// success or an error that a retry would only repeat (400, 401, 403, 404,
// 422, 501, 505, ...).
func (o Outcome) Retryable() bool {
	if o.Err != nil || o.Status == 0 {
		return true
	}
	switch o.Status {
	case 408, 429, 500, 502, 503, 504:
		return true
	case 409:
		return o.RetryAfter > 0
	}
	return false
}

// RetryPolicy is how Retry spaces and bounds its calls.
type RetryPolicy struct {
	Attempts int           // at most this many calls, the first one included
	Base     time.Duration // the ceiling of the first wait; it doubles per retry
	Cap      time.Duration // the largest ceiling
	Deadline time.Duration // the caller's time budget from the first call; 0 for none
}

// DefaultRetryPolicy is a careful client's: 5 calls, waits drawn from
// [0, 0.1 s], [0, 0.2 s], [0, 0.4 s], [0, 0.8 s], no deadline.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{Attempts: 5, Base: 100 * time.Millisecond, Cap: 10 * time.Second}
}

// Validate reports the first field out of its bounds as a *param.Error
// that names the field, its value and what is allowed. The bounds are
// declared once, in Bind: at most 100 calls, the first one included;
// a base and a cap of a millisecond to an hour, the cap at least the
// base; a deadline of at most a day, or none. The check is the one a
// model's Params gets from its binding (param.Binding), which checks the
// fields as they are and writes them out only for the error; Retry runs
// it first.
func (p RetryPolicy) Validate() error { return retryBinding.Check(p) }

// Stop is why Retry stopped calling.
type Stop string

const (
	StopFinal    Stop = "final"    // the last outcome is not worth repeating (a success, or a 4xx like 422)
	StopAttempts Stop = "attempts" // the last allowed call failed
	StopDeadline Stop = "deadline" // the next wait would pass the caller's deadline
)

// Report is what Retry did.
type Report struct {
	Calls   int             // calls made
	Waits   []time.Duration // the wait before each call after the first
	Last    Outcome         // the outcome returned to the caller
	Stopped Stop            // why it stopped
	Elapsed time.Duration   // virtual time from the first call to the return
	Trace   sim.Trace       // one event per call and per wait
}

// Retry calls do, with the call's number from 0, until an outcome is final,
// the attempts are used up or the next wait would pass the deadline, and
// returns the last outcome. Its waits are virtual (added to Elapsed and the
// trace; Retry never sleeps): full jitter, uniform(0, min(Cap, Base*2^n))
// for the n-th retry from 0, drawn from r, with a server's Retry-After as a
// floor, since calling earlier would only be turned away again.
func Retry(p RetryPolicy, r *sim.Rand, do func(call int) Outcome) (Report, error) {
	if err := p.Validate(); err != nil {
		return Report{}, err
	}
	var rep Report
	for call := 0; rep.Stopped == ""; call++ {
		o := do(call)
		rep.called(call, o)
		switch {
		case !o.Retryable():
			rep.Stopped = StopFinal
		case rep.Calls >= p.Attempts:
			rep.Stopped = StopAttempts
		default:
			w := max(Full.Wait(call, 0, p.Base, p.Cap, r), o.RetryAfter)
			if p.Deadline > 0 && rep.Elapsed+w > p.Deadline {
				rep.Stopped = StopDeadline
				rep.note(GiveUp, int(ms(w)), int(ms(p.Deadline)))
			} else {
				rep.waited(w)
			}
		}
	}
	return rep, nil
}

// called records call number call (from 0) and its outcome o, which took
// o.Took.
func (rep *Report) called(call int, o Outcome) {
	rep.Calls++
	rep.Last = o
	ev := sim.Event{At: rep.Elapsed, Kind: Call, Lane: "client", To: "server", Ref: "call-" + strconv.Itoa(call+1),
		N: call + 1, M: o.Status, Amount: ms(o.RetryAfter)}
	if o.Err != nil {
		ev.Detail = o.Err.Error()
	}
	rep.Trace = append(rep.Trace, ev)
	rep.Elapsed += o.Took
}

// waited records a wait of w before the next call.
func (rep *Report) waited(w time.Duration) {
	rep.note(Wait, int(ms(w)), 0)
	rep.Waits = append(rep.Waits, w)
	rep.Elapsed += w
}

// note records what the client decides, now, with its figures in N and M.
func (rep *Report) note(kind sim.Kind, n, m int) {
	rep.Trace = append(rep.Trace, sim.Event{At: rep.Elapsed, Kind: kind, Lane: "client", N: n, M: m})
}
