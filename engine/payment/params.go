package payment

import (
	"strconv"
	"strings"
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
	// MaxAmount is 1,000,000 cents (10,000.00), plenty for an example.
	MaxAmount = 1_000_000
)

// Params are the inputs of one run.
type Params struct {
	Keys     Keys
	Faults   []Fault // the network's fault for attempt 1, 2, ...; ok after the list
	Attempts int     // how many times the client tries before it gives up
	Amount   int64   // in cents
}

// Defaults are the parameters the widget starts with: the double charge of
// the second row of the table (no keys, the first response lost).
func Defaults() Params {
	return Params{Keys: KeysOff, Faults: []Fault{LoseResponse, OK}, Attempts: 3, Amount: 2500}
}

// ParamError is the error Validate returns: Param is the parameter's name
// as the widget and the CLI spell it.
type ParamError struct {
	Param string // "keys", "faults", "attempts" or "amount"
	Msg   string
}

func (e *ParamError) Error() string { return "payment: " + e.Param + ": " + e.Msg }

// Validate checks every parameter against its allowed values or bounds.
func (p Params) Validate() error {
	switch p.Keys {
	case KeysOff, KeysPerIntent, KeysPerAttempt:
	default:
		return &ParamError{"keys", strconv.Quote(string(p.Keys)) + " is not one of off, per-intent, per-attempt"}
	}
	if len(p.Faults) > MaxFaults {
		return &ParamError{"faults", strconv.Itoa(len(p.Faults)) + " items, at most " + strconv.Itoa(MaxFaults)}
	}
	for i, f := range p.Faults {
		switch f {
		case OK, LoseRequest, LoseResponse:
		default:
			return &ParamError{"faults", "item " + strconv.Itoa(i+1) + " is " + strconv.Quote(string(f)) +
				", not one of ok, lose-request, lose-response"}
		}
	}
	if p.Attempts < 1 || p.Attempts > MaxAttempts {
		return &ParamError{"attempts", strconv.Itoa(p.Attempts) + " is out of range 1.." + strconv.Itoa(MaxAttempts)}
	}
	if p.Amount < 1 || p.Amount > MaxAmount {
		return &ParamError{"amount", strconv.FormatInt(p.Amount, 10) + " is out of range 1.." + strconv.Itoa(MaxAmount) + " (cents)"}
	}
	return nil
}

// formatAmount writes cents as units with two decimals: 2500 -> "25.00".
func formatAmount(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	frac := strconv.FormatInt(cents%100, 10)
	return sign + strconv.FormatInt(cents/100, 10) + "." + strings.Repeat("0", 2-len(frac)) + frac
}
