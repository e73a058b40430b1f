package budget

import (
	"strconv"

	"github.com/retrylab/retrylab/engine/param"
)

// Schema declares the parameters; the defaults are the figures': 1,000
// requests with 3 retries each, 0.1 token a request, a bank of 10, with
// the budget on.
var Schema = param.Schema{
	{Name: "requests", Label: "Requests", Kind: param.Int, Default: "1000", Min: 1, Max: 100_000,
		Help: "requests, each of which calls once and fails"},
	{Name: "retries", Label: "Retries per request", Kind: param.Int, Default: "3", Min: 0, Max: 10,
		Help: "retries a request may make after its first call"},
	{Name: "ratio", Label: "Tokens per request", Kind: param.Float, Default: "0.1", Min: 0, Max: 1, Step: 0.01,
		Help: "the share of a token each request earns; a retry spends a whole one (0.1: retries up to 10% of requests)"},
	{Name: "bank", Label: "Bucket size (tokens)", Kind: param.Float, Default: "10", Min: 0, Max: 1000, Step: 0.1,
		Help: "the most tokens the bucket holds; it starts full"},
	{Name: "budget", Label: "Retry budget", Kind: param.Bool, Default: "on",
		Help: "on: retries spend from the bucket; off: every failure is retried"},
}

// Defaults are Schema's defaults.
func Defaults() Params {
	return defaults
}

// defaults are Schema's defaults, parsed once as the package starts
// rather than on every call of Defaults.
var defaults = FromValues(Schema.Defaults())

// FromValues reads parameters checked against Schema, or against a view
// of it without budget (then Budget is true).
func FromValues(v param.Values) Params {
	p := Params{Requests: v.Int("requests"), Retries: v.Int("retries"), Ratio: v.Float("ratio"), Bank: v.Float("bank"), Budget: true}
	if _, ok := v.Value("budget"); ok {
		p.Budget = v.Bool("budget")
	}
	return p
}

// Raw writes the parameters as Schema reads them.
func (p Params) Raw() map[string]string {
	return map[string]string{
		"requests": strconv.Itoa(p.Requests),
		"retries":  strconv.Itoa(p.Retries),
		"ratio":    param.Number(p.Ratio),
		"bank":     param.Number(p.Bank),
		"budget":   param.OnOff(p.Budget),
	}
}

// Validate checks the parameters against Schema.
func (p Params) Validate() error {
	return Schema.CheckFields(p.Raw, param.Num(float64(p.Requests)), param.Num(float64(p.Retries)), param.Num(p.Ratio), param.Num(p.Bank), param.Flag(p.Budget))
}
