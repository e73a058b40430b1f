package storetest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/idemhttp"
	"github.com/retrylab/retrylab/engine/idem/ledger"
)

const (
	body2500  = `{"amount":2500,"currency":"usd"}`
	reordered = "{\n  \"currency\": \"usd\",\n  \"amount\": 2500\n}"
	body9900  = `{"amount":9900,"currency":"usd"}`
)

// api is a handler on a store and a manual clock, and a client of it.
type api struct {
	t     *testing.T
	store ledger.Store
	clock *idem.ManualClock
	h     *idemhttp.Sandbox
}

func newAPI(t *testing.T, s ledger.Store) *api {
	clock := idem.NewManualClock(T0)
	return &api{t: t, store: s, clock: clock, h: &idemhttp.Sandbox{Store: s, Clock: clock, Lease: 30 * time.Second}}
}

// reply is a response as the tests read it.
type reply struct {
	Status   int
	Replayed bool
	Header   http.Header
	Body     string
	ID       string // the body's "id"
	Payment  string // the body's "payment" (a declined card's problem)
}

func (a *api) do(method, path, token, key, body string, faults ...string) reply {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if key != "" {
		req.Header.Set(idemhttp.KeyHeader, key)
	}
	for _, f := range faults {
		req.Header.Add(idemhttp.FaultHeader, f)
	}
	rec := httptest.NewRecorder()
	a.h.ServeHTTP(rec, req)
	r := reply{Status: rec.Code, Header: rec.Header(), Body: rec.Body.String(),
		Replayed: rec.Header().Get(idemhttp.ReplayedHeader) == "true"}
	var ids struct{ ID, Payment string }
	json.Unmarshal(rec.Body.Bytes(), &ids)
	r.ID, r.Payment = ids.ID, ids.Payment
	return r
}

func (a *api) pay(token, key, body string, faults ...string) reply {
	return a.do("POST", "/v1/payments", token, key, body, faults...)
}

// expect checks a reply's status and whether it was replayed.
func (a *api) expect(what string, r reply, status int, replayed bool) reply {
	a.t.Helper()
	if r.Status != status || r.Replayed != replayed {
		a.t.Fatalf("%s: %d (replayed %v), want %d (replayed %v)\n%s", what, r.Status, r.Replayed, status, replayed, r.Body)
	}
	ct := r.Header.Get("Content-Type")
	if status >= 400 && ct != "application/problem+json" || status < 300 && ct != "application/json" {
		a.t.Fatalf("%s: Content-Type %q for a %d", what, ct, status)
	}
	return r
}

// charges returns the payments of the account's charges, through GET
// /v1/charges, following has_more page by page.
func (a *api) charges(token string) (payments []string) {
	a.t.Helper()
	after := ""
	for {
		r := a.do("GET", "/v1/charges?limit=1000&starting_after="+after, token, "", "")
		if r.Status != 200 {
			a.t.Fatalf("GET /v1/charges: %d %s", r.Status, r.Body)
		}
		var list struct {
			HasMore bool `json:"has_more"`
			Data    []struct{ ID, Payment string }
		}
		if err := json.Unmarshal([]byte(r.Body), &list); err != nil {
			a.t.Fatalf("GET /v1/charges: %v in %s", err, r.Body)
		}
		for _, c := range list.Data {
			payments = append(payments, c.Payment)
		}
		if !list.HasMore || len(list.Data) == 0 {
			return payments
		}
		after = list.Data[len(list.Data)-1].ID
	}
}

func (a *api) wantCharges(token string, want int) []string {
	a.t.Helper()
	payments := a.charges(token)
	if len(payments) != want {
		a.t.Fatalf("%d charges, want %d", len(payments), want)
	}
	return payments
}

