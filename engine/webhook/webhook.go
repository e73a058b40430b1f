// This file is the model: the sender, which delivers one event until it
// has a 2xx in time; the attacker, which forges one event and replays a
// captured delivery; and the endpoint, which checks, deduplicates and
// works as the parameters say. The published figures are the package's
// documentation (doc.go).

package webhook

import (
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/sim"
)

// Reply is when the endpoint answers a delivery it accepts.
type Reply string

const (
	BeforeWork Reply = "before-work" // queue the work and answer at once
	AfterWork  Reply = "after-work"  // work on the request, then answer
)

// Replies lists the ways to answer.
var Replies = []Reply{BeforeWork, AfterWork}

// Params are the knobs of the webhook model.
type Params struct {
	Signature bool          // the endpoint checks each delivery's signature
	Tolerance time.Duration // the oldest signed timestamp accepted; 0 checks none
	Dedupe    bool          // the endpoint skips an event id it has handled
	Keep      int           // hours an event id is kept
	Reply     Reply         // when the endpoint answers
	Work      time.Duration // how long fulfilling an order takes
	Lost      bool          // the answer to the first delivery is lost
}

// The sender's and the attacker's fixed behaviour.
const (
	Timeout    = 10 * time.Second // the sender waits this long for an answer
	FirstRetry = time.Minute      // its wait after the first failure, doubling after each
	Deliveries = 5                // the most deliveries it makes of one event
	ForgeAt    = 5 * time.Minute  // the attacker posts a forged event
	ReplayAt   = 48 * time.Hour   // the attacker replays the first delivery
)

// The events and the orders they are about.
const (
	Event  = "evt_1"   // the sender's event: order 1 is paid
	Forged = "evt_2"   // the attacker's: order 2 is paid, which it is not
	Order  = "order_1" // what Event fulfils
	Unpaid = "order_2" // what Forged would ship
)

// Summary is what a run comes to.
type Summary struct {
	Deliveries int  `json:"deliveries"` // the sender's deliveries of the event
	Fulfilled  int  `json:"fulfilled"`  // times order 1 was fulfilled
	Forged     int  `json:"forged"`     // orders shipped on a forged event
	Refused    int  `json:"refused"`    // deliveries the endpoint refused (400)
	Delivered  bool `json:"delivered"`  // the sender had a 2xx in time
}

// Result is a run's summary and its trace, in lanes "sender", "attacker",
// "endpoint" and "worker".
type Result struct {
	Summary
	Trace sim.Trace `json:"-"`
}

// Run plays the sender's deliveries, the forgery and the replay until
// nothing is left to happen. With the defaults: the endpoint accepts the
// first delivery and its answer is lost; the sender delivers again 70 s
// in and the endpoint finds the event id; it refuses the forgery's
// signature and the replay's 48-hour-old timestamp: order 1 fulfilled
// once, nothing forged, 2 deliveries.
func Run(p Params) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	e := &endpoint{p: p, s: sim.New(0), seen: map[string]time.Duration{}}
	e.deliver(1)
	e.s.At(ForgeAt, func() {
		e.receive(delivery{from: "attacker", id: Forged, signed: ForgeAt, forged: true})
	})
	e.s.At(ReplayAt, func() {
		e.receive(delivery{from: "attacker", id: Event, signed: 0, replay: true})
	})
	e.s.Run()
	e.res.Trace = e.s.Trace
	return e.res, nil
}

// A delivery is one POST to the endpoint.
type delivery struct {
	from   string        // "sender" or "attacker"
	id     string        // the event id
	n      int           // the sender's delivery number, 1 first; 0 for the attacker's
	signed time.Duration // the signed timestamp
	forged bool          // its signature is not the secret's
	replay bool          // a captured delivery sent again
}

// endpoint is a run in progress: the receiver's state and the sender's.
type endpoint struct {
	p    Params
	s    *sim.Sim
	seen map[string]time.Duration // event id: when it was recorded
	res  Result

	waiting int  // the delivery the sender waits on the answer to, 0 for none
	done    bool // the sender had its 2xx
}

