package ordering

import (
	"slices"
	"strings"

	"github.com/retrylab/retrylab/engine/param"
)

// Schema declares the parameters; the defaults are the article's case:
// evt_2, evt_1, evt_2 against dedupe.
var Schema = param.Schema{
	{Name: "strategy", Label: "Consumer", Kind: param.Enum, Default: string(Dedupe), Allowed: param.Strings(Strategies),
		Help: "none: apply every event; dedupe: skip an event id already applied; watermark: skip an event no newer than the last applied"},
	{Name: "arrival", Label: "Arrival order", Kind: param.EnumList, Default: "evt_2, evt_1, evt_2", Allowed: eventIDs(),
		MinItems: 1, MaxItems: MaxArrivals,
		Help: "the events in the order they arrive (evt_1: starter, sent at t = 0 s; evt_2: pro, sent at t = 60 s)"},
}

func eventIDs() []string {
	out := make([]string, len(Events))
	for i, e := range Events {
		out[i] = e.ID
	}
	return out
}

// Defaults are Schema's defaults (the arrival a copy of its own).
func Defaults() Params {
	p := defaults
	p.Arrival = slices.Clone(p.Arrival)
	return p
}

// defaults are Schema's defaults, parsed once as the package starts
// rather than on every call of Defaults.
var defaults = FromValues(Schema.Defaults())

// FromValues reads parameters checked against Schema.
func FromValues(v param.Values) Params {
	return Params{Strategy: Strategy(v.String("strategy")), Arrival: v.List("arrival")}
}

// Raw writes the parameters as Schema reads them.
func (p Params) Raw() map[string]string {
	return map[string]string{"strategy": string(p.Strategy), "arrival": strings.Join(p.Arrival, ",")}
}

// Validate checks the parameters against Schema.
func (p Params) Validate() error {
	return Schema.CheckFields(p.Raw, param.Word(p.Strategy), param.Words(p.Arrival))
}
