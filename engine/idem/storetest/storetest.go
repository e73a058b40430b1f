// Package storetest is the conformance suite of the API's stores: every
// ledger.Store (memory, SQLite, PostgreSQL) passes Run. It checks each
// Store method's contract on records, the ledger's, and then the whole
// protocol through the HTTP handler: replays, 409 and 422, a thousand
// simultaneous identical requests, expiry, lease takeover, account
// isolation, releases and saved failures.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/ledger"
)

// T0 is the suite's starting time: whole milliseconds, which every store
// keeps exactly (SQL stores keep microseconds).
var T0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// Run runs the suite. newStore returns a new, empty store for each test;
// it is the caller's to close (with t.Cleanup).
func Run(t *testing.T, newStore func(t *testing.T) ledger.Store) {
	for _, tc := range []struct {
		name string
		run  func(*testing.T, ledger.Store)
	}{
		{"ClaimCompleteGet", testClaimCompleteGet},
		{"ClaimHeld", testClaimHeld},
		{"Release", testRelease},
		{"Fencing", testFencing},
		{"CheckpointSurvivesTakeover", testTakeover},
		{"Expiry", testExpiry},
		{"InFlightNeverExpires", testInFlightNeverExpires},
		{"FenceNeverRepeats", testFenceNeverRepeats},
		{"AccountIsolation", testAccountIsolation},
		{"BinaryBody", testBinaryBody},
		{"ConcurrentClaims", testConcurrentClaims},
		{"LedgerOneChargePerPayment", testLedgerCharge},
		{"LedgerPayments", testLedgerPayments},
		{"LedgerChargesNewestFirst", testLedgerListing},
		{"LedgerRefusesALostClaim", testLedgerFence},
		{"HTTPNewAndReplay", testHTTPNewAndReplay},
		{"HTTPInFlight409", testHTTPInFlight},
		{"HTTPThousandIdentical", testHTTPThousand},
		{"HTTPExpiry", testHTTPExpiry},
		{"HTTPLeaseTakeover", testHTTPTakeover},
		{"HTTPTakeoverAfterUncheckpointedCharge", testHTTPTakeoverUncheckpointed},
		{"HTTPAccountIsolation", testHTTPAccounts},
		{"HTTPReleaseWhenNothingHappened", testHTTPRelease},
		{"HTTPSavedFailureReplayed", testHTTPDecline},
		{"HTTPLostResponse", testHTTPLostResponse},
		{"HTTPCrashOutlivesTTL", testHTTPCrashOutlivesTTL},
		{"HTTPSlowClaimantFenced", testHTTPSlowClaimantFenced},
		{"HTTPCurrencyCase", testHTTPCurrencyCase},
		{"Abandoned", testAbandoned},
		{"LedgerChargeOf", testLedgerChargeOf},
		{"HTTPSweep", testHTTPSweep},
		{"PurgeForgetsTheLedger", testPurgeForgetsTheLedger},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, newStore(t)) })
	}
}

var ctx = context.Background()

// claim is a record claiming (account, key) at now with a 30 s lease and
// a 24 h expiry.
func claim(account, key, fp string, now time.Time) idem.Record {
	return idem.Record{Account: account, Key: key, Fingerprint: fp, Created: now,
		ExpiresAt: now.Add(24 * time.Hour), LockedUntil: now.Add(30 * time.Second)}
}

func mustClaim(t *testing.T, s idem.Store, rec idem.Record, want bool) idem.Record {
	t.Helper()
	got, claimed, err := s.Claim(ctx, rec)
	if err != nil {
		t.Fatalf("Claim(%s, %s): %v", rec.Account, rec.Key, err)
	}
	if claimed != want {
		t.Fatalf("Claim(%s, %s) claimed %v, want %v (stored %+v)", rec.Account, rec.Key, claimed, want, got)
	}
	return got
}

func mustGet(t *testing.T, s idem.Store, account, key string) idem.Record {
	t.Helper()
	r, ok, err := s.Get(ctx, account, key)
	if err != nil || !ok {
		t.Fatalf("Get(%s, %s) = %v, %v; want a record", account, key, ok, err)
	}
	return r
}

