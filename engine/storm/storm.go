package storm

import (
	"math"
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/budget"
	"github.com/retrylab/retrylab/engine/sim"
)

// Params are the knobs of the storm model. Times are whole seconds: the
// model moves in one-second ticks.
type Params struct {
	New         int     // new requests a second
	Capacity    int     // requests the server can serve a second
	SlowFrom    int     // the trigger starts at this second...
	SlowTo      int     // ...and lasts up to, not including, this one
	SlowFactor  float64 // the share of capacity left during the trigger
	Timeout     int     // seconds a client waits for an answer
	Retries     int     // retries a request may make after it first times out
	Budget      bool    // retries spend from a token bucket (ratio 0.1, bank 10)
	SkipExpired bool    // the server drops, for free, work whose client gave up
	Seconds     int     // the length of the run
}

// The retry budget is the bucket of the budget model (budget.Bucket): every
// new request earns 0.1 token, a retry spends 1 and may not empty the
// bucket, the bank holds 10 and starts full.
const (
	BudgetRatio = 0.1
	BudgetBank  = 10
)

// Summary is what a run comes to.
type Summary struct {
	Healthy         int   `json:"healthy"`           // mean goodput of the 5 s before the trigger, rounded down
	Slow            int   `json:"slow"`              // mean goodput during the trigger, rounded down
	RecoveredAfterS *int  `json:"recovered_after_s"` // seconds from the trigger's end to recovery; nil: never
	Goodput         []int `json:"goodput"`           // per second: requests answered while their client still waited
	Offered         []int `json:"offered"`           // per second: new requests and retries that arrived
	Wasted          []int `json:"wasted"`            // per second: capacity spent on requests whose client had given up
	Queue           []int `json:"queue"`             // per second: requests waiting at the end of the second
	Calls           int   `json:"calls"`             // new requests and retries, over the run
	GaveUp          int   `json:"gave_up"`           // clients that timed out with no retry left or allowed
}

// Result is a run's summary and its trace: one event per second (Tick)
// with that second's arrivals and service.
type Result struct {
	Summary
	Trace sim.Trace `json:"-"`
}

// RecoveryGoodput is the goodput a second needs to count towards recovery:
// 75 of the default 80 new requests a second, 15/16 of the offered load in
// general, rounded up.
func (p Params) RecoveryGoodput() int { return (p.New*15 + 15) / 16 }

// group is count requests that arrived in the same second on the same
// attempt: they are alike in every way the model looks at, so the queue
// holds groups, and a run's cost does not grow with the request rate.
type group struct {
	created int // the second it arrived
	attempt int // 0 for a new request, n for its n-th retry
	count   int // requests of the group still in the queue
}

