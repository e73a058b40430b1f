package backoff

import (
	"math"
	"time"

	"github.com/retrylab/retrylab/engine/param"
)

// Off is Compare's value for no second policy.
const Off Policy = "off"

// comparable are Compare's values: off, or a policy.
var comparable = append([]Policy{Off}, Policies...)

// Bind declares the parameters of a run as the handbook shows it: a
// policy, optionally a second one to compare it with, and the herd. The
// defaults are the figures': 1,000 clients against 50 calls per 100 ms
// slot (500 calls a second), base 0.1 s, cap 10 s, no jitter beside full.
func (p *Params) Bind(b *param.Binder) {
	param.OneOf(b, &p.Policy, Policies, param.Param{Name: "policy", Label: "Policy", Default: string(None), Words: policyWords,
		Help: "how long a client waits after a failed call: none: base × 2^attempt (up to cap); full: a random share of that; equal: half of it plus a random share of the other half; decorrelated: random, up to three times the previous wait"})
	param.OneOf(b, &p.Compare, comparable, param.Param{Name: "compare", Label: "Compare with", Default: string(Full), Words: compareWords,
		Help: "a second policy run beside the first, or off"})
	b.Int(&p.Clients, param.Param{Name: "clients", Label: "Clients", Default: "1000", Min: 1, Max: MaxClients,
		Help: "clients that all call at t = 0 (at most 100,000)"})
	b.Int(&p.Capacity, param.Param{Name: "capacity", Label: "Capacity (calls per slot)", Default: "50", Min: 1, Max: MaxCapacity,
		Help: "calls the server answers in each slot; the rest fail"})
	b.FloatSeconds(&p.Slot, param.Param{Name: "slot", More: true, Label: "Slot (s)", Default: "0.1",
		Min: MinSlot.Seconds(), Max: MaxSlot.Seconds(), Step: 0.001,
		Help: "the server's unit of work time, in seconds: a call at t lands in slot floor(t / slot)"})
	b.FloatSeconds(&p.Base, param.Param{Name: "base", More: true, Label: "Base (s)", Default: "0.1",
		Min: MinBase.Seconds(), Max: 10, Step: 0.001,
		Help: "the first wait, in seconds"})
	b.FloatSeconds(&p.Cap, param.Param{Name: "cap", More: true, Label: "Cap (s)", Default: "10",
		Min: MinBase.Seconds(), Max: MaxWait.Seconds(), Step: 0.001, Rules: []param.Rule{{Op: param.AtLeast, Other: "base"}},
		Help: "the longest wait, in seconds; at least base"})
	b.Seed(&p.Seed, "the random draws of the jittered policies; the same seed replays the same run")
}

// policyWords are what a control shows for each policy: its name as the
// figures write it ("none: no jitter", "full jitter"); compareWords the
// same, and off.
var policyWords, compareWords = withWords(nil), withWords(map[string]string{string(Off): "nothing: one policy alone"})

// withWords adds to words what a control shows for each policy.
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

// Binding is the parameters as Bind declares them: their Schema, their
// Defaults, and the reading, writing and checking of Params.
var Binding = param.NewBinding((*Params).Bind)

// Seconds converts a parameter in seconds to a duration, to the
// microsecond: the declared steps are thousandths.
func Seconds(s float64) time.Duration {
	return time.Duration(math.Round(s*1e6)) * time.Microsecond
}

// Validate checks every parameter against its declaration; the error is a
// *param.Error naming the parameter, the value and what is allowed.
func (p Params) Validate() error { return Binding.Check(p) }

// Bind declares the policy's bounds: at most 100 calls, waits from a
// millisecond to an hour, a deadline of at most a day.
func (p *RetryPolicy) Bind(b *param.Binder) {
	b.Int(&p.Attempts, param.Param{Name: "attempts", Label: "Attempts", Default: "5", Min: 1, Max: 100,
		Help: "calls at most, the first one included"})
	b.FloatSeconds(&p.Base, param.Param{Name: "base", Label: "Base (s)", Default: "0.1", Min: MinBase.Seconds(), Max: MaxCap.Seconds(), Step: 0.001,
		Help: "the ceiling of the first wait, in seconds; it doubles per retry"})
	b.FloatSeconds(&p.Cap, param.Param{Name: "cap", Label: "Cap (s)", Default: "10", Min: MinBase.Seconds(), Max: MaxCap.Seconds(), Step: 0.001,
		Rules: []param.Rule{{Op: param.AtLeast, Other: "base"}}, Help: "the largest ceiling, in seconds; at least base"})
	b.FloatSeconds(&p.Deadline, param.Param{Name: "deadline", Label: "Deadline (s)", Default: "0", Min: 0, Max: (24 * time.Hour).Seconds(), Step: 0.001,
		Help: "the caller's time budget from the first call, in seconds; 0 for none"})
}

// retryBinding is RetryPolicy's parameters as Bind declares them.
var retryBinding = param.NewBinding((*RetryPolicy).Bind)
