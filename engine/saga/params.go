package saga

import "github.com/retrylab/retrylab/engine/param"

// Bind declares the parameters; the defaults are the article's case:
// the hotel refuses, the runner crashes after the flight, keys on.
func (p *Params) Bind(b *param.Binder) {
	param.OneOf(b, &p.Fail, stepOrNone, param.Param{Name: "fail", Label: "Step that fails", Default: string(Hotel),
		Help: "the step whose service refuses, so that the saga undoes the steps before it; none: the saga completes"})
	param.OneOf(b, &p.CrashAfter, stepOrNone, param.Param{Name: "crash-after", Label: "Runner crashes after", Default: string(Flight),
		Help: "the step after whose call the runner crashes, before its log records the result; it resumes from the log"})
	b.Bool(&p.Keys, param.Param{Name: "keys", Label: "Idempotency keys", Default: "on",
		Help: "calls carry saga:STEP and saga:STEP:undo, so that a call repeated after the crash is a replay at the service"})
}

// stepOrNone are the values of fail and crash-after: none, or a step.
var stepOrNone = append([]Step{None}, Steps...)

// Binding is the parameters as Bind declares them: their Schema, their
// Defaults, and the reading, writing and checking of Params.
var Binding = param.NewBinding((*Params).Bind)

// Validate checks every parameter against its declaration; the error is a
// *param.Error naming the parameter, the value and what is allowed.
func (p Params) Validate() error { return Binding.Check(p) }
