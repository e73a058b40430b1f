package idemhttp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"

	"github.com/retrylab/retrylab/engine/idem"
)

// MaxBody is the largest request body read, in bytes: 64 KiB. A payment
// is about 40 bytes of JSON; the limit leaves room for any sane client and
// keeps a hostile one from making the server buffer and hash megabytes per
// request. What the body may hold is ledger.ParsePayment's.
const MaxBody = 64 << 10

// Errors of ParseKey, besides idem.CheckKey's: each an *idem.KeyError,
// whose Reason the API answers.
var (
	ErrKeyRepeated = &idem.KeyError{Reason: "more than one Idempotency-Key header"}
	ErrKeyQuoting  = &idem.KeyError{Reason: `a quoted Idempotency-Key must be one structured-field string: "...", with only \" and \\ escaped`}
	ErrKeyEmpty    = &idem.KeyError{Reason: "the Idempotency-Key header is empty"}
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
