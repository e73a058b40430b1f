package idemhttp_test

import (
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
	for _, s := range []string{"abc", `"abc"`, `"a\"b"`, `"a\x"`, "", `""`, " k ", "k\x00", "é", `"`, "a,b", `"a,b"`, `"a", "b"`, strings.Repeat("k", 256)} {
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
		if !strings.HasPrefix(trimmed, `"`) && strings.Contains(key, ",") {
			t.Fatalf("ParseKey(%q) = %q: a bare key with a comma, as two joined fields are", v, key)
		}
		// Both spellings of the key name the key; the bare one only where
		// it is not read as quoted, has no comma, nor loses its outer
		// spaces, as HTTP field values do.
		for _, form := range []string{key, quote(key)} {
			if form == key && (strings.HasPrefix(key, `"`) || strings.Contains(key, ",") || strings.Trim(key, " \t") != key) {
				continue
			}
			if again, err := idemhttp.ParseKey([]string{form}); err != nil || again != key {
				t.Fatalf("ParseKey(%q) = %q, %v; want %q", form, again, err, key)
			}
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
