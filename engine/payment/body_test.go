package payment

import (
	"encoding/json"
	"strings"
	"testing"
)

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

// FuzzBody holds chargeID to encoding/json: a charge id is the top-level
// "id" string encoding/json reads. (The amount is ledger.ParsePayment's,
// fuzzed against encoding/json in its own package.)
func FuzzBody(f *testing.F) {
	for _, s := range []string{`{"amount":2500,"currency":"usd"}`, `{"amount":"2500"}`, `{"amount":1e3}`, `{"amount":01}`,
		`{"amount":9223372036854775808}`, `{"amount":1,"amount":2}`, `{"id":"ch_\/1","amount":1}`, `{"id":"\ud800"}`, `[1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var std any
		stdOK := json.Valid(body) && json.Unmarshal(body, &std) == nil
		obj, _ := std.(map[string]any)

		id := chargeID(body)
		if s, _ := obj["id"].(string); id != "" && (!stdOK || s != id) {
			t.Fatalf("chargeID(%q) = %q; encoding/json reads %#v", body, id, std)
		}
	})
}