// Run plays p second by second. Each second, in this order:
//
//  1. The clients whose request arrived Timeout seconds ago and was not
//     answered time out, and retry if they have retries left and, with a
//     budget, a whole token each. A retry joins the back of the queue as a
//     new request of that second; the old one stays in the queue, since the
//     server cannot know its client left.
//  2. The new requests arrive at the back of the queue; with a budget each
//     earns its share of a token.
//  3. The server serves its queue oldest first, up to its capacity: a
//     request at least Timeout seconds old costs one unit for nothing, or,
//     with SkipExpired, is dropped for free; a younger one is answered, and
//     counts as goodput.
//
// This reading of the rules (the package documentation) gives the
// published figures exactly: a request that
// arrived at second t is answered in time up to second t + Timeout - 1, and
// at second t + Timeout its client has already retried in step 1. The
// tokens new requests earn in step 2 pay for the next second's retries. On
// the budget's one open question, whether a retry may take the bucket's
// last token, see budget.Bucket: with the defaults, the budgeted run
// recovers 20 s after the trigger if it may not, 21 s if it may.
func Run(p Params) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	var res Result
	n := p.Seconds
	res.Goodput, res.Offered, res.Wasted, res.Queue = make([]int, n), make([]int, n), make([]int, n), make([]int, n)
	slow := int(math.Round(float64(p.Capacity) * p.SlowFactor))
	bucket := budget.NewBucket(BudgetRatio, BudgetBank)
	// groups is the queue in arrival order, never reordered: groups[head:]
	// are waiting, and the groups of second t start at first[t].
	var groups []group
	head, queued := 0, 0
	first := make([]int, n+1)
	say := ticks(p, &res.Summary)
	// One tick a second, named "s0", "s1", ... in one block: the trace
	// and its refs are allocated once, not grown and made tick by tick.
	res.Trace = make(sim.Trace, 0, min(n, sim.MaxEvents+1))
	var refs sim.Arena
	refs.Grow(n * len("s"+strconv.Itoa(n)))
	for t := 0; t < n; t++ {
		first[t] = len(groups)
		// 1. Time-outs and retries.
		retries := 0
		if t0 := t - p.Timeout; t0 >= 0 {
			for i := first[t0]; i < first[t0+1]; i++ {
				g := groups[i] // count: those of second t0 never served, so never answered
				if g.count == 0 {
					continue
				}
				k := g.count
				if g.attempt >= p.Retries {
					k = 0
				} else if p.Budget {
					k = bucket.Spend(k)
				}
				res.GaveUp += g.count - k
				if k > 0 {
					groups = append(groups, group{created: t, attempt: g.attempt + 1, count: k})
					retries += k
				}
			}
		}
		// 2. New requests.
		if p.New > 0 {
			groups = append(groups, group{created: t, count: p.New})
		}
		if p.Budget {
			bucket.Earn(p.New)
		}
		res.Offered[t] = retries + p.New
		res.Calls += retries + p.New
		queued += retries + p.New
		// 3. Service.
		capacity := p.Capacity
		if t >= p.SlowFrom && t < p.SlowTo {
			capacity = slow
		}
		dropped := 0
		for capacity > 0 && head < len(groups) {
			g := &groups[head]
			expired := t-g.created >= p.Timeout
			k := g.count
			switch {
			case expired && p.SkipExpired:
				dropped += k
			case expired:
				k = min(k, capacity)
				capacity -= k
				res.Wasted[t] += k
			default:
				k = min(k, capacity)
				capacity -= k
				res.Goodput[t] += k
			}
			g.count -= k
			queued -= k
			if g.count == 0 {
				head++
			}
		}
		res.Queue[t] = queued
		res.Trace.Keep(sim.Event{At: time.Duration(t) * time.Second, Kind: Tick, Lane: "server", Ref: refs.Number(t, "s"),
			N: t, M: retries, Amount: int64(dropped), Say: say}, sim.MaxEvents)
	}
	first[n] = len(groups)
	res.Healthy = mean(res.Goodput, p.SlowFrom-5, p.SlowFrom)
	res.Slow = mean(res.Goodput, p.SlowFrom, p.SlowTo)
	res.RecoveredAfterS = recovery(res.Goodput, p.SlowTo, p.RecoveryGoodput())
	return res, nil
}

// mean is the mean of xs[from:to], from clamped at 0, rounded down; 0 for
// an empty window (a trigger at second 0 has no healthy seconds before it).
func mean(xs []int, from, to int) int {
	from = max(from, 0)
	if to <= from {
		return 0
	}
	sum := 0
	for _, x := range xs[from:to] {
		sum += x
	}
	return sum / (to - from)
}

// recovery is the first second at or after end that starts five seconds in
// a row of goodput at least good, counted from end; nil if none does
// within the run.
func recovery(goodput []int, end, good int) *int {
	run := 0
	for t := end; t < len(goodput); t++ {
		if goodput[t] < good {
			run = 0
			continue
		}
		if run++; run == 5 {
			after := t - 4 - end
			return &after
		}
	}
	return nil
}

// events are the model's one kind of event. A tick's sentence reads the
// run's own figures: each run makes its Sayer (ticks), and the family
// writes none.
var events sim.Family

// Tick is one second of a run, lane "server": N the second, M the retries
// that arrived in it, Amount the expired requests dropped; Ref "sN".
var Tick = events.Kind("tick")

// ticks is the sayer of a run's Tick events. A sentence reads the second's
// figures from the run's own per-second counts, which the event does not
// repeat, and is written only when shown: a run formats none.
func ticks(p Params, s *Summary) *sim.Sayer {
	return &sim.Sayer{Say: func(e sim.Event) string {
		t := e.N
		text := "Second " + strconv.Itoa(t) + ": " + strconv.Itoa(p.New) + " new"
		if e.M > 0 {
			text += " and " + strconv.Itoa(e.M) + " retries"
		}
		text += "; " + strconv.Itoa(s.Goodput[t]) + " answered in time"
		if s.Wasted[t] > 0 {
			text += ", " + strconv.Itoa(s.Wasted[t]) + " served after their client gave up"
		}
		if e.Amount > 0 {
			text += ", " + strconv.FormatInt(e.Amount, 10) + " expired dropped"
		}
		return text + "; " + strconv.Itoa(s.Queue[t]) + " waiting."
	}}
}
