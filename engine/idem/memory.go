package idem

import (
	"context"
	"errors"
	"sync"
	"time"
)

// DefaultMaxRecords is how many records a MemoryStore keeps at most when
// its Max is zero: 100,000. A record of the sandbox API, with the payment
// and the charge the ledger keeps beside it (ledger.MemoryStore), takes
// about 1.7 KB of heap (the bench measures it), so the store stays under
// about 170 MB however long it runs and however it is used.
const DefaultMaxRecords = 100_000

// accountShare is how many records one account may hold in a store
// bounded to limit: a tenth of it (10,000 of the default 100,000), so that
// no single token holds most of the store; but never fewer than 1,000 or
// the whole bound, for small stores.
func accountShare(limit int) int {
	return max(limit/10, min(limit, 1000))
}

// ErrFull is the root of Claim's error (a *FullError) when a MemoryStore
// cannot take a new key: nothing is claimed, nothing runs.
var ErrFull = errors.New("idem: the key store is full; retry later")

// FullError says why a MemoryStore refused a new key, and when that will
// change if it is known: errors.Is(err, ErrFull) is true of it.
type FullError struct {
	// Account is true when the account holds its share of the store
	// (AccountShare) in live records, false when the whole store is in
	// flight.
	Account bool
	// Share is how many records the account may hold (AccountShare).
	Share int
	// Free is when a record in the way will surely be gone: the expiry
	// of the account's earliest finished key; zero when every record in
	// the way is in flight, which goes only once finished.
	Free time.Time
}

func (e *FullError) Error() string {
	if e.Account {
		return "idem: this account holds as many live keys as one account may"
	}
	return "idem: every key the store may hold is in flight"
}

func (e *FullError) Is(target error) bool { return target == ErrFull }

// MemoryStore is a Store in a map, guarded by a mutex: every method is
// atomic. It holds at most Max records (DefaultMaxRecords), an account at
// most AccountShare of them. A claim of a new key that does not fit
// first drops the records that have expired; then, if the store is still
// full and EvictLargest was called, the oldest finished record of the
// account that holds the most finished records, so that an account
// holding little always gets in and no account loses a live key while
// another holds more. An account at its share is refused (FullError), as
// is a new key in a full store with nothing to drop. In-flight records
// are never dropped: their work may have charged; they leave once
// finished (a takeover, or a sweep of the abandoned ones: Abandoned).
// Purge drops the expired records at any time.
type MemoryStore struct {
	mu      sync.Mutex
	records map[storeKey]Record
	// max is the bound (DefaultMaxRecords if zero).
	max int
	// nextExpiry is a lower bound on the ExpiresAt of every Done record:
	// before then, nothing can be purged and a full store refuses a new
	// key, or drops a live one, at once instead of scanning every record.
	nextExpiry time.Time
	// dropped, if set, is told (under the lock) of the records each
	// purge or eviction drops, so that what hangs on their keys can go
	// with them.
	dropped func([]Record)
	// perAccount counts each account's records.
	perAccount map[string]int
	// evict, if set (EvictLargest), is told of every record stored and
	// removed, and chooses the live record a full store drops.
	evict evictor
}

// evictor chooses the live record a full MemoryStore drops, from what it
// is told of the records stored and removed. Under the store's lock.
type evictor interface {
	stored(k storeKey, old Record, had bool, rec Record)
	removed(k storeKey, r Record)
	// drop drops the record m should, and reports whether there was one
	// to drop.
	drop(m *MemoryStore) bool
	// earliest is when account's first finished record expires; zero if
	// it has none.
	earliest(account string, records map[storeKey]Record) time.Time
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

// AccountShare is how many records one account may hold.
func (m *MemoryStore) AccountShare() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return accountShare(m.limit())
}

