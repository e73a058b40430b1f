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

// accountShare is how many records one account may hold in a store
// bounded to limit: a tenth of it (10,000 of the default 100,000), so that
// no single token can fill the store and lock every other account out;
// but never fewer than 1,000 or the whole bound, for small stores.
func accountShare(limit int) int {
	return max(limit/10, min(limit, 1000))
}

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
	// dropped, if set, is told (under the lock) of the records each
	// purge drops, so that what hangs on their keys can go with them.
	dropped func([]Record)
	// perAccount counts each account's records.
	perAccount map[string]int
}

// storeKey keeps account and key apart: no choice of strings can make one
// account's key collide with another's.
type storeKey struct{ account, key string }

// NewMemoryStore returns an empty store that keeps at most
// DefaultMaxRecords records.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{records: make(map[storeKey]Record), perAccount: make(map[string]int)}
}

// SetMax bounds the store to max records (DefaultMaxRecords if max <= 0).
func (m *MemoryStore) SetMax(max int) {
	m.mu.Lock()
	m.max = max
	m.mu.Unlock()
}

// OnDrop sets a function called, with the store locked, with the records
// that each Purge (or a full store making room) drops because they
// expired.
func (m *MemoryStore) OnDrop(f func([]Record)) {
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
	case !ok && !m.makeRoom(now, rec.Account):
		return Record{}, false, ErrFull
	case !ok || old.State == Done && !old.ExpiresAt.After(now):
		if !ok {
			m.perAccount[rec.Account]++
		}
		rec.State = InFlight
		rec.Status, rec.Body, rec.RecoveryPoint = 0, nil, ""
		rec.Fence = max(FreshFence(now), old.Fence+1)
		m.records[k] = rec
		return rec, true, nil
	case old.State == InFlight && !old.LockedUntil.After(now) && old.Fingerprint == rec.Fingerprint:
		old.LockedUntil = rec.LockedUntil
		old.Fence = max(FreshFence(now), old.Fence+1)
		m.records[k] = old
		return clone(old), true, nil
	}
	return clone(old), false, nil
}

// makeRoom reports whether one more record of account fits, dropping the
// expired ones first if the store, or the account's share of it, is full.
func (m *MemoryStore) makeRoom(now time.Time, account string) bool {
	fits := func() bool {
		return len(m.records) < m.limit() && m.perAccount[account] < accountShare(m.limit())
	}
	if fits() {
		return true
	}
	if now.Before(m.nextExpiry) {
		return false
	}
	m.purge(now)
	return fits()
}

// remove deletes k's record, keeping the account's count.
func (m *MemoryStore) remove(k storeKey) {
	delete(m.records, k)
	if n := m.perAccount[k.account] - 1; n > 0 {
		m.perAccount[k.account] = n
	} else {
		delete(m.perAccount, k.account)
	}
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
	return m.held(ctx, rec, func(k storeKey, _ Record) { m.remove(k) })
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
	var gone []Record
	var next time.Time
	for k, r := range m.records {
		if r.State != Done {
			continue
		}
		if !r.ExpiresAt.After(now) {
			m.remove(k)
			gone = append(gone, r)
		} else if next.IsZero() || r.ExpiresAt.Before(next) {
			next = r.ExpiresAt
		}
	}
	if len(gone) > 0 && m.dropped != nil {
		m.dropped(gone)
	}
	n := int64(len(gone))
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
