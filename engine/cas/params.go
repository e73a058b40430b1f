package cas

import (
	"strconv"

	"github.com/retrylab/retrylab/engine/param"
)

// Schema declares the parameters, for the widget and the CLI alike; the
// defaults are the article's case: two calls, with the version check.
var Schema = param.Schema{
	{Name: "calls", Label: "Calls", Kind: param.Int, Default: "2", Min: 1, Max: 10,
		Help: "times ship(order, version 7) is called: the first call and its retries"},
	{Name: "cas", Label: "Compare-and-set", Kind: param.Bool, Default: "on",
		Help: "the UPDATE carries AND version = 7, so that only the first call changes a row"},
}

// Defaults are Schema's defaults.
func Defaults() Params {
	return defaults
}

// defaults are Schema's defaults, parsed once as the package starts
// rather than on every call of Defaults.
var defaults = FromValues(Schema.Defaults())

// FromValues reads parameters checked against Schema.
func FromValues(v param.Values) Params { return Params{Calls: v.Int("calls"), CAS: v.Bool("cas")} }

// Raw writes the parameters as Schema reads them.
func (p Params) Raw() map[string]string {
	return map[string]string{"calls": strconv.Itoa(p.Calls), "cas": param.OnOff(p.CAS)}
}

// Validate checks the parameters against Schema.
func (p Params) Validate() error {
	return Schema.CheckFields(p.Raw, param.Num(float64(p.Calls)), param.Flag(p.CAS))
}
