package idem

import (
	"context"
	"errors"
	"strconv"
	"time"
)

const (
	// DefaultTTL is how long a key is remembered after its request
	// finished: 24 hours, the least Stripe documents keeping its keys. A
	// retry later than that runs as a new request.
	DefaultTTL = 24 * time.Hour
	// DefaultLease is how long a claimant may work before its claim is
	// presumed crashed and may be taken over. What bounds the work is the
	// server's own deadlines, not the client's nor a load balancer's
	// (they give up on the connection; the server goes on): the slowest
	// legitimate payment is 15 s, a processor call given up after 10 s
	// plus 5 store statements of at most 1 s each. Four times that, for a
	// paused or swapping process and clock skew between servers of a few
	// seconds, is 15 s × 4 = 60 s. Work that could run longer would have
	// to renew its lease as it goes; none here can. And should a lease be
	// overrun all the same, the ledger's fence refuses the late
	// claimant's charge.
	DefaultLease = time.Minute
	// MaxKeyLen is the longest key accepted, in bytes: 255, Stripe's limit,
	// room enough for a UUID (36) or a prefixed ULID with context.
	MaxKeyLen = 255
	// RetryAfter is the least Retry-After, in seconds, of a 409: the first
	// request usually finishes well within a second, and one second keeps
	// a client from polling in a tight loop. A 409 says more when the
	// claim's lease ends later (see retryAfter).
	RetryAfter = 1
)

// CheckWindows reports whether a key store's lease and TTL make sense
// together: both positive, and the TTL at least MinTTLLeases leases.
//
// Why: a client that meets a crashed claim is told to come back when its
// lease ends (Retry-After), and then waits out the takeover; if that
// answer is lost too, the client is back within about one more lease.
// The saved answer must still be there then, or the retry becomes a new
// payment: so a key must be remembered for at least two leases after its
// request finished. Since expiry counts from completion and in-flight
// records never expire, this is about lost answers, not double charges:
// the store never charges twice for a live key whatever the two are.
func CheckWindows(lease, ttl time.Duration) error {
	switch {
	case lease <= 0 || ttl <= 0:
		return errors.New("the lease and the TTL must be positive")
	case ttl/MinTTLLeases < lease: // not ttl < 2*lease, which overflows for a huge lease
		return errors.New("the TTL (" + ttl.String() + ") must be at least " + strconv.Itoa(MinTTLLeases) +
			" leases (" + (MinTTLLeases * lease).String() + "): a client told to wait out a crashed claim's lease, " +
			"whose answer is then lost, comes back about a lease later and must still find the saved answer")
	}
	return nil
}

// MinTTLLeases is the least TTL, in leases, that CheckWindows accepts.
const MinTTLLeases = 2

// retryAfter is the Retry-After, in whole seconds rounded up, of a 409 for
// a claim whose lease ends at lockedUntil: the time left on the lease,
// since a crashed claimant's key can be taken over only then, and at
// least RetryAfter.
func retryAfter(now, lockedUntil time.Time) int {
	left := lockedUntil.Sub(now)
	secs := int((left + time.Second - 1) / time.Second)
	if secs < RetryAfter {
		return RetryAfter
	}
	return secs
}

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
	// ResumedFrom is, for Executed after a takeover, the recovery point the
	// crashed claimant had reached and the work resumed from; "" otherwise.
	ResumedFrom string
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
// 0 saves 500 with a generic body). A failure before anything happened (bad
// input, an upstream refusing the connection) should return
// NothingHappened(err): the claim is released so the client may retry with
// the same key.
//
// Work that takes several steps records each finished step with
// c.Checkpoint; when its claimant crashes and a retry takes the key over,
// the retry's work finds the last step in c.RecoveryPoint and resumes after
// it instead of starting again.
type Work func(ctx context.Context, c *Claim) (status int, body []byte, err error)

// Claim is a key held by the caller of Do, as its Work sees it.
type Claim struct {
	store Store
	rec   Record
}

// Account and Key name the claimed key.
func (c *Claim) Account() string { return c.rec.Account }

// Key is the claimed Idempotency-Key.
func (c *Claim) Key() string { return c.rec.Key }

