package ledger

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"

	"github.com/retrylab/retrylab/engine/idem"
)

// MemoryStore is a Store in memory: idem.MemoryStore for the keys, which
// a full store makes room in by evicting (idem.MemoryStore.EvictLargest),
// and a ledger indexed by account beside it. It is bounded as the keys
// are (idem.MemoryStore's Max): a key's payments and charges are
// forgotten when its record is dropped. Charges are fenced through the
// key store's lock (idem.MemoryStore.Fenced), so the check and the write
// are one step. It is safe for concurrent use.
type MemoryStore struct {
	*idem.MemoryStore

	mu        sync.Mutex // after the key store's lock, never before it
	seq       int64
	payments  map[string]Payment       // by id
	byPayment map[string]*memCharge    // payment id -> its charge
	byID      map[string]*memCharge    // charge id -> the charge
	byAccount map[string][]*memCharge  // account -> charges, oldest first
	byKey     map[accountKey]keyLedger // what each key made, to forget with it
}

type memCharge struct {
	Charge
	seq int64 // order taken, to break ties of Created
}

type accountKey struct{ account, key string }

type keyLedger struct {
	payments []string // ids
	charges  []*memCharge
}

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	m := &MemoryStore{
		MemoryStore: idem.NewMemoryStore(),
		payments:    make(map[string]Payment),
		byPayment:   make(map[string]*memCharge),
		byID:        make(map[string]*memCharge),
		byAccount:   make(map[string][]*memCharge),
		byKey:       make(map[accountKey]keyLedger),
	}
	m.MemoryStore.OnDrop(m.forget)
	m.MemoryStore.EvictLargest()
	return m
}

// forget drops what the dropped records' keys made before each record's
// ExpiresAt: what its life made, and its key's past lives, if it was
// claimed again after expiring; never a later life's. Called by the key
// store, locked, once per purge or eviction. Each account's list is
// compacted once, however many of its charges go.
func (m *MemoryStore) forget(recs []idem.Record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	gone := map[*memCharge]bool{}
	for _, rec := range recs {
		k := accountKey{rec.Account, rec.Key}
		kl := m.byKey[k]
		var keep keyLedger
		for _, id := range kl.payments {
			if p := m.payments[id]; p.Created.Before(rec.ExpiresAt) {
				delete(m.payments, id)
			} else {
				keep.payments = append(keep.payments, id)
			}
		}
		for _, c := range kl.charges {
			if c.Created.Before(rec.ExpiresAt) {
				delete(m.byPayment, c.PaymentID)
				delete(m.byID, c.ID)
				gone[c] = true
			} else {
				keep.charges = append(keep.charges, c)
			}
		}
		if len(keep.payments)+len(keep.charges) == 0 {
			delete(m.byKey, k)
		} else {
			m.byKey[k] = keep
		}
	}
	accounts := map[string]bool{}
	for c := range gone {
		accounts[c.Account] = true
	}
	for a := range accounts {
		list := slices.DeleteFunc(m.byAccount[a], func(c *memCharge) bool { return gone[c] })
		if len(list) == 0 {
			delete(m.byAccount, a)
		} else {
			m.byAccount[a] = list
		}
	}
}

// before reports whether a sorts before b, oldest first.
func before(a, b *memCharge) bool {
	if !a.Created.Equal(b.Created) {
		return a.Created.Before(b.Created)
	}
	return a.seq < b.seq
}

// find returns c's index in list (sorted oldest first).
func (m *MemoryStore) find(list []*memCharge, c *memCharge) (int, bool) {
	i := sort.Search(len(list), func(i int) bool { return !before(list[i], c) })
	return i, i < len(list) && list[i] == c
}

// Charge implements Ledger.
func (m *MemoryStore) Charge(ctx context.Context, c Charge) (stored Charge, created bool, err error) {
	rec := idem.Record{Account: c.Account, Key: c.Key, Fence: c.Fence}
	err = m.MemoryStore.Fenced(ctx, rec, func() error {
		m.mu.Lock()
		defer m.mu.Unlock()
		if old, ok := m.byPayment[c.PaymentID]; ok {
			stored = old.Charge
			return nil
		}
		m.seq++
		mc := &memCharge{Charge: c, seq: m.seq}
		mc.Fence = 0
		m.byPayment[c.PaymentID] = mc
		m.byID[c.ID] = mc
		list := m.byAccount[c.Account]
		i := sort.Search(len(list), func(i int) bool { return before(mc, list[i]) })
		m.byAccount[c.Account] = slices.Insert(list, i, mc)
		k := accountKey{c.Account, c.Key}
		kl := m.byKey[k]
		kl.charges = append(kl.charges, mc)
		m.byKey[k] = kl
		stored, created = mc.Charge, true
		return nil
	})
	if errors.Is(err, idem.ErrNotHeld) {
		// A lost claim may still learn of the charge that stands.
		m.mu.Lock()
		old, ok := m.byPayment[c.PaymentID]
		m.mu.Unlock()
		if ok {
			return old.Charge, false, nil
		}
	}
	if err != nil {
		return Charge{}, false, err
	}
	return stored, created, nil
}

// SavePayment implements Ledger.
func (m *MemoryStore) SavePayment(ctx context.Context, p Payment) (stored Payment, err error) {
	rec := idem.Record{Account: p.Account, Key: p.Key, Fence: p.Fence}
	p.Fence = 0
	err = m.MemoryStore.Fenced(ctx, rec, func() error {
		m.mu.Lock()
		defer m.mu.Unlock()
		if old, ok := m.payments[p.ID]; ok {
			stored = old
			return nil
		}
		m.payments[p.ID] = p
		k := accountKey{p.Account, p.Key}
		kl := m.byKey[k]
		kl.payments = append(kl.payments, p.ID)
		m.byKey[k] = kl
		stored = p
		return nil
	})
	if errors.Is(err, idem.ErrNotHeld) {
		m.mu.Lock()
		old, ok := m.payments[p.ID]
		m.mu.Unlock()
		if ok {
			return old, nil
		}
	}
	return stored, err
}

// ChargeOf implements Ledger.
func (m *MemoryStore) ChargeOf(ctx context.Context, account, paymentID string) (Charge, bool, error) {
	if err := ctx.Err(); err != nil {
		return Charge{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.byPayment[paymentID]
	if !ok || c.Account != account {
		return Charge{}, false, nil
	}
	return c.Charge, true, nil
}

// Payment implements Ledger.
func (m *MemoryStore) Payment(ctx context.Context, account, id string) (Payment, bool, error) {
	if err := ctx.Err(); err != nil {
		return Payment{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.payments[id]
	if !ok || p.Account != account {
		return Payment{}, false, nil
	}
	return p, true, nil
}

// Charges implements Ledger: a binary search in the account's own list,
// whatever the other accounts hold.
func (m *MemoryStore) Charges(ctx context.Context, account string, page Page) ([]Charge, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	list := m.byAccount[account]
	end := len(list) // exclusive: the newest charge to list is list[end-1]
	if page.StartingAfter != "" {
		c, ok := m.byID[page.StartingAfter]
		if !ok || c.Account != account {
			return nil, false, ErrNoSuchCharge
		}
		end, _ = m.find(list, c)
	}
	var out []Charge
	for i := end - 1; i >= 0 && len(out) < page.Limit; i-- {
		out = append(out, list[i].Charge)
	}
	return out, end-len(out) > 0, nil
}
