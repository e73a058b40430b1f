package ijson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// toAny is v as encoding/json decodes it with UseNumber.
func toAny(v Value) any {
	switch v.Kind() {
	case Bool:
		return v.Text() == "true"
	case Number:
		return json.Number(v.Text())
	case String:
		return v.Text()
	case Array:
		out := []any{}
		for _, e := range v.Elems() {
			out = append(out, toAny(e))
		}
		return out
	case Object:
		out := map[string]any{}
		for key, m := range v.Members() {
			out[key] = toAny(m)
		}
		return out
	}
	return nil
}

// decodeStd is what encoding/json reads from text, numbers as json.Number.
func decodeStd(text []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("more after the value")
	}
	return v, nil
}

func mustParse(t *testing.T, text string) Value {
	t.Helper()
	v, err := Parse(text)
	if err != nil {
		t.Fatalf("Parse(%q): %v", text, err)
	}
	return v
}

func TestParseValues(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want any
	}{
		// \/ is a valid escape of "/" (RFC 8259, section 7).
		{`"a\/b"`, "a/b"},
		{`"\"\\\/\b\f\n\r\t"`, "\"\\/\b\f\n\r\t"},
		{`"\u0041\u00e9\u00E9\u2028"`, "Aéé\u2028"},
		{`"\ud83d\ude00 \uD83D\uDE00"`, "😀 😀"}, // a surrogate pair, either case
		{"\"h\u00e9llo \U0001F600\"", "héllo 😀"},
		{`"\u0000"`, "\x00"},
		// Numbers keep their text, however large or precise.
		{`[1e400,-1e-400,123456789012345678901234567890,0.1000000000000000055511151231257827,-0,1E+2]`,
			[]any{json.Number("1e400"), json.Number("-1e-400"), json.Number("123456789012345678901234567890"),
				json.Number("0.1000000000000000055511151231257827"), json.Number("-0"), json.Number("1E+2")}},
		{` { "b" : [ true , false , null ] , "a" : { } , "c" : [ ] } `,
			map[string]any{"a": map[string]any{}, "b": []any{true, false, nil}, "c": []any{}}},
		{`null`, nil},
	} {
		v := mustParse(t, tc.in)
		if got := toAny(v); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Parse(%s) = %#v, want %#v", tc.in, got, tc.want)
		}
		if std, err := decodeStd([]byte(tc.in)); err != nil || !reflect.DeepEqual(std, tc.want) {
			t.Errorf("encoding/json reads %s as %#v (%v), the test wants %#v", tc.in, std, err, tc.want)
		}
	}
}

