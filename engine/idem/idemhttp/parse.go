package idemhttp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/retrylab/retrylab/engine/idem"
)

// Limits on what a request may carry.
const (
	// MaxBody is the largest request body read, in bytes: 64 KiB. A
	// payment is about 40 bytes of JSON; the limit leaves room for any
	// sane client and keeps a hostile one from making the server buffer
	// and hash megabytes per request.
	MaxBody = 64 << 10
	// MaxAmount is the largest amount, in the currency's smallest unit:
	// 99,999,999 (eight digits, 999,999.99 in a two-decimal currency, the
	// ceiling Stripe documents for a charge).
	MaxAmount = 99_999_999
	// MaxDepth is the deepest nesting of arrays and objects a payment body
	// may have: 32. A payment is one flat object (depth 1); the bound is
	// checked by one pass over the bytes before anything else reads the
	// body, so a body nested thousands deep costs no more than a flat one.
	MaxDepth = 32
)

// Errors of ParseKey, besides idem.CheckKey's.
var (
	ErrKeyRepeated = errors.New("idemhttp: more than one Idempotency-Key header")
	ErrKeyQuoting  = errors.New(`idemhttp: a quoted Idempotency-Key must be one structured-field string: "...", with only \" and \\ escaped`)
	ErrKeyEmpty    = errors.New("idemhttp: the Idempotency-Key header is empty")
)

// ParseKey reads the Idempotency-Key header from its field values (as
// http.Header.Values returns them). The key may be sent bare, as Stripe's
// clients do (Idempotency-Key: 8e03978e-40d5), or as the structured-field
// string of the IETF draft (Idempotency-Key: "8e03978e-40d5"); both name
// the same key. A value that begins with a double quote is always read as
// such a string, so a bare key cannot begin with one: "abc without its
// closing quote is refused (ErrKeyQuoting), not taken as a key of four
// characters. The key must then pass idem.CheckKey: 1 to 255 printable
// ASCII characters. A missing header is idem.ErrMissingKey; a header sent
// empty is ErrKeyEmpty, an invalid key rather than a missing one.
func ParseKey(values []string) (string, error) {
	switch len(values) {
	case 0:
		return "", idem.ErrMissingKey
	case 1:
	default:
		return "", ErrKeyRepeated
	}
	v := strings.Trim(values[0], " \t")
	if v == "" {
		return "", ErrKeyEmpty
	}
	key := v
	if strings.HasPrefix(v, `"`) {
		var ok bool
		if key, ok = unquote(v); !ok {
			return "", ErrKeyQuoting
		}
	}
	if err := idem.CheckKey(key); err != nil {
		return "", err
	}
	return key, nil
}

