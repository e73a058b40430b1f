package main

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/internal/check"
	"github.com/retrylab/retrylab/internal/check/flawed"
)

// checkReport is the JSON retrylab check --json prints.
type checkReport struct {
	URL    string `json:"url"`
	Checks []struct {
		Name, Result, Detail, Reference string
	} `json:"checks"`
}

func runCheckCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"check"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

// retrylab check passes every check, expiry included, against the
// sandbox API on each store it opens; and the ledger agrees that nothing
// was charged twice: each account has exactly the charges of the
// requests that were due to create something. Every payment is slowed
// down by 300 ms (the sandbox's slow fault), so that the concurrent
// check's duplicates find the first in flight and get 409s.
func TestCheckPassesOnEveryStore(t *testing.T) {
	for name, db := range apiStores(t) {
		t.Run(name, func(t *testing.T) {
			// A lease of 1 s lets the TTL be 3 s (the TTL is at least two
			// leases), so the expiry check waits 3.3 s.
			base, _, stderr, _ := startAPIWith(t, apiConfig{addr: "127.0.0.1:0", db: db, lease: time.Second, ttl: 3 * time.Second})
			code, out, errOut := runCheckCmd(t, base+"/v1/payments", "--ttl", "3s", "--json", "--token", "sk_one", "--other-token", "sk_two",
				"--header", "Retrylab-Fault: slow=300")
			if code != exitOK {
				t.Fatalf("exit %d: %s\n%s\nthe server's log:\n%s", code, errOut, out, stderr)
			}
			var rep checkReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v in %s", err, out)
			}
			if rep.URL != base+"/v1/payments" || len(rep.Checks) != len(check.Checks) {
				t.Fatalf("url %q and %d checks, want %q and %d", rep.URL, len(rep.Checks), base+"/v1/payments", len(check.Checks))
			}
			for _, c := range rep.Checks {
				if c.Result != "pass" {
					t.Errorf("%s: %s: %s", c.Name, c.Result, c.Detail)
				}
				if c.Name == "concurrent" && strings.Contains(c.Detail, "(409: 0,") {
					t.Errorf("concurrent: no duplicate found the first in flight: %s", c.Detail)
				}
			}
			// The first account's charges: the first request 1, replay 1,
			// new-key 2, concurrent 1, mismatch 1, scope 1, validation 1,
			// expiry 2 (the key's first use, and its use once expired).
			// key-syntax and missing-key create nothing. The second
			// account's: scope's 1.
			if n := chargeCount(t, base, "sk_one"); n != 10 {
				t.Errorf("the first account has %d charges, want 10", n)
			}
			if n := chargeCount(t, base, "sk_two"); n != 1 {
				t.Errorf("the second account has %d charges, want 1", n)
			}
		})
	}
}

// The text output: a line per check with its result, name, sentence and
// reference, then the summary; exit 1 when a check failed.
func TestCheckCommandOutput(t *testing.T) {
	srv := httptest.NewServer(flawed.New(flawed.SharedKeys, 50*time.Millisecond))
	defer srv.Close()
	code, out, errOut := runCheckCmd(t, srv.URL+"/v1/payments", "--concurrency", "5")
	if code != exitFail {
		t.Fatalf("exit %d, want %d: %s\n%s", code, exitFail, errOut, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if want := "retrylab check: POST " + srv.URL + "/v1/payments, every check with new keys"; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	for _, c := range check.Checks {
		if c.Name == "expiry" {
			continue
		}
		result := "pass"
		if c.Name == "scope" {
			result = "fail"
		}
		prefix := result + "  " + c.Name + strings.Repeat(" ", 11-len(c.Name)) + "  sent "
		suffix := " [" + c.Reference + "]"
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, prefix) && strings.HasSuffix(l, suffix) {
				found = true
			}
		}
		if !found {
			t.Errorf("no line %q...%q in\n%s", prefix, suffix, out)
		}
	}
	if want := "8 checks: 7 pass, 0 warn, 1 fail; 22 requests to " + strings.TrimPrefix(srv.URL, "http://"); !strings.Contains(out, want) {
		t.Errorf("no %q in the summary:\n%s", want, out)
	}
	if !strings.HasSuffix(out, "expiry was not checked: give --ttl the time your API says it remembers a key\n") {
		t.Errorf("no note on expiry at the end:\n%s", out)
	}
}

// Bad command lines, and URLs that cannot be checked, exit 2 with a
// message that says what is wrong, before any check runs.
func TestCheckUsageErrors(t *testing.T) {
	dead := httptest.NewServer(nil)
	dead.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "give the URL a client POSTs to"},
		{[]string{"http://a/x", "http://b/x"}, `one URL only; unexpected "http://b/x"`},
		{[]string{"http://a/x", "--concurrency", "1"}, "--concurrency 1: give 2 to 100"},
		{[]string{"http://a/x", "--ttl", "5h"}, "--ttl 5h0m0s: give 1s to 1h0m0s"},
		{[]string{"http://a/x", "--header", "nocolon"}, `"nocolon" is not a header`},
		{[]string{"http://a/x", "--header", "Idempotency-Key: k"}, "the checker sends it itself"},
		{[]string{"http://a/x", "--header", "Authorization: Basic eA==", "--token", "t"}, "would send a second one"},
		{[]string{"http://a/x", "--body", "{"}, "--body is not JSON"},
		{[]string{"http://a/x", "--body", `{"sku":"a"}`}, "give --other-body"},
		{[]string{"http://a/x", "--other-body", `{"currency":"usd","amount":2500}`}, "the same JSON as --body"},
		{[]string{"mailto:x@example.com"}, "not an http or https URL"},
		{[]string{dead.URL + "/v1/payments"}, "connection refused"},
		{[]string{"--nope"}, "flag provided but not defined: -nope"},
	} {
		code, out, errOut := runCheckCmd(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) || out != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit %d and %q", c.args, code, errOut, out, exitUsage, c.want)
		}
	}
}