// sameRecord compares every field, times by instant.
func sameRecord(t *testing.T, what string, got, want idem.Record) {
	t.Helper()
	if got.Account != want.Account || got.Key != want.Key || got.Fingerprint != want.Fingerprint ||
		got.State != want.State || got.Status != want.Status || !bytes.Equal(got.Body, want.Body) ||
		!got.Created.Equal(want.Created) || !got.ExpiresAt.Equal(want.ExpiresAt) ||
		!got.LockedUntil.Equal(want.LockedUntil) || got.Fence != want.Fence || got.RecoveryPoint != want.RecoveryPoint {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, got, want)
	}
}

func testClaimCompleteGet(t *testing.T, s ledger.Store) {
	if _, ok, err := s.Get(ctx, "acct_1", "k_1"); ok || err != nil {
		t.Fatalf("Get on an empty store = %v, %v", ok, err)
	}
	rec := claim("acct_1", "k_1", "fp_a", T0)
	got := mustClaim(t, s, rec, true)
	want := rec
	want.State, want.Fence = idem.InFlight, idem.FreshFence(T0)
	sameRecord(t, "claimed", got, want)
	sameRecord(t, "Get after Claim", mustGet(t, s, "acct_1", "k_1"), want)

	got.Status, got.Body, got.RecoveryPoint = 201, []byte(`{"id":"pay_1"}`), "done"
	if err := s.Complete(ctx, got); err != nil {
		t.Fatal(err)
	}
	want.State, want.Status, want.Body, want.RecoveryPoint = idem.Done, 201, []byte(`{"id":"pay_1"}`), "done"
	sameRecord(t, "Get after Complete", mustGet(t, s, "acct_1", "k_1"), want)
	if err := s.Complete(ctx, got); !errors.Is(err, idem.ErrNotHeld) {
		t.Fatalf("second Complete: %v, want ErrNotHeld", err)
	}
	if err := s.Release(ctx, got); !errors.Is(err, idem.ErrNotHeld) {
		t.Fatalf("Release after Complete: %v, want ErrNotHeld", err)
	}
	if err := s.Checkpoint(ctx, got); !errors.Is(err, idem.ErrNotHeld) {
		t.Fatalf("Checkpoint after Complete: %v, want ErrNotHeld", err)
	}
	// A done record is not claimed again, even long after its lease, with
	// the same body or another, until it expires.
	for _, fp := range []string{"fp_a", "fp_b"} {
		sameRecord(t, "claim of a done key", mustClaim(t, s, claim("acct_1", "k_1", fp, T0.Add(time.Hour)), false), want)
	}
}

func testClaimHeld(t *testing.T, s ledger.Store) {
	first := mustClaim(t, s, claim("acct_1", "k_1", "fp_a", T0), true)
	for _, fp := range []string{"fp_a", "fp_b"} {
		// Within the lease: held, whatever the body.
		got := mustClaim(t, s, claim("acct_1", "k_1", fp, T0.Add(29*time.Second)), false)
		sameRecord(t, "held claim", got, first)
	}
}

