package sim

import "time"

// Event is one thing a reader should see happen: a request sent, a packet
// lost, a card charged. Models fill in what applies; widgets draw events by
// Kind and Lane, and print Text.
type Event struct {
	At   time.Duration // virtual time, set by Sim.Record
	Kind string        // what happened, a stable machine name: "attempt", "charge", ...
	Lane string        // who it happened to: "client", "network", "server", "req-3", ...
	To   string        // for a message, the lane it travels to; empty otherwise
	Text string        // one human sentence, ready to show
	Ref  string        // the identifier the event is about, if any: "ch_2", "k_1", "evt_2"
}

// Trace is the ordered list of events of one run.
type Trace []Event

// Kinds counts the events of each kind, for tests and summaries.
func (t Trace) Count(kind string) int {
	n := 0
	for _, e := range t {
		if e.Kind == kind {
			n++
		}
	}
	return n
}
