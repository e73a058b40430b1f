package sim

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Kind names what happened: "attempt", "charge", ... A model declares its
// kinds in a Family of its own, and views switch on them. A Kind is a small
// number, so that an event carries no string for it; String gives its
// stable machine name. The numbers are handed out as kinds are declared
// (Family.Kind), so two models' kinds never share one; they may differ
// from one binary to another, and nothing writes them down: a page, a
// summary and the simulator worker's answers name a kind by its String.
type Kind uint16

// A Family is one model's kinds and the function that writes their events'
// sentences from the fields, when shown. A model keeps it in a package
// variable, declares each kind with Kind, and gives the sentences with Say
// from an init function (Say's function switches on the kinds, which are
// declared with the family, so it cannot be in the family's declaration):
//
//	var events sim.Family
//
//	var (
//		EvSend  = events.Kind("send")  // a sender sends: N the send's number
//		EvCrash = events.Kind("crash") // the server crashes
//	)
//
//	func init() { events.Say(say) }
type Family struct {
	say func(Event) string
}

// kinds are the declared kinds by number: their names and families. Kind
// 0, no kind, has neither. Kind runs as packages initialize, which Go does
// one at a time before main; afterwards kinds is only read.
var kinds = []declared{{}}

type declared struct {
	name   string
	family *Family
}

// Kind declares a kind of f called name and returns its number: the next
// one free. It panics past the 65,535 kinds a Kind can number, which no
// handful of models comes near.
func (f *Family) Kind(name string) Kind {
	if len(kinds) > math.MaxUint16 {
		panic("sim: too many kinds to number " + strconv.Quote(name))
	}
	kinds = append(kinds, declared{name: name, family: f})
	return Kind(len(kinds) - 1)
}

// Say makes say write the sentences of f's events (nil: the family writes
// none).
func (f *Family) Say(say func(Event) string) { f.say = say }

// String is the kind's machine name, as declared.
func (k Kind) String() string {
	if int(k) < len(kinds) && kinds[k].family != nil {
		return kinds[k].name
	}
	if k == 0 {
		return ""
	}
	return "kind " + strconv.Itoa(int(k))
}

// Event is one thing a reader should see happen: a request sent, a packet
// lost, a card charged. It is data: views draw events by Kind, Lane and the
// structured fields, and never look inside the sentence, which is written
// from the fields only when it is shown (Sentence).
type Event struct {
	At   time.Duration // virtual time, set by Sim.Record
	Lane string        // who it happened to: "client", "network", "server", "req-3", ...
	To   string        // for a message, the lane it travels to; empty otherwise
	Ref  string        // the identifier the event is about, if any: "ch_2", "k_1", "evt_2"

	// Structured fields; each model documents which of its kinds fill
	// which.
	N      int   // a number the event is about: an attempt, a request, a status code
	M      int   // a second number: a retry's number, a hop
	Amount int64 // an amount in the model's unit: cents, micro-tokens
	Detail string

	// Say, when set, writes the sentence instead of the kind's family: for
	// a model whose sentences read figures the run keeps anyway, with a
	// Sayer made per run (storm's ticks).
	Say *Sayer

	Kind Kind // what happened
	OK   bool // a yes or no the event reports: a row found, a key claimed
}

// A Sayer writes the sentences of one run's events from their fields and
// the run's own figures (a pointer keeps Event comparable).
type Sayer struct {
	Say func(Event) string
}

// Sentence is the human sentence for e, ready to show: from the run's
// Sayer if the event has one, else from its kind's family; "" for a kind
// whose family writes none.
func (e Event) Sentence() string {
	if e.Say != nil {
		return e.Say.Say(e)
	}
	if k := int(e.Kind); k < len(kinds) && kinds[k].family != nil && kinds[k].family.say != nil {
		return kinds[k].family.say(e)
	}
	return ""
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
// (their bytes and the slice) rather than a thousand strings.
func Names(prefix string, n int) []string {
	var a Arena
	a.GrowNames(prefix, n)
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

// GrowNames makes room for prefix1 to prefixN, exactly: a run that knows
// its names before it starts allocates their bytes once.
func (a *Arena) GrowNames(prefix string, n int) { a.b.Grow(NamesLen(prefix, n)) }

// NamesLen is the bytes of prefix1 to prefixN together: n prefixes and
// the digits of 1 to n (9 of one digit, 90 of two, ...).
func NamesLen(prefix string, n int) int {
	size := n * len(prefix)
	for lo, digits := 1, 1; lo <= n; lo, digits = lo*10, digits+1 {
		size += (min(n, 10*lo-1) - lo + 1) * digits
	}
	return size
}

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
