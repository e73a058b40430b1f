// Package outbox models the transactional outbox and the consumer's inbox
// (SIMULATORS.md, section 6): an order and its event commit in one
// transaction; a relay publishes outbox rows to a broker and then marks them
// sent, and, if it crashes in between, publishes the row again after it
// restarts; a consumer sends one email per event, and with an inbox keyed
// by event id sends it once however often the event comes.
package outbox

import (
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/sim"
)

// Params are the knobs of the outbox model.
type Params struct {
	Orders     int  // orders placed, each with its event, one transaction each
	RelayCrash bool // the relay crashes once: after publishing the first event, before marking it sent
	Inbox      bool // the consumer records event ids and skips the ones it has seen
}

// Summary is what a run comes to.
type Summary struct {
	Orders    int `json:"orders"`    // order rows committed
	Events    int `json:"events"`    // outbox rows committed with them
	Published int `json:"published"` // messages on the broker
	Emails    int `json:"emails"`    // emails the consumer sent
	Skipped   int `json:"skipped"`   // messages the inbox recognised and skipped
}

// Result is a run's summary and its trace, in lanes "app", "relay",
// "broker" and "consumer".
type Result struct {
	Summary
	Trace sim.Trace `json:"-"`
}

// Tick is the virtual time between two steps of the story.
const Tick = 100 * time.Millisecond

// Run plays the orders, the relay (which restarts once if it crashes) and
// the consumer, in that order. With the defaults the relay publishes evt_1,
// crashes before marking it, restarts, finds it unmarked and publishes it
// again: 2 messages on the broker; the consumer emails for the first and
// its inbox skips the second: 1 email.
func Run(p Params) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	s := sim.New(0)
	var res Result
	say := func(kind sim.Kind, lane, to, text, ref string) {
		s.RunUntil(s.Now() + Tick)
		s.Record(sim.Event{Kind: kind, Lane: lane, To: to, Text: text, Ref: ref})
	}
	type row struct {
		id   string
		sent bool
	}
	var outbox []row
	for i := 1; i <= p.Orders; i++ {
		order, evt := "ord_"+strconv.Itoa(i), "evt_"+strconv.Itoa(i)
		outbox = append(outbox, row{id: evt})
		res.Orders++
		res.Events++
		say("commit", "app", "", "BEGIN; INSERT order "+order+"; INSERT outbox "+evt+"; COMMIT: both or neither.", evt)
	}

	var broker []string
	crashed := false
	for pass := 1; ; pass++ {
		if pass > 1 {
			say("restart", "relay", "", "The relay restarts and reads the outbox rows not marked sent.", "")
		}
		done := true
		for i := range outbox {
			r := &outbox[i]
			if r.sent {
				continue
			}
			broker = append(broker, r.id)
			res.Published++
			say("publish", "relay", "broker", "Publish "+r.id+" to the broker.", r.id)
			if p.RelayCrash && !crashed {
				crashed = true
				done = false
				say("crash", "relay", "", "The relay crashes before marking "+r.id+" sent.", r.id)
				break
			}
			r.sent = true
			say("mark", "relay", "", "UPDATE outbox SET sent = true WHERE id = "+r.id+".", r.id)
		}
		if done {
			break
		}
	}

	seen := map[string]bool{}
	for _, id := range broker {
		if p.Inbox && seen[id] {
			res.Skipped++
			say("skip", "consumer", "", id+" is in the inbox already: skip it.", id)
			continue
		}
		seen[id] = true
		res.Emails++
		text := "Send the email for " + id + "."
		if p.Inbox {
			text = "BEGIN; INSERT inbox " + id + "; send the email; COMMIT."
		}
		say("email", "consumer", "", text, id)
	}
	res.Trace = s.Trace
	return res, nil
}

// Kinds of the trace's events; Ref is the order's event id.
const (
	Commit  sim.Kind = "commit"  // an order and its event committed together
	Publish sim.Kind = "publish" // the relay published the event
	Mark    sim.Kind = "mark"    // the relay marked the event sent
	Crash   sim.Kind = "crash"   // the relay crashed
	Restart sim.Kind = "restart" // the relay restarted
	Email   sim.Kind = "email"   // the consumer sent an email
	Skip    sim.Kind = "skip"    // the inbox recognised the event and skipped it
)
