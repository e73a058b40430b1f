package backoff

import (
	"math"
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/param"
)

// Off is compare's value for no second policy.
const Off = "off"

// Schema declares the parameters of a run as the handbook shows it: a
// policy, optionally a second one to compare it with, and the herd. The
// defaults are the figures': 1,000 clients against 50 calls per 100 ms
// slot (500 calls a second), base 0.1 s, cap 10 s, no jitter beside full.
var Schema = param.Schema{
	{Name: "policy", Label: "Policy", Kind: param.Enum, Default: string(None), Allowed: param.Strings(Policies), Words: withWords(nil),
		Help: "how long a client waits after a failed call: none: base × 2^attempt (up to cap); full: a random share of that; equal: half of it plus a random share of the other half; decorrelated: random, up to three times the previous wait"},
	{Name: "compare", Label: "Compare with", Kind: param.Enum, Default: string(Full), Allowed: append([]string{Off}, param.Strings(Policies)...),
		Words: withWords(map[string]string{Off: "nothing: one policy alone"}),
		Help:  "a second policy run beside the first, or off"},
	{Name: "clients", Label: "Clients", Kind: param.Int, Default: "1000", Min: 1, Max: MaxClients,
		Help: "clients that all call at t = 0 (at most 100,000)"},
	{Name: "capacity", Label: "Capacity (calls per slot)", Kind: param.Int, Default: "50", Min: 1, Max: MaxCapacity,
		Help: "calls the server answers in each slot; the rest fail"},
	{Name: "slot", More: true, Label: "Slot (s)", Kind: param.Float, Default: "0.1",
		Min: MinSlot.Seconds(), Max: MaxSlot.Seconds(), Step: 0.001,
		Help: "the server's unit of work time, in seconds: a call at t lands in slot floor(t / slot)"},
	{Name: "base", More: true, Label: "Base (s)", Kind: param.Float, Default: "0.1",
		Min: MinBase.Seconds(), Max: 10, Step: 0.001,
		Help: "the first wait, in seconds"},
	{Name: "cap", More: true, Label: "Cap (s)", Kind: param.Float, Default: "10",
		Min: MinBase.Seconds(), Max: MaxWait.Seconds(), Step: 0.001, Rules: []param.Rule{{Op: param.AtLeast, Other: "base"}},
		Help: "the longest wait, in seconds; at least base"},
	param.Seed("the random draws of the jittered policies; the same seed replays the same run"),
}

// withWords adds to words what a control shows for each policy: its name
// as the figures write it ("none: no jitter", "full jitter").
func withWords(words map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range words {
		out[k] = v
	}
	for _, p := range Policies {
		out[string(p)] = string(p) + " jitter"
	}
	out[string(None)] = "none: no jitter"
	return out
}

// Defaults are Schema's defaults.
func Defaults() Params {
	return defaults
}

// defaults are Schema's defaults, parsed once as the package starts
// rather than on every call of Defaults.
var defaults = FromValues(Schema.Defaults())

// FromValues reads parameters checked against Schema; compare and seed are
// for the caller (Compare, and Run's second argument).
func FromValues(v param.Values) Params {
	return Params{
		Policy:   Policy(v.String("policy")),
		Clients:  v.Int("clients"),
		Capacity: v.Int("capacity"),
		Slot:     Seconds(v.Float("slot")),
		Base:     Seconds(v.Float("base")),
		Cap:      Seconds(v.Float("cap")),
	}
}

// Compare is the second policy of checked values, and false when compare
// is off.
func Compare(v param.Values) (Policy, bool) {
	c := v.String("compare")
	return Policy(c), c != Off
}

// Seconds converts a parameter in seconds to a duration, to the
// microsecond: the declared steps are thousandths.
func Seconds(s float64) time.Duration {
	return time.Duration(math.Round(s*1e6)) * time.Microsecond
}

// Raw writes the parameters as Schema reads them.
func (p Params) Raw() map[string]string {
	sec := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) }
	return map[string]string{
		"policy":   string(p.Policy),
		"clients":  strconv.Itoa(p.Clients),
		"capacity": strconv.Itoa(p.Capacity),
		"slot":     sec(p.Slot),
		"base":     sec(p.Base),
		"cap":      sec(p.Cap),
	}
}

// Validate checks the parameters against Schema.
func (p Params) Validate() error {
	return Schema.CheckFields(p.Raw, param.Word(p.Policy), param.AtDefault, param.Num(float64(p.Clients)),
		param.Num(float64(p.Capacity)), param.Num(p.Slot.Seconds()), param.Num(p.Base.Seconds()), param.Num(p.Cap.Seconds()),
		param.AtDefault)
}