func testHTTPNewAndReplay(t *testing.T, s ledger.Store) {
	a := newAPI(t, s)
	first := a.expect("new key", a.pay("tok", "k_1", body2500), 201, false)
	if !strings.HasPrefix(first.ID, "pay_") || first.Header.Get("Location") != "/v1/payments/"+first.ID ||
		first.Header.Get(idemhttp.KeyHeader) != "k_1" {
		t.Fatalf("201 without the payment's id, Location or key: %v %s", first.Header, first.Body)
	}
	a.clock.Advance(time.Second)
	// The retry has its members reordered and spaced: the same fingerprint.
	again := a.expect("retry", a.pay("tok", "k_1", reordered), 201, true)
	if again.Body != first.Body {
		t.Fatalf("replayed body differs:\n%s\n%s", again.Body, first.Body)
	}
	a.expect("the key with another body", a.pay("tok", "k_1", body9900), 422, false)
	a.expect("and the original again", a.pay("tok", "k_1", body2500), 201, true)
	got := a.expect("GET the payment", a.do("GET", "/v1/payments/"+first.ID, "tok", "", ""), 200, false)
	var p struct {
		Status, Charge, Currency string
		Amount                   int64
	}
	json.Unmarshal([]byte(got.Body), &p)
	if p.Status != "succeeded" || p.Amount != 2500 || p.Currency != "usd" || !strings.HasPrefix(p.Charge, "ch_") {
		t.Fatalf("payment %s", got.Body)
	}
	if ps := a.wantCharges("tok", 1); ps[0] != first.ID {
		t.Fatalf("the charge is for %s, want %s", ps[0], first.ID)
	}
}

func testHTTPInFlight(t *testing.T, s ledger.Store) {
	a := newAPI(t, s)
	done := make(chan reply)
	go func() { done <- a.pay("tok", "k_1", body2500, "slow=400") }()
	// The first request holds the key and waits, on the manual clock.
	a.waitSleepers(1)
	busy := a.expect("retry while the first runs", a.pay("tok", "k_1", reordered), 409, false)
	if busy.Header.Get("Retry-After") != "30" {
		t.Fatalf("409 with Retry-After %q, want 30 (the lease left)", busy.Header.Get("Retry-After"))
	}
	a.clock.Advance(250 * time.Millisecond)
	busy = a.expect("retry 250 ms later", a.pay("tok", "k_1", reordered), 409, false)
	if busy.Header.Get("Retry-After") != "30" {
		t.Fatalf("409 with Retry-After %q, want 30 (29.75 s left, rounded up)", busy.Header.Get("Retry-After"))
	}
	a.expect("another body while the first runs", a.pay("tok", "k_1", body9900), 422, false)
	a.clock.Advance(150 * time.Millisecond)
	first := a.expect("the first request", <-done, 201, false)
	if r := a.expect("retry after it finished", a.pay("tok", "k_1", body2500), 201, true); r.ID != first.ID {
		t.Fatalf("replay of %s, want %s", r.ID, first.ID)
	}
	a.wantCharges("tok", 1)
}

// idemAccount is the account a token names.
func idemAccount(t *testing.T, token string) string {
	acct, err := idemhttp.AccountOf("Bearer " + token)
	if err != nil {
		t.Fatal(err)
	}
	return acct
}

func testHTTPThousand(t *testing.T, s ledger.Store) {
	// 1,000 identical requests at once, with one key: one charge, one 201,
	// and every other answer a 409 or a replay of that 201. Then again
	// with another key, its winner slowed down by 200 ms (on the manual
	// clock, moved only once every other request was answered) so that all
	// the others find it still in flight.
	a := newAPI(t, s)
	thousand(t, a, "tok", "k_1", false)
	thousand(t, a, "tok_slow", "k_1", true, "slow=200")
}

