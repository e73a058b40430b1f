package sim

import (
	"strconv"
	"strings"
	"time"
)

// Kind names what happened, as a stable machine name: "attempt",
// "charge", ... Each model declares its kinds as constants of this type,
// and views switch on them.
type Kind string

// Event is one thing a reader should see happen: a request sent, a packet
// lost, a card charged. It is data: views draw events by Kind, Lane and the
// structured fields, and never look inside the sentence, which is written
// from the fields only when it is shown (Sentence).
type Event struct {
	At   time.Duration // virtual time, set by Sim.Record
	Kind Kind          // what happened
	Lane string        // who it happened to: "client", "network", "server", "req-3", ...
	To   string        // for a message, the lane it travels to; empty otherwise
	Ref  string        // the identifier the event is about, if any: "ch_2", "k_1", "evt_2"

	// Structured fields; each model documents which of its kinds fill
	// which.
	N      int   // a number the event is about: an attempt, a request, a status code
	M      int   // a second number: a retry's number, a hop
	Amount int64 // an amount in the model's unit: cents, micro-tokens
	OK     bool  // a yes or no the event reports: a row found, a key claimed
	Detail string

	// Text is a sentence fixed when the event was recorded; Say, when set,
	// writes it from the fields instead, so a run that is not shown pays
	// for no sentences.
	Text string
	Say  *Sayer
}

// A Sayer writes an event's sentence from its fields. Models keep one per
// family of kinds, in a package variable, and point their events at it
// (a pointer keeps Event comparable); a model whose sentences read figures
// the run keeps anyway makes one per run instead (storm's ticks).
type Sayer struct {
	Say func(Event) string
}

// Sentence is the human sentence for e, ready to show.
func (e Event) Sentence() string {
	if e.Say != nil {
		return e.Say.Say(e)
	}
	return e.Text
}

// Trace is the ordered list of events of one run.
type Trace []Event

// Count counts the events of one kind, for tests and summaries.
func (t Trace) Count(kind Kind) int {
	n := 0
	for _, e := range t {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// Names returns prefix1 to prefixN ("req-1", "req-2", ...) as slices of
// one string: a run of a thousand lanes allocates its names in two blocks
// rather than a thousand strings.
func Names(prefix string, n int) []string {
	var a Arena
	a.Grow(n * (len(prefix) + len(strconv.Itoa(n))))
	names := make([]string, n)
	for i := range names {
		names[i] = a.Number(i+1, prefix)
	}
	return names
}

// An Arena keeps the short strings a run makes as it goes (refs, ids) in
// one growing buffer: a run that names a hundred sends allocates a few
// blocks for their names, not a hundred strings. A string it returned
// never changes: the buffer is only ever appended to, and a larger one
// takes over when it is full (strings.Builder's own guarantee). The zero
// Arena is ready to use.
type Arena struct {
	b strings.Builder
}

// Grow makes room for n more bytes.
func (a *Arena) Grow(n int) { a.b.Grow(n) }

// Number returns the parts followed by n in decimal: Number(3, "sender-2",
// "/") is "sender-2/3".
func (a *Arena) Number(n int, parts ...string) string {
	start := a.b.Len()
	for _, p := range parts {
		a.b.WriteString(p)
	}
	var num [20]byte
	a.b.Write(strconv.AppendInt(num[:0], int64(n), 10))
	return a.b.String()[start:]
}