func testRelease(t *testing.T, s ledger.Store) {
	rec := mustClaim(t, s, claim("acct_1", "k_1", "fp_a", T0), true)
	if err := s.Release(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Get(ctx, "acct_1", "k_1"); ok || err != nil {
		t.Fatalf("Get after Release = %v, %v; want nothing", ok, err)
	}
	if err := s.Release(ctx, rec); !errors.Is(err, idem.ErrNotHeld) {
		t.Fatalf("second Release: %v, want ErrNotHeld", err)
	}
	// The key is free again at once, for any body.
	got := mustClaim(t, s, claim("acct_1", "k_1", "fp_b", T0.Add(time.Second)), true)
	if got.Fingerprint != "fp_b" || got.State != idem.InFlight || !got.Created.Equal(T0.Add(time.Second)) {
		t.Fatalf("claim after release: %+v", got)
	}
}

func testFencing(t *testing.T, s ledger.Store) {
	rec := mustClaim(t, s, claim("acct_1", "k_1", "fp_a", T0), true)
	stale := rec
	stale.Fence = rec.Fence + 1
	stale.Status, stale.Body, stale.RecoveryPoint = 500, []byte("stale"), "stale"
	for name, op := range map[string]func(context.Context, idem.Record) error{
		"Complete": s.Complete, "Release": s.Release, "Checkpoint": s.Checkpoint,
	} {
		if err := op(ctx, stale); !errors.Is(err, idem.ErrNotHeld) {
			t.Fatalf("%s with another fence: %v, want ErrNotHeld", name, err)
		}
	}
	other := rec
	other.Key = "k_other"
	if err := s.Complete(ctx, other); !errors.Is(err, idem.ErrNotHeld) {
		t.Fatalf("Complete of an absent key: %v, want ErrNotHeld", err)
	}
	sameRecord(t, "after refused writes", mustGet(t, s, "acct_1", "k_1"), rec)
}

func testTakeover(t *testing.T, s ledger.Store) {
	rec := mustClaim(t, s, claim("acct_1", "k_1", "fp_a", T0), true)
	rec.RecoveryPoint = "payment pay_1"
	if err := s.Checkpoint(ctx, rec); err != nil {
		t.Fatal(err)
	}
	want := rec
	sameRecord(t, "after Checkpoint", mustGet(t, s, "acct_1", "k_1"), want)

	lapsed := T0.Add(30 * time.Second) // the lease ends at T0+30s: lapsed from then
	// Another body is refused even after the lease: it is not a retry.
	mustClaim(t, s, claim("acct_1", "k_1", "fp_b", lapsed), false)
	got := mustClaim(t, s, claim("acct_1", "k_1", "fp_a", lapsed), true)
	want.Fence, want.LockedUntil = idem.FreshFence(lapsed), lapsed.Add(30*time.Second)
	sameRecord(t, "taken over (keeps Created, ExpiresAt and RecoveryPoint)", got, want)
	// The overtaken claimant can do nothing more.
	rec.RecoveryPoint = "late"
	for name, op := range map[string]func(context.Context, idem.Record) error{
		"Complete": s.Complete, "Release": s.Release, "Checkpoint": s.Checkpoint,
	} {
		if err := op(ctx, rec); !errors.Is(err, idem.ErrNotHeld) {
			t.Fatalf("overtaken claimant's %s: %v, want ErrNotHeld", name, err)
		}
	}
	// The new claimant's lease holds against a third.
	mustClaim(t, s, claim("acct_1", "k_1", "fp_a", lapsed.Add(29*time.Second)), false)
	got.Status, got.Body = 201, []byte("ok")
	if err := s.Complete(ctx, got); err != nil {
		t.Fatalf("the new claimant's Complete: %v", err)
	}
	if r := mustGet(t, s, "acct_1", "k_1"); r.State != idem.Done || r.Fence != got.Fence || r.RecoveryPoint != "payment pay_1" {
		t.Fatalf("completed takeover %+v", r)
	}
}

func testExpiry(t *testing.T, s ledger.Store) {
	rec := mustClaim(t, s, claim("acct_1", "k_1", "fp_a", T0), true)
	// Completed an hour after the claim: expiry counts from here.
	done := T0.Add(time.Hour)
	rec.Status, rec.Body, rec.RecoveryPoint = 201, []byte("first"), "charged"
	rec.ExpiresAt = done.Add(24 * time.Hour)
	if err := s.Complete(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if r := mustGet(t, s, "acct_1", "k_1"); !r.ExpiresAt.Equal(rec.ExpiresAt) {
		t.Fatalf("Complete kept ExpiresAt %v, want %v (completion plus TTL)", r.ExpiresAt, rec.ExpiresAt)
	}
	end := done.Add(24 * time.Hour)
	// 24 h after the claim, but not after completion: still live.
	mustClaim(t, s, claim("acct_1", "k_1", "fp_b", T0.Add(24*time.Hour)), false)
	mustClaim(t, s, claim("acct_1", "k_1", "fp_b", end.Add(-time.Microsecond)), false)
	// At ExpiresAt the record counts as absent: claimed afresh, any body.
	got := mustClaim(t, s, claim("acct_1", "k_1", "fp_b", end), true)
	want := claim("acct_1", "k_1", "fp_b", end)
	want.State, want.Fence = idem.InFlight, idem.FreshFence(end)
	sameRecord(t, "reclaimed after expiry", got, want)
}

// A key's fences never repeat, not even after its record was deleted: a
// claimant overtaken in one life of the key can do nothing to the next,
// though that one was claimed afresh after a purge or a release.
func testFenceNeverRepeats(t *testing.T, s ledger.Store) {
	first := mustClaim(t, s, claim("acct_1", "k_1", "fp_a", T0), true)
	lapsed := T0.Add(30 * time.Second)
	second := mustClaim(t, s, claim("acct_1", "k_1", "fp_a", lapsed), true)
	second.Status, second.Body = 201, []byte("second")
	second.ExpiresAt = lapsed.Add(time.Minute)
	if err := s.Complete(ctx, second); err != nil {
		t.Fatal(err)
	}
	later := lapsed.Add(2 * time.Minute)
	purger, ok := s.(interface {
		Purge(context.Context, time.Time) (int64, error)
	})
	if !ok {
		t.Skip("the store has no Purge")
	}
	if _, err := purger.Purge(ctx, later); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get(ctx, "acct_1", "k_1"); ok {
		t.Fatal("the expired record survived Purge")
	}
	third := mustClaim(t, s, claim("acct_1", "k_1", "fp_c", later), true)
	if third.Fence == first.Fence || third.Fence == second.Fence {
		t.Fatalf("the claim after the purge has fence %d, which the first (%d) or second (%d) claim had", third.Fence, first.Fence, second.Fence)
	}
	first.RecoveryPoint, first.Status, first.Body = "late", 201, []byte("first, late")
	for name, op := range map[string]func(context.Context, idem.Record) error{
		"Complete": s.Complete, "Checkpoint": s.Checkpoint, "Release": s.Release,
	} {
		if err := op(ctx, first); !errors.Is(err, idem.ErrNotHeld) {
			t.Fatalf("the first life's claimant's %s on the third claim: %v, want ErrNotHeld", name, err)
		}
	}
	c := ledger.Charge{ID: "ch_late", Account: "acct_1", PaymentID: "pay_late", Amount: 100, Currency: "usd", Key: "k_1", Created: later, Fence: first.Fence}
	if _, _, err := s.Charge(ctx, c); !errors.Is(err, idem.ErrNotHeld) {
		t.Fatalf("the first life's claimant's Charge on the third claim: %v, want ErrNotHeld", err)
	}
	// The same after a release: a claim, released, claimed again.
	r1 := mustClaim(t, s, claim("acct_1", "k_2", "fp_a", T0), true)
	if err := s.Release(ctx, r1); err != nil {
		t.Fatal(err)
	}
	r2 := mustClaim(t, s, claim("acct_1", "k_2", "fp_a", T0.Add(time.Second)), true)
	if r2.Fence == r1.Fence {
		t.Fatalf("a claim after a release reused fence %d", r1.Fence)
	}
}

// An in-flight record never expires: its claimant may have charged. Long
// after its TTL, a retry with the same body waits for the lease and then
// takes it over from its recovery point; another body is a mismatch.
func testInFlightNeverExpires(t *testing.T, s ledger.Store) {
	rec := mustClaim(t, s, claim("acct_1", "k_2", "fp_a", T0), true)
	rec.RecoveryPoint = "charged pay_1 ch_1"
	if err := s.Checkpoint(ctx, rec); err != nil {
		t.Fatal(err)
	}
	week := T0.Add(7 * 24 * time.Hour)
	got := mustClaim(t, s, claim("acct_1", "k_2", "fp_c", week), false)
	if got.State != idem.InFlight || got.Fingerprint != "fp_a" || got.RecoveryPoint != "charged pay_1 ch_1" {
		t.Fatalf("an in-flight record a week old, claimed with another body: %+v", got)
	}
	got = mustClaim(t, s, claim("acct_1", "k_2", "fp_a", week), true)
	if got.Fence <= rec.Fence || !got.Created.Equal(T0) || got.RecoveryPoint != "charged pay_1 ch_1" {
		t.Fatalf("an in-flight record a week old, claimed with its body: %+v; want a takeover at a greater fence from its recovery point", got)
	}
	// Nor does Purge drop it.
	if p, ok := s.(interface {
		Purge(context.Context, time.Time) (int64, error)
	}); ok {
		if _, err := p.Purge(ctx, week.Add(365*24*time.Hour)); err != nil {
			t.Fatal(err)
		}
		mustGet(t, s, "acct_1", "k_2")
	}
}

func testAccountIsolation(t *testing.T, s ledger.Store) {
	a := mustClaim(t, s, claim("acct_a", "k_1", "fp_a", T0), true)
	b := mustClaim(t, s, claim("acct_b", "k_1", "fp_b", T0), true)
	// Strings that would collide if account and key were joined with ':'.
	mustClaim(t, s, claim("acct_a:x", "y", "fp_c", T0), true)
	mustClaim(t, s, claim("acct_a", "x:y", "fp_d", T0), true)
	a.Status, a.Body = 201, []byte("a")
	if err := s.Complete(ctx, a); err != nil {
		t.Fatal(err)
	}
	if r := mustGet(t, s, "acct_b", "k_1"); r.State != idem.InFlight || r.Fingerprint != "fp_b" {
		t.Fatalf("acct_b's record changed with acct_a's: %+v", r)
	}
	if err := s.Release(ctx, b); err != nil {
		t.Fatal(err)
	}
	if r := mustGet(t, s, "acct_a", "k_1"); r.State != idem.Done || string(r.Body) != "a" {
		t.Fatalf("acct_a's record after acct_b's release: %+v", r)
	}
	if r := mustGet(t, s, "acct_a:x", "y"); r.Fingerprint != "fp_c" {
		t.Fatalf("record %+v", r)
	}
}

func testBinaryBody(t *testing.T, s ledger.Store) {
	body := make([]byte, 256)
	for i := range body {
		body[i] = byte(i)
	}
	rec := mustClaim(t, s, claim("acct_1", "k_1", "fp_a", T0), true)
	rec.Status, rec.Body = 500, body
	if err := s.Complete(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, s, "acct_1", "k_1"); !bytes.Equal(got.Body, body) || got.Status != 500 {
		t.Fatalf("body came back as %q (status %d)", got.Body, got.Status)
	}
	// An empty saved body is kept as empty, not lost.
	rec = mustClaim(t, s, claim("acct_1", "k_2", "fp_a", T0), true)
	rec.Status, rec.Body = 204, []byte{}
	if err := s.Complete(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, s, "acct_1", "k_2"); len(got.Body) != 0 || got.Status != 204 || got.State != idem.Done {
		t.Fatalf("empty body: %+v", got)
	}
}

func testConcurrentClaims(t *testing.T, s ledger.Store) {
	// 100 claims of one key at once: exactly one wins, and every loser
	// sees the winner's record.
	const n = 100
	var wg sync.WaitGroup
	start := make(chan struct{})
	won := make(chan idem.Record, n)
	errs := make(chan error, n)
	seen := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			rec := claim("acct_1", "k_1", "fp_"+strconv.Itoa(i%2), T0)
			got, ok, err := s.Claim(ctx, rec)
			switch {
			case err != nil:
				errs <- err
			case ok:
				won <- got
			default:
				seen <- got.Fingerprint
			}
		}(i)
	}
	close(start)
	wg.Wait()
	close(won)
	close(errs)
	close(seen)
	for err := range errs {
		t.Fatalf("concurrent Claim: %v", err)
	}
	var winners []idem.Record
	for r := range won {
		winners = append(winners, r)
	}
	if len(winners) != 1 {
		t.Fatalf("%d claims won, want 1", len(winners))
	}
	for fp := range seen {
		if fp != winners[0].Fingerprint {
			t.Fatalf("a loser saw fingerprint %s, the winner stored %s", fp, winners[0].Fingerprint)
		}
	}
}

