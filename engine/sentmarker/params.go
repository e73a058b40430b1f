package sentmarker

import "github.com/retrylab/retrylab/engine/param"

// Schema declares the parameters, for the widget and the CLI alike; the
// defaults are the article's case: a marker, and a first run that crashes before its ack.
var Schema = param.Schema{
	{Name: "marker", Label: "Sent marker", Kind: param.Bool, Default: "on",
		Help: "the job writes a sent marker after sending and checks it before"},
	{Name: "crash", Label: "First run crashes", Kind: param.Enum, Default: string(BeforeAck), Allowed: param.Strings(Crashes),
		Help: "where the first run crashes, so that the job is delivered again"},
}

// Defaults are Schema's defaults.
func Defaults() Params {
	return defaults
}

// defaults are Schema's defaults, parsed once as the package starts
// rather than on every call of Defaults.
var defaults = FromValues(Schema.Defaults())

// FromValues reads parameters checked against Schema.
func FromValues(v param.Values) Params {
	return Params{Marker: v.Bool("marker"), Crash: Crash(v.String("crash"))}
}

// Raw writes the parameters as Schema reads them.
func (p Params) Raw() map[string]string {
	return map[string]string{"marker": param.OnOff(p.Marker), "crash": string(p.Crash)}
}

// Validate checks the parameters against Schema.
func (p Params) Validate() error {
	return Schema.CheckFields(p.Raw, param.Flag(p.Marker), param.Word(p.Crash))
}
