package guard

import (
	"strconv"

	"github.com/retrylab/retrylab/engine/param"
)

// MaxN is the most requests of a burst: the widget draws a lane per
// request, and fifty rows are already two screens on a phone. Fifty lanes
// of at most eight steps, spread over ten rounds, stay far below the
// trace's sim.MaxEvents, so the trace is never cut.
const MaxN = 50

// Schema declares the parameters; the defaults are the naive guard with
// twenty requests in lockstep.
var Schema = param.Schema{
	{Name: "strategy", Label: "Guard", Kind: param.Enum, Default: string(CheckThenInsert),
		Allowed: param.Strings(Strategies),
		Help:    "check-then-insert: SELECT, charge, INSERT; constraint-after-charge: charge, then INSERT under a unique index; claim-before-work: INSERT the key first, and only the winner charges"},
	{Name: "n", Label: "Requests", Kind: param.Int, Default: "20", Min: 1, Max: MaxN,
		Help: "identical requests with one key, one lane each (at most 50)"},
	{Name: "spread", Label: "Spread (steps)", Kind: param.Int, Default: "0", Min: 0, Max: 10,
		Help: "0: all arrive together and run in lockstep; above 0: arrivals spread over that many steps, interleaved at random"},
	param.Seed("the random arrivals and interleaving when spread is above 0; the same seed replays the same run"),
}

// Defaults are Schema's defaults.
func Defaults() Params {
	return defaults
}

// defaults are Schema's defaults, parsed once as the package starts
// rather than on every call of Defaults.
var defaults = FromValues(Schema.Defaults())

// FromValues reads parameters checked against Schema (the seed is Run's
// second argument).
func FromValues(v param.Values) Params {
	return Params{N: v.Int("n"), Strategy: Strategy(v.String("strategy")), Spread: v.Int("spread")}
}

// Raw writes the parameters as Schema reads them.
func (p Params) Raw() map[string]string {
	return map[string]string{"strategy": string(p.Strategy), "n": strconv.Itoa(p.N), "spread": strconv.Itoa(p.Spread)}
}

// Validate checks the parameters against Schema.
func (p Params) Validate() error {
	return Schema.CheckFields(p.Raw, param.Word(p.Strategy), param.Num(float64(p.N)), param.Num(float64(p.Spread)), param.AtDefault)
}
