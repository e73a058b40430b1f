package ordering

import "github.com/retrylab/retrylab/engine/param"

// Bind declares the parameters; the defaults are the article's case:
// evt_2, evt_1, evt_2 against dedupe.
func (p *Params) Bind(b *param.Binder) {
	param.OneOf(b, &p.Strategy, Strategies, param.Param{Name: "strategy", Label: "Consumer", Default: string(Dedupe),
		Help: "none: apply every event; dedupe: skip an event id already applied; version-guard: skip an event no newer than the newest applied"})
	param.ListOf(b, &p.Arrival, eventIDs, param.Param{Name: "arrival", Label: "Arrival order", Default: "evt_2, evt_1, evt_2",
		MinItems: 1, MaxItems: MaxArrivals,
		Help: "the events in the order they arrive (evt_1: starter, sent at t = 0 s; evt_2: pro, sent at t = 60 s)"})
}

// eventIDs are the ids of Events, the arrival's items.
var eventIDs = func() []string {
	out := make([]string, len(Events))
	for i, e := range Events {
		out[i] = e.ID
	}
	return out
}()

// Binding is the parameters as Bind declares them: their Schema, their
// Defaults, and the reading, writing and checking of Params.
var Binding = param.NewBinding((*Params).Bind)

// Validate checks every parameter against its declaration; the error is a
// *param.Error naming the parameter, the value and what is allowed.
func (p Params) Validate() error { return Binding.Check(p) }
