package ledger_test

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/ledger"
)

func TestParsePayment(t *testing.T) {
	req, err := ledger.ParsePayment([]byte(" { \"currency\" : \"U\\u0053D\", \"amount\" : 99999999 } "))
	if err != nil || req.Amount != 99999999 || req.Currency != "usd" {
		t.Fatalf("ParsePayment = %+v, %v", req, err)
	}
	for _, bad := range []string{``, `null`, `{}`, `{"amount":-1,"currency":"usd"}`, `{"amount":1e3,"currency":"usd"}`,
		`{"amount":01,"currency":"usd"}`, `{"amount":1,"currency":"usdd"}`, `{"amount":1,"currency":null}`, `{"Amount":1,"currency":"usd"}`} {
		if _, err := ledger.ParsePayment([]byte(bad)); err == nil {
			t.Errorf("ParsePayment(%s): no error", bad)
		}
	}
}

// Each refusal names the member and echoes its value whole, however it
// nests and whatever its strings hold.
func TestParsePaymentSaysWhatIsWrong(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"amount":{"x":[1,"],}"]},"currency":"usd"}`, `"amount" is "{\"x\":[1,\"],}\"]}": want a whole number`},
		{`{"amount":"2500","currency":"usd"}`, `"amount" is "\"2500\"": want a whole number`},
		{`{"amount":true,"currency":"usd"}`, `"amount" is "true": want a whole number`},
		{`{"amount":2500,"currency":{"a":"}"}}`, `"currency" is "{\"a\":\"}\"}": want an ISO 4217 code`},
		{`{"amount":2500,"currency":["usd"]}`, `"currency" is "[\"usd\"]": want an ISO 4217 code`},
		{`{"amount":2500,"currency":"zzz"}`, `"currency" is "\"zzz\"": not an ISO 4217`},
		{`{"amount":2500,"currency":"a\",\"b"}`, `"currency" is "\"a\\\",\\\"b\"": not an ISO 4217`},
		{`{"a":[{"b":","}],"amount":2500,"currency":"usd"}`, `unknown member "a"`},
		{`{"amount":2500,"currency":"usd","tip":{"x":1}}`, `unknown member "tip"`},
		{`{"currency":"usd"}`, `"amount" is missing`},
		{`{"amount":2500}`, `"currency" is missing`},
		{`{"amount":2500,`, "the body is not valid JSON: at byte 15: unexpected end of input"},
		{strings.Repeat("[", 32) + strings.Repeat("]", 32), "must be a JSON object"},
		{strings.Repeat("[", 33) + strings.Repeat("]", 33), "deeper than 32 levels (at byte 32)"},
	} {
		_, err := ledger.ParsePayment([]byte(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParsePayment(%s): %v; want an error saying %s", tc.body, err, tc.want)
		}
	}
}

func FuzzParsePayment(f *testing.F) {
	for _, s := range []string{`{"amount":2500,"currency":"usd"}`, `{"currency":"EUR","amount":1}`, `{"amount":0,"currency":"usd"}`,
		`{"amount":2500,"currency":"usd","x":1}`, `{"amount":1,"amount":2}`, `[1]`, `{"amount":99999999,"currency":"\u0055sd"}`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := ledger.ParsePayment(body)
		if err != nil {
			return
		}
		if req.Amount < 1 || req.Amount > ledger.MaxAmount || len(req.Currency) != 3 || strings.ToLower(req.Currency) != req.Currency {
			t.Fatalf("ParsePayment(%q) = %+v", body, req)
		}
		if _, err := idem.Fingerprint(body); err != nil || !json.Valid(body) {
			t.Fatalf("ParsePayment accepted %q, which is not a fingerprintable JSON text (%v)", body, err)
		}
		var m map[string]any
		if json.Unmarshal(body, &m) != nil || len(m) != 2 {
			t.Fatalf("ParsePayment accepted %q, not an object of two members", body)
		}
		again, err := ledger.ParsePayment([]byte(`{"amount":` + strconv.FormatInt(req.Amount, 10) + `,"currency":"` + req.Currency + `"}`))
		if err != nil || again != req {
			t.Fatalf("the plain form of %+v parses as %+v, %v", req, again, err)
		}
	})
}

// byEncodingJSON reads a payment the way encoding/json reads it, for
// ParsePayment to agree with: an object whose members are exactly
// "amount", digits from 1 to MaxAmount, and "currency", a string naming
// an ISO 4217 code; no duplicates, no invalid UTF-8 (idem.Canonical's
// rules), nesting within MaxDepth.
func byEncodingJSON(body []byte) (ledger.PaymentRequest, bool) {
	if _, err := idem.Canonical(body); err != nil || depth(body) > ledger.MaxDepth {
		return ledger.PaymentRequest{}, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil || len(m) != 2 {
		return ledger.PaymentRequest{}, false
	}
	var amount json.Number
	var currency string
	d := json.NewDecoder(bytes.NewReader(m["amount"]))
	d.UseNumber()
	if d.Decode(&amount) != nil || json.Unmarshal(m["currency"], &currency) != nil {
		return ledger.PaymentRequest{}, false
	}
	n, err := strconv.ParseInt(amount.String(), 10, 64)
	if err != nil || n < 1 || n > ledger.MaxAmount || amount.String()[0] == '0' {
		return ledger.PaymentRequest{}, false
	}
	cur, ok := ledger.Currency(currency)
	if !ok {
		return ledger.PaymentRequest{}, false
	}
	return ledger.PaymentRequest{Amount: n, Currency: cur}, true
}

// depth is the deepest nesting of arrays and objects in a valid JSON text.
func depth(body []byte) int {
	d := json.NewDecoder(bytes.NewReader(body))
	deepest, at := 0, 0
	for {
		tok, err := d.Token()
		if err != nil {
			return deepest
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			at++
			deepest = max(deepest, at)
		case json.Delim('}'), json.Delim(']'):
			at--
		}
	}
}

// ParsePayment reads no JSON of its own beyond idem.Canonical's, so that
// it can serve the simulation in the page too: it must accept exactly
// what encoding/json reads as a payment, with the same values.
func FuzzParsePaymentAgreesWithEncodingJSON(f *testing.F) {
	for _, s := range []string{`{"amount":2500,"currency":"usd"}`, `{"currency":"EUR","amount":1}`, `{"amount":0,"currency":"usd"}`,
		`{"amount":2500,"currency":"usd","x":{"a":"}\","}}`, `{"amount":1,"amount":2}`, `[1]`, `{"amount":99999999,"currency":"\u0055sd"}`,
		`{"amount":100000000,"currency":"usd"}`, `{"amount":2500,"currency":"us\u0064"}`, `{"amount":2500,"currency":"u\"d"}`,
		`{"a":[1,{"b":","}],"amount":2500,"currency":"usd"}`, `{"amount":2500,"currency":["usd"]}`, `{"amount":2.5e3,"currency":"usd"}`,
		` {"amount" : 7 , "currency" : "JPY"} `, `{"amount":2500,"currency":"usd"}x`, `{"amount":-1,"currency":"usd"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := ledger.ParsePayment(body)
		want, ok := byEncodingJSON(body)
		if (err == nil) != ok || got != want {
			t.Fatalf("ParsePayment(%q) = %+v, %v; encoding/json reads %+v, %v", body, got, err, want, ok)
		}
	})
}

