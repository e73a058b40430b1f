package storm

import (
	"strconv"

	"github.com/retrylab/retrylab/engine/param"
)

// Schema declares the parameters; the defaults are the figures': 80 new
// requests a second against 100, 40 from second 10 to 19, a 3 s timeout
// and 3 retries, over 120 s, with neither budget nor skipping.
var Schema = param.Schema{
	{Name: "budget", Label: "Retry budget (10%)", Kind: param.Bool, Default: "off",
		Help: "retries spend from a token bucket: each new request earns 0.1 token, a retry spends 1"},
	{Name: "skip-expired", Label: "Skip expired work", Kind: param.Bool, Default: "off",
		Help: "the server drops, for free, requests whose client has already given up"},
	{Name: "new", More: true, Label: "New requests a second", Kind: param.Int, Default: "80", Min: 0, Max: 10_000,
		Help: "requests that arrive every second"},
	{Name: "capacity", More: true, Label: "Capacity a second", Kind: param.Int, Default: "100", Min: 1, Max: 10_000,
		Help: "requests the server can serve a second"},
	{Name: "slow-factor", More: true, Label: "Capacity left when slow", Kind: param.Float, Default: "0.4", Min: 0, Max: 1, Step: 0.05,
		Help: "the share of capacity left during the slowdown"},
	{Name: "slow-from", More: true, Label: "Slowdown from (s)", Kind: param.Int, Default: "10", Min: 0, Max: 599,
		Rules: []param.Rule{{Op: param.Below, Other: "seconds"}},
		Help:  "the second the slowdown starts"},
	{Name: "slow-to", More: true, Label: "Slowdown to (s)", Kind: param.Int, Default: "20", Min: 1, Max: 600,
		Rules: []param.Rule{{Op: param.Above, Other: "slow-from"}, {Op: param.AtMost, Other: "seconds"}},
		Help:  "the second it ends (not included)"},
	{Name: "timeout", More: true, Label: "Client timeout (s)", Kind: param.Int, Default: "3", Min: 1, Max: 60,
		Help: "seconds a client waits for an answer before it retries"},
	{Name: "retries", More: true, Label: "Retries", Kind: param.Int, Default: "3", Min: 0, Max: 10,
		Help: "retries a request may make after it first times out"},
	{Name: "seconds", More: true, Label: "Length (s)", Kind: param.Int, Default: "120", Min: 10, Max: 600,
		Help: "the length of the run, in seconds (at most 600)"},
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
	return Params{New: v.Int("new"), Capacity: v.Int("capacity"), SlowFrom: v.Int("slow-from"), SlowTo: v.Int("slow-to"),
		SlowFactor: v.Float("slow-factor"), Timeout: v.Int("timeout"), Retries: v.Int("retries"),
		Budget: v.Bool("budget"), SkipExpired: v.Bool("skip-expired"), Seconds: v.Int("seconds")}
}

// Raw writes the parameters as Schema reads them.
func (p Params) Raw() map[string]string {
	return map[string]string{
		"new": strconv.Itoa(p.New), "capacity": strconv.Itoa(p.Capacity),
		"slow-from": strconv.Itoa(p.SlowFrom), "slow-to": strconv.Itoa(p.SlowTo),
		"slow-factor": param.Number(p.SlowFactor), "timeout": strconv.Itoa(p.Timeout),
		"retries": strconv.Itoa(p.Retries), "budget": param.OnOff(p.Budget),
		"skip-expired": param.OnOff(p.SkipExpired), "seconds": strconv.Itoa(p.Seconds),
	}
}

// Validate checks the parameters against Schema.
func (p Params) Validate() error {
	return Schema.CheckFields(p.Raw, param.Flag(p.Budget), param.Flag(p.SkipExpired), param.Num(float64(p.New)),
		param.Num(float64(p.Capacity)), param.Num(p.SlowFactor), param.Num(float64(p.SlowFrom)), param.Num(float64(p.SlowTo)),
		param.Num(float64(p.Timeout)), param.Num(float64(p.Retries)), param.Num(float64(p.Seconds)))
}
