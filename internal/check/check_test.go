package check_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retrylab/retrylab/internal/check"
	"github.com/retrylab/retrylab/internal/check/flawed"
)

const work = flawed.DefaultWork

// flawOf names the check each flaw must fail, and only that one.
var flawOf = map[flawed.Flaw]string{
	flawed.ReplayStatus:  "replay",
	flawed.Race:          "concurrent",
	flawed.InFlight:      "concurrent",
	flawed.NoFingerprint: "mismatch",
	flawed.SharedKeys:    "scope",
	flawed.AnyKey:        "key-syntax",
}

// run checks h and returns the report and how many requests h received.
func run(t *testing.T, h http.Handler, cfg check.Config) (check.Report, int64) {
	t.Helper()
	var received atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		received.Add(1)
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	if cfg.URL == "" {
		cfg.URL = srv.URL + "/v1/payments"
	}
	rep, err := check.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rep, received.Load()
}

func results(rep check.Report) map[string]check.Finding {
	m := map[string]check.Finding{}
	for _, f := range rep.Checks {
		m[f.Name] = f
	}
	return m
}

// The correct server passes every check, and the run sends exactly the
// requests it says: 17 and the burst.
func TestCorrectServerPasses(t *testing.T) {
	t.Parallel()
	rep, received := run(t, flawed.New(flawed.None, work), check.Config{})
	for _, f := range rep.Checks {
		if f.Result != check.Pass {
			t.Errorf("%s: %s: %s", f.Name, f.Result, f.Detail)
		}
	}
	if len(rep.Checks) != len(check.Checks)-1 { // expiry needs a TTL
		t.Errorf("%d checks ran, want %d", len(rep.Checks), len(check.Checks)-1)
	}
	// 1 first request, then replay 2, new-key 2, concurrent 20 + 1,
	// mismatch 3, scope 2, key-syntax 3, missing-key 1, validation 2.
	const want = 1 + 2 + 2 + check.DefaultConcurrency + 1 + 3 + 2 + 3 + 1 + 2
	if rep.Requests != want || received != want {
		t.Errorf("the report says %d requests, the server received %d, want %d", rep.Requests, received, want)
	}
	if rep.Failed() {
		t.Error("Failed() with no failure")
	}
}

// Each flaw fails the check named for it, and every other check passes.
func TestEachFlawFailsItsCheck(t *testing.T) {
	for _, flaw := range flawed.Flaws {
		t.Run(string(flaw), func(t *testing.T) {
			t.Parallel()
			srv := flawed.New(flaw, work)
			rep, _ := run(t, srv, check.Config{})
			want := flawOf[flaw]
			for _, f := range rep.Checks {
				switch {
				case f.Name == want && f.Result != check.Fail:
					t.Errorf("%s: %s, want fail: %s", f.Name, f.Result, f.Detail)
				case f.Name != want && f.Result != check.Pass:
					t.Errorf("%s: %s, want pass: %s", f.Name, f.Result, f.Detail)
				}
			}
			if _, ok := results(rep)[want]; !ok {
				t.Fatalf("no %s check in the report", want)
			}
			if !rep.Failed() {
				t.Error("Failed() is false")
			}
		})
	}
}

// The concurrent check's burst is simultaneous: against the race, every
// request of it finds no record and charges, 20 charges where one was
// due.
func TestBurstArrivesTogether(t *testing.T) {
	t.Parallel()
	srv := flawed.New(flawed.Race, work)
	rep, _ := run(t, srv, check.Config{})
	f := results(rep)["concurrent"]
	if !strings.Contains(f.Detail, "carried 20 different ids") {
		t.Errorf("concurrent: %s, want 20 different ids", f.Detail)
	}
}

// A redirect is reported, not followed: the other server gets nothing.
func TestNoRedirectFollowed(t *testing.T) {
	t.Parallel()
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/v1/payments", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	_, err := check.Run(context.Background(), check.Config{URL: srv.URL + "/v1/payments"})
	var setup *check.SetupError
	if !errors.As(err, &setup) || !strings.Contains(err.Error(), "307 to "+other.URL) {
		t.Fatalf("err = %v, want a SetupError naming the 307 and where it pointed", err)
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the redirect's target got %d requests", n)
	}
}

