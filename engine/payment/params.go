package payment

import (
	"github.com/retrylab/retrylab/engine/idem/ledger"
	"github.com/retrylab/retrylab/engine/param"
)

// Keys is how the client uses idempotency keys.
type Keys string

const (
	// KeysOff: no key; the server charges every request it receives.
	KeysOff Keys = "off"
	// KeysPerIntent: one key made before the first attempt and sent with
	// every retry, the correct use.
	KeysPerIntent Keys = "per-intent"
	// KeysPerAttempt: a fresh key on every attempt, the classic client bug:
	// each retry looks new to the server, so keys protect nothing.
	KeysPerAttempt Keys = "per-attempt"
)

// Fault is what the network does to one attempt.
type Fault string

const (
	// OK: the request and its response both arrive.
	OK Fault = "ok"
	// LoseRequest: the request is lost; the server never sees it.
	LoseRequest Fault = "lose-request"
	// LoseResponse: the server does the work; its answer is lost.
	LoseResponse Fault = "lose-response"
)

// Bounds of the parameters.
const (
	// MaxAttempts is 10: with a 1 s timeout that is 10 s of retrying, far
	// past where the story has been told.
	MaxAttempts = 10
	// MaxFaults is MaxAttempts: a fault for an attempt never made has no
	// effect.
	MaxFaults = MaxAttempts
	// MaxAmount is the payment servers' one limit, ledger.MaxAmount
	// (99,999,999 cents, the most Stripe takes for one charge), so that
	// the client never sends an amount the server refuses.
	MaxAmount = ledger.MaxAmount
)

// Params are the inputs of one run.
type Params struct {
	Keys     Keys
	Faults   []Fault // the network's fault for attempt 1, 2, ...; ok after the list
	Attempts int     // how many times the client tries before it gives up
	Amount   int64   // in cents
	// Schedule is the order of the events due at one instant: 0 the
	// order they were scheduled in, the published figures' order; any
	// other seed a permutation of it (sim.Sim.Reorder), and each message on the network up to a Timeout late (sim.Sim.Jitter), so that an answer may come after its client stopped waiting. It is not a
	// parameter of the widget: retrylab sim --schedule sets it.
	Schedule uint64
}

// Bind declares the parameters: the widget's controls, the markdown
// check, the CLI's flags and Validate all come from it. The defaults are
// the double charge of the second row of the table (no keys, the first
// response lost).
func (p *Params) Bind(b *param.Binder) {
	param.OneOf(b, &p.Keys, []Keys{KeysOff, KeysPerIntent, KeysPerAttempt}, param.Param{Name: "keys", Label: "Idempotency keys", Default: string(KeysOff),
		Help: "off: no key; per-intent: one key reused by every retry; per-attempt: a fresh key on each try (the classic bug)"})
	param.ListOf(b, &p.Faults, []Fault{OK, LoseRequest, LoseResponse}, param.Param{Name: "faults", Label: "Network, attempt by attempt", Default: "lose-response, ok",
		MaxItems: MaxFaults, Pad: string(OK), CountFrom: "attempts",
		Help: "what the network does to each attempt in turn; after the list, every attempt goes through"})
	b.Int(&p.Attempts, param.Param{Name: "attempts", Label: "Attempts", Default: "3", Min: 1, Max: MaxAttempts,
		Help: "how many times the client tries before it gives up"})
	b.Int64(&p.Amount, param.Param{Name: "amount", Label: "Amount (cents)", Default: "2500", Min: 1, Max: MaxAmount,
		Help: "the amount to charge, in cents"})
}

// Binding is the parameters as Bind declares them: their Schema, their
// Defaults, and the reading, writing and checking of Params.
var Binding = param.NewBinding((*Params).Bind)

// Validate checks every parameter against its declaration; the error is a
// *param.Error naming the parameter, the value and what is allowed.
func (p Params) Validate() error { return Binding.Check(p) }
