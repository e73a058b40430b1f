package idemhttp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/idemhttp"
	"github.com/retrylab/retrylab/engine/idem/ledger"
)

const body2500 = `{"amount":2500,"currency":"usd"}`

func serve(h http.Handler, method, path string, body io.Reader, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, body)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// problemOf decodes a problem answer and checks its form.
func problemOf(t *testing.T, h http.Handler, rec *httptest.ResponseRecorder) (typ, detail string) {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("%d with Content-Type %q, want application/problem+json", rec.Code, ct)
	}
	var p struct {
		Type, Title, Detail string
		Status              int
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || p.Status != rec.Code || p.Title == "" {
		t.Fatalf("problem body %s (%v), status %d", rec.Body, err, rec.Code)
	}
	// The type is a reference the server answers.
	if doc := serve(h, "GET", p.Type, nil); doc.Code != 200 || !strings.Contains(doc.Body.String(), `"description"`) {
		t.Fatalf("GET %s: %d %s", p.Type, doc.Code, doc.Body)
	}
	return p.Type, p.Detail
}

func TestRequestErrors(t *testing.T) {
	h := &idemhttp.Sandbox{Store: ledger.NewMemoryStore()}
	auth := "Authorization"
	bearer := "Bearer sk_test"
	big := `{"amount":2500,"currency":"usd"}` + strings.Repeat(" ", idemhttp.MaxBody-len(body2500)+1)
	for _, tc := range []struct {
		name   string
		method string
		path   string
		body   string
		header []string
		status int
		typ    string
		detail string
	}{
		{"no token", "POST", "/v1/payments", body2500, []string{"Idempotency-Key", "k"}, 401, "unauthorized", "Bearer"},
		{"not a bearer token", "POST", "/v1/payments", body2500, []string{auth, "Basic dTpw", "Idempotency-Key", "k"}, 401, "unauthorized", ""},
		{"empty bearer", "GET", "/v1/charges", "", []string{auth, "Bearer "}, 401, "unauthorized", ""},
		{"no key", "POST", "/v1/payments", body2500, []string{auth, bearer}, 400, "missing-idempotency-key", ""},
		{"empty key", "POST", "/v1/payments", body2500, []string{auth, bearer, "Idempotency-Key", ""}, 400, "invalid-idempotency-key", "empty"},
		{"blank key", "POST", "/v1/payments", body2500, []string{auth, bearer, "Idempotency-Key", "  "}, 400, "invalid-idempotency-key", "empty"},
		{"bare key opening a quote", "POST", "/v1/payments", body2500, []string{auth, bearer, "Idempotency-Key", `"abc`}, 400, "invalid-idempotency-key", "quoted"},
		{"form body", "POST", "/v1/payments", body2500, []string{auth, bearer, "Idempotency-Key", "k", "Content-Type", "application/x-www-form-urlencoded"}, 415, "unsupported-media-type", "application/json"},
		{"text body", "POST", "/v1/payments", body2500, []string{auth, bearer, "Idempotency-Key", "k", "Content-Type", "text/plain;charset=UTF-8"}, 415, "unsupported-media-type", "text/plain"},
		{"slow overflowing", "POST", "/v1/payments", body2500, []string{auth, bearer, "Idempotency-Key", "k", "Retrylab-Fault", "slow=288230376151716696"}, 400, "invalid-fault", "10000"},
		{"slow at the int64 limit", "POST", "/v1/payments", body2500, []string{auth, bearer, "Idempotency-Key", "k", "Retrylab-Fault", "slow=9223372036854775807"}, 400, "invalid-fault", "10000"},
		{"nested 33 deep", "POST", "/v1/payments", strings.Repeat(`{"a":`, 33) + "1" + strings.Repeat("}", 33), []string{auth, bearer, "Idempotency-Key", "k"}, 400, "invalid-request", "deeper than 32"},
		{"nested 9,999 deep", "POST", "/v1/payments", strings.Repeat(`{"a":`, 9999), []string{auth, bearer, "Idempotency-Key", "k"}, 400, "invalid-request", "deeper than 32"},
		{"unknown currency", "POST", "/v1/payments", `{"amount":2500,"currency":"zzz"}`, []string{auth, bearer, "Idempotency-Key", "k"}, 400, "invalid-request", "ISO 4217"},
		{"bad cursor", "GET", "/v1/charges?starting_after=ch_nope", "", []string{auth, bearer}, 400, "invalid-request", "ch_nope"},
		{"two keys", "POST", "/v1/payments", body2500, []string{auth, bearer, "Idempotency-Key", "a", "Idempotency-Key", "b"}, 400, "invalid-idempotency-key", "more than one"},
		{"long key", "POST", "/v1/payments", body2500, []string{auth, bearer, "Idempotency-Key", strings.Repeat("k", 256)}, 400, "invalid-idempotency-key", "255"},
		{"non-ASCII key", "POST", "/v1/payments", body2500, []string{auth, bearer, "Idempotency-Key", "café"}, 400, "invalid-idempotency-key", "printable ASCII"},
		{"bad quoting", "POST", "/v1/payments", body2500, []string{auth, bearer, "Idempotency-Key", `"a\b"`}, 400, "invalid-idempotency-key", "structured-field"},
		{"unknown fault", "POST", "/v1/payments", body2500, []string{auth, bearer, "Idempotency-Key", "k", "Retrylab-Fault", "explode"}, 400, "invalid-fault", "explode"},
		{"slow too slow", "POST", "/v1/payments", body2500, []string{auth, bearer, "Idempotency-Key", "k", "Retrylab-Fault", "slow=10001"}, 400, "invalid-fault", "10000"},
		{"body over 64 KiB", "POST", "/v1/payments", big, []string{auth, bearer, "Idempotency-Key", "k"}, 413, "body-too-large", "65536"},
		{"not JSON", "POST", "/v1/payments", `{"amount":`, []string{auth, bearer, "Idempotency-Key", "k"}, 400, "invalid-request", "at byte 10"},
		{"duplicate member", "POST", "/v1/payments", `{"amount":1,"amount":2,"currency":"usd"}`, []string{auth, bearer, "Idempotency-Key", "k"}, 400, "invalid-request", "duplicate"},
		{"not an object", "POST", "/v1/payments", `[2500]`, []string{auth, bearer, "Idempotency-Key", "k"}, 400, "invalid-request", "object"},
		{"unknown member", "POST", "/v1/payments", `{"amount":2500,"currency":"usd","tip":1}`, []string{auth, bearer, "Idempotency-Key", "k"}, 400, "invalid-request", `"tip"`},
		{"zero amount", "POST", "/v1/payments", `{"amount":0,"currency":"usd"}`, []string{auth, bearer, "Idempotency-Key", "k"}, 400, "invalid-request", "from 1"},
		{"fractional amount", "POST", "/v1/payments", `{"amount":25.5,"currency":"usd"}`, []string{auth, bearer, "Idempotency-Key", "k"}, 400, "invalid-request", "whole number"},
		{"amount as string", "POST", "/v1/payments", `{"amount":"2500","currency":"usd"}`, []string{auth, bearer, "Idempotency-Key", "k"}, 400, "invalid-request", "whole number"},
		{"amount too large", "POST", "/v1/payments", `{"amount":100000000,"currency":"usd"}`, []string{auth, bearer, "Idempotency-Key", "k"}, 400, "invalid-request", "99999999"},
		{"no currency", "POST", "/v1/payments", `{"amount":2500}`, []string{auth, bearer, "Idempotency-Key", "k"}, 400, "invalid-request", "currency"},
		{"bad currency", "POST", "/v1/payments", `{"amount":2500,"currency":"us1"}`, []string{auth, bearer, "Idempotency-Key", "k"}, 400, "invalid-request", "ISO 4217"},
		{"GET on payments", "GET", "/v1/payments", "", []string{auth, bearer}, 405, "method-not-allowed", "POST"},
		{"POST on charges", "POST", "/v1/charges", "", []string{auth, bearer}, 405, "method-not-allowed", "GET"},
		{"unknown path", "GET", "/v2/payments", "", []string{auth, bearer}, 404, "not-found", "/v2/payments"},
		{"unknown payment", "GET", "/v1/payments/pay_nope", "", []string{auth, bearer}, 404, "not-found", "pay_nope"},
		{"bad limit", "GET", "/v1/charges?limit=0", "", []string{auth, bearer}, 400, "invalid-request", "limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := serve(h, tc.method, tc.path, strings.NewReader(tc.body), tc.header...)
			if rec.Code != tc.status {
				t.Fatalf("%d %s, want %d", rec.Code, rec.Body, tc.status)
			}
			typ, detail := problemOf(t, h, rec)
			if typ != "/v1/problems/"+tc.typ || !strings.Contains(detail, tc.detail) {
				t.Fatalf("type %s, detail %q; want type %s, detail containing %q", typ, detail, tc.typ, tc.detail)
			}
			switch tc.status {
			case 401:
				if rec.Header().Get("WWW-Authenticate") == "" {
					t.Fatal("401 without WWW-Authenticate")
				}
			case 405:
				if rec.Header().Get("Allow") == "" {
					t.Fatal("405 without Allow")
				}
			}
		})
	}
	// None of them charged or stored anything.
	rec := serve(h, "GET", "/v1/charges", nil, auth, bearer)
	if !strings.Contains(rec.Body.String(), `"data": []`) {
		t.Fatalf("charges after refused requests: %s", rec.Body)
	}
	acct, _ := idemhttp.AccountOf(bearer)
	if _, ok, _ := h.Store.Get(t.Context(), acct, "k"); ok {
		t.Fatal("a refused request stored its key")
	}
}

