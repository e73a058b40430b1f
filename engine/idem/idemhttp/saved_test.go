package idemhttp_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
	"github.com/retrylab/retrylab/engine/idem/idemhttp"
	"github.com/retrylab/retrylab/engine/idem/ledger"
)

// failingStore is a store whose chosen step fails once, with an error
// that says nothing about whether the write ran: the failures a server
// cannot tell apart from a lost answer.
type failingStore struct {
	ledger.Store
	step   string // "start" (the first checkpoint), "charge", "save" (the payment) or "complete" (the key's answer)
	failed bool
}

var errUnknown = errors.New("connection reset by peer")

func (s *failingStore) fail(step string) bool {
	if s.step != step || s.failed {
		return false
	}
	s.failed = true
	return true
}

func (s *failingStore) Checkpoint(ctx context.Context, rec idem.Record) error {
	if s.fail("start") {
		return errUnknown
	}
	return s.Store.Checkpoint(ctx, rec)
}

func (s *failingStore) Charge(ctx context.Context, c ledger.Charge) (ledger.Charge, bool, error) {
	if s.fail("charge") {
		return ledger.Charge{}, false, errUnknown
	}
	return s.Store.Charge(ctx, c)
}

func (s *failingStore) SavePayment(ctx context.Context, p ledger.Payment) (ledger.Payment, error) {
	if s.fail("save") {
		return ledger.Payment{}, errUnknown
	}
	return s.Store.SavePayment(ctx, p)
}

func (s *failingStore) Complete(ctx context.Context, rec idem.Record) error {
	if s.fail("complete") {
		return errUnknown
	}
	return s.Store.Complete(ctx, rec)
}

// A 500 under a key is one of three things, and the handbook's API
// reference ("Failures: saved or not") and which-errors-to-retry's "A 500
// under a key" say which:
//
//   - the key store failed before the payment began: nothing is saved, the
//     key is released, and a retry with the same key pays, once;
//   - the charge's outcome is unknown, or the payment was charged and could
//     not be saved: the 500 is saved, and every retry with the key gets it
//     again, marked Idempotent-Replayed, charging nothing more;
//   - the key store failed saving the answer: nothing is saved and the
//     claim stays in flight, so a retry is told 409 with Retry-After until
//     the lease ends, then takes the key over and finishes the payment from
//     its recovery point, with the charge already made.
func TestWhichFailuresAreSaved(t *testing.T) {
	const lease = time.Minute
	hdr := []string{"Authorization", "Bearer t", "Idempotency-Key", "k"}
	for _, c := range []struct {
		step    string
		charged int // charges after the failed request
		// what a retry with the same key gets at once: its status, and
		// whether it is a replay
		retry    int
		replayed bool
		// after the lease: the status a retry gets then, and the charges
		after, chargedAfter int
	}{
		{"start", 0, 201, false, 201, 1},
		{"charge", 0, 500, true, 500, 0},
		{"save", 1, 500, true, 500, 1},
		{"complete", 1, 409, false, 201, 1},
	} {
		t.Run(c.step, func(t *testing.T) {
			mem := ledger.NewMemoryStore()
			clock := idem.NewManualClock(t0)
			h := &idemhttp.Handler{Store: &failingStore{Store: mem, step: c.step}, Clock: clock, Lease: lease, TTL: time.Hour}
			first := serve(h, "POST", "/v1/payments", strings.NewReader(body2500), hdr...)
			if first.Code != 500 {
				t.Fatalf("the failed request: %d %s, want 500", first.Code, first.Body)
			}
			if n := len(charges(t, mem)); n != c.charged {
				t.Fatalf("the failed request made %d charges, want %d", n, c.charged)
			}

			clock.Advance(time.Second)
			retry := serve(h, "POST", "/v1/payments", strings.NewReader(body2500), hdr...)
			replayed := retry.Header().Get("Idempotent-Replayed") == "true"
			if retry.Code != c.retry || replayed != c.replayed {
				t.Fatalf("the retry: %d (replayed %v) %s, want %d (replayed %v)", retry.Code, replayed, retry.Body, c.retry, c.replayed)
			}
			switch {
			case c.replayed && retry.Body.String() != first.Body.String():
				t.Fatalf("the replay's body %s is not the saved 500's %s", retry.Body, first.Body)
			case c.retry == 409 && retry.Header().Get("Retry-After") != "59":
				t.Fatalf("the 409 a second into a one-minute lease says Retry-After %q, want 59", retry.Header().Get("Retry-After"))
			}

			clock.Advance(lease)
			later := serve(h, "POST", "/v1/payments", strings.NewReader(body2500), hdr...)
			if later.Code != c.after || len(charges(t, mem)) != c.chargedAfter {
				t.Fatalf("a retry after the lease: %d %s, %d charges; want %d, %d charges",
					later.Code, later.Body, len(charges(t, mem)), c.after, c.chargedAfter)
			}
		})
	}
}