// holding claims (account, key) and returns the claim, whose fence the
// ledger's writes carry.
func holding(t *testing.T, s ledger.Store, account, key string) idem.Record {
	t.Helper()
	return mustClaim(t, s, claim(account, key, "fp_"+key, T0), true)
}

func testLedgerCharge(t *testing.T, s ledger.Store) {
	k1 := holding(t, s, "acct_1", "k_1")
	c := ledger.Charge{ID: "ch_1", Account: "acct_1", PaymentID: "pay_1", Amount: 2500, Currency: "usd", Key: "k_1", Created: T0, Fence: k1.Fence}
	got, created, err := s.Charge(ctx, c)
	c.Fence = 0 // not kept
	if err != nil || !created || got != c {
		t.Fatalf("first Charge = %+v, %v, %v", got, created, err)
	}
	again := c
	again.ID, again.Amount, again.Created, again.Fence = "ch_2", 9900, T0.Add(time.Second), k1.Fence
	got, created, err = s.Charge(ctx, again)
	if err != nil || created || got.ID != "ch_1" || got.Amount != 2500 || !got.Created.Equal(T0) {
		t.Fatalf("second Charge for pay_1 = %+v, %v, %v; want ch_1 back, nothing new", got, created, err)
	}
	other := again
	other.PaymentID = "pay_2"
	if _, created, err := s.Charge(ctx, other); err != nil || !created {
		t.Fatalf("Charge for pay_2 = %v, %v", created, err)
	}
	if list, more, err := s.Charges(ctx, "acct_1", ledger.Page{Limit: 10}); err != nil || len(list) != 2 || more {
		t.Fatalf("Charges = %d (more: %v), %v; want 2", len(list), more, err)
	}
}

