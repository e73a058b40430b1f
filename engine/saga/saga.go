// Package saga models a saga runner (SIMULATORS.md, section 6): charge the
// card, book a flight, book a hotel; when a step fails, undo the done steps
// in reverse. The runner keeps a durable log, crashes at a chosen point and
// resumes from the log; each call carries the key saga:STEP (and
// saga:STEP:undo for its compensation), so that a call repeated after the
// crash is a replay at the service, not a second booking.
package saga

import (
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
var Steps = []Step{Charge, Flight, Hotel}

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
	Outcome string          `json:"outcome"` // "completed" or "compensated"
	Charges int             `json:"charges"` // the card's charges
	Undos   int             `json:"undos"`   // the card's refunds
	Effects map[Step]Effect `json:"effects"` // per step, at its service
	Stray   int             `json:"stray"`   // effects a compensated saga left in place: 0 when it cleaned up
	Calls   int             `json:"calls"`   // calls to the services, replays included
	Crashes int             `json:"crashes"`
}

// Result is a run's summary and its trace, in lanes "runner", "log",
// "card", "flight" and "hotel".
type Result struct {
	Summary
	Trace sim.Trace `json:"-"`
}

// Tick is the virtual time between two steps of the story.
const Tick = 100 * time.Millisecond

// service is one provider: it keeps the answer to every key it has seen.
type service struct {
	name   string
	keys   map[string]bool // key -> the call succeeded
	effect Effect
}

// Run plays the saga. With the defaults: the card is charged and logged;
// the flight is booked and the runner crashes before logging it; on restart
// the log shows the flight started but not done, so the runner calls again
// with saga:flight and the airline replays the booking; the hotel refuses;
// the runner undoes the flight (saga:flight:undo) and the charge
// (saga:charge:undo). The card sees one charge and one undo.
func Run(p Params) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	s := sim.New(0)
	say := func(kind sim.Kind, lane, to, text, ref string) {
		s.RunUntil(s.Now() + Tick)
		s.Record(sim.Event{Kind: kind, Lane: lane, To: to, Text: text, Ref: ref})
	}
	// logged records an entry of the runner's durable log: the step (Ref)
	// and what became of it (Detail).
	logged := func(st Step, what string) {
		s.RunUntil(s.Now() + Tick)
		s.Record(sim.Event{Kind: Log, Lane: "log", Ref: string(st), Detail: what, Say: logSayer})
	}
	res := Result{Summary: Summary{Effects: map[Step]Effect{}}}
	services := map[Step]*service{}
	for _, st := range Steps {
		services[st] = &service{name: string(st), keys: map[string]bool{}}
	}
	// call sends one call to step's service and reports whether it
	// succeeded. undo selects the compensation.
	call := func(st Step, undo bool) bool {
		sv := services[st]
		key := "saga:" + string(st)
		if undo {
			key += ":undo"
		}
		res.Calls++
		what := string(st)
		if undo {
			what = "undo " + what
		}
		sent := "Call " + what
		if p.Keys {
			sent += " with key " + key
			if ok, known := sv.keys[key]; known {
				say("replay", sv.name, "runner", sent+": the key is known, the saved answer is replayed.", key)
				return ok
			}
		}
		if !undo && st == p.Fail {
			if p.Keys {
				sv.keys[key] = false
			}
			say("refuse", sv.name, "runner", sent+": refused.", key)
			return false
		}
		kind := Do
		if undo {
			kind = Undo
			sv.effect.Undone++
		} else {
			sv.effect.Done++
		}
		if p.Keys {
			sv.keys[key] = true
		}
		say(kind, sv.name, "runner", sent+": done.", key)
		return true
	}

	// The durable log: what the runner wrote survives the crash.
	started := map[Step]bool{}
	done := map[Step]bool{}
	crashed := false
	failed := Step("")
	for i := 0; i < len(Steps) && failed == ""; i++ {
		st := Steps[i]
		if done[st] {
			continue
		}
		if !started[st] {
			started[st] = true
			logged(st, "started")
		}
		ok := call(st, false)
		if st == p.CrashAfter && !crashed {
			crashed = true
			res.Crashes++
			say("crash", "runner", "", "The runner crashes before logging the "+string(st)+" call's result.", string(st))
			say("resume", "runner", "", "The runner restarts and reads the log: "+string(st)+" started, not done; call it again.", string(st))
			i-- // resume at the step the log left open
			continue
		}
		if !ok {
			failed = st
			logged(st, "failed; compensate")
			break
		}
		done[st] = true
		logged(st, "done")
	}
	res.Outcome = "completed"
	if failed != "" {
		res.Outcome = "compensated"
		for i := len(Steps) - 1; i >= 0; i-- {
			if st := Steps[i]; done[st] {
				call(st, true)
				logged(st, "undone")
			}
		}
	}
	for _, st := range Steps {
		e := services[st].effect
		res.Effects[st] = e
		if failed != "" {
			res.Stray += e.Done - e.Undone
		}
	}
	res.Charges, res.Undos = res.Effects[Charge].Done, res.Effects[Charge].Undone
	res.Trace = s.Trace
	return res, nil
}

// Kinds of the trace's events. Lanes are "runner", "log" and a service's
// step ("card", "flight", "hotel"); Ref is the call's key or the step.
const (
	Do     sim.Kind = "do"     // a service did a step: Ref the key
	Undo   sim.Kind = "undo"   // a service undid a step: Ref the key
	Replay sim.Kind = "replay" // a service answered a key it knew, doing nothing
	Refuse sim.Kind = "refuse" // the failing step's service refused
	Log    sim.Kind = "log"    // the durable log records a step's state: Ref the step, Detail the state
	Crash  sim.Kind = "crash"  // the runner crashed
	Resume sim.Kind = "resume" // the runner resumed from its log
)

var logSayer = &sim.Sayer{Say: func(e sim.Event) string { return "Log: " + e.Ref + " " + e.Detail + "." }}
