package idem

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/engine/ijson"
)

func TestCanonical(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"keys sorted", `{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{"whitespace dropped", " {\n\t\"a\" : [ 1 , 2 ] ,\r\n \"b\" : { } , \"c\" : [ ] }\n", `{"a":[1,2],"b":{},"c":[]}`},
		{"nested objects sorted, arrays kept in order", `{"z":{"y":[3,1,2],"x":[{"d":1,"c":2}]},"a":null}`,
			`{"a":null,"z":{"x":[{"c":2,"d":1}],"y":[3,1,2]}}`},
		// Z (0x5a) < a (0x61) < z (0x7a) < é (0xc3 0xa9): bytes, not letters.
		{"byte order of keys", `{"é":1,"z":2,"a":3,"Z":4}`, `{"Z":4,"a":3,"z":2,"é":1}`},
		{"keys compared decoded", `{"\u0062":1,"a":2}`, `{"a":2,"b":1}`},
		{"prefix key first", `{"ab":1,"a":2}`, `{"a":2,"ab":1}`},
		{"short escapes", `"\"\\\/\b\f\n\r\t"`, `"\"\\/\b\f\n\r\t"`},
		{"other controls as \\u00xx", `"\u0001\u001F\u000b"`, `"\u0001\u001f\u000b"`},
		{"everything else literal", `"\u0041\u007f\u00E9\u2028\ud83d\ude00<&>"`, "\"A\x7fé\u2028😀<&>\""},
		{"literal UTF-8 kept", `"héllo 😀"`, `"héllo 😀"`},
		{"numbers keep their text", `[0,-0,1.50,1e+2,0.0E-1,-12.5e7]`, `[0,-0,1.50,1e+2,0.0E-1,-12.5e7]`},
		{"literals", `[ true , false , null ]`, `[true,false,null]`},
		{"top-level scalar", "  42 \n", `42`},
		{"top-level string", `"x"`, `"x"`},
		{"empty object", `{ }`, `{}`},
		{"member values reordered with their keys", `{"b":{"k":[1,{"y":2,"x":1}]},"a":"s"}`, `{"a":"s","b":{"k":[1,{"x":1,"y":2}]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical([]byte(tc.in))
			if err != nil {
				t.Fatalf("Canonical(%q): %v", tc.in, err)
			}
			if string(got) != tc.want {
				t.Fatalf("Canonical(%q)\n got %s\nwant %s", tc.in, got, tc.want)
			}
		})
	}
}

// Depth ijson.MaxDepth itself is fine: only deeper nesting is refused.
func TestCanonicalDepthLimitIsInclusive(t *testing.T) {
	in := strings.Repeat("[", ijson.MaxDepth) + strings.Repeat("]", ijson.MaxDepth)
	out, err := Canonical([]byte(in))
	if err != nil || string(out) != in {
		t.Fatalf("nesting %d: err %v", ijson.MaxDepth, err)
	}
}

