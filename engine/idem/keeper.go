package idem

import (
	"context"
	"errors"
	"time"
)

const (
	// DefaultTTL is how long a key is remembered: 24 hours, the window
	// Stripe documents. A retry later than that runs as a new request.
	DefaultTTL = 24 * time.Hour
	// DefaultLease is how long a claimant may work before its claim is
	// presumed crashed and may be taken over. A minute is far beyond what a
	// request handler is given in practice (load balancers commonly cut a
	// request off after 30 to 60 s), so a live claimant is not overtaken.
	DefaultLease = time.Minute
	// MaxKeyLen is the longest key accepted, in bytes: 255, Stripe's limit,
	// room enough for a UUID (36) or a prefixed ULID with context.
	MaxKeyLen = 255
	// RetryAfter is the Retry-After, in seconds, of a 409: the first request
	// usually finishes well within a second, and one second keeps a client
	// from polling in a tight loop.
	RetryAfter = 1
)

// HTTP statuses the protocol itself answers with (net/http is not imported
// into engine code).
const (
	statusConflict      = 409
	statusUnprocessable = 422
	statusInternal      = 500
)

// Outcome says how Do answered.
type Outcome string

const (
	// Executed: the key was claimed, the work ran and its response was saved.
	Executed Outcome = "executed"
	// Replayed: the key was done; the saved response is answered again and
	// no work runs.
	Replayed Outcome = "replayed"
	// Mismatch: the key was used with a different body: 422, no work.
	Mismatch Outcome = "mismatch"
	// InProgress: the key's first request is still running: 409 with
	// Retry-After, no work.
	InProgress Outcome = "in-progress"
	// Released: the work reported that nothing happened; the claim was
	// deleted and nothing saved, so a retry runs afresh. Do returns the
	// work's error with it.
	Released Outcome = "released"
)

// Response is the answer to a keyed request.
type Response struct {
	Outcome    Outcome
	Status     int
	Body       []byte
	RetryAfter int // seconds, with InProgress; 0 otherwise
}

// Bodies of the answers the protocol makes itself; each Response gets its
// own copy.
const (
	mismatchBody   = `{"error":"idempotency-key-reused","detail":"this Idempotency-Key was used with a different request body"}`
	internalBody   = `{"error":"internal","detail":"the request failed; retrying with this Idempotency-Key answers the same"}`
	inProgressBody = `{"error":"idempotency-key-in-use","detail":"a request with this Idempotency-Key is still being processed; retry later"}`
)

// Work is the request's effect, run at most once per live key. It returns
// the response to save and replay. A failure that changed something (a
// card declined after the attempt was recorded) is a response like any
// other: return its status and body, and Do saves it (an error with status
// 0 saves 500 with a generic body). A failure before anything happened (bad input, an upstream
// refusing the connection) should return NothingHappened(err): the claim is
// released so the client may retry with the same key.
type Work func(ctx context.Context) (status int, body []byte, err error)

// ErrNothingHappened marks a work error after which nothing was changed.
var ErrNothingHappened = errors.New("idem: nothing happened")

// NothingHappened wraps err to say that the work failed without changing
// anything; errors.Is(result, ErrNothingHappened) reports true and
// errors.Unwrap gives err back.
func NothingHappened(err error) error {
	if err == nil {
		err = ErrNothingHappened
	}
	return nothingHappened{err}
}

type nothingHappened struct{ err error }

func (e nothingHappened) Error() string        { return e.err.Error() }
func (e nothingHappened) Unwrap() error        { return e.err }
func (e nothingHappened) Is(target error) bool { return target == ErrNothingHappened }

// Errors about the key itself, before the store is consulted (answer 400).
var (
	ErrMissingKey = errors.New("idem: missing Idempotency-Key")
	ErrKeyTooLong = errors.New("idem: Idempotency-Key longer than 255 bytes")
)

// Keeper runs the Idempotency-Key protocol over a Store: fingerprint the
// body, claim the key before any work, and answer a known key from the
// store. It holds no state of its own; one Keeper may serve concurrent
// requests if its Store and Clock may.
type Keeper struct {
	Store Store
	Clock Clock
	// Lease is how long a claim is held before it may be taken over;
	// DefaultLease if zero. It must exceed the longest work.
	Lease time.Duration
	// TTL is how long a key is remembered from its first claim; DefaultTTL
	// if zero. An expired record counts as absent: the same key then runs
	// the work again, as a new request.
	TTL time.Duration
}

// Do answers one request carrying key for account:
//
//   - a body that is not JSON: a *SyntaxError (answer 400), nothing stored;
//   - a key live for account with another fingerprint: 422, Mismatch;
//   - a key in flight (the first request still working): 409, InProgress,
//     with RetryAfter;
//   - a key done: the saved status and body, Replayed;
//   - otherwise the key is claimed, work runs, and its response is saved:
//     Executed; or, if work returns NothingHappened, the claim is released
//     and Do returns Released with the work's error.
//
// A claim whose lease lapsed is taken over by a request with the same body,
// which runs work again. Other errors are the store's, or ErrNotHeld if the
// claim was lost while work ran (the response was not saved).
func (k *Keeper) Do(ctx context.Context, account, key string, body []byte, work Work) (Response, error) {
	switch {
	case key == "":
		return Response{}, ErrMissingKey
	case len(key) > MaxKeyLen:
		return Response{}, ErrKeyTooLong
	case k.Store == nil || k.Clock == nil:
		return Response{}, errors.New("idem: Keeper needs a Store and a Clock")
	}
	fp, err := Fingerprint(body)
	if err != nil {
		return Response{}, err
	}
	now := k.Clock.Now()
	lease, ttl := k.Lease, k.TTL
	if lease <= 0 {
		lease = DefaultLease
	}
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	rec, claimed, err := k.Store.Claim(ctx, Record{
		Account:     account,
		Key:         key,
		Fingerprint: fp,
		Created:     now,
		ExpiresAt:   now.Add(ttl),
		LockedUntil: now.Add(lease),
	})
	if err != nil {
		return Response{}, err
	}
	if !claimed {
		switch {
		case rec.Fingerprint != fp:
			return Response{Outcome: Mismatch, Status: statusUnprocessable, Body: []byte(mismatchBody)}, nil
		case rec.State == InFlight:
			return Response{Outcome: InProgress, Status: statusConflict, Body: []byte(inProgressBody), RetryAfter: RetryAfter}, nil
		default:
			return Response{Outcome: Replayed, Status: rec.Status, Body: rec.Body}, nil
		}
	}

	status, out, werr := work(ctx)
	if werr != nil && errors.Is(werr, ErrNothingHappened) {
		if err := k.Store.Release(ctx, rec); err != nil {
			return Response{}, errors.Join(werr, err)
		}
		return Response{Outcome: Released}, werr
	}
	if status == 0 {
		status = statusInternal
		if len(out) == 0 {
			out = []byte(internalBody)
		}
	}
	rec.Status, rec.Body = status, out
	if err := k.Store.Complete(ctx, rec); err != nil {
		return Response{}, err
	}
	return Response{Outcome: Executed, Status: status, Body: out}, nil
}
