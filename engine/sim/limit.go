package sim

// MaxEvents is the most events a model keeps in one trace. A replay of more
// steps than this is not something a reader steps through, and a bound keeps
// large runs (a hundred thousand clients) cheap in memory, in the browser
// too. Models that can exceed it record through Keep.
const MaxEvents = 10000

// own are sim's own kinds.
var own Family

// Truncated is the Kind of the one event that ends a trace cut short by Keep.
var Truncated = own.Kind("truncated")

func init() {
	own.Say(func(Event) string { return "The trace stops here; the summary counts every event." })
}

// Keep appends e unless the trace already holds max events. The first event
// refused is replaced by one event of kind Truncated at e's time, so a widget
// can say that the replay stops there; later events are dropped. It reports
// whether e was kept.
func (t *Trace) Keep(e Event, max int) bool {
	n := len(*t)
	switch {
	case t.Keeps(max):
		*t = append(*t, e)
		return true
	case n == max:
		*t = append(*t, Event{At: e.At, Kind: Truncated})
	}
	return false
}

// Keeps reports whether Keep(e, max) would keep the next event: a model
// that builds an event's text only for an event kept asks it first.
func (t Trace) Keeps(max int) bool { return len(t) < max }

// Truncated reports whether the trace was cut short by Keep.
func (t Trace) Truncated() bool {
	return len(t) > 0 && t[len(t)-1].Kind == Truncated
}