// deliver is the sender's delivery n of the event, signed as it is sent.
func (e *endpoint) deliver(n int) {
	e.res.Deliveries++
	e.waiting = n
	e.s.After(Timeout, func() { e.timeout(n) })
	e.receive(delivery{from: "sender", id: Event, n: n, signed: e.s.Now()})
}

// timeout ends the sender's wait on delivery n, if it is still waiting:
// it delivers again after its backoff, or gives up after the last.
func (e *endpoint) timeout(n int) {
	if e.waiting != n {
		return
	}
	e.waiting = 0
	if n == Deliveries {
		e.s.Record(sim.Event{Kind: GiveUp, Lane: "sender", Ref: Event, N: n})
		return
	}
	wait := FirstRetry << (n - 1)
	e.s.Record(sim.Event{Kind: TimedOut, Lane: "sender", Ref: Event, N: n, M: int(wait / time.Second)})
	e.s.After(wait, func() { e.deliver(n + 1) })
}

// receive is the endpoint's handling of d: the signature, the timestamp,
// the event id, then the work, before or after the answer.
func (e *endpoint) receive(d delivery) {
	now := e.s.Now()
	age := now - d.signed
	e.s.Record(sim.Event{Kind: Post, Lane: d.from, To: "endpoint", Ref: d.id, N: d.n,
		M: int(d.signed / time.Second), OK: !d.forged, Detail: origin(d)})
	switch {
	case e.p.Signature && d.forged:
		e.refuse(d, "signature", 0)
		return
	case e.p.Tolerance > 0 && age > e.p.Tolerance:
		e.refuse(d, "timestamp", int(age/time.Second))
		return
	}
	at, recorded := e.seen[d.id]
	if e.p.Dedupe && recorded && now < at+e.p.keep() {
		e.s.Record(sim.Event{Kind: Seen, Lane: "endpoint", To: d.from, Ref: d.id, N: 200})
		e.answer(d)
		return
	}
	forgotten := ""
	if e.p.Dedupe && recorded {
		forgotten = "forgotten"
	}
	if e.p.Reply == BeforeWork {
		if e.p.Dedupe {
			e.seen[d.id] = now
		}
		e.s.Record(sim.Event{Kind: Queued, Lane: "endpoint", To: "worker", Ref: d.id, N: 200, OK: e.p.Dedupe, Detail: forgotten})
		e.answer(d)
		e.work(d, "worker", nil)
		return
	}
	e.s.Record(sim.Event{Kind: Working, Lane: "endpoint", Ref: d.id, OK: e.p.Dedupe, Detail: forgotten})
	e.work(d, "endpoint", func() {
		if e.p.Dedupe {
			if _, ok := e.seen[d.id]; !ok || forgotten != "" {
				e.seen[d.id] = e.s.Now()
			}
		}
		e.answer(d)
	})
}

// origin says what a delivery is, for its event's Detail.
func origin(d delivery) string {
	switch {
	case d.forged:
		return "forged"
	case d.replay:
		return "replay"
	}
	return ""
}

// refuse answers d with a 400 for why: "signature" or "timestamp", the
// delivery age seconds old.
func (e *endpoint) refuse(d delivery, why string, age int) {
	e.res.Refused++
	e.s.Record(sim.Event{Kind: Refused, Lane: "endpoint", To: d.from, Ref: d.id, N: 400, M: age, Detail: why})
}

// answer sends d's 200 back: to the attacker, who does not matter; to the
// sender, which ends its wait if it is still waiting on d and the answer
// is not the first one's lost on the way.
func (e *endpoint) answer(d delivery) {
	if d.from != "sender" {
		return
	}
	switch {
	case d.n == 1 && e.p.Lost:
		e.s.Record(sim.Event{Kind: Lost, Lane: "endpoint", To: "sender", Ref: d.id, N: d.n})
	case e.waiting != d.n:
		e.s.Record(sim.Event{Kind: Late, Lane: "endpoint", To: "sender", Ref: d.id, N: d.n})
	default:
		e.waiting, e.done = 0, true
		e.res.Delivered = true
		e.s.Record(sim.Event{Kind: Answered, Lane: "endpoint", To: "sender", Ref: d.id, N: d.n})
	}
}