// unquote decodes an sf-string (RFC 9651, 3.3.3): printable ASCII between
// double quotes, where only \" and \\ are escapes.
func unquote(v string) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	var b strings.Builder
	for i := 1; i < len(v)-1; i++ {
		c := v[i]
		switch {
		case c == '\\':
			i++
			if i == len(v)-1 || (v[i] != '"' && v[i] != '\\') {
				return "", false
			}
			b.WriteByte(v[i])
		case c == '"':
			return "", false
		case c < 0x20 || c > 0x7e:
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// PaymentRequest is the body of POST /v1/payments.
type PaymentRequest struct {
	Amount   int64  // 1 to MaxAmount, in the currency's smallest unit
	Currency string // three letters, lower-cased
}

// ParsePayment reads a payment request: one JSON object with exactly the
// members "amount", a whole number from 1 to MaxAmount written without
// fraction or exponent, and "currency", an ISO 4217 code in either case.
// The JSON must also pass idem.Canonical (no duplicate members, valid
// UTF-8), and nest no deeper than MaxDepth, which is checked first.
func ParsePayment(body []byte) (PaymentRequest, error) {
	if at := tooDeep(body, MaxDepth); at >= 0 {
		return PaymentRequest{}, errors.New("the body nests arrays or objects deeper than " + strconv.Itoa(MaxDepth) +
			" levels (at byte " + strconv.Itoa(at) + `); a payment is one flat object like {"amount":2500,"currency":"usd"}`)
	}
	canon, err := idem.Canonical(body)
	if err != nil {
		var se *idem.SyntaxError
		if errors.As(err, &se) {
			return PaymentRequest{}, errors.New("the body is not valid JSON: at byte " + strconv.Itoa(se.Offset) + ": " + se.Msg)
		}
		return PaymentRequest{}, err
	}
	if canon[0] != '{' {
		return PaymentRequest{}, errors.New(`the body must be a JSON object like {"amount":2500,"currency":"usd"}`)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(canon, &members); err != nil {
		return PaymentRequest{}, errors.New("the body is not a JSON object: " + err.Error())
	}
	for name := range members {
		if name != "amount" && name != "currency" {
			return PaymentRequest{}, errors.New("unknown member " + strconv.Quote(name) + ` (a payment has "amount" and "currency")`)
		}
	}
	var req PaymentRequest
	amount, ok := members["amount"]
	if !ok {
		return PaymentRequest{}, errors.New(`"amount" is missing: a whole number of cents, like 2500`)
	}
	if req.Amount, ok = wholeNumber(amount); !ok || req.Amount > MaxAmount {
		return PaymentRequest{}, errors.New(`"amount" is ` + short(string(amount)) + ": want a whole number from 1 to " + strconv.Itoa(MaxAmount) + ", in cents, like 2500")
	}
	raw, ok := members["currency"]
	if !ok {
		return PaymentRequest{}, errors.New(`"currency" is missing: three letters, like "usd"`)
	}
	var cur string
	if json.Unmarshal(raw, &cur) != nil {
		return PaymentRequest{}, errors.New(`"currency" is ` + short(string(raw)) + `: want an ISO 4217 code, like "usd"`)
	}
	if req.Currency, ok = Currency(cur); !ok {
		return PaymentRequest{}, errors.New(`"currency" is ` + short(string(raw)) + `: not an ISO 4217 currency code (like "usd", "eur" or "jpy")`)
	}
	return req, nil
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

// short quotes s for an error message, cut to its first 32 bytes (and
// "..." after them) so that an answer never echoes much of what was sent.
func short(s string) string {
	const max = 32
	if len(s) <= max {
		return strconv.Quote(s)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "..."
}

// wholeNumber reads a JSON number written as [1-9][0-9]*, up to 18 digits.
func wholeNumber(raw []byte) (int64, bool) {
	if len(raw) == 0 || len(raw) > 18 || raw[0] < '1' || raw[0] > '9' {
		return 0, false
	}
	var n int64
	for _, c := range raw {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// ErrNoToken is returned by AccountOf for a request without a bearer token.
var ErrNoToken = errors.New("idemhttp: no bearer token: send Authorization: Bearer <any token of your choosing>")

// AccountOf names the sandbox account of an Authorization header value:
// any bearer token names an account, "acct_" and the first 16 hex digits
// of the SHA-256 of the token, so that the token itself is never stored
// or shown. The same token is the same account, everywhere.
func AccountOf(authorization string) (string, error) {
	scheme, token, ok := strings.Cut(strings.Trim(authorization, " \t"), " ")
	token = strings.Trim(token, " \t")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" || strings.ContainsAny(token, " \t") {
		return "", ErrNoToken
	}
	sum := sha256.Sum256([]byte(token))
	return "acct_" + hex.EncodeToString(sum[:8]), nil
}

// jsonBody encodes v the way every answer is written: indented by two
// spaces, ending with a newline, so that it reads well in a terminal.
func jsonBody(v any) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetIndent("", "  ")
	if err := e.Encode(v); err != nil {
		panic("idemhttp: encoding " + err.Error()) // only fixed types are encoded
	}
	return b.Bytes()
}
