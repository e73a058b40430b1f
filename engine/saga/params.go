package saga

import "github.com/retrylab/retrylab/engine/param"

// Schema declares the parameters; the defaults are the article's case:
// the hotel refuses, the runner crashes after the flight, keys on.
var Schema = param.Schema{
	{Name: "fail", Label: "Step that fails", Kind: param.Enum, Default: string(Hotel), Allowed: stepNames(),
		Help: "the step whose service refuses, so that the saga undoes the steps before it; none: the saga completes"},
	{Name: "crash-after", Label: "Runner crashes after", Kind: param.Enum, Default: string(Flight), Allowed: stepNames(),
		Help: "the step after whose call the runner crashes, before its log records the result; it resumes from the log"},
	{Name: "keys", Label: "Idempotency keys", Kind: param.Bool, Default: "on",
		Help: "calls carry saga:STEP and saga:STEP:undo, so that a call repeated after the crash is a replay at the service"},
}

func stepNames() []string { return append([]string{string(None)}, param.Strings(Steps)...) }

// Defaults are Schema's defaults.
func Defaults() Params {
	return defaults
}

// defaults are Schema's defaults, parsed once as the package starts
// rather than on every call of Defaults.
var defaults = FromValues(Schema.Defaults())

// FromValues reads parameters checked against Schema.
func FromValues(v param.Values) Params {
	return Params{Fail: Step(v.String("fail")), CrashAfter: Step(v.String("crash-after")), Keys: v.Bool("keys")}
}

// Raw writes the parameters as Schema reads them.
func (p Params) Raw() map[string]string {
	return map[string]string{"fail": string(p.Fail), "crash-after": string(p.CrashAfter), "keys": param.OnOff(p.Keys)}
}

// Validate checks the parameters against Schema.
func (p Params) Validate() error {
	return Schema.CheckFields(p.Raw, param.Word(p.Fail), param.Word(p.CrashAfter), param.Flag(p.Keys))
}