// countingReader fails the test if more than limit bytes are read.
type countingReader struct {
	t     *testing.T
	n     int
	limit int
}

func (r *countingReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	r.n += len(p)
	if r.n > r.limit {
		r.t.Fatalf("read %d bytes of the body, more than %d", r.n, r.limit)
	}
	return len(p), nil
}

func TestLargeBodyIsNotRead(t *testing.T) {
	h := &idemhttp.Sandbox{Store: ledger.NewMemoryStore()}
	hdr := []string{"Authorization", "Bearer t", "Idempotency-Key", "k"}
	// Declared too long: refused before a byte is read.
	req := httptest.NewRequest("POST", "/v1/payments", &countingReader{t: t, limit: 0})
	req.ContentLength = 1 << 30
	for i := 0; i < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 413 {
		t.Fatalf("declared 1 GiB: %d", rec.Code)
	}
	// Undeclared (chunked) and endless: read up to the limit and one byte
	// more, no further. The reader hands out at most 32 KiB a call, the
	// buffer io.ReadAll grows to, so allow one buffer past the limit.
	req = httptest.NewRequest("POST", "/v1/payments", io.LimitReader(&countingReader{t: t, limit: idemhttp.MaxBody + 64<<10}, 1<<40))
	req.ContentLength = -1
	for i := 0; i < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 413 {
		t.Fatalf("endless body: %d", rec.Code)
	}
	// Exactly 64 KiB is fine.
	body := body2500 + strings.Repeat(" ", idemhttp.MaxBody-len(body2500))
	if rec := serve(h, "POST", "/v1/payments", strings.NewReader(body), hdr...); rec.Code != 201 {
		t.Fatalf("a body of exactly %d bytes: %d %s", idemhttp.MaxBody, rec.Code, rec.Body)
	}
}