// work fulfils the order d is about, in lane, taking Params.Work; then
// runs after, if any.
func (e *endpoint) work(d delivery, lane string, after func()) {
	order := Order
	if d.id == Forged {
		order = Unpaid
	}
	e.s.After(e.p.Work, func() {
		n := 0
		if order == Order {
			e.res.Fulfilled++
			n = e.res.Fulfilled
		} else {
			e.res.Forged++
			n = e.res.Forged
		}
		e.s.Record(sim.Event{Kind: Fulfil, Lane: lane, Ref: order, N: n, OK: order == Order})
		if after != nil {
			after()
		}
	})
}

// events are the model's kinds of event; say writes their sentences.
var events sim.Family

// Kinds of the trace's events. Ref is the event id (the order's id for
// Fulfil); N the sender's delivery number, the status answered, or the
// times the order has been fulfilled.
var (
	Post     = events.Kind("post")    // a delivery reaches the endpoint: M its signed timestamp (s), OK signed with the secret, Detail "forged", "replay" or ""
	Refused  = events.Kind("refuse")  // the endpoint answers 400: Detail "signature" or "timestamp", M the age (s)
	Seen     = events.Kind("seen")    // the event id is recorded: answer 200 without working
	Queued   = events.Kind("queue")   // the endpoint queues the work and answers 200: OK it recorded the id, Detail "forgotten" when it had been
	Working  = events.Kind("work")    // the endpoint works before it answers: OK it will record the id, Detail as Queued's
	Fulfil   = events.Kind("fulfil")  // the order is fulfilled: OK it was paid for
	Answered = events.Kind("answer")  // the sender has its 200 in time: delivery N is done
	Lost     = events.Kind("lost")    // the 200 to delivery N is lost on the way
	Late     = events.Kind("late")    // the 200 to delivery N comes after the sender stopped waiting
	TimedOut = events.Kind("timeout") // the sender has no 2xx for delivery N: it delivers again in M seconds
	GiveUp   = events.Kind("give-up") // the sender has no 2xx for its last delivery, N
)

// The kinds' sentences are written from the fields, when shown.
func init() { events.Say(say) }

func say(e sim.Event) string {
	n := strconv.Itoa(e.N)
	at := "At " + sim.Span(e.At) + ", "
	switch e.Kind {
	case Post:
		switch e.Detail {
		case "forged":
			return at + "the attacker posts " + e.Ref + ", \"order 2 is paid\", with a signature it made up."
		case "replay":
			return at + "the attacker replays delivery 1 of " + e.Ref + ", captured with its signature and its timestamp."
		}
		return at + "the sender delivers " + e.Ref + " (delivery " + n + "), signed as it is sent."
	case Refused:
		if e.Detail == "signature" {
			return "400: the signature is not the secret's HMAC of the body."
		}
		return "400: signed " + sim.Span(time.Duration(e.M)*time.Second) + " ago, older than the tolerance allows."
	case Seen:
		return e.Ref + " is recorded: answer 200 and do nothing."
	case Queued:
		s := "Queue the work for " + e.Ref
		if e.OK {
			s = "Record " + e.Ref + " and queue its work"
		}
		if e.Detail == "forgotten" {
			s += " (its id was forgotten)"
		}
		return s + "; answer 200."
	case Working:
		s := "Work on " + e.Ref + " before answering"
		if e.Detail == "forgotten" {
			s += " (its id was forgotten)"
		}
		return s + "."
	case Fulfil:
		if !e.OK {
			return at + e.Ref + " ships, and nobody paid for it."
		}
		if e.N == 1 {
			return at + e.Ref + " is fulfilled."
		}
		return at + e.Ref + " is fulfilled again (time " + n + ")."
	case Answered:
		return "The sender has its 200 for delivery " + n + ": done."
	case Lost:
		return "The 200 for delivery " + n + " is lost on the way back."
	case Late:
		return at + "the 200 for delivery " + n + " comes after the sender stopped waiting."
	case TimedOut:
		return at + "no 2xx for delivery " + n + ": the sender delivers again in " + sim.Span(time.Duration(e.M)*time.Second) + "."
	case GiveUp:
		return at + "no 2xx for delivery " + n + ", the last: the sender gives up."
	}
	return e.Kind.String()
}
