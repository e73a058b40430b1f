// Package sentmarker models a job that sends through a provider with no
// idempotency keys (SIMULATORS.md, section 6). The job checks a "sent"
// marker, sends, writes the marker, and acknowledges the queue; when it
// crashes before the acknowledgement the queue delivers it again, and the
// marker is what stops a second message.
package sentmarker

import (
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/sim"
)

// Crash is where the job crashes, once, on its first run.
type Crash string

const (
	NoCrash      Crash = "none"
	BeforeMarker Crash = "before-marker" // after the provider sent, before the marker is written
	BeforeAck    Crash = "before-ack"    // after the marker is written, before the queue's acknowledgement
)

// Crashes lists the crash points in the order the job meets them.
var Crashes = []Crash{NoCrash, BeforeMarker, BeforeAck}

// Params are the knobs of the sent-marker model.
type Params struct {
	Marker bool  // the job writes and checks a sent marker
	Crash  Crash // where the first run crashes
}

// Summary is what a run comes to.
type Summary struct {
	Sent    int `json:"sent"`    // messages the provider sent
	Runs    int `json:"runs"`    // times the queue delivered the job
	Skipped int `json:"skipped"` // runs that found the marker and sent nothing
}

// Result is a run's summary and its trace, in lanes "queue", "job",
// "provider" and "db".
type Result struct {
	Summary
	Trace sim.Trace `json:"-"`
}

// Tick is the virtual time between two steps of the story.
const Tick = 100 * time.Millisecond

// Redelivery is how long the queue waits for an acknowledgement before it
// delivers the job again.
const Redelivery = 30 * time.Second

// Run plays the job until the queue has its acknowledgement. With the
// defaults: the first run sends, writes the marker and crashes; the queue
// delivers the job again; the second run finds the marker and skips: 1
// message sent. Crashing before the marker is written leaves the window a
// marker cannot close without keys at the provider: 2 messages.
func Run(p Params) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	s := sim.New(0)
	step := func(e sim.Event) {
		s.RunUntil(s.Now() + Tick)
		e.Ref, e.Say = "job_1", sayer
		s.Record(e)
	}
	var res Result
	marked := false
	for run := 1; ; run++ {
		res.Runs++
		step(sim.Event{Kind: Deliver, Lane: "queue", To: "job", N: run})
		crash := func(at Crash) bool {
			if run == 1 && p.Crash == at {
				step(sim.Event{Kind: Crashed, Lane: "job", N: run, Detail: string(at)})
				s.RunUntil(s.Now() + Redelivery)
				return true
			}
			return false
		}
		if p.Marker && marked {
			res.Skipped++
			step(sim.Event{Kind: Skip, Lane: "job", To: "db", N: run})
		} else {
			if p.Marker {
				step(sim.Event{Kind: Check, Lane: "job", To: "db", N: run})
			}
			res.Sent++
			step(sim.Event{Kind: Send, Lane: "job", To: "provider", N: run, M: res.Sent})
			if crash(BeforeMarker) {
				continue
			}
			if p.Marker {
				marked = true
				step(sim.Event{Kind: Mark, Lane: "job", To: "db", N: run})
			}
		}
		if crash(BeforeAck) {
			continue
		}
		step(sim.Event{Kind: Ack, Lane: "job", To: "queue", N: run})
		break
	}
	res.Trace = s.Trace
	return res, nil
}

// Kinds of the trace's events. Ref is the job and N the run, 1 first.
const (
	Deliver sim.Kind = "deliver" // the queue delivers the job
	Crashed sim.Kind = "crash"   // the job crashes: Detail the Crash point
	Skip    sim.Kind = "skip"    // the marker says sent: the job skips
	Check   sim.Kind = "check"   // the job checks the marker and finds none
	Send    sim.Kind = "send"    // the provider sends the message: M the messages sent so far
	Mark    sim.Kind = "mark"    // the job writes the marker
	Ack     sim.Kind = "ack"     // the job acknowledges the delivery
)

// sayer writes an event's sentence from its fields, when it is shown.
var sayer = &sim.Sayer{Say: func(e sim.Event) string {
	switch e.Kind {
	case Deliver:
		return "The queue delivers " + e.Ref + " (run " + strconv.Itoa(e.N) + ")."
	case Crashed:
		if Crash(e.Detail) == BeforeMarker {
			return "The job crashes after the send, before it writes the marker."
		}
		return "The job crashes after the marker, before it acknowledges."
	case Skip:
		return "The sent marker for " + e.Ref + " is there: skip the send."
	case Check:
		return "No sent marker for " + e.Ref + "."
	case Send:
		return "The provider sends the message (message " + strconv.Itoa(e.M) + ")."
	case Mark:
		return "Write and commit the sent marker for " + e.Ref + "."
	case Ack:
		return "Acknowledge " + e.Ref + ": the queue forgets it."
	}
	return string(e.Kind)
}}