// A claimant that lost its key to a takeover can neither charge nor save
// a payment, though it holds a fence that once was good; the takeover can.
func testLedgerFence(t *testing.T, s ledger.Store) {
	first := holding(t, s, "acct_1", "k_1")
	lapsed := first.LockedUntil
	second := mustClaim(t, s, claim("acct_1", "k_1", "fp_k_1", lapsed), true)
	c := ledger.Charge{ID: "ch_1", Account: "acct_1", PaymentID: "pay_1", Amount: 2500, Currency: "usd", Key: "k_1", Created: T0, Fence: first.Fence}
	if got, created, err := s.Charge(ctx, c); !errors.Is(err, idem.ErrNotHeld) || created {
		t.Fatalf("Charge at the lost fence %d = %+v, %v, %v; want ErrNotHeld", first.Fence, got, created, err)
	}
	p := ledger.Payment{ID: "pay_1", Account: "acct_1", Amount: 2500, Currency: "usd",
		Status: ledger.PaymentSucceeded, Key: "k_1", Created: T0, Fence: first.Fence}
	if _, err := s.SavePayment(ctx, p); !errors.Is(err, idem.ErrNotHeld) {
		t.Fatalf("SavePayment at the lost fence: %v; want ErrNotHeld", err)
	}
	// Another account's claim of the same key and fence lends nothing.
	other := holding(t, s, "acct_2", "k_1")
	c2 := c
	c2.Account, c2.PaymentID, c2.ID = "acct_2", "pay_9", "ch_9"
	c2.Fence = other.Fence
	if _, _, err := s.Charge(ctx, c2); err != nil {
		t.Fatalf("acct_2's own charge at fence %d: %v", c2.Fence, err)
	}
	c3 := c
	c3.PaymentID, c3.ID, c3.Account, c3.Key, c3.Fence = "pay_8", "ch_8", "acct_2", "k_other", other.Fence
	if _, _, err := s.Charge(ctx, c3); !errors.Is(err, idem.ErrNotHeld) {
		t.Fatalf("a charge for a key nobody claimed: %v; want ErrNotHeld", err)
	}
	if list, _, _ := s.Charges(ctx, "acct_1", ledger.Page{Limit: 10}); len(list) != 0 {
		t.Fatalf("acct_1 has charges %+v after refused ones", list)
	}
	c.Fence = second.Fence
	if _, created, err := s.Charge(ctx, c); err != nil || !created {
		t.Fatalf("the takeover's Charge = %v, %v", created, err)
	}
	// Once charged, the lost claimant learns of that charge, and takes none.
	c.Fence, c.ID = first.Fence, "ch_2"
	if got, created, err := s.Charge(ctx, c); err != nil || created || got.ID != "ch_1" {
		t.Fatalf("the lost claimant's Charge after the takeover's = %+v, %v, %v; want ch_1 back", got, created, err)
	}
	// And after the key is done, nothing more is charged under it.
	second.Status, second.Body = 201, []byte("ok")
	if err := s.Complete(ctx, second); err != nil {
		t.Fatal(err)
	}
	c.PaymentID, c.ID, c.Fence = "pay_3", "ch_3", second.Fence
	if _, _, err := s.Charge(ctx, c); !errors.Is(err, idem.ErrNotHeld) {
		t.Fatalf("Charge under a completed key: %v; want ErrNotHeld", err)
	}
}

