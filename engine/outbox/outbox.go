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
	Inbox      bool // the consumer records each event id after its email, and skips the ids it has recorded
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

// MaxOrders bounds Orders: five rows are enough to show the relay
// publishing in order and the crash repeating only the row it left
// unmarked.
const MaxOrders = 5

// eventIDs are the outbox rows' ids, evt_1 to evt_5: order i's is
// eventIDs[i-1], made once rather than on every run.
var eventIDs = sim.Names("evt_", MaxOrders)

// Run plays the orders, the relay (which restarts once if it crashes) and
// the consumer, in that order. With the defaults the relay publishes evt_1,
// crashes before marking it, restarts, finds it unmarked and publishes it
// again: 2 messages on the broker; the consumer emails for the first and
// its inbox skips the second: 1 email.
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
	// Four events an order (its commit, publish, mark, and email or skip)
	// and four for the crash (it, the restart, the publish again and its
	// email or skip).
	s.Reserve(4*p.Orders+4, 0)
	*res = Result{}
	// record records the next event of the story, a Tick after the last.
	record := func(e sim.Event) {
		s.RunUntil(s.Now() + Tick)
		s.Record(e)
	}
	// The outbox's rows, one per order: ids[i] and sent[i]. The broker
	// holds rows by index: each row once, and the crashed one again.
	ids := eventIDs[:p.Orders]
	var sent, inbox [MaxOrders]bool // inbox: the ids the consumer has seen
	for i, evt := range ids {
		res.Orders++
		res.Events++
		record(sim.Event{Kind: Commit, Lane: "app", Ref: evt, N: i + 1})
	}

	var onBroker [MaxOrders + 1]int
	broker := onBroker[:0]
	crashed := false
	for pass := 1; ; pass++ {
		if pass > 1 {
			record(sim.Event{Kind: Restart, Lane: "relay"})
		}
		done := true
		for i, id := range ids {
			if sent[i] {
				continue
			}
			broker = append(broker, i)
			res.Published++
			record(sim.Event{Kind: Publish, Lane: "relay", To: "broker", Ref: id})
			if p.RelayCrash && !crashed {
				crashed = true
				done = false
				record(sim.Event{Kind: Crash, Lane: "relay", Ref: id})
				break
			}
			sent[i] = true
			record(sim.Event{Kind: Mark, Lane: "relay", Ref: id})
		}
		if done {
			break
		}
	}

	for _, i := range broker {
		id := ids[i]
		if p.Inbox && inbox[i] {
			res.Skipped++
			record(sim.Event{Kind: Skip, Lane: "consumer", Ref: id})
			continue
		}
		inbox[i] = true
		res.Emails++
		record(sim.Event{Kind: Email, Lane: "consumer", Ref: id, OK: p.Inbox})
	}
	res.Trace = s.Trace
	return nil
}

// events are the model's kinds of event; say writes their sentences.
var events sim.Family

// Kinds of the trace's events; Ref is the order's event id (none for
// Restart).
var (
	Commit  = events.Kind("commit")  // an order and its event committed together: N the order's number
	Publish = events.Kind("publish") // the relay published the event
	Mark    = events.Kind("mark")    // the relay marked the event sent
	Crash   = events.Kind("crash")   // the relay crashed before marking the event
	Restart = events.Kind("restart") // the relay restarted
	Email   = events.Kind("email")   // the consumer sent an email: OK when its inbox then recorded the id
	Skip    = events.Kind("skip")    // the inbox recognised the event and skipped it
)

// The kinds' sentences are written from the fields, when shown.
func init() { events.Say(say) }

func say(e sim.Event) string {
	switch e.Kind {
	case Commit:
		return "BEGIN; INSERT order ord_" + strconv.Itoa(e.N) + "; INSERT outbox " + e.Ref + "; COMMIT: both or neither."
	case Restart:
		return "The relay restarts and reads the outbox rows not marked sent."
	case Publish:
		return "Publish " + e.Ref + " to the broker."
	case Crash:
		return "The relay crashes before marking " + e.Ref + " sent."
	case Mark:
		return "UPDATE outbox SET sent = true WHERE id = " + e.Ref + "."
	case Skip:
		return e.Ref + " is in the inbox already: skip it."
	case Email:
		if e.OK {
			return "Send the email for " + e.Ref + ", then INSERT inbox " + e.Ref + "."
		}
		return "Send the email for " + e.Ref + "."
	}
	return e.Kind.String()
}
