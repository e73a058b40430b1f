package idem

import (
	"context"
	"errors"
	"strconv"
	"time"
)

// State is where a keyed request stands.
type State uint8

const (
	// InFlight: a request has claimed the key and its work may be running.
	InFlight State = iota + 1
	// Done: the work finished and its response is saved for replay.
	Done
)

// String returns "in-flight" or "done".
func (s State) String() string {
	switch s {
	case InFlight:
		return "in-flight"
	case Done:
		return "done"
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// Record is what the store keeps for one (Account, Key).
type Record struct {
	Account     string
	Key         string
	Fingerprint string // Fingerprint of the request body that claimed the key
	State       State
	Status      int    // saved response status, once Done
	Body        []byte // saved response body, once Done
	Created     time.Time
	// ExpiresAt is when a Done record stops counting: its completion plus
	// the keeper's TTL. From then on the key may be claimed afresh. An
	// InFlight record never expires: its claimant may have charged a card,
	// and only finishing the work (after a takeover) may end it.
	ExpiresAt time.Time
	// LockedUntil is the end of the claimant's lease, while InFlight: a
	// claim not completed by then is presumed crashed and may be taken over
	// by a request with the same fingerprint.
	LockedUntil time.Time
	// Fence numbers the claims of this key, and never repeats for it, not
	// even after its record was deleted (expired and purged, or
	// released): a fresh claim's fence is its time in microseconds
	// (FreshFence), and every later claim of the record gets a greater
	// one. Complete, Checkpoint, Release and a ledger's writes act only
	// while it is unchanged, so a claimant that lost its key, to a
	// takeover or to a later life of the key, can change nothing.
	Fence int64
	// RecoveryPoint names the last step the work durably finished, for a
	// takeover to resume from. It survives takeovers.
	RecoveryPoint string
}

// FreshFence is the fence of a claim made at t of a key with no record:
// t in microseconds, at least 1. A fence of an earlier life of the key is
// smaller: that life began at least one lease before and a lease is far
// longer than a microsecond per takeover.
func FreshFence(t time.Time) int64 {
	return max(t.UnixMicro(), 1)
}

// ErrNotHeld is returned by Complete and Release when the record is no
// longer the caller's claim: it was taken over, expired and reclaimed, or
// completed already.
var ErrNotHeld = errors.New("idem: the claim on this key is no longer held")

// Store keeps records. Each method is one atomic step; a SQL store does each
// with a single statement (shown in the comments as sqlstore runs them, on
// its table idempotency_keys, keyed by (account, idem_key); times are
// microseconds and status is 0 while in flight). Records returned are copies the caller may
// keep.
type Store interface {
	// Claim stores rec as a new claim unless a live record holds
	// (rec.Account, rec.Key), and returns the record now stored and whether
	// the caller holds it. rec.Created is the time of the claim; the store
	// sets State to InFlight and assigns Fence: FreshFence(rec.Created)
	// for a key with no record, and for a stored one the greater of that
	// and one more than its fence.
	//
	// A Done record whose ExpiresAt is not after rec.Created is no longer
	// live and is replaced by rec: a fresh claim, with the next Fence and
	// no recovery point. An InFlight record is never replaced, however old:
	// once its LockedUntil is not after rec.Created, a claim with the same
	// Fingerprint takes it over, keeping its Created and RecoveryPoint and
	// getting rec.LockedUntil and the next Fence. Otherwise the stored
	// record is returned unchanged, with false.
	//
	//	INSERT INTO idempotency_keys AS i (account, idem_key, fingerprint, state, created, expires_at, locked_until, fence, recovery_point)
	//	VALUES ($1, $2, $3, 'in-flight', $4, $5, $6, $7, '')
	//	ON CONFLICT (account, idem_key) DO UPDATE SET
	//	  fence = CASE WHEN $7 > i.fence THEN $7 ELSE i.fence + 1 END,
	//	  fingerprint = $3, state = 'in-flight', status = 0, body = NULL, locked_until = $6,
	//	  created = CASE WHEN i.state = 'done' THEN $4 ELSE i.created END,
	//	  expires_at = CASE WHEN i.state = 'done' THEN $5 ELSE i.expires_at END,
	//	  recovery_point = CASE WHEN i.state = 'done' THEN '' ELSE i.recovery_point END
	//	WHERE (i.state = 'done' AND i.expires_at <= $4)
	//	   OR (i.state = 'in-flight' AND i.locked_until <= $4 AND i.fingerprint = $3)
	//	RETURNING *
	//
	// and, when that returns no row, a SELECT of the row that stands
	// (sqlstore does the two in turn: D1 has no data-modifying CTE).
	Claim(ctx context.Context, rec Record) (got Record, claimed bool, err error)

	// Complete saves rec.Status, rec.Body, rec.RecoveryPoint and
	// rec.ExpiresAt (the completion plus the TTL: expiry counts from here)
	// on the claim rec holds and marks it Done, or returns ErrNotHeld.
	//
	//	UPDATE idempotency_keys SET state = 'done', status = $4, body = $5, recovery_point = $6, expires_at = $7
	//	WHERE account = $1 AND idem_key = $2 AND state = 'in-flight' AND fence = $3
	Complete(ctx context.Context, rec Record) error

	// Checkpoint saves rec.RecoveryPoint on the claim rec holds, which
	// stays InFlight, or returns ErrNotHeld.
	//
	//	UPDATE idempotency_keys SET recovery_point = $4
	//	WHERE account = $1 AND idem_key = $2 AND state = 'in-flight' AND fence = $3
	Checkpoint(ctx context.Context, rec Record) error

	// Release deletes the claim rec holds, for work that did nothing, so
	// that a retry starts afresh; or returns ErrNotHeld.
	//
	//	DELETE FROM idempotency_keys WHERE account = $1 AND idem_key = $2 AND state = 'in-flight' AND fence = $3
	Release(ctx context.Context, rec Record) error

	// Get returns the record stored for (account, key), live or expired,
	// and whether there is one.
	//
	//	SELECT * FROM idempotency_keys WHERE account = $1 AND idem_key = $2
	Get(ctx context.Context, account, key string) (Record, bool, error)

	// Abandoned returns at most limit in-flight records whose lease ended
	// at or before now, the earliest ended first: claims whose claimant
	// is presumed crashed and which no retry has taken over, for a sweep
	// to finish (Keeper.Finish).
	//
	//	SELECT * FROM idempotency_keys WHERE state = 'in-flight' AND locked_until <= $1
	//	ORDER BY locked_until LIMIT $2
	Abandoned(ctx context.Context, now time.Time, limit int) ([]Record, error)
}