func TestQuotedKeyIsTheBareKey(t *testing.T) {
	h := &idemhttp.Sandbox{Store: ledger.NewMemoryStore()}
	first := serve(h, "POST", "/v1/payments", strings.NewReader(body2500), "Authorization", "Bearer t", "Idempotency-Key", `order-"7"\x`)
	if first.Code != 201 {
		t.Fatalf("%d %s", first.Code, first.Body)
	}
	again := serve(h, "POST", "/v1/payments", strings.NewReader(body2500), "Authorization", "Bearer t", "Idempotency-Key", `"order-\"7\"\\x"`)
	if again.Code != 201 || again.Header().Get("Idempotent-Replayed") != "true" || again.Body.String() != first.Body.String() {
		t.Fatalf("the quoted form of the key: %d %v %s", again.Code, again.Header(), again.Body)
	}
}

func TestIndexAndProblems(t *testing.T) {
	h := &idemhttp.Sandbox{Store: ledger.NewMemoryStore()}
	rec := serve(h, "GET", "/", nil)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "POST /v1/payments") {
		t.Fatalf("GET /: %d %s", rec.Code, rec.Body)
	}
	var index struct{ Problems []string }
	json.Unmarshal(rec.Body.Bytes(), &index)
	if len(index.Problems) < 10 {
		t.Fatalf("index lists problems %v", index.Problems)
	}
	for _, code := range index.Problems {
		if doc := serve(h, "GET", "/v1/problems/"+code, nil); doc.Code != 200 {
			t.Fatalf("problem %s: %d", code, doc.Code)
		}
	}
	if rec := serve(h, "GET", "/v1/problems/nope", nil); rec.Code != 404 {
		t.Fatalf("unknown problem: %d", rec.Code)
	}
}

