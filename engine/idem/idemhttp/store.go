package idemhttp

import (
	"context"
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
}

// Ledger keeps payments and charges.
type Ledger interface {
	// Charge takes c.Amount for payment c.PaymentID, once: if that payment
	// has a charge already, the stored charge is returned with false and
	// nothing more is taken (the card network's own idempotency, keyed by
	// payment, which is what lets a takeover retry the charge safely).
	//
	//	INSERT INTO charges (...) VALUES (...) ON CONFLICT (payment_id) DO NOTHING RETURNING ...
	Charge(ctx context.Context, c Charge) (stored Charge, created bool, err error)
	// SavePayment stores p unless a payment with p.ID exists, and returns
	// the payment stored.
	SavePayment(ctx context.Context, p Payment) (Payment, error)
	// Payment returns the account's payment id, and whether there is one.
	Payment(ctx context.Context, account, id string) (Payment, bool, error)
	// Charges returns the account's newest charges, at most limit of them,
	// newest first, and how many the account has in all.
	Charges(ctx context.Context, account string, limit int) (newest []Charge, total int, err error)
}

// MemoryStore is a Store in memory: idem.MemoryStore for the keys and a
// map-and-slice ledger under one mutex. It is safe for concurrent use.
type MemoryStore struct {
	*idem.MemoryStore

	mu        sync.Mutex
	payments  map[string]Payment // by id
	charges   []Charge           // in the order taken
	byPayment map[string]int     // payment id -> index in charges
}

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{
		MemoryStore: idem.NewMemoryStore(),
		payments:    make(map[string]Payment),
		byPayment:   make(map[string]int),
	}
}

// Charge implements Ledger.
func (m *MemoryStore) Charge(ctx context.Context, c Charge) (Charge, bool, error) {
	if err := ctx.Err(); err != nil {
		return Charge{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if i, ok := m.byPayment[c.PaymentID]; ok {
		return m.charges[i], false, nil
	}
	m.byPayment[c.PaymentID] = len(m.charges)
	m.charges = append(m.charges, c)
	return c, true, nil
}

// SavePayment implements Ledger.
func (m *MemoryStore) SavePayment(ctx context.Context, p Payment) (Payment, error) {
	if err := ctx.Err(); err != nil {
		return Payment{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.payments[p.ID]; ok {
		return old, nil
	}
	m.payments[p.ID] = p
	return p, nil
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

// Charges implements Ledger.
func (m *MemoryStore) Charges(ctx context.Context, account string, limit int) ([]Charge, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var mine []Charge
	for _, c := range m.charges {
		if c.Account == account {
			mine = append(mine, c)
		}
	}
	total := len(mine)
	// Newest first: by time, and the later taken first among equal times.
	for i, j := 0, len(mine)-1; i < j; i, j = i+1, j-1 {
		mine[i], mine[j] = mine[j], mine[i]
	}
	sort.SliceStable(mine, func(i, j int) bool { return mine[i].Created.After(mine[j].Created) })
	if len(mine) > limit {
		mine = mine[:limit]
	}
	return mine, total, nil
}
