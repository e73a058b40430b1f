// This file is the budgeted run: the requests, their retries and the
// bucket (bucket.go) that lets them through or refuses them. The rules
// and the published figures are the package's documentation (doc.go).

package budget

import (
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/sim"
)

// Params are the knobs of the budget model. The upstream is down: every
// call fails.
type Params struct {
	Requests int     // requests, each of which calls once and retries on failure
	Retries  int     // retries a request may make after its first call
	Ratio    float64 // tokens a request earns; a retry spends 1
	Bank     float64 // the bucket's size; it starts full
	Budget   bool    // false: retry every failure, no bucket
}

// Summary is what a run comes to.
type Summary struct {
	Calls    int     `json:"calls"`    // first calls and retries
	Retries  int     `json:"retries"`  // retries sent
	Denied   int     `json:"denied"`   // retries the budget refused
	Tokens   float64 `json:"tokens"`   // left in the bucket at the end; 0 without a budget
	Requests int     `json:"requests"` // requests, each with one first call
}

// Result is a run's summary and its trace: one event per call ("call",
// "retry") and per refused retry ("denied"), lane "req-N", cut at
// sim.MaxEvents.
type Result struct {
	Summary
	Trace sim.Trace `json:"-"`
}

// Run plays the requests one after another, request i at virtual second
// i, its retries at once (the upstream fails fast). With the defaults the
// full bank loses the first request's 0.1 to the cap, then takes in 10 +
// 999 * 0.1 = 109.9 tokens: 109 retries, 1,000 + 109 = 1,109 calls, where
// without a budget 1,000 * (1 + 3) = 4,000.
func Run(p Params) (Result, error) {
	var res Result
	err := RunInto(p, &res)
	return res, err
}

// RunInto is Run writing into res: the run's trace goes into the room of
// res's last one, which it overwrites, so a caller that runs the model
// again and again, and no longer reads its last run, allocates the trace
// once. On an error res is left as it was.
func RunInto(p Params, res *Result) error {
	if err := p.Validate(); err != nil {
		return err
	}
	// A fresh run first plays without a trace to count the events, so that
	// the trace, the bulk of a run's memory, is allocated once at its size
	// instead of copied as it grows. A run into the room of a last trace
	// plays once: the room fits the runs it was made for, and grows as
	// append grows it for a longer one.
	trace := res.Trace[:0]
	if cap(trace) == 0 {
		sum := play(p, nil)
		trace = make(sim.Trace, 0, min(sum.Calls+sum.Denied, sim.MaxEvents+1)) // at its size: slices.Grow would round it up
	}
	sum := play(p, &trace)
	*res = Result{Summary: sum, Trace: trace}
	return nil
}

// play runs the requests and records their events in trace, unless it is
// nil.
func play(p Params, trace *sim.Trace) Summary {
	s := Summary{Requests: p.Requests}
	// The lanes req-1 to req-N, made as the requests come, in one block.
	var names sim.Arena
	if trace != nil {
		names.GrowNames("req-", p.Requests)
	}
	b := NewBucket(p.Ratio, p.Bank)
	for i := 1; i <= p.Requests; i++ {
		if p.Budget {
			b.Earn(1)
		}
		lane := ""
		if trace != nil {
			lane = names.Number(i, "req-")
			trace.Keep(event(Call, i, 0, lane, p.Budget, b.tokens), sim.MaxEvents)
		}
		for r := 1; r <= p.Retries; r++ {
			if p.Budget && b.Spend(1) == 0 {
				s.Denied++
				if trace != nil {
					trace.Keep(event(Denied, i, r, lane, p.Budget, b.tokens), sim.MaxEvents)
				}
				break
			}
			s.Retries++
			if trace != nil {
				trace.Keep(event(Retry, i, r, lane, p.Budget, b.tokens), sim.MaxEvents)
			}
		}
	}
	s.Calls = p.Requests + s.Retries
	if p.Budget {
		s.Tokens = b.Tokens()
	}
	return s
}

// event is request i's first call (r 0), its retry r or the refusal of
// that retry, with what the bucket holds after it, in micro-tokens.
func event(kind sim.Kind, i, r int, lane string, budget bool, tokens int64) sim.Event {
	e := sim.Event{At: time.Duration(i) * time.Second, Kind: kind, Lane: lane, Ref: lane,
		N: i, OK: budget, Amount: tokens}
	if kind != Denied {
		e.To, e.M = "upstream", r
	}
	return e
}

// events are the model's kinds of event; say writes their sentences.
var events sim.Family

// Kinds of the trace's events, lane and Ref "req-N". N is the request, M
// a retry's number; OK says a budget is on, and then Amount is what the
// bucket holds after the event, in millionths of a token.
var (
	Call   = events.Kind("call")   // a request's first call, which fails
	Retry  = events.Kind("retry")  // a retry, which fails
	Denied = events.Kind("denied") // a retry the bucket refused: the request gives up
)

// The kinds' sentences are written from the fields, when shown.
func init() { events.Say(say) }

func say(e sim.Event) string {
	state := ""
	if e.OK {
		state = " (bucket: " + tokensText(e.Amount) + ")"
	}
	switch e.Kind {
	case Retry:
		return "Retry " + strconv.Itoa(e.M) + " of request " + strconv.Itoa(e.N) + " fails" + state + "."
	case Denied:
		return "A retry would empty the bucket: request " + strconv.Itoa(e.N) + " gives up instead" + state + "."
	}
	return "Request " + strconv.Itoa(e.N) + " calls and fails" + state + "."
}
