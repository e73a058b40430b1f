package storm

import (
	"github.com/retrylab/retrylab/engine/param"
)

// Bind declares the parameters; the defaults are the figures': 80 new
// requests a second against 100, 40 from second 10 to 19, a 3 s timeout
// and 3 retries, over 120 s, with neither budget nor skipping.
func (p *Params) Bind(b *param.Binder) {
	b.Bool(&p.Budget, param.Param{Name: "budget", Label: "Retry budget (10%)", Default: "off",
		Help: "retries spend from a token bucket: each new request earns 0.1 token, a retry spends 1"})
	b.Bool(&p.SkipExpired, param.Param{Name: "skip-expired", Label: "Skip expired work", Default: "off",
		Help: "the server drops, for free, requests whose client has already given up"})
	b.Int(&p.New, param.Param{Name: "new", More: true, Label: "New requests a second", Default: "80", Min: 0, Max: 10_000,
		Help: "requests that arrive every second"})
	b.Int(&p.Capacity, param.Param{Name: "capacity", More: true, Label: "Capacity a second", Default: "100", Min: 1, Max: 10_000,
		Help: "requests the server can serve a second"})
	b.Float(&p.SlowFactor, param.Param{Name: "slow-factor", More: true, Label: "Capacity left when slow", Default: "0.4", Min: 0, Max: 1, Step: 0.05,
		Help: "the share of capacity left during the slowdown"})
	b.Int(&p.SlowFrom, param.Param{Name: "slow-from", More: true, Label: "Slowdown from (s)", Default: "10", Min: 0, Max: 599,
		Rules: []param.Rule{{Op: param.Below, Other: "seconds"}}, Help: "the second the slowdown starts"})
	b.Int(&p.SlowTo, param.Param{Name: "slow-to", More: true, Label: "Slowdown to (s)", Default: "20", Min: 1, Max: 600,
		Rules: []param.Rule{{Op: param.Above, Other: "slow-from"}, {Op: param.AtMost, Other: "seconds"}}, Help: "the second it ends (not included)"})
	b.Int(&p.Timeout, param.Param{Name: "timeout", More: true, Label: "Client timeout (s)", Default: "3", Min: 1, Max: 60,
		Help: "seconds a client waits for an answer before it retries"})
	b.Int(&p.Retries, param.Param{Name: "retries", More: true, Label: "Retries", Default: "3", Min: 0, Max: 10,
		Help: "retries a request may make after it first times out"})
	b.Int(&p.Seconds, param.Param{Name: "seconds", More: true, Label: "Length (s)", Default: "120", Min: 10, Max: 600,
		Help: "the length of the run, in seconds (at most 600)"})
}

// Binding is the parameters as Bind declares them: their Schema, their
// Defaults, and the reading, writing and checking of Params.
var Binding = param.NewBinding((*Params).Bind)

// Validate checks every parameter against its declaration; the error is a
// *param.Error naming the parameter, the value and what is allowed.
func (p Params) Validate() error { return Binding.Check(p) }
