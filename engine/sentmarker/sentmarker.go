// This file is the model: the queue that delivers the job until a run
// acknowledges it, and the job's run, which checks the marker, sends,
// writes the marker and acknowledges, crashing where it is told. The
// published figures are the package's documentation (doc.go).

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
	for j.n = 1; !j.run(); j.n++ {
		// it crashed: the queue delivers the job again
	}
	j.res.Trace = j.s.Trace
	return j.res, nil
}

// run is one delivery of the job. It reports whether the job acknowledged
// it; false when it crashed first, and the queue will deliver it again.
func (j *job) run() (acked bool) {
	j.res.Runs++
	j.step(Deliver, "queue", "job")
	if j.p.Marker && j.marked { // 1. the marker is there: skip the send
		j.res.Skipped++
		j.step(Skip, "job", "db")
	} else {
		if j.p.Marker {
			j.step(Check, "job", "db")
		}
		j.res.Sent++ // 2. send
		j.step(Send, "job", "provider")
		if j.crashes(BeforeMarker) {
			return false
		}
		if j.p.Marker { // 3. write the marker and commit it, on its own
			j.marked = true
			j.step(Mark, "job", "db")
		}
	}
	if j.crashes(BeforeAck) {
		return false
	}
	j.step(Ack, "job", "queue") // 4. acknowledge
	return true
}

// job is a run of the model in progress.
type job struct {
	p      Params
	s      *sim.Sim
	n      int  // the delivery being run, 1 first
	marked bool // the sent marker is written
	res    Result
}

// step records what the job does next, a Tick after the last step.
func (j *job) step(kind sim.Kind, lane, to string) {
	j.s.RunUntil(j.s.Now() + Tick)
	j.s.Record(sim.Event{Kind: kind, Lane: lane, To: to, Ref: "job_1", N: j.n, M: j.res.Sent})
}

// crashes reports whether the first run crashes at at, and if so records
// the crash and waits for the queue's redelivery.
func (j *job) crashes(at Crash) bool {
	if j.n != 1 || j.p.Crash != at {
		return false
	}
	j.s.RunUntil(j.s.Now() + Tick)
	j.s.Record(sim.Event{Kind: Crashed, Lane: "job", Ref: "job_1", N: j.n, M: j.res.Sent, Detail: string(at)})
	j.s.RunUntil(j.s.Now() + Redelivery)
	return true
}

// events are the model's kinds of event; say writes their sentences.
var events sim.Family

// Kinds of the trace's events. Ref is the job, N the run (1 first) and M
// the messages sent so far.
var (
	Deliver = events.Kind("deliver") // the queue delivers the job
	Crashed = events.Kind("crash")   // the job crashes: Detail the Crash point
	Skip    = events.Kind("skip")    // the marker says sent: the job skips
	Check   = events.Kind("check")   // the job checks the marker and finds none
	Send    = events.Kind("send")    // the provider sends the message
	Mark    = events.Kind("mark")    // the job writes the marker
	Ack     = events.Kind("ack")     // the job acknowledges the delivery
)

// The kinds' sentences are written from the fields, when shown.
func init() { events.Say(say) }

func say(e sim.Event) string {
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
	return e.Kind.String()
}