func TestMembersAreSortedAndFound(t *testing.T) {
	v := mustParse(t, `{"é":1,"z":{"amount":9},"a":"x","Z":[2],"amount":2500}`)
	var keys []string
	for key := range v.Members() {
		keys = append(keys, key)
	}
	// Z (0x5a) < a (0x61) < amount < z (0x7a) < é (0xc3 0xa9): bytes, not letters.
	if got := strings.Join(keys, " "); got != "Z a amount z é" {
		t.Fatalf("members in order %s", got)
	}
	for key, want := range map[string]string{"amount": "2500", "a": "x", "é": "1"} {
		if m, ok := v.Get(key); !ok || m.Text() != want {
			t.Errorf("Get(%q) = %q %v, want %q", key, m.Text(), ok, want)
		}
	}
	for _, key := range []string{"b", "", "amounts", "Amount"} {
		if _, ok := v.Get(key); ok {
			t.Errorf("Get(%q) found a member", key)
		}
	}
	if _, ok := mustParse(t, `[{"a":1}]`).Get("a"); ok {
		t.Error("Get on an array found a member")
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		in     string
		offset int
		msg    string
	}{
		{``, 0, "end of input, expecting a value"},
		{`   `, 3, "end of input, expecting a value"},
		{`{"a":1,}`, 7, "expecting a string for an object key"},
		{`{"a":1 "b":2}`, 7, "expecting ',' or '}'"},
		{`{"a" 1}`, 5, "expecting ':'"},
		{`{"a":1,"b":2,"a":3}`, 13, `duplicate key "a"`},
		{`{"a":1,"\u0061":2}`, 7, `duplicate key "a"`},
		{`{"a\/":1,"a/":2}`, 9, `duplicate key "a/"`},
		{`{"b":1,"a":2,"b":3,"a":4}`, 13, `duplicate key "b"`}, // the earlier of two repeats
		{`{"x":{"a":1,"a":2}}`, 12, `duplicate key "a"`},
		{`{"a":1} x`, 8, "'x' after the JSON value"},
		{`{"a":1}{}`, 7, "'{' after the JSON value"},
		{`[1,2`, 4, "end of input, expecting ',' or ']'"},
		{`[ `, 2, "end of input, expecting a value"},
		{`[1,`, 3, "end of input, expecting a value"},
		{`{`, 1, "end of input, expecting an object key"},
		{`{"a":1,`, 7, "end of input, expecting an object key"},
		{`{"a":`, 5, "end of input, expecting a value"},
		{`[1"a,b",2]`, 2, "expecting ',' or ']'"},
		{`[,1]`, 1, "expecting a value"},
		{`[1,]`, 3, "expecting a value"},
		{`[1 2]`, 3, "expecting ',' or ']'"},
		{`"abc`, 4, "end of input in the string starting at offset 0"},
		{`01`, 1, "'1' after the JSON value"},
		{`-`, 1, "expecting a digit in a number"},
		{`-a`, 1, "'a', expecting a digit in a number"},
		{`1.`, 2, "digit after the decimal point"},
		{`1.e5`, 2, "digit after the decimal point"},
		{`1e`, 2, "digit in the exponent"},
		{`1e+`, 3, "digit in the exponent"},
		{`+1`, 0, "'+', expecting a value"},
		{`.5`, 0, "'.', expecting a value"},
		{`tru`, 3, "end of input, expecting the literal true"},
		{`trUe`, 2, "'U' in the literal true"},
		{`nul`, 3, "literal null"},
		{`"\x"`, 1, `invalid escape sequence \x`},
		{`"\a"`, 1, `invalid escape sequence \a`},
		{`"\'"`, 1, `invalid escape sequence \'`},
		{`"\u12"`, 5, "expecting a hex digit"},
		{`"\ud800"`, 1, "unpaired surrogate escape (high half)"},
		{`"\ud800\u0041"`, 1, "unpaired surrogate escape (high half)"},
		{`"\ud800\ud800"`, 1, "unpaired surrogate escape (high half)"},
		{`"\udc00"`, 1, "unpaired surrogate escape (low half)"},
		{"\"\xff\"", 1, "invalid UTF-8"},
		{"\"\xed\xa0\x80\"", 1, "invalid UTF-8"}, // a surrogate encoded in UTF-8
		{"\"a\x01\"", 2, "unescaped control character byte 0x1"},
		{"\"a\tb\"", 2, "unescaped control character byte 0x9"},
		{strings.Repeat("[", MaxDepth+1), MaxDepth, "nesting deeper than 10000 levels"},
	} {
		_, err := Parse(tc.in)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%.40q) = %v, want a *SyntaxError", tc.in, err)
			continue
		}
		if se.Offset != tc.offset || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("Parse(%.40q): offset %d %q, want offset %d containing %q", tc.in, se.Offset, se.Msg, tc.offset, tc.msg)
		}
		if want := "invalid JSON at offset " + strconv.Itoa(tc.offset) + ": "; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %q does not start with %q", err, want)
		}
	}
}

// Depth MaxDepth itself is fine, as it is for encoding/json: only deeper
// nesting is refused, by both.
func TestDepthLimitIsEncodingJSONs(t *testing.T) {
	for _, open := range []string{"[", `{"a":`} {
		close := map[string]string{"[": "]", `{"a":`: "}"}[open]
		at := strings.Repeat(open, MaxDepth) + "0" + strings.Repeat(close, MaxDepth)
		if _, err := Parse(at); err != nil || !json.Valid([]byte(at)) {
			t.Errorf("nesting %q %d deep: Parse %v, json.Valid %v", open, MaxDepth, err, json.Valid([]byte(at)))
		}
		over := open + at + close
		if _, err := Parse(over); err == nil || json.Valid([]byte(over)) {
			t.Errorf("nesting %q %d deep: Parse %v, json.Valid %v; want both to refuse", open, MaxDepth+1, err, json.Valid([]byte(over)))
		}
	}
}

func TestAppend(t *testing.T) {
	in := " {\"z\":{\"y\":[3,1,2],\"x\":[{\"d\":1,\"c\":2}]},\"a\":null, \"s\":\"\\u00e9\\/\\u001F\\n\", \"n\":1.50e+2}\n"
	want := `{"a":null,"n":1.50e+2,"s":"é/\u001f\n","z":{"x":[{"c":2,"d":1}],"y":[3,1,2]}}`
	if got := string(mustParse(t, in).Append(nil)); got != want {
		t.Fatalf("Append\n got %s\nwant %s", got, want)
	}
	if got := string(Value{}.Append([]byte("x="))); got != "x=null" {
		t.Fatalf("the zero Value appends %q, want null", got)
	}
}