// Over real HTTP the lost answers are lost: the connection closes with
// no response at all.
func TestLostAnswersDropTheConnection(t *testing.T) {
	store := ledger.NewMemoryStore()
	var mu sync.Mutex
	var entries []idemhttp.Entry
	h := &idemhttp.Sandbox{Store: store, Log: func(e idemhttp.Entry) {
		mu.Lock()
		entries = append(entries, e)
		mu.Unlock()
	}}
	srv := httptest.NewServer(h)
	defer srv.Close()
	post := func(key string, faults ...string) (*http.Response, error) {
		req, _ := http.NewRequest("POST", srv.URL+"/v1/payments", strings.NewReader(body2500))
		req.Header.Set("Authorization", "Bearer t")
		req.Header.Set("Idempotency-Key", key)
		for _, f := range faults {
			req.Header.Add("Retrylab-Fault", f)
		}
		return srv.Client().Do(req)
	}
	for _, fault := range []string{"lose-response", "lose-request", "crash-after-charge"} {
		resp, err := post("k_"+fault, fault)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("%s: got an answer, %s", fault, resp.Status)
		}
		if !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "EOF") && !strings.Contains(err.Error(), "reset") {
			t.Fatalf("%s: %v, want the connection closed", fault, err)
		}
	}
	resp, err := post("k_lose-response")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry after a lost response: %s replayed=%q", resp.Status, resp.Header.Get("Idempotent-Replayed"))
	}
	acct, _ := idemhttp.AccountOf("Bearer t")
	if _, ok, _ := store.Get(t.Context(), acct, "k_lose-request"); ok {
		t.Fatal("the lost request was handled")
	}
	mu.Lock()
	defer mu.Unlock()
	want := []struct {
		status  int
		outcome string
	}{{0, "executed, response lost"}, {0, "request-lost"}, {0, "server-crashed"}, {201, "replayed"}}
	if len(entries) != len(want) {
		t.Fatalf("%d log entries, want %d", len(entries), len(want))
	}
	for i, w := range want {
		// A lost request is dropped before it is read: no account, no key.
		e := entries[i]
		if e.Status != w.status || e.Outcome != w.outcome || (e.Key == "") != (i == 1) || e.Fault == "" && i < 3 {
			t.Fatalf("entry %d: %+v, want status %d outcome %q", i, e, w.status, w.outcome)
		}
	}
	if line := entries[3].String(); !strings.HasPrefix(line, `POST /v1/payments 201 replayed acct_`) || !strings.Contains(line, `key="k_lose-response"`) {
		t.Fatalf("log line %q", line)
	}
}

