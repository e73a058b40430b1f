package payment

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAmountOf(t *testing.T) {
	for body, want := range map[string]int64{
		`{"amount":2500,"currency":"usd"}`:                   2500,
		"{ \"currency\" : \"usd\" ,\n \"amount\" : 1 }":      1,
		`{"a":{"amount":1,"x":"}\","},"amount":2500,"b":[]}`: 2500, // the top-level member, not a nested one
		`{"\u0061mount":9900}`:                               9900,
		`{"amount":9223372036854775807}`:                     9223372036854775807,
	} {
		if got, err := amountOf([]byte(body)); err != nil || got != want {
			t.Errorf("amountOf(%s) = %d, %v; want %d", body, got, err, want)
		}
	}
	for body, want := range map[string]string{
		`{"amount":`:                     "invalid JSON at offset 10",
		`{"amount":1,"amount":1}`:        `duplicate key "amount"`,
		`{"currency":"usd"}`:             "no amount",
		`{"x":{"amount":2500}}`:          "no amount",
		`[2500]`:                         "no amount",
		`{"amount":"2500"}`:              `amount "2500" is not a positive whole number of cents`,
		`{"amount":25.5}`:                "amount 25.5 is not",
		`{"amount":2.5e3}`:               "amount 2.5e3 is not",
		`{"amount":-5}`:                  "amount -5 is not",
		`{"amount":0}`:                   "amount 0 is not",
		`{"amount":9223372036854775808}`: "amount 9223372036854775808 is not",
		`{"amount":{"value":1}}`:         `amount {"value":1} is not`,
	} {
		if got, err := amountOf([]byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("amountOf(%s) = %d, %v; want an error containing %q", body, got, err, want)
		}
	}
}

func TestChargeID(t *testing.T) {
	for body, want := range map[string]string{
		`{"amount":2500,"id":"ch_9","status":"succeeded"}`: "ch_9",
		`{"id":"ch_\u0031\/2"}`:                            "ch_1/2",
		`{"x":{"id":"ch_1"}}`:                              "",
		`{"id":9}`:                                         "",
		`{"id":"ch_1"`:                                     "",
		`["ch_1"]`:                                         "",
	} {
		if got := chargeID([]byte(body)); got != want {
			t.Errorf("chargeID(%s) = %q, want %q", body, got, want)
		}
	}
}

// errorBody writes any detail as valid JSON, control characters included.
func TestErrorBody(t *testing.T) {
	detail := "amount \"2500\" is not\ta \\ number\a\x00\x7f é\xff"
	var got struct{ Error, Detail string }
	if err := json.Unmarshal(errorBody(detail), &got); err != nil {
		t.Fatalf("errorBody: %s: %v", errorBody(detail), err)
	}
	if got.Error != "invalid-request" || got.Detail != strings.ToValidUTF8(detail, "\uFFFD") {
		t.Fatalf("errorBody(%q) reads as %+v", detail, got)
	}
}

// FuzzBody holds amountOf and chargeID to encoding/json: an amount is
// accepted exactly when encoding/json reads a top-level "amount" that is a
// whole number from 1 written as digits alone (and the body is I-JSON: no
// repeated key, UTF-8, no lone surrogate escape), and it is the same
// number; a charge id is the top-level "id" string encoding/json reads.
func FuzzBody(f *testing.F) {
	for _, s := range []string{`{"amount":2500,"currency":"usd"}`, `{"amount":"2500"}`, `{"amount":1e3}`, `{"amount":01}`,
		`{"amount":9223372036854775808}`, `{"amount":1,"amount":2}`, `{"id":"ch_\/1","amount":1}`, `{"id":"\ud800"}`, `[1]`} {
		f.Add([]byte(s))
	}
	digits := regexp.MustCompile(`^[1-9][0-9]*$`)
	surrogate := regexp.MustCompile(`\\u[dD][89a-fA-F]`)
	f.Fuzz(func(t *testing.T, body []byte) {
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		var std any
		stdOK := json.Valid(body) && d.Decode(&std) == nil
		obj, _ := std.(map[string]any)
		strict := stdOK && utf8.Valid(body) && !surrogate.Match(body)

		n, err := amountOf(body)
		num, isNum := obj["amount"].(json.Number)
		want, convErr := num.Int64()
		wantOK := isNum && digits.MatchString(string(num)) && convErr == nil
		if err == nil && (!stdOK || !wantOK || n != want) {
			t.Fatalf("amountOf(%q) = %d; encoding/json reads %#v", body, n, std)
		}
		if err != nil && strict && wantOK && !strings.Contains(err.Error(), "duplicate key") {
			t.Fatalf("amountOf(%q): %v; encoding/json reads amount %s", body, err, num)
		}

		id := chargeID(body)
		if s, _ := obj["id"].(string); id != "" && (!stdOK || s != id) {
			t.Fatalf("chargeID(%q) = %q; encoding/json reads %#v", body, id, std)
		}
	})
}
