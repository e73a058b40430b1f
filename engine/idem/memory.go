package idem

import (
	"context"
	"sync"
)

// MemoryStore is a Store in a map, guarded by a mutex: every method is
// atomic. Records live as long as the store; expired records are replaced
// when their key is claimed again, never swept.
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
	old.State = Done
	old.Status = rec.Status
	old.Body = append([]byte(nil), rec.Body...)
	old.RecoveryPoint = rec.RecoveryPoint
	m.records[k] = old
	return nil
}

// Checkpoint implements Store.
func (m *MemoryStore) Checkpoint(ctx context.Context, rec Record) error {
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
	old.RecoveryPoint = rec.RecoveryPoint
	m.records[k] = old
	return nil
}

// Release implements Store.
func (m *MemoryStore) Release(ctx context.Context, rec Record) error {
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
	delete(m.records, k)
	return nil
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
