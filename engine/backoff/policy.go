// This file is the waiting policies: the ceiling of an attempt's wait
// and each policy's draw from it, which the herd (model.go) and the retry
// helper (retry.go) both wait by.

package backoff

import (
	"time"

	"github.com/retrylab/retrylab/engine/sim"
)

// Policy is how long a client waits after a failed call.
type Policy string

// The four policies, with c = min(cap, base * 2^attempt) and attempt counted
// from 0 (the wait after the first failure).
const (
	None         Policy = "none"         // wait c
	Full         Policy = "full"         // wait uniform(0, c)
	Equal        Policy = "equal"        // wait c/2 + uniform(0, c/2)
	Decorrelated Policy = "decorrelated" // wait min(cap, uniform(base, 3 * previous wait)); the first previous wait is base
)

// Policies lists the policies in the order a reader meets them.
var Policies = []Policy{None, Full, Equal, Decorrelated}

// Jittered reports whether p draws its waits. A run of a policy that
// does not is the same run whatever its seed.
func (p Policy) Jittered() bool { return p != None }

// Ceiling is c = min(cap, base * 2^attempt): the exponential part every
// policy shares. It never overflows, whatever the attempt.
func Ceiling(attempt int, base, cap time.Duration) time.Duration {
	c := base
	for i := 0; i < attempt && c < cap; i++ {
		c *= 2
	}
	return min(c, cap)
}

// Wait is how long a client waits after its failed call number attempt
// (from 0) under policy p. prev is the client's previous wait, used only by
// Decorrelated (pass base before the first wait). r supplies the jitter and
// is not used by None.
func (p Policy) Wait(attempt int, prev, base, cap time.Duration, r *sim.Rand) time.Duration {
	return p.wait(Ceiling(attempt, base, cap), prev, base, cap, r)
}

// wait is Wait given the attempt's ceiling, Ceiling(attempt, base, cap):
// a duration drawn from the policy's span, at most cap.
func (p Policy) wait(ceiling, prev, base, cap time.Duration, r *sim.Rand) time.Duration {
	lo, hi := p.span(ceiling, prev, base)
	return min(cap, uniform(r, lo, hi))
}

// span is the range [lo, hi) a wait is drawn from, given the attempt's
// ceiling (at most cap) and the client's previous wait. None's is empty:
// its wait is the ceiling, drawn from nothing. Full's and Equal's waits
// are at most the ceiling, so within cap; Decorrelated's can pass cap.
func (p Policy) span(ceiling, prev, base time.Duration) (lo, hi time.Duration) {
	switch p {
	case Full:
		return 0, ceiling
	case Equal:
		return ceiling / 2, ceiling
	case Decorrelated:
		return decorrelatedSpan(prev, base)
	default:
		return ceiling, ceiling
	}
}

// decorrelatedSpan is Decorrelated's span: from base to three times the
// previous wait, and at least base.
func decorrelatedSpan(prev, base time.Duration) (lo, hi time.Duration) {
	return base, max(3*prev, base)
}

// uniform draws a duration in [lo, hi), to the nanosecond; an empty range
// is lo, and draws nothing.
func uniform(r *sim.Rand, lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return within(r.Float64(), lo, hi)
}

// within is the duration a share u, in [0, 1), of the way from lo to hi.
func within(u float64, lo, hi time.Duration) time.Duration {
	return lo + time.Duration(u*float64(hi-lo))
}
