package guard

import (
	"github.com/retrylab/retrylab/engine/param"
)

// MaxN is the most requests of a burst: the widget draws a lane per
// request, and fifty rows are already two screens on a phone. Fifty lanes
// of at most eight steps, spread over ten rounds, stay far below the
// trace's sim.MaxEvents, so the trace is never cut.
const MaxN = 50

// Bind declares the parameters; the defaults are the naive guard with
// twenty requests in lockstep.
func (p *Params) Bind(b *param.Binder) {
	param.OneOf(b, &p.Strategy, Strategies, param.Param{Name: "strategy", Label: "Guard", Default: string(CheckThenInsert),
		Help: "check-then-insert: SELECT, charge, INSERT; constraint-after-charge: charge, then INSERT under a unique index; claim-before-work: INSERT the key first, and only the winner charges"})
	param.OneOf(b, &p.Isolation, Isolations, param.Param{Name: "isolation", Label: "Isolation", Default: string(ReadCommitted),
		Help: "the level of check-then-insert's transaction (SELECT, charge, INSERT, COMMIT); serializable: every transaction whose SELECT missed a row another committed fails with 40001 and runs again; the other strategies commit each statement alone, the same at every level"})
	b.Int(&p.N, param.Param{Name: "n", Label: "Requests", Default: "20", Min: 1, Max: MaxN,
		Help: "identical requests with one key, one lane each (at most 50)"})
	b.Int(&p.Spread, param.Param{Name: "spread", Label: "Spread (steps)", Default: "0", Min: 0, Max: 10,
		Help: "0: all arrive together and run in lockstep; above 0: arrivals spread over that many steps, interleaved at random"})
	b.Seed(&p.Seed, "the random arrivals and interleaving when spread is above 0; the same seed replays the same run")
}

// Binding is the parameters as Bind declares them: their Schema, their
// Defaults, and the reading, writing and checking of Params.
var Binding = param.NewBinding((*Params).Bind)

// Validate checks every parameter against its declaration; the error is a
// *param.Error naming the parameter, the value and what is allowed.
func (p Params) Validate() error { return Binding.Check(p) }
