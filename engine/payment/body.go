package payment

import (
	"bytes"

	"github.com/retrylab/retrylab/engine/idem"
)

// chargeID reads the top-level string "id" of a response body, "" if none.
func chargeID(body []byte) string {
	canon, err := idem.Canonical(body)
	if err != nil {
		return ""
	}
	raw, ok := member(canon, "id")
	if !ok || len(raw) < 2 || raw[0] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
		return "" // charge ids are plain: a string that needs escapes is not one
	}
	return string(raw[1 : len(raw)-1])
}

// member returns the raw text of the value of the top-level member name
// (plain ASCII, needing no escapes) of canon, the canonical form of a JSON
// object: no whitespace, and a quote inside a string always escaped.
func member(canon []byte, name string) ([]byte, bool) {
	if len(canon) < 2 || canon[0] != '{' {
		return nil, false
	}
	i := 1
	for i < len(canon) && canon[i] == '"' {
		k := skipString(canon, i)
		key := canon[i+1 : k-1]
		start := k + 1 // after the ':'
		end := skipValue(canon, start)
		if string(key) == name {
			return canon[start:end], true
		}
		i = end + 1 // after the ',' (or past the closing '}')
	}
	return nil, false
}

// skipString returns the index just past the string starting at canon[i].
func skipString(canon []byte, i int) int {
	for i++; i < len(canon); i++ {
		switch canon[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// skipValue returns the index just past the value starting at canon[i]: the
// first ',' or closing bracket outside strings and nested values.
func skipValue(canon []byte, i int) int {
	depth := 0
	for i < len(canon) {
		switch canon[i] {
		case '"':
			i = skipString(canon, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}

// errorBody is the JSON of a refusal.
func errorBody(detail string) []byte {
	b := []byte(`{"error":"invalid-request","detail":"`)
	const hexdigits = "0123456789abcdef"
	for i := 0; i < len(detail); i++ {
		switch c := detail[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexdigits[c>>4], hexdigits[c&0x0f])
		default:
			b = append(b, c)
		}
	}
	return append(b, `"}`...)
}
