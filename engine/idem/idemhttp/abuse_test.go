package idemhttp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/idemhttp"
	"github.com/retrylab/retrylab/engine/idem/ledger"
)

// maxEcho is the most an error answer or a log line may grow by for
// what a client sent: a short excerpt of each value, as idem.Excerpt
// cuts it (32 bytes, which JSON may write six times longer as \u003c
// escapes), and the fixed words around it.
const maxEcho = 1024

// No answer and no log line echoes more than a short excerpt of what the
// client sent, however much that was: a million-byte path, a member name
// of 65,000 characters, a key repeated at length.
func TestAnswersAndLogsEchoOnlyExcerpts(t *testing.T) {
	var lines []string
	h := &idemhttp.Sandbox{Store: ledger.NewMemoryStore(), Log: func(e idemhttp.Entry) { lines = append(lines, e.String()) }}
	angles := strings.Repeat("<", 1_000_000)
	member := strings.Repeat("<", 65_000)
	dup := strings.Repeat("<", 32_000)
	auth := []string{"Authorization", "Bearer t", "Idempotency-Key", "k"}
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
	}{
		{"a long path", "GET", "/" + angles, "", 404},
		{"a long payment id", "GET", "/v1/payments/" + angles, "", 404},
		{"a long problem code", "GET", "/v1/problems/" + angles, "", 404},
		{"a long unknown member", "POST", "/v1/payments", `{"` + member + `":1}`, 400},
		{"a long duplicate member", "POST", "/v1/payments", `{"` + dup + `":1,"` + dup + `":1}`, 400},
		{"a long method", strings.Repeat("X", 10_000), "/v1/payments", body2500, 405},
	} {
		lines = nil
		req := httptest.NewRequest("GET", "/", strings.NewReader(tc.body))
		req.Method = tc.method
		req.URL.Path = tc.path
		for i := 0; i < len(auth); i += 2 {
			req.Header.Set(auth[i], auth[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.status || rec.Body.Len() > maxEcho {
			t.Errorf("%s: %d, an answer of %d bytes (want %d, at most %d): %.200s", tc.name, rec.Code, rec.Body.Len(), tc.status, maxEcho, rec.Body)
		}
		if len(lines) != 1 || len(lines[0]) > maxEcho {
			t.Errorf("%s: log lines of %d bytes, want one of at most %d: %.200q", tc.name, len(strings.Join(lines, "")), maxEcho, lines)
		}
	}
}

// A log line is one line: a path with a newline in it (sent as %0A)
// cannot forge a second one.
func TestLogLineCannotBeForged(t *testing.T) {
	var lines []string
	h := &idemhttp.Sandbox{Store: ledger.NewMemoryStore(), Log: func(e idemhttp.Entry) { lines = append(lines, e.String()) }}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/x%0A12:00:00.000%20POST%20/v1/payments%20201%20executed", nil))
	if len(lines) != 1 || strings.ContainsAny(lines[0], "\r\n") {
		t.Fatalf("log %q: a path made more than one line", lines)
	}
}

// The refusals the protocol's edges call for, each with its own reason.
func TestRefusalsSayWhatWasWrong(t *testing.T) {
	h := &idemhttp.Sandbox{Store: ledger.NewMemoryStore()}
	key := []string{"Idempotency-Key", "k"}
	bearer := []string{"Authorization", "Bearer t"}
	with := func(hdr ...[]string) []string {
		var all []string
		for _, h := range hdr {
			all = append(all, h...)
		}
		return all
	}
	for _, tc := range []struct {
		name   string
		header []string
		status int
		typ    string
		detail string
		not    string // what the detail must not say
	}{
		{"no Authorization", with(key), 401, "unauthorized", "no Authorization header", "idemhttp"},
		{"a Basic scheme", with(key, []string{"Authorization", "Basic dTpw"}), 401, "unauthorized", "Basic", "idemhttp"},
		{"a token of two words", with(key, []string{"Authorization", "Bearer a b"}), 401, "unauthorized", "one word", "idemhttp"},
		{"an empty bearer token", with(key, []string{"Authorization", "Bearer "}), 401, "unauthorized", "empty", "idemhttp"},
		{"two Authorization headers", with(key, bearer, []string{"Authorization", "Bearer u"}), 401, "unauthorized", "more than one Authorization", ""},
		{"a key sent as an empty string", with(bearer, []string{"Idempotency-Key", `""`}), 400, "invalid-idempotency-key", "empty", "send an Idempotency-Key"},
		{"a bare key with commas", with(bearer, []string{"Idempotency-Key", "key,with,commas"}), 400, "invalid-idempotency-key", "comma", ""},
		{"two merged quoted keys", with(bearer, []string{"Idempotency-Key", `"a", "b"`}), 400, "invalid-idempotency-key", "", ""},
		{"a gzip body", with(bearer, key, []string{"Content-Encoding", "gzip"}), 415, "unsupported-content-encoding", "gzip", ""},
		{"a fault with a parameter", with(bearer, key, []string{"Retrylab-Fault", "decline;q=1"}), 400, "invalid-fault", `"decline" takes no parameters`, `"decline;q"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := serve(h, "POST", "/v1/payments", strings.NewReader(body2500), tc.header...)
			if rec.Code != tc.status {
				t.Fatalf("%d %s, want %d", rec.Code, rec.Body, tc.status)
			}
			typ, detail := problemOf(t, h, rec)
			if typ != "/v1/problems/"+tc.typ || !strings.Contains(detail, tc.detail) || tc.not != "" && strings.Contains(detail, tc.not) {
				t.Fatalf("type %s, detail %q; want type %s, detail saying %q and not %q", typ, detail, tc.typ, tc.detail, tc.not)
			}
		})
	}
	// A quoted key with a comma is one structured-field string: a key.
	rec := serve(h, "POST", "/v1/payments", strings.NewReader(body2500), with(bearer, []string{"Idempotency-Key", `"key,with,commas"`})...)
	if rec.Code != 201 {
		t.Fatalf(`Idempotency-Key: "key,with,commas": %d %s, want 201`, rec.Code, rec.Body)
	}
	// Identity is no encoding at all.
	rec = serve(h, "POST", "/v1/payments", strings.NewReader(body2500), with(bearer, []string{"Idempotency-Key", "k2", "Content-Encoding", "identity"})...)
	if rec.Code != 201 {
		t.Fatalf("Content-Encoding: identity: %d %s, want 201", rec.Code, rec.Body)
	}
	// Nothing refused was charged.
	if c := charges(t, h.Store); len(c) != 2 {
		t.Fatalf("%d charges, want the 2 accepted payments'", len(c))
	}
}

// shortBody hands out n bytes, then fails as the server's connection does
// when its client stops sending before the end of the Content-Length.
type shortBody struct {
	n   int
	err error
}

func (b *shortBody) Read(p []byte) (int, error) {
	if b.n == 0 {
		return 0, b.err
	}
	k := min(len(p), b.n)
	for i := range p[:k] {
		p[i] = ' '
	}
	b.n -= k
	return k, nil
}

// timeoutError is what a connection's read returns once its deadline
// passed.
type timeoutError struct{}

func (timeoutError) Error() string   { return "read tcp 127.0.0.1:18801->127.0.0.1:52180: i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// A body shorter than its Content-Length is refused for what it is, 408
// when the client went quiet and 400 when it hung up, without the
// connection's addresses.
func TestShortBodySaysSo(t *testing.T) {
	h := &idemhttp.Sandbox{Store: ledger.NewMemoryStore()}
	for _, tc := range []struct {
		err    error
		status int
		typ    string
	}{
		{timeoutError{}, 408, "request-timeout"},
		{io.ErrUnexpectedEOF, 400, "invalid-request"},
	} {
		req := httptest.NewRequest("POST", "/v1/payments", &shortBody{n: 10, err: tc.err})
		req.ContentLength = 100
		req.Header.Set("Authorization", "Bearer t")
		req.Header.Set("Idempotency-Key", "k")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		typ, detail := problemOf(t, h, rec)
		if rec.Code != tc.status || typ != "/v1/problems/"+tc.typ || !strings.Contains(detail, "10 of the 100 bytes") || strings.Contains(detail, "127.0.0.1") {
			t.Errorf("%v after 10 of 100 bytes: %d %s %q; want %d %s, saying 10 of the 100 bytes and no address", tc.err, rec.Code, typ, detail, tc.status, tc.typ)
		}
	}
}

// takenOverStore takes the claim over, as a retry with a 1 ns lease
// would, just before its claimant records its first step.
type takenOverStore struct {
	ledger.Store
	clock *idem.ManualClock
}

func (s takenOverStore) Checkpoint(ctx context.Context, rec idem.Record) error {
	later := s.clock.Now().Add(time.Second)
	if _, took, err := s.Store.Claim(ctx, idem.Record{Account: rec.Account, Key: rec.Key, Fingerprint: rec.Fingerprint,
		Created: later, ExpiresAt: later.Add(time.Hour), LockedUntil: later.Add(time.Second)}); err != nil || !took {
		panic("the takeover failed")
	}
	return s.Store.Checkpoint(ctx, rec)
}

// A claim taken over before its first step began nothing: the request is
// told so with a 409, the retry's answer to come, not a 500.
func TestClaimTakenOverBeforeItBeganIs409(t *testing.T) {
	clock := idem.NewManualClock(t0)
	store := ledger.NewMemoryStore()
	h := &idemhttp.Handler{Store: takenOverStore{store, clock}, Clock: clock, Lease: time.Nanosecond, TTL: time.Hour}
	rec := serve(h, "POST", "/v1/payments", strings.NewReader(body2500), "Authorization", "Bearer t", "Idempotency-Key", "k")
	if typ, _ := problemOf(t, h, rec); rec.Code != 409 || typ != "/v1/problems/idempotency-key-in-use" || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("a claim taken over before its first step: %d %s, want 409 with Retry-After", rec.Code, rec.Body)
	}
	if len(charges(t, store)) != 0 {
		t.Fatal("a claim taken over before its first step charged")
	}
}

// busyStore refuses to run the charge, as SQLite does when another
// writer holds the file past the busy timeout: nothing was written.
type busyStore struct{ ledger.Store }

func (busyStore) Charge(context.Context, ledger.Charge) (ledger.Charge, bool, error) {
	return ledger.Charge{}, false, errors.Join(ledger.ErrNotWritten, errors.New("database is locked (5) (SQLITE_BUSY)"))
}

// A charge the store did not run charged nothing: the failure is not
// saved, and a retry with the same key pays.
func TestChargeNotRunIsNotSaved(t *testing.T) {
	store := ledger.NewMemoryStore()
	hdr := []string{"Authorization", "Bearer t", "Idempotency-Key", "k"}
	rec := serve(&idemhttp.Handler{Store: busyStore{store}}, "POST", "/v1/payments", strings.NewReader(body2500), hdr...)
	if rec.Code != 503 || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("a charge the store did not run: %d %s, want 503 with Retry-After", rec.Code, rec.Body)
	}
	rec = serve(&idemhttp.Handler{Store: store}, "POST", "/v1/payments", strings.NewReader(body2500), hdr...)
	if rec.Code != 201 || rec.Header().Get("Idempotent-Replayed") != "" || len(charges(t, store)) != 1 {
		t.Fatalf("the retry: %d %s, replayed %q, %d charges; want a fresh 201 and one charge",
			rec.Code, rec.Body, rec.Header().Get("Idempotent-Replayed"), len(charges(t, store)))
	}
}

// payAs posts body2500 as token with key, and faults.
func payAs(h http.Handler, token, key string, faults ...string) *httptest.ResponseRecorder {
	hdr := []string{"Authorization", "Bearer " + token, "Idempotency-Key", key}
	for _, f := range faults {
		hdr = append(hdr, "Retrylab-Fault", f)
	}
	return serve(h, "POST", "/v1/payments", strings.NewReader(body2500), hdr...)
}

// Ten tokens filling the store with finished keys, as many as each may
// hold, lock no one out: a new account still pays, and a full account is
// told when its oldest key is forgotten.
func TestStoreFullOfFinishedKeysTakesNewAccounts(t *testing.T) {
	store := ledger.NewMemoryStore()
	store.SetMax(20_000)
	share := store.AccountShare()
	clock := idem.NewManualClock(t0)
	h := &idemhttp.Sandbox{Store: store, Clock: clock, TTL: 24 * time.Hour}
	for tok := range 10 {
		for i := range share {
			if rec := payAs(h, "attacker"+strconv.Itoa(tok), strconv.Itoa(i)); rec.Code != 201 {
				t.Fatalf("attacker %d's key %d: %d %s", tok, i, rec.Code, rec.Body)
			}
		}
	}
	clock.Advance(time.Hour)
	if rec := payAs(h, "newcomer", "k"); rec.Code != 201 {
		t.Fatalf("a new account's first payment in a store full of live keys: %d %s, want 201", rec.Code, rec.Body)
	}
	rec := payAs(h, "attacker3", "one-more")
	if typ, _ := problemOf(t, h, rec); rec.Code != 429 || typ != "/v1/problems/too-many-keys" || rec.Header().Get("Retry-After") != "82800" {
		t.Fatalf("a full account's next key: %d %s Retry-After %q; want 429 too-many-keys, Retry-After 82800 (its first key's 23 h left)",
			rec.Code, typ, rec.Header().Get("Retry-After"))
	}
}

// Ten tokens sending crash-after-charge with new keys, each crash
// leaving a claim in flight for its lease, lock no one out: past a few
// crashes each their crashes are refused, a new account still pays, and
// once the leases run out a sweep finishes every crashed payment.
func TestCrashedClaimsDoNotLockTheStore(t *testing.T) {
	store := ledger.NewMemoryStore()
	store.SetMax(20_000)
	clock := idem.NewManualClock(t0)
	h := &idemhttp.Sandbox{Store: store, Clock: clock, Lease: time.Minute, TTL: 24 * time.Hour}
	crashed := 0
	for tok := range 10 {
		for i := 0; ; i++ {
			rec := payAs(h, "attacker"+strconv.Itoa(tok), strconv.Itoa(i), "crash-after-charge")
			if rec.Code == 502 {
				crashed++
				continue
			}
			if typ, _ := problemOf(t, h, rec); rec.Code != 429 || typ != "/v1/problems/too-many-crashes" || rec.Header().Get("Retry-After") != "60" {
				t.Fatalf("attacker %d's crash %d: %d %s Retry-After %q; want 429 too-many-crashes after 60 s",
					tok, i, rec.Code, typ, rec.Header().Get("Retry-After"))
			}
			break
		}
	}
	if crashed > 10*idemhttp.MaxCrashesPerAccount {
		t.Fatalf("%d crashes in flight from 10 accounts, want at most %d", crashed, 10*idemhttp.MaxCrashesPerAccount)
	}
	if rec := payAs(h, "newcomer", "k"); rec.Code != 201 {
		t.Fatalf("a new account's payment beside the crashed claims: %d %s, want 201", rec.Code, rec.Body)
	}
	clock.Advance(time.Minute)
	swept, err := h.Sweep(t.Context())
	if err != nil || swept.Finished != crashed || swept.Dropped != 0 {
		t.Fatalf("the sweep after the leases: %+v, %v; want the %d crashed payments finished", swept, err, crashed)
	}
	acct, _ := idemhttp.AccountOf("Bearer attacker0")
	if r, _, _ := store.Get(t.Context(), acct, "0"); r.State != idem.Done || r.Status != 201 {
		t.Fatalf("a crashed payment after the sweep: %+v, want done with its 201", r)
	}
	if rec := payAs(h, "attacker0", "0"); rec.Code != 201 || rec.Header().Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the retry of a swept payment: %d replayed %q, want the saved 201", rec.Code, rec.Header().Get("Idempotent-Replayed"))
	}
	n := 0
	for tok := range 10 {
		acct, _ := idemhttp.AccountOf("Bearer attacker" + strconv.Itoa(tok))
		list, _, _ := store.Charges(t.Context(), acct, ledger.Page{Limit: 1000})
		n += len(list)
	}
	if n != crashed {
		t.Fatalf("%d charges for %d crashed payments, want one each", n, crashed)
	}
}

// Requests asking for slow=MS hold their connections for up to 10 s:
// at most MaxSlowAtOnce of them wait at once, and the next is refused
// at once rather than held too, so that slow requests alone cannot
// take every connection a server has.
func TestSlowRequestsAreCapped(t *testing.T) {
	clock := idem.NewManualClock(t0)
	h := &idemhttp.Sandbox{Store: ledger.NewMemoryStore(), Clock: clock}
	done := make(chan int, idemhttp.MaxSlowAtOnce+1)
	for i := range idemhttp.MaxSlowAtOnce {
		go func() { done <- payAs(h, "t"+strconv.Itoa(i%7), strconv.Itoa(i), "slow=5000").Code }()
	}
	deadline := time.Now().Add(10 * time.Second)
	for clock.Sleepers() < idemhttp.MaxSlowAtOnce {
		if time.Now().After(deadline) {
			t.Fatalf("%d slow requests asleep, want %d", clock.Sleepers(), idemhttp.MaxSlowAtOnce)
		}
		time.Sleep(time.Millisecond)
	}
	go func() { done <- payAs(h, "another", "k", "slow=5000").Code }()
	select {
	case code := <-done:
		if code != 429 {
			t.Fatalf("the slow request past the cap: %d, want 429", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("the slow request past the cap of %d waited too, instead of being refused", idemhttp.MaxSlowAtOnce)
	}
	clock.Advance(5 * time.Second)
	for range idemhttp.MaxSlowAtOnce {
		if code := <-done; code != 201 {
			t.Fatalf("a slow request within the cap: %d, want 201", code)
		}
	}
	if rec := payAs(h, "another", "k2", "slow=0"); rec.Code != 201 {
		t.Fatalf("once the slow ones finished: %d", rec.Code)
	}
}