func TestFingerprint(t *testing.T) {
	a, err := Fingerprint([]byte(`{"amount":2500,"currency":"usd","meta":{"b":1,"a":[1,2]}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Fingerprint([]byte("{ \"meta\": {\"a\": [1, 2], \"b\": 1},\n  \"currency\": \"\\u0075sd\", \"amount\": 2500 }"))
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatalf("reordered body: fingerprints differ:\n%s\n%s", a, b)
	}
	c, _ := Fingerprint([]byte(`{"amount":9900,"currency":"usd","meta":{"b":1,"a":[1,2]}}`))
	if c == a {
		t.Fatal("amount 9900 has the fingerprint of amount 2500")
	}
	// The fingerprint is the hex SHA-256 of the canonical bytes.
	want := sha256.Sum256([]byte(`{"amount":2500,"currency":"usd","meta":{"a":[1,2],"b":1}}`))
	if a != hex.EncodeToString(want[:]) {
		t.Fatalf("fingerprint %s, want %x", a, want)
	}
	if _, err := Fingerprint([]byte(`{"a":`)); err == nil {
		t.Fatal("Fingerprint of invalid JSON: no error")
	}
}

func TestSum256(t *testing.T) {
	// FIPS 180-4 example "abc".
	if got := sum256([]byte("abc")); hex.EncodeToString(got[:]) != "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" {
		t.Fatalf(`sum256("abc") = %x`, got)
	}
	// Every length up to three blocks crosses each padding case: a tail of
	// 0..55 bytes (one padding block), 56..63 (two), exact blocks.
	data := make([]byte, 200)
	for i := range data {
		data[i] = byte(i*131 + 7)
	}
	for n := 0; n <= len(data); n++ {
		if got, want := sum256(data[:n]), sha256.Sum256(data[:n]); got != want {
			t.Fatalf("length %d: %x, want %x", n, got, want)
		}
	}
}

// reencode decodes a JSON text into Go values (numbers as json.Number, so
// their text is kept) and encodes it again with encoding/json, which sorts
// map keys by bytes and escapes strings much as Canonical does; the
// differences are undone: no HTML escaping, and U+2028 and U+2029 (which
// encoding/json escapes for JavaScript) back to themselves.
func reencode(t *testing.T, text []byte) ([]byte, any) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(text))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("encoding/json cannot decode %q: %v", text, err)
	}
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		t.Fatalf("encoding/json cannot encode %#v: %v", v, err)
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	// `\\` first, so an escaped backslash followed by "u2028" is left alone.
	undo := strings.NewReplacer(`\\`, `\\`, `\u2028`, "\u2028", `\u2029`, "\u2029")
	return []byte(undo.Replace(string(out))), v
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":2}`, `{"amount":2500,"currency":"usd"}`, ` [1, 2.5e-3, -0, true, false, null] `,
		`"\u00e9\ud83d\ude00\n\u001f\\\"\/"`, `{"a":{"c":[{}],"b":[]}}`, `{"a":1,"a":2}`, `"\ud800"`,
		"\"\u2028\\u2029\\\\u2028\"", `{"é":1,"z":2}`, `01`, `[1,]`, "\"\xff\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Canonical(in)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(in) {
				t.Fatalf("Canonical(%q): error %v is not a *SyntaxError with an offset within the input", in, err)
			}
			// What encoding/json accepts, Canonical refuses only for the
			// I-JSON rules and the depth limit.
			if json.Valid(in) {
				ok := false
				for _, why := range []string{"duplicate key", "invalid UTF-8", "surrogate", "nesting deeper"} {
					ok = ok || strings.Contains(se.Msg, why)
				}
				if !ok {
					t.Fatalf("Canonical(%q) refused valid JSON: %v", in, err)
				}
			}
			return
		}
		if !json.Valid(in) {
			t.Fatalf("Canonical accepted invalid JSON %q", in)
		}
		if !json.Valid(out) {
			t.Fatalf("Canonical(%q) = %q, not valid JSON", in, out)
		}
		again, err := Canonical(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: Canonical(%q) = %q, and again = %q (%v)", in, out, again, err)
		}
		want, vin := reencode(t, in)
		if !bytes.Equal(out, want) {
			t.Fatalf("Canonical(%q)\n got %q\nwant %q (encoding/json)", in, out, want)
		}
		if _, vout := reencode(t, out); !reflect.DeepEqual(vin, vout) {
			t.Fatalf("Canonical(%q) = %q decodes to %#v, the input to %#v", in, out, vout, vin)
		}
		if sum256(out) != sha256.Sum256(out) {
			t.Fatalf("sum256(%q) differs from crypto/sha256", out)
		}
	})
}

// nested is an object nested depth deep whose members are out of order
// at every level, the worst case for sorting: {"b":{"b":...,"a":1},"a":1}.
func nested(depth int) []byte {
	return []byte(strings.Repeat(`{"b":`, depth) + "0" + strings.Repeat(`,"a":1}`, depth))
}

// Canonical's cost is linear in the body at any depth: what it allocates
// for a body nested 10,000 deep, reordered at every level, stays within a
// small multiple of the body's size, which a level that copied what it had
// written would take thousands of times over.
func TestCanonicalIsLinearInDepth(t *testing.T) {
	for _, depth := range []int{10, 1000, 10_000} {
		body := nested(depth)
		got, err := Canonical(body)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Repeat(`{"a":1,"b":`, depth) + "0" + strings.Repeat("}", depth)
		if string(got) != want {
			t.Fatalf("depth %d: %.80s..., want %.80s...", depth, got, want)
		}
		if depth < 1000 {
			continue // a small body's few fixed allocations say nothing of growth
		}
		const runs = 10
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range runs {
			Canonical(body)
		}
		runtime.ReadMemStats(&after)
		if perByte := float64(after.TotalAlloc-before.TotalAlloc) / runs / float64(len(body)); perByte > 64 {
			t.Errorf("depth %d (%d bytes): %.1f bytes allocated per byte of body, want at most 64", depth, len(body), perByte)
		}
	}
}

// BenchmarkCanonicalDepth reports the time per byte at three depths: flat
// across them when the canonicalisation is linear.
func BenchmarkCanonicalDepth(b *testing.B) {
	for _, depth := range []int{10, 1000, 10_000} {
		body := nested(depth)
		b.Run(strconv.Itoa(depth), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := Canonical(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
