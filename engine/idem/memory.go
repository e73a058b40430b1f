package idem

import (
	"context"
	"errors"
	"sync"
	"time"
)

// DefaultMaxRecords is how many records a MemoryStore keeps at most when
// its Max is zero: 100,000. A record of the sandbox API takes about 1 KB
// (a 64-character fingerprint, the saved answer of about 300 bytes, the
// map's own share), so the store stays near 100 MB however long it runs.
const DefaultMaxRecords = 100_000

// ErrFull is Claim's error when a MemoryStore holds Max records and none
// of them has expired: a new key cannot be remembered, so it is not
// claimed (nothing runs) and the client may retry later.
var ErrFull = errors.New("idem: the key store is full; retry later")

// MemoryStore is a Store in a map, guarded by a mutex: every method is
// atomic. It holds at most Max records: when it is full, a claim of a new
// key first drops the records that have expired, oldest first, and is
// refused with ErrFull if none has. In-flight records are never dropped.
// Purge drops the expired records at any time.
type MemoryStore struct {
	mu      sync.Mutex
	records map[storeKey]Record
	// max is the bound (DefaultMaxRecords if zero).
	max int
	// nextExpiry is a lower bound on the ExpiresAt of every Done record:
	// before then, nothing can be purged and a full store refuses a new
	// key at once instead of scanning every record.
	nextExpiry time.Time
	// dropped, if set, is told (under the lock) of each record dropped
	// by expiry, so that what hangs on the key can go with it.
	dropped func(Record)
}

// storeKey keeps account and key apart: no choice of strings can make one
// account's key collide with another's.
type storeKey struct{ account, key string }

// NewMemoryStore returns an empty store that keeps at most
// DefaultMaxRecords records.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{records: make(map[storeKey]Record)}
}

// SetMax bounds the store to max records (DefaultMaxRecords if max <= 0).
func (m *MemoryStore) SetMax(max int) {
	m.mu.Lock()
	m.max = max
	m.mu.Unlock()
}

// OnDrop sets a function called, with the store locked, for each record
// that Purge or a full store drops because it expired.
func (m *MemoryStore) OnDrop(f func(Record)) {
	m.mu.Lock()
	m.dropped = f
	m.mu.Unlock()
}

// Len returns how many records the store holds.
func (m *MemoryStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.records)
}

func (m *MemoryStore) limit() int {
	if m.max <= 0 {
		return DefaultMaxRecords
	}
	return m.max
}

// Claim implements Store.
func (m *MemoryStore) Claim(ctx context.Context, rec Record) (Record, bool, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, false, err
	}
	now := rec.Created
	k := storeKey{rec.Account, rec.Key}
	m.mu.Lock()
	defer m.mu.Unlock()
	old, ok := m.records[k]
	switch {
	case !ok && !m.makeRoom(now):
		return Record{}, false, ErrFull
	case !ok || old.State == Done && !old.ExpiresAt.After(now):
		rec.State = InFlight
		rec.Status, rec.Body, rec.RecoveryPoint = 0, nil, ""
		rec.Fence = old.Fence + 1 // 1 for a first claim
		m.records[k] = rec
		return rec, true, nil
	case old.State == InFlight && !old.LockedUntil.After(now) && old.Fingerprint == rec.Fingerprint:
		old.LockedUntil = rec.LockedUntil
		old.Fence++
		m.records[k] = old
		return clone(old), true, nil
	}
	return clone(old), false, nil
}

// makeRoom reports whether one more record fits, dropping the expired
// ones first if the store is full.
func (m *MemoryStore) makeRoom(now time.Time) bool {
	if len(m.records) < m.limit() {
		return true
	}
	if now.Before(m.nextExpiry) {
		return false
	}
	m.purge(now)
	return len(m.records) < m.limit()
}

// Complete implements Store.
func (m *MemoryStore) Complete(ctx context.Context, rec Record) error {
	return m.held(ctx, rec, func(k storeKey, old Record) {
		old.State = Done
		old.Status = rec.Status
		old.Body = append([]byte(nil), rec.Body...)
		old.RecoveryPoint = rec.RecoveryPoint
		old.ExpiresAt = rec.ExpiresAt
		if old.ExpiresAt.Before(m.nextExpiry) {
			m.nextExpiry = old.ExpiresAt
		}
		m.records[k] = old
	})
}

// Checkpoint implements Store.
func (m *MemoryStore) Checkpoint(ctx context.Context, rec Record) error {
	return m.held(ctx, rec, func(k storeKey, old Record) {
		old.RecoveryPoint = rec.RecoveryPoint
		m.records[k] = old
	})
}

// Release implements Store.
func (m *MemoryStore) Release(ctx context.Context, rec Record) error {
	return m.held(ctx, rec, func(k storeKey, _ Record) { delete(m.records, k) })
}

// Fenced runs f while the store is locked, if rec's claim still holds its
// record (in flight, same fence), and returns ErrNotHeld otherwise. A
// ledger kept beside the store uses it to refuse a charge from a claimant
// that lost its key, in the same atomic step as the charge.
func (m *MemoryStore) Fenced(ctx context.Context, rec Record, f func() error) error {
	var err error
	if herr := m.held(ctx, rec, func(storeKey, Record) { err = f() }); herr != nil {
		return herr
	}
	return err
}

// held applies change, under the lock, to rec's record if rec's claim still
// holds it (in flight, same fence), and answers ErrNotHeld otherwise: a
// claim that was taken over can change nothing.
func (m *MemoryStore) held(ctx context.Context, rec Record, change func(k storeKey, old Record)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	k := storeKey{rec.Account, rec.Key}
	m.mu.Lock()
	defer m.mu.Unlock()
	old, ok := m.records[k]
	if !ok || old.State != InFlight || old.Fence != rec.Fence {
		return ErrNotHeld
	}
	change(k, old)
	return nil
}

// Purge deletes the Done records that expired at or before now and says
// how many, so a long-running server's memory does not grow with every key
// it ever saw (retrylab api calls it periodically). In-flight records are
// kept, however old.
func (m *MemoryStore) Purge(ctx context.Context, now time.Time) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.purge(now), nil
}

func (m *MemoryStore) purge(now time.Time) int64 {
	var n int64
	var next time.Time
	for k, r := range m.records {
		if r.State != Done {
			continue
		}
		if !r.ExpiresAt.After(now) {
			delete(m.records, k)
			if m.dropped != nil {
				m.dropped(r)
			}
			n++
		} else if next.IsZero() || r.ExpiresAt.Before(next) {
			next = r.ExpiresAt
		}
	}
	if next.IsZero() {
		next = farFuture // none done: the next Complete lowers it
	}
	m.nextExpiry = next
	return n
}

// farFuture stands for "no Done record": Complete lowers nextExpiry from it.
var farFuture = time.Unix(1<<62, 0)

// Get implements Store.
func (m *MemoryStore) Get(ctx context.Context, account, key string) (Record, bool, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.records[storeKey{account, key}]
	return clone(r), ok, nil
}

// clone copies the record's body, the one field shared by reference.
func clone(r Record) Record {
	if r.Body != nil {
		r.Body = append([]byte(nil), r.Body...)
	}
	return r
}
