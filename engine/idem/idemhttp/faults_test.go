package idemhttp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/idemhttp"
	"github.com/retrylab/retrylab/engine/idem/ledger"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// charges is the number of charges of the account of "Bearer t".
func charges(t *testing.T, s ledger.Store) []ledger.Charge {
	t.Helper()
	acct, _ := idemhttp.AccountOf("Bearer t")
	list, _, err := s.Charges(t.Context(), acct, ledger.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// The Handler is the protocol alone: Retrylab-Fault means nothing to it.
func TestHandlerIgnoresFaults(t *testing.T) {
	store := ledger.NewMemoryStore()
	h := &idemhttp.Handler{Store: store}
	for i, fault := range []string{"lose-request", "crash-after-charge", "unavailable", "explode"} {
		rec := serve(h, "POST", "/v1/payments", strings.NewReader(body2500),
			"Authorization", "Bearer t", "Idempotency-Key", fault, "Retrylab-Fault", fault)
		if rec.Code != 201 || len(charges(t, store)) != i+1 {
			t.Fatalf("Retrylab-Fault: %s: %d %s, %d charges; want 201 and a charge", fault, rec.Code, rec.Body, len(charges(t, store)))
		}
	}
}

// Only POST /v1/payments takes Retrylab-Fault.
func TestFaultsOnlyOnPayments(t *testing.T) {
	h := &idemhttp.Sandbox{Store: ledger.NewMemoryStore()}
	for _, fault := range []string{"lose-request", "lose-response", "explode"} {
		if rec := serve(h, "GET", "/v1/charges", nil, "Authorization", "Bearer t", "Retrylab-Fault", fault); rec.Code != 200 {
			t.Fatalf("GET /v1/charges with Retrylab-Fault: %s: %d %s", fault, rec.Code, rec.Body)
		}
	}
}

// lose-response loses the answer to a request taken up under its key,
// not a refusal that came before.
func TestLoseResponseLosesOnlyAnswersUnderTheKey(t *testing.T) {
	h := &idemhttp.Sandbox{Store: ledger.NewMemoryStore()}
	rec := serve(h, "POST", "/v1/payments", strings.NewReader(body2500), "Authorization", "Bearer t", "Retrylab-Fault", "lose-response")
	if typ, _ := problemOf(t, h, rec); rec.Code != 400 || typ != "/v1/problems/missing-idempotency-key" {
		t.Fatalf("no key, lose-response: %d %s; want the 400 answered", rec.Code, rec.Body)
	}
	rec = serve(h, "POST", "/v1/payments", strings.NewReader(body2500), "Authorization", "Bearer t", "Idempotency-Key", "k", "Retrylab-Fault", "lose-response")
	if typ, detail := problemOf(t, h, rec); rec.Code != 504 || typ != "/v1/problems/response-lost" || !strings.Contains(detail, "(201)") {
		t.Fatalf("lose-response: %d %s; want the 201 lost", rec.Code, rec.Body)
	}
}

// inFlight leaves an expired claim of key "k" for body2500 in s, as a
// claimant that died after recording point would, and the clock past its
// lease.
func inFlight(t *testing.T, s ledger.Store, clock *idem.ManualClock, lease time.Duration, point string) idem.Record {
	t.Helper()
	acct, _ := idemhttp.AccountOf("Bearer t")
	fp, _ := idem.Fingerprint([]byte(body2500))
	rec, claimed, err := s.Claim(t.Context(), idem.Record{Account: acct, Key: "k", Fingerprint: fp, Created: clock.Now(),
		ExpiresAt: clock.Now().Add(time.Hour), LockedUntil: clock.Now().Add(lease)})
	if err != nil || !claimed {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	rec.RecoveryPoint = point
	if err := s.Checkpoint(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	clock.Advance(lease + time.Second)
	return rec
}

// unavailable refuses a payment nobody began, and releases its key; a
// takeover of a payment already begun charges it, since its first
// claimant may have reached the card network.
func TestUnavailableOnlyBeforeAPaymentBegan(t *testing.T) {
	const lease = 30 * time.Second
	store := ledger.NewMemoryStore()
	clock := idem.NewManualClock(t0)
	h := &idemhttp.Sandbox{Store: store, Clock: clock, Lease: lease}
	hdr := []string{"Authorization", "Bearer t", "Idempotency-Key", "k", "Retrylab-Fault", "unavailable"}
	rec := serve(h, "POST", "/v1/payments", strings.NewReader(body2500), hdr...)
	acct, _ := idemhttp.AccountOf("Bearer t")
	if _, kept, _ := store.Get(t.Context(), acct, "k"); rec.Code != 503 || kept || len(charges(t, store)) != 0 {
		t.Fatalf("a fresh payment, unavailable: %d, record kept %v, %d charges; want 503, released, none", rec.Code, kept, len(charges(t, store)))
	}

	inFlight(t, store, clock, lease, "payment pay_begun")
	rec = serve(h, "POST", "/v1/payments", strings.NewReader(body2500), hdr...)
	if c := charges(t, store); rec.Code != 201 || len(c) != 1 || c[0].PaymentID != "pay_begun" {
		t.Fatalf("a takeover of a begun payment, unavailable: %d %s, charges %+v; want 201 and pay_begun charged", rec.Code, rec.Body, c)
	}
}

// crash-after-charge dies once the charge is recorded: the claim stays
// in flight at "charged PAY CH", from which a takeover finishes.
func TestCrashAfterChargeRecordsTheCharge(t *testing.T) {
	const lease = 30 * time.Second
	store := ledger.NewMemoryStore()
	clock := idem.NewManualClock(t0)
	var entries []idemhttp.Entry
	h := &idemhttp.Sandbox{Store: store, Clock: clock, Lease: lease, Log: func(e idemhttp.Entry) { entries = append(entries, e) }}
	hdr := []string{"Authorization", "Bearer t", "Idempotency-Key", "k"}
	rec := serve(h, "POST", "/v1/payments", strings.NewReader(body2500), append(hdr, "Retrylab-Fault", "crash-after-charge")...)
	acct, _ := idemhttp.AccountOf("Bearer t")
	r, _, _ := store.Get(t.Context(), acct, "k")
	c := charges(t, store)
	if rec.Code != 502 || r.State != idem.InFlight || len(c) != 1 || r.RecoveryPoint != "charged "+c[0].PaymentID+" "+c[0].ID {
		t.Fatalf("crash-after-charge: %d, record %+v, charges %+v; want 502, in flight at the charge", rec.Code, r, c)
	}
	clock.Advance(lease + time.Second)
	rec = serve(h, "POST", "/v1/payments", strings.NewReader(body2500), hdr...)
	if rec.Code != 201 || len(charges(t, store)) != 1 || entries[1].Resumed != r.RecoveryPoint {
		t.Fatalf("the takeover: %d %s, %d charges, entry %+v; want 201 resumed from %q, one charge", rec.Code, rec.Body, len(charges(t, store)), entries[1], r.RecoveryPoint)
	}
}

// slow=MS waits on the Sandbox's clock once, wherever the work goes on:
// before the charge, or, on a takeover of a charged payment, before
// saving it.
func TestSlowWaitsOnTheClock(t *testing.T) {
	const lease = 30 * time.Second
	for _, point := range []string{"", "charged pay_a ch_a"} {
		store := ledger.NewMemoryStore()
		clock := idem.NewManualClock(t0)
		if point != "" {
			rec := inFlight(t, store, clock, lease, point)
			if _, _, err := store.Charge(t.Context(), ledger.Charge{ID: "ch_a", Account: rec.Account, PaymentID: "pay_a", Amount: 2500,
				Currency: "usd", Key: "k", Created: t0, Fence: rec.Fence}); err != nil {
				t.Fatal(err)
			}
		}
		h := &idemhttp.Sandbox{Store: store, Clock: clock, Lease: lease}
		done := make(chan int)
		go func() {
			done <- serve(h, "POST", "/v1/payments", strings.NewReader(body2500),
				"Authorization", "Bearer t", "Idempotency-Key", "k", "Retrylab-Fault", "slow=2000").Code
		}()
		deadline := time.Now().Add(10 * time.Second)
		for clock.Sleepers() == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("from %q: slow=2000 never waited on the clock", point)
			}
			time.Sleep(time.Millisecond)
		}
		clock.Advance(1999 * time.Millisecond)
		select {
		case code := <-done:
			t.Fatalf("from %q: answered %d before 2 s had passed on the clock", point, code)
		case <-time.After(20 * time.Millisecond):
		}
		clock.Advance(time.Millisecond)
		if code := <-done; code != 201 || len(charges(t, store)) != 1 {
			t.Fatalf("from %q: %d, %d charges", point, code, len(charges(t, store)))
		}
	}
}