// thousand sends n identical requests at once. With inFlight, the winner
// is slowed down, so a store that never reports a claim in flight (say, one
// that serialises claims behind the work) fails: some answers must be 409.
func thousand(t *testing.T, a *api, token, key string, inFlight bool, faults ...string) {
	const n = 1000
	var wg sync.WaitGroup
	start := make(chan struct{})
	replies := make([]reply, n)
	var answered atomic.Int32
	for i := range replies {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			replies[i] = a.pay(token, key, body2500, faults...)
			answered.Add(1)
		}(i)
	}
	close(start)
	if inFlight {
		// The winner sleeps; the others answer; then the winner wakes.
		for deadline := time.Now().Add(30 * time.Second); a.clock.Sleepers() < 1 || answered.Load() < n-1; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("after 30 s: %d asleep, %d answered", a.clock.Sleepers(), answered.Load())
			}
		}
		a.clock.Advance(200 * time.Millisecond)
	}
	wg.Wait()
	var created, replayed, conflict int
	var first reply
	for _, r := range replies {
		switch {
		case r.Status == 201 && !r.Replayed:
			created++
			first = r
		case r.Status == 201:
			replayed++
		case r.Status == 409:
			conflict++
		default:
			t.Fatalf("an answer %d: %s", r.Status, r.Body)
		}
	}
	t.Logf("%d requests %v: %d created, %d replayed, %d conflict", n, faults, created, replayed, conflict)
	if created != 1 || replayed+conflict != n-1 {
		t.Fatalf("%d created, %d replayed, %d conflict; want 1 created", created, replayed, conflict)
	}
	if inFlight && conflict == 0 {
		t.Fatalf("no 409 while the winner worked for 200 ms: %d created, %d replayed", created, replayed)
	}
	for _, r := range replies {
		if r.Status == 201 && r.Body != first.Body {
			t.Fatalf("a replay differs from the 201:\n%s\n%s", r.Body, first.Body)
		}
	}
	if ps := a.wantCharges(token, 1); ps[0] != first.ID {
		t.Fatalf("the charge is for %s, want %s", ps[0], first.ID)
	}
}

func testHTTPExpiry(t *testing.T, s ledger.Store) {
	a := newAPI(t, s)
	first := a.expect("new key", a.pay("tok", "k_1", body2500), 201, false)
	a.clock.Advance(idem.DefaultTTL - time.Microsecond)
	a.expect("retry just before expiry", a.pay("tok", "k_1", body2500), 201, true)
	a.clock.Advance(time.Microsecond)
	second := a.expect("the same key 24 h later", a.pay("tok", "k_1", body9900), 201, false)
	if second.ID == first.ID {
		t.Fatal("the expired key replayed its old payment")
	}
	a.wantCharges("tok", 2)
}

func testHTTPTakeover(t *testing.T, s ledger.Store) {
	a := newAPI(t, s)
	acct := idemAccount(t, "tok")
	// The server dies after charging: no answer (a 502 where the
	// connection cannot be dropped, as with this recorder).
	a.expect("crash after charge", a.pay("tok", "k_1", body2500, "crash-after-charge"), 502, false)
	rec := mustGet(t, s, acct, "k_1")
	fields := strings.Fields(rec.RecoveryPoint)
	if rec.State != idem.InFlight || len(fields) != 3 || fields[0] != "charged" {
		t.Fatalf("after the crash the record is %+v, want in flight with recovery point \"charged PAY CH\"", rec)
	}
	a.wantCharges("tok", 1)
	// Within the lease the crashed claim still holds.
	a.clock.Advance(30*time.Second - time.Microsecond)
	a.expect("retry within the lease", a.pay("tok", "k_1", body2500), 409, false)
	a.clock.Advance(time.Microsecond)
	// A retry that also asks for the crash does not crash: it charges
	// nothing, so there is no "after charge".
	r := a.expect("retry after the lease", a.pay("tok", "k_1", body2500, "crash-after-charge"), 201, false)
	if r.ID != fields[1] {
		t.Fatalf("the takeover made payment %s, want %s from the recovery point", r.ID, fields[1])
	}
	if ps := a.wantCharges("tok", 1); ps[0] != fields[1] {
		t.Fatalf("charge for %s", ps[0])
	}
	if got := a.expect("the payment", a.do("GET", "/v1/payments/"+r.ID, "tok", "", ""), 200, false); !strings.Contains(got.Body, `"charge": "`+fields[2]+`"`) {
		t.Fatalf("payment %s does not name charge %s", got.Body, fields[2])
	}
	a.expect("and again", a.pay("tok", "k_1", body2500), 201, true)
}