// Created is when the key was first claimed; a takeover keeps it, so work
// that derives something from it derives the same thing again.
func (c *Claim) Created() time.Time { return c.rec.Created }

// Fence is the claim's fence (Record.Fence): a ledger that records the
// work's effects takes it with each one and refuses a stale one, so that
// a claimant that lost its key to a takeover can no longer act.
func (c *Claim) Fence() int64 { return c.rec.Fence }

// RecoveryPoint is the last step recorded with Checkpoint on this key: ""
// for a fresh claim, and where the crashed claimant got to for a takeover.
func (c *Claim) RecoveryPoint() string { return c.rec.RecoveryPoint }

// Checkpoint records in the store that the work has finished the step
// named point, for a takeover to resume from. It returns ErrNotHeld if the
// key was taken over meanwhile: the work should then stop, since another
// claimant is doing it.
func (c *Claim) Checkpoint(ctx context.Context, point string) error {
	next := c.rec
	next.RecoveryPoint = point
	if err := c.store.Checkpoint(ctx, next); err != nil {
		return err
	}
	c.rec = next
	return nil
}

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

// ErrUnfinished marks a work error after which the work is neither done
// nor undone: a takeover must finish it, as it would a crashed
// claimant's.
var ErrUnfinished = errors.New("idem: the work is unfinished")

// Unfinished wraps err to say that the work stopped where a takeover has
// to finish it: an earlier step may have had its effect (a claimant
// before this one may have charged), and this one neither ran nor failed
// for good. Do leaves the claim in flight, as it is, saves nothing and
// returns the work's error: a retry is answered 409 until the lease
// ends, then takes the key over and resumes from its recovery point.
// errors.Is(result, ErrUnfinished) reports true and errors.Unwrap gives
// err back.
func Unfinished(err error) error {
	if err == nil {
		err = ErrUnfinished
	}
	return unfinished{err}
}

type unfinished struct{ err error }

func (e unfinished) Error() string        { return e.err.Error() }
func (e unfinished) Unwrap() error        { return e.err }
func (e unfinished) Is(target error) bool { return target == ErrUnfinished }

// Errors about the key itself, before the store is consulted (answer 400).
var (
	ErrMissingKey      = errors.New("idem: missing Idempotency-Key")
	ErrKeyTooLong      = &KeyError{"Idempotency-Key longer than 255 bytes"}
	ErrKeyNotPrintable = &KeyError{"Idempotency-Key has a character that is not printable ASCII"}
)

// A KeyError says why a value sent as an Idempotency-Key cannot be one.
// Reason is that sentence for the client, as an API answers it.
type KeyError struct{ Reason string }

func (e *KeyError) Error() string { return "idem: " + e.Reason }

// CheckKey reports whether key can be an Idempotency-Key: 1 to MaxKeyLen
// printable ASCII characters (space to tilde, 0x20 to 0x7e), so that it
// survives every store, log line and header unchanged. It returns
// ErrMissingKey, ErrKeyTooLong or ErrKeyNotPrintable.
func CheckKey(key string) error {
	switch {
	case key == "":
		return ErrMissingKey
	case len(key) > MaxKeyLen:
		return ErrKeyTooLong
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return ErrKeyNotPrintable
		}
	}
	return nil
}

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
	// TTL is how long a key is remembered from the end of its request;
	// DefaultTTL if zero. An expired record counts as absent: the same key
	// then runs the work again, as a new request. A key in flight never
	// expires (see Record.ExpiresAt).
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
//     and Do returns Released with the work's error; or, if work returns
//     Unfinished or ErrNotHeld (it lost the claim), nothing is saved or
//     released and Do returns the work's error.
//
// A key that CheckKey refuses is refused with its error, nothing stored. A
// claim whose lease lapsed is taken over by a request with the same body,
// which runs work again from the claim's recovery point. Other errors are
// the store's, or ErrNotHeld if the claim was lost while work ran (the
// response was not saved).
func (k *Keeper) Do(ctx context.Context, account, key string, body []byte, work Work) (Response, error) {
	if err := k.check(key); err != nil {
		return Response{}, err
	}
	fp, err := Fingerprint(body)
	if err != nil {
		return Response{}, err
	}
	return k.do(ctx, account, key, fp, work)
}

