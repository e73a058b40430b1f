//go:build !(js && wasm)

package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/internal/check"
)

// retrylab check passes every check against the worker under wrangler
// dev, expiry included: the worker's lease is made 1 s, so that its TTL
// may be 3 s (two leases at least). Every payment is slowed down by
// 300 ms (the sandbox's slow fault), so that the concurrent check's
// duplicates find the first in flight and get 409s.
func TestCheckUnderWrangler(t *testing.T) {
	const ttl = 3 * time.Second
	base := startWrangler(t, "RETRYLAB_LEASE:1s", "RETRYLAB_TTL:"+ttl.String())
	rep, err := check.Run(context.Background(), check.Config{URL: base + "/v1/payments", TTL: ttl,
		Header: http.Header{"Retrylab-Fault": {"slow=300"}}})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.WriteText(&out)
	t.Logf("retrylab check against the worker:\n%s", out.String())
	if len(rep.Checks) != len(check.Checks) {
		t.Errorf("%d checks ran, want %d", len(rep.Checks), len(check.Checks))
	}
	for _, f := range rep.Checks {
		if f.Result != check.Pass {
			t.Errorf("%s: %s: %s", f.Name, f.Result, f.Detail)
		}
		if f.Name == "concurrent" && strings.Contains(f.Detail, "(409: 0,") {
			t.Errorf("concurrent: no duplicate found the first in flight: %s", f.Detail)
		}
	}
}
