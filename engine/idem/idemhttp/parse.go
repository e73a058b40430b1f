package idemhttp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/retrylab/retrylab/engine/idem"
)

// MaxBody is the largest request body read, in bytes: 64 KiB. A payment
// is about 40 bytes of JSON; the limit leaves room for any sane client and
// keeps a hostile one from making the server buffer and hash megabytes per
// request. What the body may hold is ledger.ParsePayment's.
const MaxBody = 64 << 10

// MaxHeaderBytes is the most a request's line and header fields may take,
// in bytes, the final blank line included: 8 KiB. The API reads five
// short fields (Authorization, Idempotency-Key of at most 257 bytes with
// its quotes, Content-Type, Content-Encoding, Retrylab-Fault) and a
// browser adds about 1 KiB of its own (User-Agent, Accept-*, Origin,
// Referer, Sec-Fetch-*): 8 KiB leaves room for a long Referer and a
// proxy's additions, and keeps a header section, parsed into Go's map of
// fields, under about 150 KiB of memory, however it is made up. A server
// serving the handler refuses a larger head with 431 (retrylab api
// does).
const MaxHeaderBytes = 8 << 10

// Errors of ParseKey, besides idem.CheckKey's: each an *idem.KeyError,
// whose Reason the API answers.
var (
	ErrKeyRepeated = &idem.KeyError{Reason: "more than one Idempotency-Key header"}
	ErrKeyQuoting  = &idem.KeyError{Reason: `a quoted Idempotency-Key must be one structured-field string: "...", with only \" and \\ escaped`}
	ErrKeyEmpty    = &idem.KeyError{Reason: "the Idempotency-Key header is empty"}
	// ErrKeyComma is a bare value with a comma in it: what an intermediary
	// makes of two Idempotency-Key fields when it joins them into one, as
	// HTTP lets it (RFC 9110, section 5.3). The draft's field is one
	// structured-field string, which a comma can only be inside of.
	ErrKeyComma = &idem.KeyError{Reason: `the Idempotency-Key has a comma in it, as two Idempotency-Key fields joined into one have: send one key, quoted if it has a comma ("a,b")`}
)

// ParseKey reads the Idempotency-Key header from its field values (as
// http.Header.Values returns them). The key may be sent bare, as Stripe's
// clients do (Idempotency-Key: 8e03978e-40d5), or as the structured-field
// string of the IETF draft (Idempotency-Key: "8e03978e-40d5"); both name
// the same key. A value that begins with a double quote is always read as
// such a string, so a bare key cannot begin with one: "abc without its
// closing quote is refused (ErrKeyQuoting), not taken as a key of four
// characters. The key must then pass idem.CheckKey: 1 to 255 printable
// ASCII characters. A bare key has no comma (ErrKeyComma): two keys
// joined by an intermediary are refused as two fields are. A missing
// header is idem.ErrMissingKey; a header sent empty, or as the empty
// string "", is ErrKeyEmpty, an invalid key rather than a missing one.
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
	switch {
	case strings.HasPrefix(v, `"`):
		var ok bool
		if key, ok = unquote(v); !ok {
			return "", ErrKeyQuoting
		}
		if key == "" {
			return "", ErrKeyEmpty
		}
	case strings.Contains(v, ","):
		return "", ErrKeyComma
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

// ErrNoToken is the root of AccountOf's errors, for an Authorization
// header that names no account: errors.Is(err, ErrNoToken) is true of
// each.
var ErrNoToken = errors.New("idemhttp: no bearer token")

// An AuthError says why an Authorization header names no account. Reason
// is that sentence for the client, as an API answers it.
type AuthError struct{ Reason string }

func (e *AuthError) Error() string        { return "idemhttp: " + e.Reason }
func (e *AuthError) Is(target error) bool { return target == ErrNoToken }

// ErrAuthRepeated is the error for a request with more than one
// Authorization header, which names no account: a proxy that read
// another of them than this server does would bill another account.
var ErrAuthRepeated = &AuthError{"more than one Authorization header: send one"}

// AccountOf names the sandbox account of an Authorization header value:
// any bearer token names an account, "acct_" and the first 16 hex digits
// of the SHA-256 of the token, so that the token itself is never stored
// or shown. The same token is the same account, everywhere. A token is
// one word: "Bearer a b" names no account.
func AccountOf(authorization string) (string, error) {
	v := strings.Trim(authorization, " \t")
	if v == "" {
		return "", &AuthError{"no Authorization header: send Authorization: Bearer TOKEN, any token of your choosing (it names your sandbox account)"}
	}
	scheme, token, _ := strings.Cut(v, " ")
	token = strings.Trim(token, " \t")
	switch {
	case !strings.EqualFold(scheme, "Bearer"):
		return "", &AuthError{"the Authorization header uses the " + idem.Excerpt(scheme) + " scheme; this API takes a bearer token: Authorization: Bearer TOKEN"}
	case token == "":
		return "", &AuthError{"the bearer token is empty: send Authorization: Bearer TOKEN, any token of your choosing"}
	case strings.ContainsAny(token, " \t"):
		return "", &AuthError{"the bearer token is more than one word: a token has no spaces"}
	}
	sum := sha256.Sum256([]byte(token))
	return "acct_" + hex.EncodeToString(sum[:8]), nil
}

// accountOf is AccountOf of the request's one Authorization header.
func accountOf(h http.Header) (string, error) {
	values := h.Values("Authorization")
	if len(values) > 1 {
		return "", ErrAuthRepeated
	}
	return AccountOf(strings.Join(values, ""))
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