// DoCanonical is Do for a body that its caller has read already and
// gives in canonical form, as Canonical writes it (a payment server's
// ledger.PaymentRequest.Canonical): the fingerprint is the hash of those
// bytes as they are, without reading them again. Bytes that are not in
// canonical form are not refused, but two bodies meaning the same request
// could then have two fingerprints, and a retry be answered 422 where Do
// would replay it.
func (k *Keeper) DoCanonical(ctx context.Context, account, key string, canonical []byte, work Work) (Response, error) {
	if err := k.check(key); err != nil {
		return Response{}, err
	}
	return k.do(ctx, account, key, fingerprintCanonical(canonical), work)
}

// check refuses a key CheckKey refuses, and a Keeper without its Store
// or Clock.
func (k *Keeper) check(key string) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	if k.Store == nil || k.Clock == nil {
		return errors.New("idem: Keeper needs a Store and a Clock")
	}
	return nil
}

// do is Do once the body's fingerprint is known.
func (k *Keeper) do(ctx context.Context, account, key, fp string, work Work) (Response, error) {
	now := k.Clock.Now()
	lease, ttl := k.windows()
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
			return Response{Outcome: InProgress, Status: statusConflict, Body: []byte(inProgressBody),
				RetryAfter: retryAfter(now, rec.LockedUntil)}, nil
		default:
			return Response{Outcome: Replayed, Status: rec.Status, Body: rec.Body}, nil
		}
	}

	return k.run(ctx, rec, work, ttl)
}

// Finish takes over rec, an abandoned claim as Store.Abandoned lists it,
// and runs work from its recovery point as a retry's takeover would,
// with no request to answer: what work returns is saved (Executed) or,
// for NothingHappened, the claim is released (Released). When rec is no
// longer that claim (a retry took it over or finished it meanwhile, or
// it went), nothing runs and the Outcome is "".
func (k *Keeper) Finish(ctx context.Context, rec Record, work Work) (Response, error) {
	if k.Store == nil || k.Clock == nil {
		return Response{}, errors.New("idem: Keeper needs a Store and a Clock")
	}
	now := k.Clock.Now()
	lease, ttl := k.windows()
	got, claimed, err := k.Store.Claim(ctx, Record{Account: rec.Account, Key: rec.Key, Fingerprint: rec.Fingerprint,
		Created: now, ExpiresAt: now.Add(ttl), LockedUntil: now.Add(lease)})
	switch {
	case err != nil || !claimed:
		return Response{}, err
	case !got.Created.Equal(rec.Created):
		// Not a takeover: the record went, and this claimed the key afresh
		// for nobody. Give it back.
		return Response{}, k.Store.Release(ctx, got)
	}
	return k.run(ctx, got, work, ttl)
}

// windows returns the keeper's lease and TTL, defaults filled in.
func (k *Keeper) windows() (lease, ttl time.Duration) {
	lease, ttl = k.Lease, k.TTL
	if lease <= 0 {
		lease = DefaultLease
	}
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return lease, ttl
}

// run runs work under rec, a claim the caller holds, and saves or
// releases what it did.
func (k *Keeper) run(ctx context.Context, rec Record, work Work, ttl time.Duration) (Response, error) {
	resumedFrom := rec.RecoveryPoint // "" unless a takeover (a reclaim after expiry starts afresh)
	claim := &Claim{store: k.Store, rec: rec}
	status, out, werr := work(ctx, claim)
	rec = claim.rec
	if werr != nil && (errors.Is(werr, ErrUnfinished) || errors.Is(werr, ErrNotHeld)) {
		// The claim stays as it is, for a takeover to finish; or it is
		// another's already, and nothing of this request's may be saved.
		return Response{}, werr
	}
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
	rec.ExpiresAt = k.Clock.Now().Add(ttl) // expiry counts from completion
	if err := k.Store.Complete(ctx, rec); err != nil {
		return Response{}, err
	}
	return Response{Outcome: Executed, Status: status, Body: out, ResumedFrom: resumedFrom}, nil
}
