package idemhttp

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
)

// Store is what the API keeps: the idempotency keys, and the ledger of
// payments and the card charges they make. A SQL store keeps both in one
// database; every method is one atomic step (one statement), since
// Cloudflare D1 has no transactions.
type Store interface {
	idem.Store
	Ledger
}

// Payment is one payment as the API shows it.
type Payment struct {
	ID       string // pay_...
	Account  string
	Amount   int64  // in the currency's smallest unit (cents)
	Currency string // three lower-case letters
	Status   string // PaymentSucceeded or PaymentDeclined
	ChargeID string // the charge that took the money; "" when declined
	Key      string // the Idempotency-Key of the request that made it
	Created  time.Time
	// Fence is the fence of the claim on Key that saves the payment (not
	// stored): SavePayment refuses a claim that no longer holds the key.
	Fence int64
}

// Payment statuses.
const (
	PaymentSucceeded = "succeeded"
	PaymentDeclined  = "declined"
)

// Charge is money taken from a card: what a bank statement shows. Two
// charges for one intent are a double charge.
type Charge struct {
	ID        string // ch_...
	Account   string
	PaymentID string // the payment it was taken for: at most one charge each
	Amount    int64
	Currency  string
	Key       string // the Idempotency-Key of the request that caused it
	Created   time.Time
	// Fence is the fence of the claim on Key that takes the charge (not
	// stored): Charge refuses a claim that no longer holds the key.
	Fence int64
}

// Ledger keeps payments and charges. Its writes are fenced: each carries
// the fence of the claim on its (Account, Key) it is made under, and is
// refused with idem.ErrNotHeld, in the same atomic step, unless that claim
// still holds the key (in flight, same fence). A claimant that lost its
// key to a takeover, however slow, can then charge nothing.
type Ledger interface {
	// Charge takes c.Amount for payment c.PaymentID, once: if that payment
	// has a charge already, the stored charge is returned with false and
	// nothing more is taken (the payment processor's own idempotency,
	// keyed by payment, which is what lets a takeover retry the charge
	// safely). A stale c.Fence with no charge stored: idem.ErrNotHeld.
	//
	//	INSERT INTO charges (...) SELECT ... WHERE EXISTS (the claim at c.Fence)
	//	ON CONFLICT (payment_id) DO NOTHING RETURNING ...
	Charge(ctx context.Context, c Charge) (stored Charge, created bool, err error)
	// SavePayment stores p unless a payment with p.ID exists, and returns
	// the payment stored; fenced like Charge.
	SavePayment(ctx context.Context, p Payment) (Payment, error)
	// Payment returns the account's payment id, and whether there is one.
	Payment(ctx context.Context, account, id string) (Payment, bool, error)
	// Charges returns a page of the account's charges, newest first (by
	// Created, then the later taken first): at most page.Limit of them,
	// starting after the charge page.StartingAfter if it is set, and
	// whether more follow, and how many the account has in all. A
	// StartingAfter that is not a charge of the account is ErrNoSuchCharge.
	Charges(ctx context.Context, account string, page Page) (list []Charge, hasMore bool, total int, err error)
}

// Page asks for one page of a list, as Stripe's lists do: at most Limit
// items, after the item StartingAfter (an id), or from the first.
type Page struct {
	Limit         int
	StartingAfter string
}

// ErrNoSuchCharge is Charges' error for a cursor that names no charge of
// the account.
var ErrNoSuchCharge = errors.New("idemhttp: starting_after names no charge of this account")

// MemoryStore is a Store in memory: idem.MemoryStore for the keys and a
// ledger indexed by account beside it. It is bounded as the keys are
// (idem.MemoryStore's Max): a key's payments and charges are forgotten
// when its record expires and is dropped. Charges are fenced through the
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
	return m
}

// forget drops what rec's key made; called by the key store, locked, when
// it drops rec.
func (m *MemoryStore) forget(rec idem.Record) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := accountKey{rec.Account, rec.Key}
	kl := m.byKey[k]
	delete(m.byKey, k)
	for _, id := range kl.payments {
		delete(m.payments, id)
	}
	for _, c := range kl.charges {
		delete(m.byPayment, c.PaymentID)
		delete(m.byID, c.ID)
		list := m.byAccount[c.Account]
		if i, ok := m.find(list, c); ok {
			list = slices.Delete(list, i, i+1)
		}
		if len(list) == 0 {
			delete(m.byAccount, c.Account)
		} else {
			m.byAccount[c.Account] = list
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
func (m *MemoryStore) Charges(ctx context.Context, account string, page Page) ([]Charge, bool, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	list := m.byAccount[account]
	end := len(list) // exclusive: the newest charge to list is list[end-1]
	if page.StartingAfter != "" {
		c, ok := m.byID[page.StartingAfter]
		if !ok || c.Account != account {
			return nil, false, 0, ErrNoSuchCharge
		}
		end, _ = m.find(list, c)
	}
	var out []Charge
	for i := end - 1; i >= 0 && len(out) < page.Limit; i-- {
		out = append(out, list[i].Charge)
	}
	return out, end-len(out) > 0, len(list), nil
}
