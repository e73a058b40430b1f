package payment

import (
	"slices"
	"strconv"
	"strings"

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
}

// Schema declares the parameters: the widget's controls, the markdown
// check, the CLI's flags and Validate all come from it. The defaults are
// the double charge of the second row of the table (no keys, the first
// response lost).
var Schema = param.Schema{
	{Name: "keys", Label: "Idempotency keys", Kind: param.Enum, Default: string(KeysOff),
		Allowed: param.Strings([]Keys{KeysOff, KeysPerIntent, KeysPerAttempt}),
		Help:    "off: no key; per-intent: one key reused by every retry; per-attempt: a fresh key on each try (the classic bug)"},
	{Name: "faults", Label: "Network, attempt by attempt", Kind: param.EnumList, Default: "lose-response, ok",
		Allowed: param.Strings([]Fault{OK, LoseRequest, LoseResponse}), MaxItems: MaxFaults,
		Pad: string(OK), CountFrom: "attempts",
		Help: "what the network does to each attempt in turn; after the list, every attempt goes through"},
	{Name: "attempts", Label: "Attempts", Kind: param.Int, Default: "3", Min: 1, Max: MaxAttempts,
		Help: "how many times the client tries before it gives up"},
	{Name: "amount", Label: "Amount (cents)", Kind: param.Int, Default: "2500", Min: 1, Max: MaxAmount,
		Help: "the amount to charge, in cents"},
}

// Defaults are the parameters the widget starts with: Schema's defaults (the faults a copy of their own).
func Defaults() Params {
	p := defaults
	p.Faults = slices.Clone(p.Faults)
	return p
}

// defaults are Schema's defaults, parsed once as the package starts
// rather than on every call of Defaults.
var defaults = FromValues(Schema.Defaults())

// FromValues reads parameters checked against Schema.
func FromValues(v param.Values) Params {
	p := Params{Keys: Keys(v.String("keys")), Attempts: v.Int("attempts"), Amount: int64(v.Int("amount"))}
	for _, f := range v.List("faults") {
		p.Faults = append(p.Faults, Fault(f))
	}
	return p
}

// Raw writes the parameters as Schema reads them.
func (p Params) Raw() map[string]string {
	return map[string]string{
		"keys":     string(p.Keys),
		"faults":   strings.Join(param.Strings(p.Faults), ","),
		"attempts": strconv.Itoa(p.Attempts),
		"amount":   strconv.FormatInt(p.Amount, 10),
	}
}

// Validate checks every parameter against Schema; the error is a
// *param.Error naming the parameter, the value and what is allowed.
func (p Params) Validate() error {
	// The faults as words, on the stack unless there are too many.
	var words [MaxFaults]string
	faults := words[:0]
	for _, f := range p.Faults {
		faults = append(faults, string(f))
	}
	return Schema.CheckFields(p.Raw, param.Word(p.Keys), param.Words(faults),
		param.Num(float64(p.Attempts)), param.Num(float64(p.Amount)))
}
