package budget

import (
	"github.com/retrylab/retrylab/engine/param"
)

// Bind declares the parameters; the defaults are the figures': 1,000
// requests with 3 retries each, 0.1 token a request, a bank of 10, with
// the budget on.
func (p *Params) Bind(b *param.Binder) {
	b.Int(&p.Requests, param.Param{Name: "requests", Label: "Requests", Default: "1000", Min: 1, Max: 100_000,
		Help: "requests, each of which calls once and fails"})
	b.Int(&p.Retries, param.Param{Name: "retries", Label: "Retries per request", Default: "3", Min: 0, Max: 10,
		Help: "retries a request may make after its first call"})
	b.Float(&p.Ratio, param.Param{Name: "ratio", Label: "Tokens per request", Default: "0.1", Min: 0, Max: 1, Step: 0.01,
		Help: "the share of a token each request earns; a retry spends a whole one (0.1: retries up to 10% of requests)"})
	b.Float(&p.Bank, param.Param{Name: "bank", Label: "Bucket size (tokens)", Default: "10", Min: 0, Max: 1000, Step: 0.1,
		Help: "the most tokens the bucket holds; it starts full"})
	b.Bool(&p.Budget, param.Param{Name: "budget", Label: "Retry budget", Default: "on",
		Help: "on: retries spend from the bucket; off: every failure is retried"})
}

// Binding is the parameters as Bind declares them: their Schema, their
// Defaults, and the reading, writing and checking of Params.
var Binding = param.NewBinding((*Params).Bind)

// Validate checks every parameter against its declaration; the error is a
// *param.Error naming the parameter, the value and what is allowed.
func (p Params) Validate() error { return Binding.Check(p) }
