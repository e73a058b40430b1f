package ledger

import (
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/ijson"
)

// Limits of a payment request.
const (
	// MaxAmount is the largest amount a payment may ask for, in the
	// currency's smallest unit: 99,999,999, eight digits (999,999.99 in a
	// two-decimal currency), the most Stripe takes for one charge (its API
	// reference, https://docs.stripe.com/api/charges/object: an amount has
	// up to eight digits). It is the one limit of both payment servers,
	// the sandbox API's and the simulation's (engine/payment), whose
	// client may pay any amount up to it: a payment the simulator shows is
	// one the API would take. The API page (content/api.md) and the
	// problem type state it.
	MaxAmount = 99_999_999
	// MaxDepth is the deepest nesting of arrays and objects a payment body
	// may have: 32. A payment is one flat object (depth 1); the bound is
	// checked by one pass over the bytes before anything else reads the
	// body, so a body nested thousands deep costs no more than a flat one.
	MaxDepth = 32
)

// PaymentRequest is what a client asks to pay: the body of POST
// /v1/payments.
type PaymentRequest struct {
	Amount   int64  // 1 to MaxAmount, in the currency's smallest unit
	Currency string // three letters, lower-cased
}

// ParsePayment reads a payment request, the step both payment servers
// take before any work, with no transport of its own: one JSON object
// with exactly the members "amount", a whole number from 1 to MaxAmount
// written without fraction or exponent, and "currency", an ISO 4217 code
// in either case. The JSON must also be I-JSON as ijson.Parse reads it (no
// duplicate members, valid UTF-8), and nest no deeper than MaxDepth, which is
// checked first. Each error says what is wrong and where, echoing at most
// a short prefix of what was sent.
func ParsePayment(body []byte) (PaymentRequest, error) {
	if at := tooDeep(body, MaxDepth); at >= 0 {
		return PaymentRequest{}, errors.New("the body nests arrays or objects deeper than " + strconv.Itoa(MaxDepth) +
			" levels (at byte " + strconv.Itoa(at) + `); a payment is one flat object like {"amount":2500,"currency":"usd"}`)
	}
	v, err := ijson.Parse(string(body))
	if err != nil {
		if se, ok := errors.AsType[*ijson.SyntaxError](err); ok {
			return PaymentRequest{}, errors.New("the body is not valid JSON: at byte " + strconv.Itoa(se.Offset) + ": " + cut(se.Msg))
		}
		return PaymentRequest{}, err
	}
	if v.Kind() != ijson.Object {
		return PaymentRequest{}, errors.New(`the body must be a JSON object like {"amount":2500,"currency":"usd"}`)
	}
	var amount, currency ijson.Value
	var hasAmount, hasCurrency bool
	for name, value := range v.Members() {
		switch name {
		case "amount":
			amount, hasAmount = value, true
		case "currency":
			currency, hasCurrency = value, true
		default:
			return PaymentRequest{}, errors.New("unknown member " + idem.Excerpt(name) + ` (a payment has "amount" and "currency")`)
		}
	}
	var req PaymentRequest
	var ok bool
	if !hasAmount {
		return PaymentRequest{}, errors.New(`"amount" is missing: a whole number of cents, like 2500`)
	}
	if amount.Kind() == ijson.Number {
		req.Amount, ok = wholeNumber(amount.Text())
	}
	if !ok || req.Amount > MaxAmount {
		return PaymentRequest{}, errors.New(`"amount" is ` + quote(amount) + ": want a whole number from 1 to " + strconv.Itoa(MaxAmount) + ", in cents, like 2500")
	}
	if !hasCurrency {
		return PaymentRequest{}, errors.New(`"currency" is missing: three letters, like "usd"`)
	}
	if currency.Kind() != ijson.String {
		return PaymentRequest{}, errors.New(`"currency" is ` + quote(currency) + `: want an ISO 4217 code, like "usd"`)
	}
	if req.Currency, ok = Currency(currency.Text()); !ok {
		return PaymentRequest{}, errors.New(`"currency" is ` + quote(currency) + `: not an ISO 4217 currency code (like "usd", "eur" or "jpy")`)
	}
	return req, nil
}

// cut is a parser's message for an error answer: whole if short, else
// its first 80 bytes (the parser's words and the start of what it
// quotes, a repeated member's name say) and "...".
func cut(msg string) string {
	const max = 80
	if len(msg) <= max {
		return msg
	}
	i := max
	for i > 0 && !utf8.RuneStart(msg[i]) {
		i--
	}
	return msg[:i] + "..."
}

// quote is a member's value for an error message: its JSON, cut short.
func quote(v ijson.Value) string {
	return idem.Excerpt(string(v.Append(nil)))
}

// Canonical is the request's canonical JSON: what the key store
// fingerprints, so that two bodies asking for the same payment ("USD" and
// "usd", members in either order) are one request.
func (r PaymentRequest) Canonical() []byte {
	return []byte(`{"amount":` + strconv.FormatInt(r.Amount, 10) + `,"currency":"` + r.Currency + `"}`)
}

// tooDeep returns the offset of the first bracket that opens level max+1
// of nesting in body, or -1: one pass, strings skipped, no other
// checking (the parser that follows does that).
func tooDeep(body []byte, max int) int {
	depth := 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '"':
			for i++; i < len(body) && body[i] != '"'; i++ {
				if body[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			if depth++; depth > max {
				return i
			}
		case '}', ']':
			depth--
		}
	}
	return -1
}

// wholeNumber reads a JSON number written as [1-9][0-9]*, up to 18 digits.
func wholeNumber(raw string) (int64, bool) {
	if len(raw) == 0 || len(raw) > 18 || raw[0] < '1' || raw[0] > '9' {
		return 0, false
	}
	var n int64
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}