func TestSlowIsSlow(t *testing.T) {
	h := &idemhttp.Sandbox{Store: ledger.NewMemoryStore()}
	start := time.Now()
	rec := serve(h, "POST", "/v1/payments", strings.NewReader(body2500), "Authorization", "Bearer t", "Idempotency-Key", "k", "Retrylab-Fault", "slow=150")
	if took := time.Since(start); rec.Code != 201 || took < 150*time.Millisecond {
		t.Fatalf("slow=150: %d after %v", rec.Code, took)
	}
}

func TestAccountOf(t *testing.T) {
	a, err := idemhttp.AccountOf("Bearer sk_test_1")
	if err != nil || !strings.HasPrefix(a, "acct_") || len(a) != len("acct_")+16 {
		t.Fatalf("AccountOf = %q, %v", a, err)
	}
	if b, _ := idemhttp.AccountOf("bearer  sk_test_1 "); b != a {
		t.Fatalf("the scheme's case and spaces changed the account: %s vs %s", b, a)
	}
	if b, _ := idemhttp.AccountOf("Bearer sk_test_2"); b == a {
		t.Fatal("two tokens, one account")
	}
	for _, h := range []string{"", "Bearer", "Bearer ", "Token x", "Bearer a b"} {
		if _, err := idemhttp.AccountOf(h); !errors.Is(err, idemhttp.ErrNoToken) {
			t.Fatalf("AccountOf(%q): %v", h, err)
		}
	}
}

func TestParseFaults(t *testing.T) {
	f, err := idemhttp.ParseFaults([]string{"slow=250, lose-response", "decline"})
	if err != nil || f.Slow != 250*time.Millisecond || !f.LoseResponse || !f.Decline || f.LoseRequest || f.String() != "lose-response,slow=250,decline" {
		t.Fatalf("ParseFaults = %+v (%s), %v", f, f, err)
	}
	for _, bad := range []string{"slow", "slow=", "slow=-1", "slow=+5", "slow=1.5", "decline=1", "decline,decline", "lose"} {
		if _, err := idemhttp.ParseFaults([]string{bad}); err == nil {
			t.Fatalf("ParseFaults(%q): no error", bad)
		}
	}
	if f, err := idemhttp.ParseFaults(nil); err != nil || f != (idemhttp.Faults{}) {
		t.Fatalf("no header: %+v, %v", f, err)
	}
}