func testHTTPTakeoverUncheckpointed(t *testing.T, s ledger.Store) {
	// A claimant that chose its payment, charged, and died before it could
	// record the charge: the takeover charges again through the ledger,
	// which gives back the one charge.
	a := newAPI(t, s)
	acct := idemAccount(t, "tok")
	fp, _ := idem.Fingerprint([]byte(body2500))
	rec := mustClaim(t, s, claim(acct, "k_1", fp, T0), true)
	rec.RecoveryPoint = "payment pay_crashed"
	if err := s.Checkpoint(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Charge(ctx, ledger.Charge{ID: "ch_crashed", Account: acct, PaymentID: "pay_crashed",
		Amount: 2500, Currency: "usd", Key: "k_1", Created: T0, Fence: rec.Fence}); err != nil {
		t.Fatal(err)
	}
	a.clock.Advance(30 * time.Second)
	r := a.expect("takeover", a.pay("tok", "k_1", body2500), 201, false)
	if r.ID != "pay_crashed" || !strings.Contains(r.Body, `"charge": "ch_crashed"`) {
		t.Fatalf("takeover answered %s, want pay_crashed with ch_crashed", r.Body)
	}
	a.wantCharges("tok", 1)
}

func testHTTPAccounts(t *testing.T, s ledger.Store) {
	a := newAPI(t, s)
	pa := a.expect("account a", a.pay("tok_a", "k_1", body2500), 201, false)
	pb := a.expect("account b, same key, another body", a.pay("tok_b", "k_1", body9900), 201, false)
	if pa.ID == pb.ID {
		t.Fatal("two accounts got one payment")
	}
	a.expect("a's payment seen by b", a.do("GET", "/v1/payments/"+pa.ID, "tok_b", "", ""), 404, false)
	a.expect("a's payment seen by a", a.do("GET", "/v1/payments/"+pa.ID, "tok_a", "", ""), 200, false)
	a.wantCharges("tok_a", 1)
	a.wantCharges("tok_b", 1)
	a.wantCharges("tok_c", 0)
}

func testHTTPRelease(t *testing.T, s ledger.Store) {
	a := newAPI(t, s)
	r := a.expect("card network down", a.pay("tok", "k_1", body2500, "unavailable"), 503, false)
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
	if _, ok, _ := s.Get(ctx, idemAccount(t, "tok"), "k_1"); ok {
		t.Fatal("a failure where nothing happened left the key stored")
	}
	a.wantCharges("tok", 0)
	// The retry runs afresh, even with another body: nothing was saved.
	a.expect("retry", a.pay("tok", "k_1", body9900), 201, false)
	a.wantCharges("tok", 1)
}

func testHTTPDecline(t *testing.T, s ledger.Store) {
	a := newAPI(t, s)
	first := a.expect("declined", a.pay("tok", "k_1", body2500, "decline"), 402, false)
	if !strings.HasPrefix(first.Payment, "pay_") {
		t.Fatalf("402 does not name its payment: %s", first.Body)
	}
	// The failure happened after the work began: it is saved and replayed,
	// the retry is not charged.
	again := a.expect("retry", a.pay("tok", "k_1", body2500), 402, true)
	if again.Body != first.Body {
		t.Fatalf("replayed 402 differs:\n%s\n%s", again.Body, first.Body)
	}
	a.wantCharges("tok", 0)
	got := a.expect("the declined payment", a.do("GET", "/v1/payments/"+first.Payment, "tok", "", ""), 200, false)
	if !strings.Contains(got.Body, `"status": "declined"`) {
		t.Fatalf("payment %s", got.Body)
	}
}

func testHTTPLostResponse(t *testing.T, s ledger.Store) {
	a := newAPI(t, s)
	// The answer is lost (504 where the connection cannot be dropped);
	// the retry with the same key gets the payment, charged once.
	a.expect("response lost", a.pay("tok", "k_1", body2500, "lose-response"), 504, false)
	r := a.expect("retry", a.pay("tok", "k_1", body2500), 201, true)
	if ps := a.wantCharges("tok", 1); ps[0] != r.ID {
		t.Fatalf("charge for %s, replay of %s", ps[0], r.ID)
	}
	// A client that makes a new key for its retry is charged twice.
	a.expect("response lost", a.pay("tok", "k_2", body2500, "lose-response"), 504, false)
	a.expect("retry with a new key", a.pay("tok", "k_3", body2500), 201, false)
	a.wantCharges("tok", 3)
	// A lost request does nothing at all.
	a.expect("request lost", a.pay("tok", "k_4", body2500, "lose-request"), 504, false)
	if _, ok, _ := s.Get(ctx, idemAccount(t, "tok"), "k_4"); ok {
		t.Fatal("a lost request left its key stored")
	}
	a.wantCharges("tok", 3)
}

// withWindows sets the handler's lease and TTL.
func (a *api) withWindows(lease, ttl time.Duration) *api {
	a.h.Lease, a.h.TTL = lease, ttl
	return a
}

// The crashed claim outlives the TTL: with keys kept 5 s and a lease of a
// minute, a retry 5.2 s after a crash that charged waits for the lease
// (Retry-After says how long) and then finishes that payment; it never
// makes a second one.
func testHTTPCrashOutlivesTTL(t *testing.T, s ledger.Store) {
	a := newAPI(t, s).withWindows(time.Minute, 5*time.Second)
	a.expect("crash after charge", a.pay("tok", "k_1", body2500, "crash-after-charge"), 502, false)
	r := a.expect("retry at once", a.pay("tok", "k_1", body2500), 409, false)
	if got := r.Header.Get("Retry-After"); got != "60" {
		t.Fatalf("Retry-After %q at once, want 60 (the lease left)", got)
	}
	a.clock.Advance(5200 * time.Millisecond)
	r = a.expect("retry at 5.2 s, past the TTL", a.pay("tok", "k_1", body2500), 409, false)
	if got := r.Header.Get("Retry-After"); got != "55" {
		t.Fatalf("Retry-After %q at 5.2 s, want 55 (54.8 s left, rounded up)", got)
	}
	a.clock.Advance(54800 * time.Millisecond)
	done := a.expect("retry when the lease ends", a.pay("tok", "k_1", body2500), 201, false)
	if ps := a.wantCharges("tok", 1); ps[0] != done.ID {
		t.Fatalf("the charge is for %s, the answer for %s", ps[0], done.ID)
	}
	// From its completion the key is remembered 5 s, then it is new.
	a.clock.Advance(5*time.Second - time.Microsecond)
	a.expect("replay before the TTL", a.pay("tok", "k_1", body2500), 201, true)
	a.clock.Advance(time.Microsecond)
	a.expect("the same key after the TTL", a.pay("tok", "k_1", body2500), 201, false)
	a.wantCharges("tok", 2)
}

// A slow first request outlives its lease and the TTL: the retry takes
// over, and when the first wakes it can charge nothing, since its fence
// is stale. One charge, one payment.
func testHTTPSlowClaimantFenced(t *testing.T, s ledger.Store) {
	a := newAPI(t, s).withWindows(5*time.Second, 8*time.Second)
	first := make(chan reply)
	go func() { first <- a.pay("tok", "k_1", body2500, "slow=10000") }()
	a.waitSleepers(1)
	a.clock.Advance(8300 * time.Millisecond)
	second := a.expect("retry at 8.3 s", a.pay("tok", "k_1", body2500), 201, false)
	a.clock.Advance(1700 * time.Millisecond) // the first wakes at 10 s
	r := <-first
	if r.Status == 201 && r.ID != second.ID {
		t.Fatalf("the slow first request made payment %s beside the retry's %s", r.ID, second.ID)
	}
	if ps := a.wantCharges("tok", 1); ps[0] != second.ID {
		t.Fatalf("charge for %s, want %s", ps[0], second.ID)
	}
	a.expect("a later retry", a.pay("tok", "k_1", body2500), 201, true)
}

// waitSleepers waits until n requests sleep on the manual clock.
func (a *api) waitSleepers(n int) {
	a.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for a.clock.Sleepers() < n {
		if time.Now().After(deadline) {
			a.t.Fatalf("%d requests asleep after 10 s, want %d", a.clock.Sleepers(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// Currency codes are compared without case: "USD" then "usd" under one
// key is one payment; an unknown code is refused.
func testHTTPCurrencyCase(t *testing.T, s ledger.Store) {
	a := newAPI(t, s)
	first := a.expect("USD", a.pay("tok", "k_1", `{"amount":2500,"currency":"USD"}`), 201, false)
	again := a.expect("usd", a.pay("tok", "k_1", body2500), 201, true)
	if again.ID != first.ID || !strings.Contains(first.Body, `"currency": "usd"`) {
		t.Fatalf("USD then usd: %s then %s", first.Body, again.Body)
	}
	a.expect("zzz", a.pay("tok", "k_2", `{"amount":2500,"currency":"zzz"}`), 400, false)
	a.wantCharges("tok", 1)
}

// A sweep finishes every abandoned claim as a takeover would: a crash
// after the charge becomes its 201, saved for the client's retry, which
// is replayed and charges nothing more; a claim whose claimant charged
// nothing (it died before, or had not begun) is released, and its retry
// pays once; a declined payment saved before the crash keeps its 402. A
// claim whose lease still runs is left alone.
func testHTTPSweep(t *testing.T, s ledger.Store) {
	a := newAPI(t, s)
	acct := idemAccount(t, "tok")
	a.expect("crash after charge", a.pay("tok", "k_charged", body2500, "crash-after-charge"), 502, false)
	fp, _ := idem.Fingerprint([]byte(body2500))
	abandon := func(key, point string) idem.Record {
		now := a.clock.Now()
		rec, claimed, err := s.Claim(ctx, idem.Record{Account: acct, Key: key, Fingerprint: fp, Created: now,
			ExpiresAt: now.Add(time.Hour), LockedUntil: now.Add(30 * time.Second)})
		if err != nil || !claimed {
			t.Fatalf("claiming %s: %v %v", key, claimed, err)
		}
		if point != "" {
			rec.RecoveryPoint = point
			if err := s.Checkpoint(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}
		return rec
	}
	abandon("k_nothing", "")
	abandon("k_begun", "payment pay_begun")
	dec := abandon("k_declined", "payment pay_declined")
	if _, err := s.SavePayment(ctx, ledger.Payment{ID: "pay_declined", Account: acct, Amount: 2500, Currency: "usd",
		Status: ledger.PaymentDeclined, Key: "k_declined", Created: dec.Created, Fence: dec.Fence}); err != nil {
		t.Fatal(err)
	}
	if sw, err := a.h.Sweep(ctx); err != nil || sw != (idemhttp.Swept{}) {
		t.Fatalf("a sweep within the leases: %+v, %v; want nothing done", sw, err)
	}
	a.clock.Advance(30 * time.Second)
	abandon("k_live", "payment pay_live") // its lease runs on: a claimant at work, as far as anyone knows
	if sw, err := a.h.Sweep(ctx); err != nil || sw != (idemhttp.Swept{Finished: 2, Dropped: 2}) {
		t.Fatalf("the sweep once the leases ended: %+v, %v; want 2 finished (charged, declined) and 2 dropped", sw, err)
	}
	if left, err := s.Abandoned(ctx, a.clock.Now(), 10); err != nil || len(left) != 0 {
		t.Fatalf("abandoned claims after the sweep: %v, %v", left, err)
	}
	if r, _, _ := s.Get(ctx, acct, "k_live"); r.State != idem.InFlight || r.RecoveryPoint != "payment pay_live" {
		t.Fatalf("the claim whose lease runs, after the sweep: %+v, want it as it was", r)
	}
	charged := a.expect("the crashed payment's retry", a.pay("tok", "k_charged", body2500), 201, true)
	if got := a.expect("its payment", a.do("GET", "/v1/payments/"+charged.ID, "tok", "", ""), 200, false); !strings.Contains(got.Body, `"succeeded"`) {
		t.Fatalf("the swept payment: %s", got.Body)
	}
	a.expect("the declined payment's retry", a.pay("tok", "k_declined", body2500), 402, true)
	for _, key := range []string{"k_nothing", "k_begun"} {
		if _, ok, _ := s.Get(ctx, acct, key); ok {
			t.Fatalf("%s was not released", key)
		}
		a.expect("the retry of "+key, a.pay("tok", key, body2500), 201, false)
	}
	a.wantCharges("tok", 3) // k_charged once, and the two retries
}

// Abandoned lists the in-flight claims whose lease ended, the earliest
// first, as many as asked; not a done one, nor one whose lease runs.
func testAbandoned(t *testing.T, s ledger.Store) {
	for _, c := range []struct {
		key string
		at  time.Duration
	}{{"k_2", 2 * time.Second}, {"k_1", time.Second}, {"k_3", 3 * time.Second}} {
		mustClaim(t, s, claim("acct_1", c.key, "fp", T0.Add(c.at)), true)
	}
	done := mustClaim(t, s, claim("acct_1", "k_done", "fp", T0), true)
	done.Status, done.State = 201, idem.Done
	if err := s.Complete(ctx, done); err != nil {
		t.Fatal(err)
	}
	list, err := s.Abandoned(ctx, T0.Add(32*time.Second), 10) // leases of 30 s: k_1 and k_2 ended
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range list {
		keys = append(keys, r.Key)
	}
	if strings.Join(keys, ",") != "k_1,k_2" {
		t.Fatalf("Abandoned = %v, want k_1,k_2", keys)
	}
	if list, _ := s.Abandoned(ctx, T0.Add(time.Hour), 2); len(list) != 2 || list[0].Key != "k_1" {
		t.Fatalf("Abandoned with a limit of 2: %v", list)
	}
}

// ChargeOf finds a payment's charge in its own account only.
func testLedgerChargeOf(t *testing.T, s ledger.Store) {
	rec := holding(t, s, "acct_1", "k")
	if _, _, err := s.Charge(ctx, ledger.Charge{ID: "ch_1", Account: "acct_1", PaymentID: "pay_1", Amount: 2500, Currency: "usd",
		Key: "k", Created: T0, Fence: rec.Fence}); err != nil {
		t.Fatal(err)
	}
	if c, ok, err := s.ChargeOf(ctx, "acct_1", "pay_1"); err != nil || !ok || c.ID != "ch_1" || c.Amount != 2500 {
		t.Fatalf("ChargeOf(acct_1, pay_1) = %+v, %v, %v", c, ok, err)
	}
	for _, q := range [][2]string{{"acct_2", "pay_1"}, {"acct_1", "pay_2"}} {
		if _, ok, err := s.ChargeOf(ctx, q[0], q[1]); err != nil || ok {
			t.Fatalf("ChargeOf(%s, %s) = %v, %v; want none", q[0], q[1], ok, err)
		}
	}
}
