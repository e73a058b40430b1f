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
	j := &job{p: p, s: sim.New(0)}
	for n := 1; !j.run(n); n++ {
		// each delivery until one is acknowledged
	}
	j.res.Trace = j.s.Trace
	return j.res, nil
}

// job is the job's world: the parameters, the clock, the marker in the
// database and what happened so far.
type job struct {
	p      Params
	s      *sim.Sim
	marked bool // the sent marker is committed
	res    Result
}

// run is the job's n-th delivery: check the marker, send, commit the
// marker on its own, acknowledge. It reports whether the job acknowledged;
// after a crash the queue delivers it again.
func (j *job) run(n int) (acked bool) {
	j.res.Runs++
	j.say(Deliver, "queue", "job", "The queue delivers job_1 (run "+strconv.Itoa(n)+").")
	if j.p.Marker && j.marked {
		j.res.Skipped++
		j.say(Skip, "job", "db", "The sent marker for job_1 is there: skip the send.")
	} else {
		if j.p.Marker {
			j.say(Check, "job", "db", "No sent marker for job_1.")
		}
		j.res.Sent++
		j.say(Send, "job", "provider", "The provider sends the message (message "+strconv.Itoa(j.res.Sent)+").")
		if j.crashes(n, BeforeMarker) {
			return false
		}
		if j.p.Marker {
			j.marked = true
			j.say(Mark, "job", "db", "Write the sent marker for job_1.")
		}
	}
	if j.crashes(n, BeforeAck) {
		return false
	}
	j.say(Ack, "job", "queue", "Acknowledge job_1: the queue forgets it.")
	return true
}

// crashes reports whether the first run crashes at this point, and then
// waits out the queue's redelivery.
func (j *job) crashes(n int, at Crash) bool {
	if n != 1 || j.p.Crash != at {
		return false
	}
	j.say(Crashed, "job", "", "The job crashes before it acknowledges.")
	j.s.RunUntil(j.s.Now() + Redelivery)
	return true
}

// say records an event a tick after the one before.
func (j *job) say(kind sim.Kind, lane, to, text string) {
	j.s.RunUntil(j.s.Now() + Tick)
	j.s.Record(sim.Event{Kind: kind, Lane: lane, To: to, Text: text, Ref: "job_1"})
}

// Kinds of the trace's events; Ref is the job.
const (
	Deliver sim.Kind = "deliver" // the queue delivers the job
	Crashed sim.Kind = "crash"   // the job crashes
	Skip    sim.Kind = "skip"    // the marker says sent: the job skips
	Check   sim.Kind = "check"   // the job checks the marker and finds none
	Send    sim.Kind = "send"    // the provider sends the message
	Mark    sim.Kind = "mark"    // the job writes the marker
	Ack     sim.Kind = "ack"     // the job acknowledges the delivery
)