func TestAppendString(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                      `"plain"`,
		"\"\\/":                      `"\"\\/"`,
		"\b\f\n\r\t":                 `"\b\f\n\r\t"`,
		"\a\v\x00\x1f":               `"\u0007\u000b\u0000\u001f"`, // strconv.Quote writes \a \v \x00 \x1f, which JSON has not
		"\x7f<&>\u2028é😀":            "\"\x7f<&>\u2028é😀\"",
		"a\xffb\xc3":                 "\"a\uFFFDb\uFFFD\"",
		"\xed\xa0\x80":               "\"\uFFFD\uFFFD\uFFFD\"",
		"\uFFFD":                     "\"\uFFFD\"",
		"":                           `""`,
		strings.Repeat("\\", 3):      `"\\\\\\"`,
		"end with escape\n":          `"end with escape\n"`,
		"\ncontrol at the start":     `"\ncontrol at the start"`,
		"mixed \"q\" and é and \x01": `"mixed \"q\" and é and \u0001"`,
	} {
		got := string(AppendString(nil, in))
		if got != want {
			t.Errorf("AppendString(%q) = %s, want %s", in, got, want)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("AppendString(%q) = %s, not valid JSON", in, got)
		}
	}
}

// seeds are the texts FuzzParse starts from: the known traps of a
// hand-written JSON reader.
var seeds = []string{
	`{"b":1,"a":2}`, `{"amount":2500,"currency":"usd"}`, ` [1, 2.5e-3, -0, true, false, null] `,
	`"\/"`, `{"a\/b":"\/"}`, `"\u00e9\ud83d\ude00\n\u001f\\\"\/"`, `"\uD83D\uDE00"`,
	`"\ud800"`, `"\udc00"`, `"\ud800\u0041"`, `"\ud800\udbff"`,
	"\"\x01\"", "\"\x7f\"", `"\u0007"`, `"\a"`, `"\x41"`, `"\U0001F600"`, `'a'`,
	"\"\u2028\\u2029\\\\u2028\"", "\"\xff\"", "\"\xed\xa0\x80\"", "\"\xc3\"",
	`1e400`, `-1e-400`, `123456789012345678901234567890`, `9223372036854775808`, `0.1000000000000000055511151231257827`,
	`01`, `-01`, `1.`, `.5`, `+1`, `0x10`, `1e`, `NaN`, `Infinity`, `-`,
	`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"a":{"b":1,"b":1}}`, `{"a":1,"b":2,"a":1}`,
	`{"a":{"c":[{}],"b":[]}}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `[]{}`, ` `, ``, `nul`, `truex`,
	// The depth limit is TestDepthLimitIsEncodingJSONs': texts 20 KB long
	// would slow the fuzzer down a hundredfold.
}

// surrogateEscape finds a \u escape of a UTF-16 surrogate half.
var surrogateEscape = regexp.MustCompile(`\\u[dD][89a-fA-F]`)

// duplicateKey reports whether an object in text, which encoding/json
// accepts, has two members with the same decoded key.
func duplicateKey(text []byte) bool {
	d := json.NewDecoder(bytes.NewReader(text))
	type frame struct {
		keys   map[string]bool
		object bool
		key    bool // the next string token is a key
	}
	var stack []frame
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if k, ok := tok.(string); ok && top != nil && top.object && top.key {
			if top.keys[k] {
				return true
			}
			top.keys[k] = true
			top.key = false
			continue
		}
		if top != nil && top.object {
			top.key = true // after this value, a key
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{keys: map[string]bool{}, object: true, key: true})
		case json.Delim('['):
			stack = append(stack, frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].key = true
			}
		}
	}
}

// FuzzParse holds Parse to encoding/json: what Parse accepts encoding/json
// accepts, with the same value; what encoding/json accepts Parse accepts
// too, except for the three I-JSON refusals, each checked to hold; and
// what Append writes is valid JSON with the same value, written again the
// same way.
func FuzzParse(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		v, err := Parse(string(in))
		std, stdErr := decodeStd(in)
		if (stdErr == nil) != json.Valid(in) {
			t.Fatalf("encoding/json disagrees with itself on %q: Decode %v, Valid %v", in, stdErr, json.Valid(in))
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(in) {
				t.Fatalf("Parse(%q): error %v is not a *SyntaxError with an offset within the input", in, err)
			}
			if stdErr != nil {
				return
			}
			switch {
			case strings.HasPrefix(se.Msg, "duplicate key"):
				if !duplicateKey(in) {
					t.Fatalf("Parse(%q): %v, but no object has a repeated key", in, err)
				}
			case se.Msg == "invalid UTF-8 in a string":
				if utf8.Valid(in) {
					t.Fatalf("Parse(%q): %v, but the text is valid UTF-8", in, err)
				}
			case strings.HasPrefix(se.Msg, "unpaired surrogate escape"):
				if !surrogateEscape.Match(in) {
					t.Fatalf("Parse(%q): %v, but no \\u escape is of a surrogate", in, err)
				}
			default:
				t.Fatalf("Parse(%q) refused what encoding/json accepts: %v", in, err)
			}
			return
		}
		if stdErr != nil {
			t.Fatalf("Parse accepted %q, which encoding/json refuses: %v", in, stdErr)
		}
		if duplicateKey(in) {
			t.Fatalf("Parse accepted %q, whose object repeats a key", in)
		}
		if got := toAny(v); !reflect.DeepEqual(got, std) {
			t.Fatalf("Parse(%q) = %#v, encoding/json %#v", in, got, std)
		}
		out := v.Append(nil)
		back, err := decodeStd(out)
		if err != nil || !reflect.DeepEqual(back, std) {
			t.Fatalf("Parse(%q).Append = %q, which encoding/json reads as %#v (%v), want %#v", in, out, back, err, std)
		}
		again := mustParse(t, string(out)).Append(nil)
		if !bytes.Equal(again, out) {
			t.Fatalf("Append is not canonical: %q gives %q, and that gives %q", in, out, again)
		}
	})
}

// FuzzAppendString holds AppendString to encoding/json: what it writes is
// valid JSON, reads back (by both readers) as the string encoding/json
// writes for the same Go string, and is the string itself when that is
// UTF-8.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "\a\v\x00\x1f\x7f", "\"\\/", "\xff", "\xed\xa0\x80", "\u2028<&>", "é😀\uFFFD"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString(nil, s)
		var got string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("AppendString(%q) = %s: encoding/json: %v", s, out, err)
		}
		std, _ := json.Marshal(s)
		var want string
		if err := json.Unmarshal(std, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("AppendString(%q) = %s reads as %q; encoding/json writes %s, read as %q", s, out, got, std, want)
		}
		if utf8.ValidString(s) && got != s {
			t.Fatalf("AppendString(%q) = %s reads as %q", s, out, got)
		}
		v, err := Parse(string(out))
		if err != nil || v.Kind() != String || v.Text() != got {
			t.Fatalf("AppendString(%q) = %s: Parse gives %q %v", s, out, v.Text(), err)
		}
	})
}

// Numbers are kept as written; converting them is the caller's, with
// strconv, and where encoding/json can convert one (into a float64) strconv
// gives the same.
func TestNumbersConvertAsEncodingJSONs(t *testing.T) {
	for _, text := range []string{"0", "-0", "2500", "1.5", "1e3", "9007199254740993", "1e308", "4.9e-324", "1e400"} {
		v := mustParse(t, text)
		var std float64
		stdErr := json.Unmarshal([]byte(text), &std)
		f, err := strconv.ParseFloat(v.Text(), 64)
		if (stdErr == nil) != (err == nil) || stdErr == nil && (f != std || math.Signbit(f) != math.Signbit(std)) {
			t.Errorf("%s: strconv %v (%v), encoding/json %v (%v)", text, f, err, std, stdErr)
		}
	}
}

// What Parse allocates stays within a small multiple of the text's length
// whatever its shape, a wide array of small numbers included, which an
// array growing its elements as it read them would take hundreds of
// bytes per byte for.
func TestParseAllocatesLinearly(t *testing.T) {
	var members []string
	for i := range 20000 {
		members = append(members, `"`+strconv.Itoa(i%10)+strconv.Itoa(20000-i)+`":1`)
	}
	for _, tc := range []struct{ name, text string }{
		{"wide array", "[" + strings.Repeat("1,", 50000) + "1]"},
		{"wide object, out of order", "{" + strings.Join(members, ",") + "}"},
		{"array of empty arrays", "[" + strings.Repeat("[],", 30000) + "[]]"},
		{"deep arrays", strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)},
		{"deep objects, out of order", strings.Repeat(`{"b":`, MaxDepth) + "0" + strings.Repeat(`,"a":1}`, MaxDepth)},
		{"escaped strings", `["` + strings.Repeat(`\u00e9\n`, 10000) + `","\/"]`},
	} {
		if _, err := Parse(tc.text); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		const runs = 5
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range runs {
			Parse(tc.text)
		}
		runtime.ReadMemStats(&after)
		perByte := float64(after.TotalAlloc-before.TotalAlloc) / runs / float64(len(tc.text))
		t.Logf("%s (%d bytes): %.1f bytes allocated per byte", tc.name, len(tc.text), perByte)
		if perByte > 64 {
			t.Errorf("%s (%d bytes): %.1f bytes allocated per byte of text, want at most 64", tc.name, len(tc.text), perByte)
		}
	}
}
