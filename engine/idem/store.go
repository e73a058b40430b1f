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
	// ExpiresAt is Created plus the keeper's TTL: from then on the record
	// counts as absent and the key may be claimed afresh.
	ExpiresAt time.Time
	// LockedUntil is the end of the claimant's lease, while InFlight: a
	// claim not completed by then is presumed crashed and may be taken over
	// by a request with the same fingerprint.
	LockedUntil time.Time
	// Fence numbers the claims of this key: 1 for the first, one more on
	// every takeover or reclaim after expiry. Complete and Release act only
	// while it is unchanged, so a claimant that lost its key to a takeover
	// cannot overwrite the new claimant's work.
	Fence int64
	// RecoveryPoint names the last step the work durably finished, for a
	// takeover to resume from. It survives takeovers.
	RecoveryPoint string
}

// ErrNotHeld is returned by Complete and Release when the record is no
// longer the caller's claim: it was taken over, expired and reclaimed, or
// completed already.
var ErrNotHeld = errors.New("idem: the claim on this key is no longer held")

// Store keeps records. Each method is one atomic step; a SQL store does each
// with a single statement (shown in the comments, PostgreSQL flavour, on a
// table keyed by (account, key)). Records returned are copies the caller may
// keep.
type Store interface {
	// Claim stores rec as a new claim unless a live record holds
	// (rec.Account, rec.Key), and returns the record now stored and whether
	// the caller holds it. rec.Created is the time of the claim; the store
	// sets State to InFlight and assigns Fence.
	//
	// A stored record is not live, and is replaced by rec, once its
	// ExpiresAt is not after rec.Created. An InFlight record whose
	// LockedUntil is not after rec.Created, claimed with the same
	// Fingerprint, is taken over: it keeps its Created, ExpiresAt and
	// RecoveryPoint and gets rec.LockedUntil and the next Fence.
	// Otherwise the stored record is returned unchanged, with false.
	//
	//	INSERT INTO idem AS i (account, key, fingerprint, state, created, expires_at, locked_until, fence)
	//	VALUES ($1, $2, $3, 'in-flight', $4, $5, $6, 1)
	//	ON CONFLICT (account, key) DO UPDATE SET fence = i.fence + 1,
	//	  fingerprint = $3, state = 'in-flight', status = NULL, body = NULL, locked_until = $6,
	//	  created = CASE WHEN i.expires_at <= $4 THEN $4 ELSE i.created END,
	//	  expires_at = CASE WHEN i.expires_at <= $4 THEN $5 ELSE i.expires_at END,
	//	  recovery_point = CASE WHEN i.expires_at <= $4 THEN NULL ELSE i.recovery_point END
	//	WHERE i.expires_at <= $4 OR (i.state = 'in-flight' AND i.locked_until <= $4 AND i.fingerprint = $3)
	//	RETURNING *
	//
	// and, when that returns no row, the existing row, with false (a
	// data-modifying CTE returns either in one statement).
	Claim(ctx context.Context, rec Record) (got Record, claimed bool, err error)

	// Complete saves rec.Status, rec.Body and rec.RecoveryPoint on the
	// claim rec holds and marks it Done, or returns ErrNotHeld.
	//
	//	UPDATE idem SET state = 'done', status = $4, body = $5, recovery_point = $6
	//	WHERE account = $1 AND key = $2 AND state = 'in-flight' AND fence = $3
	Complete(ctx context.Context, rec Record) error

	// Checkpoint saves rec.RecoveryPoint on the claim rec holds, which
	// stays InFlight, or returns ErrNotHeld.
	//
	//	UPDATE idem SET recovery_point = $4
	//	WHERE account = $1 AND key = $2 AND state = 'in-flight' AND fence = $3
	Checkpoint(ctx context.Context, rec Record) error

	// Release deletes the claim rec holds, for work that did nothing, so
	// that a retry starts afresh; or returns ErrNotHeld.
	//
	//	DELETE FROM idem WHERE account = $1 AND key = $2 AND state = 'in-flight' AND fence = $3
	Release(ctx context.Context, rec Record) error

	// Get returns the record stored for (account, key), live or expired,
	// and whether there is one.
	//
	//	SELECT * FROM idem WHERE account = $1 AND key = $2
	Get(ctx context.Context, account, key string) (Record, bool, error)
}
