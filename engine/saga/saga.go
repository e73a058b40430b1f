package saga

import (
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/sim"
)

// Step is a step of the saga, named by what it does at its service.
type Step string

const (
	Charge Step = "charge" // at the card
	Flight Step = "flight" // at the airline
	Hotel  Step = "hotel"  // at the hotel
)

// Steps are the saga's steps, in order.
var Steps = steps[:]

var steps = [...]Step{Charge, Flight, Hotel}

// None is the value of Fail and CrashAfter that picks no step.
const None Step = "none"

// Params are the knobs of the saga model.
type Params struct {
	Fail       Step // the step whose service refuses (none: the saga completes)
	CrashAfter Step // the runner crashes right after this step's call returns, before its log records it
	Keys       bool // calls carry saga:STEP and saga:STEP:undo; services replay a key they know
}

// Effect counts what a step's service did.
type Effect struct {
	Done   int `json:"done"`   // charges or bookings made
	Undone int `json:"undone"` // refunds or cancellations made
}

// Summary is what a run comes to.
type Summary struct {
	Outcome string  `json:"outcome"` // "completed" or "compensated"
	Charges int     `json:"charges"` // the card's charges
	Undos   int     `json:"undos"`   // the card's refunds
	Effects Effects `json:"effects"` // per step, at its service
	Stray   int     `json:"stray"`   // effects a compensated saga left in place: 0 when it cleaned up
	Calls   int     `json:"calls"`   // calls to the services, replays included
	Crashes int     `json:"crashes"`
}

// Effects are what each step's service did, in the order of Steps: an
// array rather than a map, which would cost a run two allocations.
type Effects [len(steps)]Effect

// Of is the effects of step st at its service; none for a step that is
// not one of Steps.
func (e Effects) Of(st Step) Effect {
	for i, s := range steps {
		if s == st {
			return e[i]
		}
	}
	return Effect{}
}

// MarshalJSON writes the effects as an object keyed by step, as
// encoding/json writes a map of them: {"charge":{"done":1,"undone":1},...}
// (Steps are in the order of their names).
func (e Effects) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, st := range steps {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, '"'), st...), `":{"done":`...)
		b = append(strconv.AppendInt(b, int64(e[i].Done), 10), `,"undone":`...)
		b = append(strconv.AppendInt(b, int64(e[i].Undone), 10), '}')
	}
	return append(b, '}'), nil
}

// Result is a run's summary and its trace, in lanes "runner", "log",
// "charge", "flight" and "hotel".
type Result struct {
	Summary
	Trace sim.Trace `json:"-"`
}

// Tick is the virtual time between two steps of the story.
const Tick = 100 * time.Millisecond

// service is one provider: it keeps the answer to the two keys a run can
// send it, its step's and its compensation's.
type service struct {
	do, undo answer
	effect   Effect
}

// answer is what a service saved under a key.
type answer struct {
	known, ok bool
}

// keys are the calls' keys, saga:STEP and saga:STEP:undo, by step.
var keys = func() (k [len(steps)][2]string) {
	for i, st := range steps {
		k[i] = [2]string{"saga:" + string(st), "saga:" + string(st) + ":undo"}
	}
	return k
}()

