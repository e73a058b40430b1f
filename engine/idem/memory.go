package idem

import (
	"context"
	"errors"
	"slices"
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
// full, the oldest finished record of the account that holds the most
// finished records, so that an account holding little always gets in and
// no account loses a live key while another holds more. An account at its
// share is refused (FullError), as is every new key while all the
// store's records are in flight. In-flight records are never dropped:
// their work may have charged; they leave once finished (a takeover, or
// a sweep of the abandoned ones: Abandoned). Purge drops the expired
// records at any time.
type MemoryStore struct {
	mu      sync.Mutex
	records map[storeKey]Record
	// max is the bound (DefaultMaxRecords if zero).
	max int
	// nextExpiry is a lower bound on the ExpiresAt of every Done record:
	// before then, nothing can be purged and a full store goes straight
	// to dropping a live record instead of scanning every record.
	nextExpiry time.Time
	// dropped, if set, is told (under the lock) of the records each
	// purge or eviction drops, so that what hangs on their keys can go
	// with them.
	dropped func([]Record)
	// accounts are the accounts holding records; byDone orders those
	// holding finished ones, the most first.
	accounts map[string]*account
	byDone   accountHeap
	// inFlight are the keys of the in-flight records.
	inFlight map[storeKey]struct{}
}

// account is what a MemoryStore knows of one account's records.
type account struct {
	name    string
	records int // held, in flight or done
	done    int // held and done
	// finished are the account's done records in the order they
	// finished, oldest first, from head on; an entry whose record has
	// since gone or changed is stale and skipped.
	finished []finishedRef
	head     int
	index    int // in byDone; -1 when it holds no done record
}

// finishedRef names a done record by its key and expiry.
type finishedRef struct {
	key     string
	expires time.Time
}

// storeKey keeps account and key apart: no choice of strings can make one
// account's key collide with another's.
type storeKey struct{ account, key string }

// NewMemoryStore returns an empty store that keeps at most
// DefaultMaxRecords records.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{records: make(map[storeKey]Record), accounts: make(map[string]*account),
		inFlight: make(map[storeKey]struct{})}
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
// cannot: the expired records go first, then (for a full store) the
// oldest finished record of the account holding the most.
func (m *MemoryStore) makeRoom(now time.Time, name string) error {
	share := accountShare(m.limit())
	a := m.accounts[name]
	held := func() int {
		if a == nil {
			return 0
		}
		return a.records
	}
	if len(m.records) < m.limit() && held() < share {
		return nil
	}
	if !now.Before(m.nextExpiry) {
		m.purge(now)
		a = m.accounts[name]
	}
	if held() >= share {
		return &FullError{Account: true, Share: share, Free: a.earliestExpiry(m)}
	}
	if len(m.records) < m.limit() {
		return nil
	}
	if len(m.byDone) == 0 {
		return &FullError{}
	}
	m.evict(m.byDone[0])
	return nil
}

// evict drops a's oldest finished record.
func (m *MemoryStore) evict(a *account) {
	k, r, ok := a.oldest(m)
	if !ok {
		return
	}
	m.remove(k, r)
	if m.dropped != nil {
		m.dropped([]Record{r})
	}
}

// oldest returns a's oldest finished record, dropping the stale entries
// before it.
func (a *account) oldest(m *MemoryStore) (storeKey, Record, bool) {
	for a.head < len(a.finished) {
		f := a.finished[a.head]
		k := storeKey{a.name, f.key}
		if r, ok := m.records[k]; ok && r.State == Done && r.ExpiresAt.Equal(f.expires) {
			return k, r, true
		}
		a.finished[a.head] = finishedRef{}
		a.head++
	}
	return storeKey{}, Record{}, false
}

// earliestExpiry is when a's first finished record expires, zero if it
// has none.
func (a *account) earliestExpiry(m *MemoryStore) time.Time {
	if _, r, ok := a.oldest(m); ok {
		return r.ExpiresAt
	}
	return time.Time{}
}

// put stores rec under k, where old (if had) was, keeping the counts.
func (m *MemoryStore) put(k storeKey, old Record, had bool, rec Record) {
	a := m.account(k.account)
	if had {
		m.leave(a, k, old)
	} else {
		a.records++
	}
	m.records[k] = rec
	m.enter(a, k, rec)
}

// enter counts rec, just stored under k, in its state.
func (m *MemoryStore) enter(a *account, k storeKey, rec Record) {
	if rec.State == InFlight {
		m.inFlight[k] = struct{}{}
		return
	}
	a.done++
	a.finished = append(a.finished, finishedRef{k.key, rec.ExpiresAt})
	m.byDone.update(a)
}

// leave uncounts old, the record under k, from its state.
func (m *MemoryStore) leave(a *account, k storeKey, old Record) {
	if old.State == InFlight {
		delete(m.inFlight, k)
		return
	}
	a.done--
	m.byDone.update(a)
	if a.head > len(a.finished)/2 { // compact once half is spent: amortised O(1)
		a.finished = append(a.finished[:0], a.finished[a.head:]...)
		a.head = 0
	}
}

// account returns the account named, made if new.
func (m *MemoryStore) account(name string) *account {
	a := m.accounts[name]
	if a == nil {
		a = &account{name: name, index: -1}
		m.accounts[name] = a
	}
	return a
}

// remove deletes k's record r, keeping the counts.
func (m *MemoryStore) remove(k storeKey, r Record) {
	a := m.accounts[k.account]
	delete(m.records, k)
	m.leave(a, k, r)
	if a.records--; a.records == 0 {
		m.byDone.remove(a)
		delete(m.accounts, k.account)
	}
}

// accountHeap is a max-heap of accounts by their done records, each
// knowing its index: the account to evict from is at [0].
type accountHeap []*account

// update puts a where its done count places it, in or out of the heap.
func (h *accountHeap) update(a *account) {
	switch {
	case a.done == 0:
		h.remove(a)
	case a.index < 0:
		a.index = len(*h)
		*h = append(*h, a)
		h.up(a.index)
	default:
		h.up(a.index)
		h.down(a.index)
	}
}

func (h *accountHeap) remove(a *account) {
	i := a.index
	if i < 0 {
		return
	}
	last := len(*h) - 1
	h.swap(i, last)
	*h = (*h)[:last]
	a.index = -1
	if i < last {
		h.up(i)
		h.down(i)
	}
}

func (h accountHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

func (h accountHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if h[p].done >= h[i].done {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h accountHeap) down(i int) {
	for {
		big := i
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(h) && h[c].done > h[big].done {
				big = c
			}
		}
		if big == i {
			return
		}
		h.swap(i, big)
		i = big
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
	var out []Record
	for k := range m.inFlight {
		if r := m.records[k]; !r.LockedUntil.After(now) {
			out = append(out, clone(r))
		}
	}
	m.mu.Unlock()
	slices.SortFunc(out, func(a, b Record) int { return a.LockedUntil.Compare(b.LockedUntil) })
	if len(out) > limit {
		out = out[:limit]
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