// OnDrop sets a function called, with the store locked, with the records
// that each Purge, or a full store making room, drops: what hangs on a
// record's key and came before its ExpiresAt (its life's, and the past
// lives' of a key claimed again after expiring) goes with it.
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
	if !ok {
		if err := m.makeRoom(now, rec.Account); err != nil {
			return Record{}, false, err
		}
	}
	switch {
	case !ok || old.State == Done && !old.ExpiresAt.After(now):
		rec.State = InFlight
		rec.Status, rec.Body, rec.RecoveryPoint = 0, nil, ""
		rec.Fence = max(FreshFence(now), old.Fence+1)
		m.put(k, old, ok, rec)
		return rec, true, nil
	case old.State == InFlight && !old.LockedUntil.After(now) && old.Fingerprint == rec.Fingerprint:
		old.LockedUntil = rec.LockedUntil
		old.Fence = max(FreshFence(now), old.Fence+1)
		m.records[k] = old
		return clone(old), true, nil
	}
	return clone(old), false, nil
}

// makeRoom makes room for one more record of account, or says why it
// cannot: the expired records go first, then (for a full store that
// evicts) the live one the evictor chooses.
func (m *MemoryStore) makeRoom(now time.Time, account string) error {
	share := accountShare(m.limit())
	if len(m.records) < m.limit() && m.perAccount[account] < share {
		return nil
	}
	if !now.Before(m.nextExpiry) {
		m.purge(now)
	}
	if m.perAccount[account] >= share {
		e := &FullError{Account: true, Share: share}
		if m.evict != nil {
			e.Free = m.evict.earliest(account, m.records)
		}
		return e
	}
	if len(m.records) < m.limit() {
		return nil
	}
	if m.evict != nil && m.evict.drop(m) {
		return nil
	}
	return &FullError{}
}

// put stores rec under k, where old (if had) was, keeping the counts.
func (m *MemoryStore) put(k storeKey, old Record, had bool, rec Record) {
	if !had {
		m.perAccount[k.account]++
	}
	m.records[k] = rec
	if m.evict != nil {
		m.evict.stored(k, old, had, rec)
	}
}

// remove deletes k's record r, keeping the counts.
func (m *MemoryStore) remove(k storeKey, r Record) {
	delete(m.records, k)
	if n := m.perAccount[k.account] - 1; n > 0 {
		m.perAccount[k.account] = n
	} else {
		delete(m.perAccount, k.account)
	}
	if m.evict != nil {
		m.evict.removed(k, r)
	}
}

// Complete implements Store.
func (m *MemoryStore) Complete(ctx context.Context, rec Record) error {
	return m.held(ctx, rec, func(k storeKey, old Record) {
		done := old
		done.State = Done
		done.Status = rec.Status
		done.Body = append([]byte(nil), rec.Body...)
		done.RecoveryPoint = rec.RecoveryPoint
		done.ExpiresAt = rec.ExpiresAt
		if done.ExpiresAt.Before(m.nextExpiry) {
			m.nextExpiry = done.ExpiresAt
		}
		m.put(k, old, true, done)
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
	return m.held(ctx, rec, func(k storeKey, old Record) { m.remove(k, old) })
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
			m.remove(k, r)
			gone = append(gone, r)
		} else if next.IsZero() || r.ExpiresAt.Before(next) {
			next = r.ExpiresAt
		}
	}
	n := int64(len(gone))
	if len(gone) > 0 && m.dropped != nil {
		m.dropped(gone)
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

// Abandoned implements Store, in the order of the in-flight keys' leases.
func (m *MemoryStore) Abandoned(ctx context.Context, now time.Time, limit int) ([]Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// The earliest limit, kept in order as they are found: one pass over
	// every record (a sweep's every few seconds), and an insertion, which
	// costs the page's WebAssembly module, which holds this store, far
	// less code than a sort of Records or a set of the in-flight keys
	// would.
	var out []Record
	for _, r := range m.records {
		if r.State != InFlight || r.LockedUntil.After(now) {
			continue
		}
		i := len(out)
		for i > 0 && r.LockedUntil.Before(out[i-1].LockedUntil) {
			i--
		}
		if i >= limit {
			continue
		}
		if len(out) < limit {
			out = append(out, Record{})
		}
		copy(out[i+1:], out[i:])
		out[i] = clone(r)
	}
	return out, nil
}

// clone copies the record's body, the one field shared by reference.
func clone(r Record) Record {
	if r.Body != nil {
		r.Body = append([]byte(nil), r.Body...)
	}
	return r
}