// Run plays the saga. With the defaults: the card is charged and logged;
// the flight is booked and the runner crashes before logging it; on restart
// the log shows the flight started but not done, so the runner calls again
// with saga:flight and the airline replays the booking; the hotel refuses;
// the runner undoes the flight (saga:flight:undo) and the charge
// (saga:charge:undo). The card sees one charge and one undo.
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
	var s sim.Sim // no randomness in this model
	s.Trace = res.Trace[:0]
	// At most: three events a step (the log's started, the call, the
	// log's done or failed), three for the crash (it, the resume, the call
	// again) and two a step to undo (the call, the log).
	s.Reserve(3*len(steps)+3+2*len(steps), 0)
	// record records the next event of the story, a Tick after the last.
	record := func(e sim.Event) {
		s.RunUntil(s.Now() + Tick)
		s.Record(e)
	}
	// logged records an entry of the runner's durable log: the step (Ref)
	// and what became of it (Detail).
	logged := func(st Step, what string) {
		record(sim.Event{Kind: Log, Lane: "log", Ref: string(st), Detail: what})
	}
	*res = Result{}
	var services [len(steps)]service
	// call sends one call to step i's service and reports whether it
	// succeeded. undo selects the compensation.
	call := func(i int, undo bool) bool {
		st, sv := steps[i], &services[i]
		e := sim.Event{Lane: string(st), To: "runner", OK: p.Keys, Ref: keys[i][0]}
		saved := &sv.do
		if undo {
			e.Ref, e.Detail, saved = keys[i][1], Compensation, &sv.undo
		}
		res.Calls++
		if p.Keys && saved.known {
			e.Kind = Replay
			record(e)
			return saved.ok
		}
		if !undo && st == p.Fail {
			if p.Keys {
				*saved = answer{known: true, ok: false}
			}
			e.Kind = Refuse
			record(e)
			return false
		}
		e.Kind = Do
		if undo {
			e.Kind = Undo
			sv.effect.Undone++
		} else {
			sv.effect.Done++
		}
		if p.Keys {
			*saved = answer{known: true, ok: true}
		}
		record(e)
		return true
	}

	// The durable log: what the runner wrote survives the crash.
	var started, done [len(steps)]bool
	crashed := false
	failed := Step("")
	for i := 0; i < len(steps) && failed == ""; i++ {
		st := steps[i]
		if done[i] {
			continue
		}
		if !started[i] {
			started[i] = true
			logged(st, "started")
		}
		ok := call(i, false)
		if st == p.CrashAfter && !crashed {
			crashed = true
			res.Crashes++
			record(sim.Event{Kind: Crash, Lane: "runner", Ref: string(st)})
			record(sim.Event{Kind: Resume, Lane: "runner", Ref: string(st)})
			i-- // resume at the step the log left open
			continue
		}
		if !ok {
			failed = st
			logged(st, "failed; compensate")
			break
		}
		done[i] = true
		logged(st, "done")
	}
	res.Outcome = "completed"
	if failed != "" {
		res.Outcome = "compensated"
		for i := len(steps) - 1; i >= 0; i-- {
			if done[i] {
				call(i, true)
				logged(steps[i], "undone")
			}
		}
	}
	for i := range steps {
		e := services[i].effect
		res.Effects[i] = e
		if failed != "" {
			res.Stray += e.Done - e.Undone
		}
	}
	card := res.Effects.Of(Charge)
	res.Charges, res.Undos = card.Done, card.Undone
	res.Trace = s.Trace
	return nil
}

// events are the model's kinds of event; say writes their sentences.
var events sim.Family

// Kinds of the trace's events. Lanes are "runner", "log" and a service's
// step ("charge", "flight", "hotel"). A call's events (Do, Undo, Replay,
// Refuse) are in the service's lane, with Ref the call's key, OK whether
// the call carried it and Detail Compensation for an undo.
var (
	Do     = events.Kind("do")     // a service did a step
	Undo   = events.Kind("undo")   // a service undid a step
	Replay = events.Kind("replay") // a service answered a key it knew, doing nothing
	Refuse = events.Kind("refuse") // the failing step's service refused
	Log    = events.Kind("log")    // the durable log records a step's state: Ref the step, Detail the state
	Crash  = events.Kind("crash")  // the runner crashed: Ref the step whose result it did not log
	Resume = events.Kind("resume") // the runner resumed from its log: Ref the step it calls again
)

// Compensation is the Detail of a call that undoes its step.
const Compensation = "undo"

// The kinds' sentences are written from the fields, when shown.
func init() { events.Say(say) }

func say(e sim.Event) string {
	switch e.Kind {
	case Log:
		return "Log: " + e.Ref + " " + e.Detail + "."
	case Crash:
		return "The runner crashes before logging the " + e.Ref + " call's result."
	case Resume:
		return "The runner restarts and reads the log: " + e.Ref + " started, not done; call it again."
	}
	sent := "Call " + e.Lane
	if e.Detail == Compensation {
		sent = "Call undo " + e.Lane
	}
	if e.OK {
		sent += " with key " + e.Ref
	}
	switch e.Kind {
	case Replay:
		return sent + ": the key is known, the saved answer is replayed."
	case Refuse:
		return sent + ": refused."
	}
	return sent + ": done."
}