func TestParseKey(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
		err  error
	}{
		{[]string{"abc"}, "abc", nil},
		{[]string{`"abc"`}, "abc", nil},
		{[]string{`"a\"b\\c"`}, `a"b\c`, nil},
		{[]string{` 8e03978e-40d5 `}, "8e03978e-40d5", nil},
		{[]string{`a "quoted" middle`}, `a "quoted" middle`, nil},
		{nil, "", idem.ErrMissingKey},
		{[]string{`""`}, "", idemhttp.ErrKeyEmpty},
		{[]string{"a,b"}, "", idemhttp.ErrKeyComma},
		{[]string{"a, b"}, "", idemhttp.ErrKeyComma},
		{[]string{`"a,b"`}, "a,b", nil},
		{[]string{`"a", "b"`}, "", idemhttp.ErrKeyQuoting},
		{[]string{"a", "a"}, "", idemhttp.ErrKeyRepeated},
		{[]string{`"abc`}, "", idemhttp.ErrKeyQuoting},
		{[]string{`"a"b"`}, "", idemhttp.ErrKeyQuoting},
		{[]string{`"a\n"`}, "", idemhttp.ErrKeyQuoting},
		{[]string{"k\x01"}, "", idem.ErrKeyNotPrintable},
		{[]string{strings.Repeat("x", 255)}, strings.Repeat("x", 255), nil},
		{[]string{`"` + strings.Repeat("x", 256) + `"`}, "", idem.ErrKeyTooLong},
	} {
		got, err := idemhttp.ParseKey(tc.in)
		if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("ParseKey(%q) = %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// An error about a value echoes at most a short prefix of it, however
// much was sent.
func TestErrorsEchoAShortPrefix(t *testing.T) {
	h := &idemhttp.Sandbox{Store: ledger.NewMemoryStore()}
	long := strings.Repeat("9", 60_000)
	for name, body := range map[string]string{
		"amount":   `{"amount":` + long + `,"currency":"usd"}`,
		"currency": `{"amount":2500,"currency":"` + strings.Repeat("x", 60_000) + `"}`,
	} {
		rec := serve(h, "POST", "/v1/payments", strings.NewReader(body), "Authorization", "Bearer t", "Idempotency-Key", "k")
		if rec.Code != 400 || rec.Body.Len() > 1024 {
			t.Errorf("%s of 60,000 bytes: %d, answer of %d bytes: %.300s", name, rec.Code, rec.Body.Len(), rec.Body)
		}
	}
}

// An invalid key's answer gives the reason as written for the client,
// with no Go package's prefix.
func TestInvalidKeySaysTheReason(t *testing.T) {
	h := &idemhttp.Handler{Store: ledger.NewMemoryStore()}
	for _, tc := range []struct {
		values []string
		err    *idem.KeyError
	}{
		{[]string{"a", "b"}, idemhttp.ErrKeyRepeated},
		{[]string{`"abc`}, idemhttp.ErrKeyQuoting},
		{[]string{" "}, idemhttp.ErrKeyEmpty},
		{[]string{strings.Repeat("k", 256)}, idem.ErrKeyTooLong},
		{[]string{"café"}, idem.ErrKeyNotPrintable},
	} {
		hdr := []string{"Authorization", "Bearer t"}
		for _, v := range tc.values {
			hdr = append(hdr, "Idempotency-Key", v)
		}
		rec := serve(h, "POST", "/v1/payments", strings.NewReader(body2500), hdr...)
		if _, detail := problemOf(t, h, rec); rec.Code != 400 || detail != tc.err.Reason {
			t.Errorf("Idempotency-Key %q: %d, detail %q; want 400, %q", tc.values, rec.Code, detail, tc.err.Reason)
		}
	}
}

// The handler reads a payment once and hands its canonical form to the
// keeper as it is (Keeper.DoCanonical). A key a store already holds, from
// Keeper.Do over the same form (how the handler fingerprinted before, and
// so the rows of a store in use), is still the same request: a retry
// written otherwise replays it, another amount is refused.
func TestKeysStoredByDoStillReplay(t *testing.T) {
	store := ledger.NewMemoryStore()
	account, err := idemhttp.AccountOf("Bearer t")
	if err != nil {
		t.Fatal(err)
	}
	req, err := ledger.ParsePayment([]byte(body2500))
	if err != nil {
		t.Fatal(err)
	}
	keeper := idem.Keeper{Store: store, Clock: idem.ClockFunc(time.Now)}
	stored, err := keeper.Do(t.Context(), account, "k_1", req.Canonical(), func(context.Context, *idem.Claim) (int, []byte, error) {
		return 201, []byte(`{"id":"pay_stored"}`), nil
	})
	if err != nil || stored.Status != 201 {
		t.Fatalf("storing the key: %+v, %v", stored, err)
	}
	h := &idemhttp.Sandbox{Store: store}
	retry := serve(h, "POST", "/v1/payments", strings.NewReader(` { "currency" : "USD", "amount" : 2500 } `),
		"Authorization", "Bearer t", "Idempotency-Key", "k_1", "Content-Type", "application/json")
	if retry.Code != 201 || retry.Header().Get("Idempotent-Replayed") != "true" || retry.Body.String() != `{"id":"pay_stored"}` {
		t.Fatalf("the retry of a stored key: %d %v %s", retry.Code, retry.Header(), retry.Body)
	}
	other := serve(h, "POST", "/v1/payments", strings.NewReader(`{"amount":9900,"currency":"usd"}`),
		"Authorization", "Bearer t", "Idempotency-Key", "k_1", "Content-Type", "application/json")
	if other.Code != 422 {
		t.Fatalf("another amount under a stored key: %d %s", other.Code, other.Body)
	}
}
