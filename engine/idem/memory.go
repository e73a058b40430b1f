package idem

import (
	"context"
	"sync"
	"time"
)

// MemoryStore is a Store in a map, guarded by a mutex: every method is
// atomic. An expired record is replaced when its key is claimed again, and
// Purge sweeps the others.
type MemoryStore struct {
	mu      sync.Mutex
	records map[storeKey]Record
}

// storeKey keeps account and key apart: no choice of strings can make one
// account's key collide with another's.
type storeKey struct{ account, key string }

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{records: make(map[storeKey]Record)}
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
	case !ok || !old.ExpiresAt.After(now):
		rec.State = InFlight
		rec.Status, rec.Body = 0, nil
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

// Complete implements Store.
func (m *MemoryStore) Complete(ctx context.Context, rec Record) error {
	return m.held(ctx, rec, func(k storeKey, old Record) {
		old.State = Done
		old.Status = rec.Status
		old.Body = append([]byte(nil), rec.Body...)
		old.RecoveryPoint = rec.RecoveryPoint
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

// Purge deletes the records that expired at or before now and says how
// many, so a long-running server's memory does not grow with every key it
// ever saw (retrylab api calls it periodically).
func (m *MemoryStore) Purge(ctx context.Context, now time.Time) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for k, r := range m.records {
		if !r.ExpiresAt.After(now) {
			delete(m.records, k)
			n++
		}
	}
	return n, nil
}

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