// A URL that does not answer, or answers without creating anything, is a
// setup error that says so; a server that never answers costs no more
// than the context allows.
func TestSetupErrors(t *testing.T) {
	t.Parallel()
	refused := httptest.NewServer(http.NotFoundHandler())
	refused.Close() // nothing listens there any more
	unauthorized := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"title":"Unauthorized"}`, http.StatusUnauthorized)
	}))
	defer unauthorized.Close()
	noID := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"payment":{"ref":"p1"}}`))
	}))
	defer noID.Close()
	hang := make(chan struct{})
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-hang }))
	defer silent.Close()
	defer close(hang)

	for _, c := range []struct {
		url, want string
	}{
		{refused.URL, "connection refused"},
		{unauthorized.URL, `answered 401, so no check can run`},
		{noID.URL, `with no id at "id"`},
		{silent.URL, "deadline exceeded"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		start := time.Now()
		_, err := check.Run(ctx, check.Config{URL: c.url + "/v1/payments"})
		cancel()
		var setup *check.SetupError
		if !errors.As(err, &setup) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want a SetupError with %q", c.url, err, c.want)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("%s: took %v", c.url, took)
		}
	}
}

// The id is found where --id-field says, nested or not, string or number.
func TestIDField(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	nested := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"id": n.Add(1)}})
	})
	srv := httptest.NewServer(nested)
	defer srv.Close()
	rep, err := check.Run(context.Background(), check.Config{URL: srv.URL, IDField: "data.id"})
	if err != nil {
		t.Fatal(err)
	}
	// This server keeps no keys: every request is new, so replay fails
	// with the numbers as ids.
	if f := results(rep)["replay"]; f.Result != check.Fail || !strings.Contains(f.Detail, `id "2", the second 201 with id "3"`) {
		t.Errorf("replay: %s: %s", f.Result, f.Detail)
	}
}

// Bad configurations are refused before anything is sent.
func TestConfigErrors(t *testing.T) {
	t.Parallel()
	var received atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { received.Add(1) }))
	defer srv.Close()
	u := srv.URL + "/v1/payments"
	for _, c := range []struct {
		cfg  check.Config
		want string
	}{
		{check.Config{URL: "ftp://example.com/x"}, "not an http or https URL"},
		{check.Config{URL: "http://user:pw@127.0.0.1/x"}, "user name"},
		{check.Config{URL: u, Body: []byte("{")}, "--body is not JSON"},
		{check.Config{URL: u, Body: []byte(`{"name":"x"}`)}, `has no number "amount"`},
		{check.Config{URL: u, OtherBody: []byte(`{"currency":"usd","amount":2500}`)}, "same JSON"},
		{check.Config{URL: u, Concurrency: 1000}, "--concurrency 1000"},
		{check.Config{URL: u, TTL: 2 * time.Hour}, "--ttl 2h0m0s"},
		{check.Config{URL: u, IDField: "a..b"}, "--id-field"},
		{check.Config{URL: u, Header: http.Header{"Idempotency-Key": {"k"}}}, "--header Idempotency-Key"},
	} {
		_, err := check.Run(context.Background(), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want %q", c.cfg, err, c.want)
		}
	}
	if n := received.Load(); n != 0 {
		t.Errorf("the server received %d requests", n)
	}
}

// A run whose context is cancelled stops, and says so, rather than
// reporting every later check as failed.
func TestCancelStops(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var received atomic.Int64
	h := flawed.New(flawed.None, time.Millisecond)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if received.Add(1) == 4 { // the new-key check's first request
			cancel()
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	rep, err := check.Run(ctx, check.Config{URL: srv.URL})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "during the new-key check") || rep.Checks != nil {
		t.Fatalf("err = %v, %d findings; want a cancellation during the new-key check and no report", err, len(rep.Checks))
	}
	if n := received.Load(); n != 4 {
		t.Errorf("the server received %d requests, want 4: none after the cancellation", n)
	}
}
