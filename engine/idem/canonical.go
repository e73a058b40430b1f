package idem

import "github.com/retrylab/retrylab/engine/ijson"

// SyntaxError is the error Canonical returns for a body that is not one
// I-JSON value: Offset is the byte offset in the body where the problem was
// found.
type SyntaxError = ijson.SyntaxError

// Canonical returns the canonical form of the JSON value in body, so that
// two bodies meaning the same request have the same bytes:
//
//   - no insignificant whitespace;
//   - object members sorted by the bytes of their decoded keys (UTF-8);
//   - strings in one escaping, RFC 8785's: \" and \\, \b \f \n \r \t,
//     \u00xx (lower-case hex) for the other control characters, every
//     other character as itself in UTF-8;
//   - numbers as written, once checked against the grammar: 1, 1.0 and 1e0
//     stay three requests, since the server cannot know which of them its
//     own parser would treat as equal.
//
// It refuses, with a *SyntaxError, what is not one well-formed value (with
// nothing but whitespace after it), nesting deeper than ijson.MaxDepth, and
// what would make "the same request" ambiguous (RFC 7493, I-JSON):
// duplicate object keys, invalid UTF-8 and unpaired UTF-16 surrogate
// escapes. The cost is linear in the body's size at any depth.
func Canonical(body []byte) ([]byte, error) {
	v, err := ijson.Parse(string(body))
	if err != nil {
		return nil, err
	}
	return v.Append(make([]byte, 0, len(body))), nil
}

// Fingerprint is the hex SHA-256 of the canonical form of body: the value
// the key store compares to tell a retry (same fingerprint) from another
// request reusing the key (422).
func Fingerprint(body []byte) (string, error) {
	c, err := Canonical(body)
	if err != nil {
		return "", err
	}
	return fingerprintCanonical(c), nil
}

// fingerprintCanonical is the fingerprint of a body in canonical form:
// the hex SHA-256 of its bytes as they are.
func fingerprintCanonical(c []byte) string {
	sum := sum256(c)
	const hexdigits = "0123456789abcdef"
	var h [2 * len(sum)]byte
	for i, b := range sum {
		h[2*i] = hexdigits[b>>4]
		h[2*i+1] = hexdigits[b&0x0f]
	}
	return string(h[:])
}
