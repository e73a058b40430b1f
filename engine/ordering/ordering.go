// This file is the model: the events, the arrivals and the consumer,
// which applies or skips each delivery by its strategy, keeping the plan
// and its high-water mark. The rules and the published figures are the
// package's documentation (doc.go).

package ordering

import (
	"slices"
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/sim"
)

// Strategy is how the consumer decides whether to apply an event.
type Strategy string

const (
	NoGuard      Strategy = "none"          // apply every event as it arrives
	Dedupe       Strategy = "dedupe"        // skip an event id already applied
	VersionGuard Strategy = "version-guard" // skip an event no newer than the newest applied (repeats included)
)

// Strategies lists the strategies in the order the article shows them.
var Strategies = []Strategy{NoGuard, Dedupe, VersionGuard}

// Event is one webhook event.
type Event struct {
	ID   string        // evt_1, ...
	Plan string        // the plan it sets
	At   time.Duration // when it happened at the sender
}

// Events are the events a run can deliver, by id.
var Events = []Event{
	{ID: "evt_1", Plan: "starter", At: 0},
	{ID: "evt_2", Plan: "pro", At: 60 * time.Second},
}

// Params are the knobs of the ordering model.
type Params struct {
	Strategy Strategy
	Arrival  []string // event ids in the order they arrive; repeats allowed
}

// MaxArrivals bounds Arrival.
const MaxArrivals = 8

// Summary is what a run comes to.
type Summary struct {
	Plan    string   `json:"plan"`    // the plan in the database at the end
	Applied []string `json:"applied"` // the events applied, in order
	Skipped int      `json:"skipped"` // deliveries the consumer skipped
	Correct bool     `json:"correct"` // the plan is that of the newest event delivered
}

// Result is a run's summary and its trace: a "deliver" and then an "apply"
// or "skip" event per arrival, lane "consumer".
type Result struct {
	Summary
	Trace sim.Trace `json:"-"`
}

// Tick is the virtual time between two deliveries.
const Tick = time.Second

// Run delivers the events in arrival order to a consumer.
func Run(p Params) (Result, error) {
	var res Result
	err := RunInto(p, &res)
	return res, err
}

// RunInto is Run writing into res: the run's trace and applied events go
// into the room of res's last ones, which they overwrite, so a caller that
// runs the model again and again, and no longer reads its last run,
// allocates them once. On an error res is left as it was.
func RunInto(p Params, res *Result) error {
	if err := p.Validate(); err != nil {
		return err
	}
	var s sim.Sim // no randomness in this model
	s.Trace = res.Trace[:0]
	s.Reserve(2*len(p.Arrival), 0) // a delivery, then an apply or a skip
	applied := res.Applied[:0]
	if cap(applied) < len(p.Arrival) {
		applied = make([]string, 0, len(p.Arrival))
	}
	*res = Result{Summary: Summary{Applied: applied}}
	c := consumer{strategy: p.Strategy, mark: -1}
	newest := Event{At: -1}
	for i, id := range p.Arrival {
		s.RunUntil(time.Duration(i+1) * Tick)
		e := byID(id)
		if e.At > newest.At {
			newest = e
		}
		s.Record(sim.Event{Kind: Deliver, Lane: "consumer", Ref: e.ID, Detail: e.Plan, N: seconds(e.At)})
		if by := c.take(e, res.Applied); by != "" {
			res.Skipped++
			s.Record(sim.Event{Kind: Skip, Lane: "consumer", Ref: e.ID, Detail: string(by), N: seconds(e.At), M: seconds(c.mark)})
			continue
		}
		res.Plan = c.plan
		res.Applied = append(res.Applied, e.ID)
		s.Record(sim.Event{Kind: Apply, Lane: "consumer", Ref: e.ID, Detail: e.Plan})
	}
	res.Correct = res.Plan == newest.Plan
	res.Trace = s.Trace
	return nil
}

// consumer is the subscriber's side: the plan and its high-water mark,
// the time of the newest event it applied.
type consumer struct {
	strategy Strategy
	plan     string
	mark     time.Duration // -1 before the first event
}

// take applies e, unless the strategy says to skip it (applied are the
// ids applied so far): then it returns the strategy, and changes nothing.
func (c *consumer) take(e Event, applied []string) (skippedBy Strategy) {
	switch {
	case c.strategy == Dedupe && slices.Contains(applied, e.ID):
		return Dedupe
	case c.strategy == VersionGuard && e.At <= c.mark:
		return VersionGuard
	}
	c.mark = max(c.mark, e.At)
	c.plan = e.Plan
	return ""
}

// seconds is a time in whole seconds, as the events carry it.
func seconds(d time.Duration) int { return int(d / time.Second) }

func byID(id string) Event {
	for _, e := range Events {
		if e.ID == id {
			return e
		}
	}
	return Event{}
}

// events are the model's kinds of event; say writes their sentences.
var events sim.Family

// Kinds of the trace's events, lane "consumer"; Ref is the event id.
var (
	Deliver = events.Kind("deliver") // an event arrives: Detail its plan, N its time at the sender in seconds
	Apply   = events.Kind("apply")   // the consumer applied it: Detail its plan
	Skip    = events.Kind("skip")    // the consumer skipped it: Detail the Strategy that did, N its time and M the high-water mark's, in seconds
)

// The kinds' sentences are written from the fields, when shown.
func init() { events.Say(say) }

func say(e sim.Event) string {
	switch e.Kind {
	case Deliver:
		return e.Ref + " arrives: plan " + e.Detail + ", t = " + strconv.Itoa(e.N) + "."
	case Apply:
		return "Apply " + e.Ref + ": the plan is now " + e.Detail + "."
	case Skip:
		if Strategy(e.Detail) == VersionGuard {
			return e.Ref + " (t = " + strconv.Itoa(e.N) + ") is no newer than the newest applied (t = " + strconv.Itoa(e.M) + "): skip it."
		}
		return e.Ref + " was applied before: skip it."
	}
	return e.Kind.String()
}