// Currency knows each code of the list in either case, and nothing else:
// no code made of the list's separators, no code across two entries.
func TestCurrency(t *testing.T) {
	for _, code := range []string{"usd", "USD", "Eur", "jpy", "aed", "zwg"} {
		if got, ok := ledger.Currency(code); !ok || got != strings.ToLower(code) {
			t.Errorf("Currency(%q) = %q, %v", code, got, ok)
		}
	}
	for _, code := range []string{"zzz", "xxx", "xts", "us", "usdd", "", "d a", "ed ", "us\n", "u$d", "ùsd", "USD\x00"[:3] + "x"} {
		if got, ok := ledger.Currency(code); ok {
			t.Errorf("Currency(%q) = %q, true", code, got)
		}
	}
	// Every entry is found: 155 codes, from the list itself.
	n := 0
	for a := 'a'; a <= 'z'; a++ {
		for b := 'a'; b <= 'z'; b++ {
			for c := 'a'; c <= 'z'; c++ {
				if _, ok := ledger.Currency(string([]rune{a, b, c})); ok {
					n++
				}
			}
		}
	}
	if n != 155 {
		t.Fatalf("%d codes known, want the list's 155", n)
	}
}

// A payment's Canonical is idem.Canonical's own form, so that the two
// payment servers, one fingerprinting it with Keeper.Do (which writes it
// in canonical form again) and the other with Keeper.DoCanonical (which
// takes it as it is), give one payment one fingerprint; and it is the
// canonical form of the body itself whenever the body wrote its currency
// in lower case. Bodies meaning one payment, in any member order,
// whitespace or escaping, have one Canonical.
func FuzzCanonicalIsIdemCanonical(f *testing.F) {
	for _, s := range []string{`{"amount":2500,"currency":"usd"}`, `{"currency":"usd","amount":2500}`,
		" {\n\t\"currency\" :\r\"usd\" ,\"amount\" : 2500 }\n", `{"\u0061mount":2500,"currency":"\u0075\u0073\u0064"}`,
		`{"amount":2500,"\u0063urrency":"u\u0073d"}`, `{"amount":2500,"currency":"USD"}`, `{"amount":2500,"currency":"uSd"}`,
		`{"amount":2500,"currency":"\u0055SD"}`, `{"amount":2500,"currency":"\/usd"}`, `{"amount":2500.0,"currency":"usd"}`,
		`{"amount":2.5e3,"currency":"usd"}`, `{"amount":25e2,"currency":"usd"}`, `{"amount":02500,"currency":"usd"}`,
		`{"amount":-2500,"currency":"usd"}`, `{"amount":1,"currency":"jpy"}`, `{"amount":99999999,"currency":"eur"}`,
		`{"amount":100000000,"currency":"eur"}`, `{"amount":2500,"currency":"usd","amount":2500}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := ledger.ParsePayment(body)
		if err != nil {
			return
		}
		c := req.Canonical()
		again, err := idem.Canonical(c)
		if err != nil || !bytes.Equal(again, c) {
			t.Fatalf("ParsePayment(%q).Canonical() = %s, whose canonical form is %s (%v)", body, c, again, err)
		}
		if back, err := ledger.ParsePayment(c); err != nil || back != req {
			t.Fatalf("ParsePayment(%q).Canonical() = %s, which parses as %+v (%v)", body, c, back, err)
		}
		if raw, err := idem.Canonical(body); err == nil && bytes.Equal(bytes.ToLower(raw), raw) && !bytes.Equal(raw, c) {
			t.Fatalf("ParsePayment(%q).Canonical() = %s; the body's own canonical form is %s", body, c, raw)
		}
	})
}
