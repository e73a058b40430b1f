package cas

import "github.com/retrylab/retrylab/engine/param"

// Bind declares the parameters, for the widget and the CLI alike; the
// defaults are the article's case: two calls, with the version check.
func (p *Params) Bind(b *param.Binder) {
	b.Int(&p.Calls, param.Param{Name: "calls", Label: "Calls", Default: "2", Min: 1, Max: 10,
		Help: "times ship(order, version 7) is called: the first call and its retries"})
	b.Bool(&p.CAS, param.Param{Name: "cas", Label: "Compare-and-set", Default: "on",
		Help: "the UPDATE carries AND version = 7, so that only the first call changes a row"})
}

// Binding is the parameters as Bind declares them: their Schema, their
// Defaults, and the reading, writing and checking of Params.
var Binding = param.NewBinding((*Params).Bind)

// Validate checks every parameter against its declaration; the error is a
// *param.Error naming the parameter, the value and what is allowed.
func (p Params) Validate() error { return Binding.Check(p) }