func testLedgerPayments(t *testing.T, s ledger.Store) {
	k1 := holding(t, s, "acct_1", "k_1")
	p := ledger.Payment{ID: "pay_1", Account: "acct_1", Amount: 2500, Currency: "usd",
		Status: ledger.PaymentSucceeded, ChargeID: "ch_1", Key: "k_1", Created: T0, Fence: k1.Fence}
	got, err := s.SavePayment(ctx, p)
	p.Fence = 0 // not kept
	if err != nil || got != p {
		t.Fatalf("SavePayment = %+v, %v", got, err)
	}
	later := p
	later.Status, later.ChargeID, later.Fence = ledger.PaymentDeclined, "", k1.Fence
	if got, err := s.SavePayment(ctx, later); err != nil || got != p {
		t.Fatalf("second SavePayment = %+v, %v; want the first kept", got, err)
	}
	if got, ok, err := s.Payment(ctx, "acct_1", "pay_1"); err != nil || !ok || got != p {
		t.Fatalf("Payment = %+v, %v, %v", got, ok, err)
	}
	if _, ok, err := s.Payment(ctx, "acct_2", "pay_1"); err != nil || ok {
		t.Fatalf("another account's Payment = %v, %v; want none", ok, err)
	}
	if _, ok, err := s.Payment(ctx, "acct_1", "pay_2"); err != nil || ok {
		t.Fatalf("absent Payment = %v, %v", ok, err)
	}
}

