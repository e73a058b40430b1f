package idemhttp_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/idemhttp"
)

// quote writes key as a structured-field string.
func quote(key string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(key) + `"`
}

func FuzzParseKey(f *testing.F) {
	for _, s := range []string{"abc", `"abc"`, `"a\"b"`, `"a\x"`, "", `""`, " k ", "k\x00", "é", `"`, strings.Repeat("k", 256)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		key, err := idemhttp.ParseKey([]string{v})
		if err != nil {
			return
		}
		if idem.CheckKey(key) != nil {
			t.Fatalf("ParseKey(%q) = %q, which CheckKey refuses", v, key)
		}
		trimmed := strings.Trim(v, " \t")
		if !strings.HasPrefix(trimmed, `"`) && key != trimmed {
			t.Fatalf("ParseKey(%q) = %q, want the bare value %q", v, key, trimmed)
		}
		// Both spellings of the key name the key; the bare one only where
		// it is not read as quoted nor loses its outer spaces, as HTTP
		// field values do.
		for _, form := range []string{key, quote(key)} {
			if form == key && (strings.HasPrefix(key, `"`) || strings.Trim(key, " \t") != key) {
				continue
			}
			if again, err := idemhttp.ParseKey([]string{form}); err != nil || again != key {
				t.Fatalf("ParseKey(%q) = %q, %v; want %q", form, again, err, key)
			}
		}
	})
}

func FuzzParsePayment(f *testing.F) {
	for _, s := range []string{`{"amount":2500,"currency":"usd"}`, `{"currency":"EUR","amount":1}`, `{"amount":0,"currency":"usd"}`,
		`{"amount":2500,"currency":"usd","x":1}`, `{"amount":1,"amount":2}`, `[1]`, `{"amount":99999999,"currency":"\u0055sd"}`, `{`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := idemhttp.ParsePayment(body)
		if err != nil {
			return
		}
		if req.Amount < 1 || req.Amount > idemhttp.MaxAmount || len(req.Currency) != 3 || strings.ToLower(req.Currency) != req.Currency {
			t.Fatalf("ParsePayment(%q) = %+v", body, req)
		}
		if _, err := idem.Fingerprint(body); err != nil || !json.Valid(body) {
			t.Fatalf("ParsePayment accepted %q, which is not a fingerprintable JSON text (%v)", body, err)
		}
		var m map[string]any
		if json.Unmarshal(body, &m) != nil || len(m) != 2 {
			t.Fatalf("ParsePayment accepted %q, not an object of two members", body)
		}
		again, err := idemhttp.ParsePayment([]byte(`{"amount":` + strconv.FormatInt(req.Amount, 10) + `,"currency":"` + req.Currency + `"}`))
		if err != nil || again != req {
			t.Fatalf("the plain form of %+v parses as %+v, %v", req, again, err)
		}
	})
}

func FuzzParseFaults(f *testing.F) {
	for _, s := range []string{"lose-request", "slow=100, lose-response", "crash-after-charge,decline", "unavailable", "slow=", "x", ",,", "slow=10000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		faults, err := idemhttp.ParseFaults([]string{v})
		if err != nil {
			return
		}
		if faults.Slow < 0 || faults.Slow > idemhttp.MaxSlow {
			t.Fatalf("ParseFaults(%q): slow %v", v, faults.Slow)
		}
		again, err := idemhttp.ParseFaults([]string{faults.String()})
		if err != nil || again != faults {
			t.Fatalf("ParseFaults(%q) = %+v, written %q, read back %+v, %v", v, faults, faults.String(), again, err)
		}
	})
}
