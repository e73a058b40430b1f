// This file is the model: the order, the calls to ship it and the
// UPDATE each runs, with or without the version in its WHERE clause; the
// published figures are the package's documentation (doc.go).

package cas

import (
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/sim"
)

// Params are the knobs of the compare-and-set model.
type Params struct {
	Calls int  // times ship(order, version 7) is called: the first call and its retries
	CAS   bool // the UPDATE carries "AND version = 7"
}

// Read is the order's version when the caller read it, and so the version
// every call expects.
const Read = 7

// Summary is what a run comes to.
type Summary struct {
	Shipments int   `json:"shipments"` // times the order was shipped
	Version   int   `json:"version"`   // the order's version at the end
	Updated   []int `json:"updated"`   // rows each call's UPDATE changed, in order
}

// Result is a run's summary and its trace, lanes "caller" and "db".
type Result struct {
	Summary
	Trace sim.Trace `json:"-"`
}

// Tick is the virtual time between two calls.
const Tick = time.Second

// Run calls ship(order, version 7) p.Calls times. Each call runs
//
//	UPDATE orders SET status = 'shipped', version = version + 1
//	WHERE id = 'ord_1' [AND version = 7]
//
// and ships only if a row changed.
func Run(p Params) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	s := sim.New(0)
	var res Result
	version := Read
	for i := 1; i <= p.Calls; i++ {
		s.RunUntil(time.Duration(i) * Tick)
		lane := "call-" + strconv.Itoa(i)
		s.Record(sim.Event{Kind: Call, Lane: lane, To: "db", Ref: "ord_1", N: i, OK: p.CAS})
		if p.CAS && version != Read {
			res.Updated = append(res.Updated, 0)
			s.Record(sim.Event{Kind: Unchanged, Lane: "db", To: lane, Ref: "ord_1", N: i, M: version})
			continue
		}
		version++
		res.Shipments++
		res.Updated = append(res.Updated, 1)
		s.Record(sim.Event{Kind: Ship, Lane: "db", To: lane, Ref: "ord_1", N: i, M: version})
	}
	res.Version = version
	res.Trace = s.Trace
	return res, nil
}

// events are the model's kinds of event; say writes their sentences.
var events sim.Family

// Kinds of the trace's events. Ref is the order and N the call, 1 first.
var (
	// Call is ship(order, version 7) running its UPDATE; OK: with the
	// version in its WHERE clause.
	Call = events.Kind("call")
	// Unchanged is an UPDATE that changed no row: M the version the order
	// is at.
	Unchanged = events.Kind("unchanged")
	// Ship is an UPDATE that changed the row, and the order ships: M the
	// version it bumped the order to.
	Ship = events.Kind("ship")
)

// The kinds' sentences are written from the fields, when shown.
func init() { events.Say(say) }

func say(e sim.Event) string {
	read := strconv.Itoa(Read)
	switch e.Kind {
	case Call:
		if e.OK {
			return "ship(" + e.Ref + ", version " + read + ") runs the UPDATE, WHERE version = " + read + "."
		}
		return "ship(" + e.Ref + ", version " + read + ") runs the UPDATE, with no version in its WHERE."
	case Unchanged:
		return "0 rows: the order is at version " + strconv.Itoa(e.M) + ", not " + read + ". Nothing changes."
	case Ship:
		return "1 row: version " + strconv.Itoa(e.M) + "; the order ships."
	}
	return e.Kind.String()
}

// Statement is the UPDATE each call runs, with the compare or without.
func Statement(cas bool) string {
	s := "UPDATE orders SET status = 'shipped', version = version + 1 WHERE id = 'ord_1'"
	if cas {
		s += " AND version = " + strconv.Itoa(Read)
	}
	return s
}