func testLedgerListing(t *testing.T, s ledger.Store) {
	k1 := holding(t, s, "acct_1", "k_1")
	// ch_3 and ch_4 are taken at the same instant: the later taken is newer.
	at := []int{1, 2, 3, 3, 5}
	for i := 1; i <= 5; i++ {
		c := ledger.Charge{ID: "ch_" + strconv.Itoa(i), Account: "acct_1", PaymentID: "pay_" + strconv.Itoa(i), Key: "k_1",
			Amount: int64(100 * i), Currency: "usd", Created: T0.Add(time.Duration(at[i-1]) * time.Second), Fence: k1.Fence}
		if _, _, err := s.Charge(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	kx := holding(t, s, "acct_2", "k_x")
	if _, _, err := s.Charge(ctx, ledger.Charge{ID: "ch_x", Account: "acct_2", PaymentID: "pay_x", Key: "k_x", Amount: 1, Currency: "eur", Created: T0, Fence: kx.Fence}); err != nil {
		t.Fatal(err)
	}
	ids := func(list []ledger.Charge) string {
		var out []string
		for _, c := range list {
			out = append(out, c.ID)
		}
		return strings.Join(out, ",")
	}
	// Page through, two at a time, as a client following has_more would.
	var pages []string
	after := ""
	for range 4 {
		list, more, err := s.Charges(ctx, "acct_1", ledger.Page{Limit: 2, StartingAfter: after})
		if err != nil {
			t.Fatalf("Charges(limit 2, after %q) = %d, %v", after, len(list), err)
		}
		pages = append(pages, ids(list)+map[bool]string{true: "+", false: ""}[more])
		if !more {
			break
		}
		after = list[len(list)-1].ID
	}
	if got, want := strings.Join(pages, " | "), "ch_5,ch_4+ | ch_3,ch_2+ | ch_1"; got != want {
		t.Fatalf("pages (+ for has_more) = %s, want %s (newest first)", got, want)
	}
	if list, more, err := s.Charges(ctx, "acct_1", ledger.Page{Limit: 3}); err != nil || ids(list) != "ch_5,ch_4,ch_3" || !more {
		t.Fatalf("Charges(limit 3) = %s (more %v), %v", ids(list), more, err)
	}
	if list, more, err := s.Charges(ctx, "acct_1", ledger.Page{Limit: 5}); err != nil || len(list) != 5 || more {
		t.Fatalf("Charges(limit 5) = %s (more %v), %v; want all, no more", ids(list), more, err)
	}
	if _, _, err := s.Charges(ctx, "acct_1", ledger.Page{Limit: 2, StartingAfter: "ch_x"}); !errors.Is(err, ledger.ErrNoSuchCharge) {
		t.Fatalf("a cursor from another account: %v, want ErrNoSuchCharge", err)
	}
	if list, _, _ := s.Charges(ctx, "acct_3", ledger.Page{Limit: 10}); len(list) != 0 {
		t.Fatalf("an unknown account has %d charges", len(list))
	}
}

// purger is a store that deletes what expired (both stores here are).
type purger interface {
	Purge(ctx context.Context, now time.Time) (int64, error)
}

// Purge deletes the expired keys and, with them, the payments and the
// charges they made: what a store holds is what its live keys made, so
// that it is bounded as its keys are. A live key's are kept, those of
// its past lives too if it was claimed again after expiring (they go
// with it).
func testPurgeForgetsTheLedger(t *testing.T, s ledger.Store) {
	p, ok := s.(purger)
	if !ok {
		t.Skip("the store has no Purge")
	}
	pay := func(key, id string, at time.Time) {
		rec := mustClaim(t, s, claim("acct_1", key, "fp", at), true)
		if _, _, err := s.Charge(ctx, ledger.Charge{ID: "ch_" + id, Account: "acct_1", PaymentID: "pay_" + id, Amount: 100,
			Currency: "usd", Key: key, Created: at, Fence: rec.Fence}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SavePayment(ctx, ledger.Payment{ID: "pay_" + id, Account: "acct_1", Amount: 100, Currency: "usd",
			Status: ledger.PaymentSucceeded, ChargeID: "ch_" + id, Key: key, Created: at, Fence: rec.Fence}); err != nil {
			t.Fatal(err)
		}
		rec.Status, rec.ExpiresAt = 201, at.Add(time.Hour)
		if err := s.Complete(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	pay("k_old", "old", T0)
	pay("k_again", "first", T0)
	pay("k_again", "second", T0.Add(2*time.Hour)) // k_again's first life expired at T0+1h
	pay("k_live", "live", T0.Add(2*time.Hour))
	if n, err := p.Purge(ctx, T0.Add(2*time.Hour)); err != nil || n != 1 {
		t.Fatalf("Purge = %d, %v; want k_old's record deleted", n, err)
	}
	list, _, err := s.Charges(ctx, "acct_1", ledger.Page{Limit: 10})
	var ids []string
	for _, c := range list {
		ids = append(ids, c.ID)
	}
	slices.Sort(ids)
	if err != nil || strings.Join(ids, ",") != "ch_first,ch_live,ch_second" {
		t.Fatalf("charges after the purge: %v, %v; want ch_first,ch_live,ch_second", ids, err)
	}
	for id, want := range map[string]bool{"pay_old": false, "pay_first": true, "pay_second": true, "pay_live": true} {
		if _, ok, err := s.Payment(ctx, "acct_1", id); err != nil || ok != want {
			t.Errorf("payment %s after the purge: %v, %v; want kept %v", id, ok, err, want)
		}
	}
	// Once k_again expires, what both its lives made goes with it.
	if _, err := p.Purge(ctx, T0.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if list, _, err := s.Charges(ctx, "acct_1", ledger.Page{Limit: 10}); err != nil || len(list) != 0 {
		t.Fatalf("charges once every key expired: %v, %v; want none", list, err)
	}
}
