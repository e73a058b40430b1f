package sentmarker

import "github.com/retrylab/retrylab/engine/param"

// Bind declares the parameters, for the widget and the CLI alike; the
// defaults are the article's case: a marker, and a first run that crashes
// before its ack.
func (p *Params) Bind(b *param.Binder) {
	b.Bool(&p.Marker, param.Param{Name: "marker", Label: "Sent marker", Default: "on",
		Help: "the job writes a sent marker after sending and checks it before"})
	param.OneOf(b, &p.Crash, Crashes, param.Param{Name: "crash", Label: "First run crashes", Default: string(BeforeAck),
		Help: "where the first run crashes, so that the job is delivered again"})
}

// Binding is the parameters as Bind declares them: their Schema, their
// Defaults, and the reading, writing and checking of Params.
var Binding = param.NewBinding((*Params).Bind)

// Validate checks every parameter against its declaration; the error is a
// *param.Error naming the parameter, the value and what is allowed.
func (p Params) Validate() error { return Binding.Check(p) }
