// Package ledger is what the sandbox payments API keeps beside its
// idempotency keys: the payments and the card charges they make (Ledger),
// the Store every backend implements (keys and ledger in one), and one in
// memory (MemoryStore); and what a client asks to pay (ParsePayment), the
// step both payment servers take, the API's and the simulation's. It is
// pure: no wall clock, no randomness, no I/O, no encoding/json (the
// simulation runs in the page's WebAssembly module). The HTTP handler
// (idemhttp), the SQL stores (sqlstore) and the payment model
// (engine/payment) import it; it imports none of them.
package ledger

import (
	"context"
	"errors"
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
	// The card network may refuse: ErrDeclined, or ErrUnavailable when it
	// cannot be reached; either way this call charged nothing.
	//
	//	INSERT INTO charges (...) SELECT ... WHERE EXISTS (the claim at c.Fence)
	//	ON CONFLICT (payment_id) DO NOTHING RETURNING ...
	Charge(ctx context.Context, c Charge) (stored Charge, created bool, err error)
	// SavePayment stores p unless a payment with p.ID exists, and returns
	// the payment stored; fenced like Charge.
	SavePayment(ctx context.Context, p Payment) (Payment, error)
	// ChargeOf returns the charge of the account's payment paymentID, and
	// whether there is one: what a sweep of an abandoned claim asks to
	// learn whether its claimant charged before it died.
	//
	//	SELECT ... FROM charges WHERE payment_id = $1 AND account = $2
	ChargeOf(ctx context.Context, account, paymentID string) (Charge, bool, error)
	// Payment returns the account's payment id, and whether there is one.
	Payment(ctx context.Context, account, id string) (Payment, bool, error)
	// Charges returns a page of the account's charges, newest first (by
	// Created, then the later taken first): at most page.Limit of them,
	// starting after the charge page.StartingAfter if it is set, and
	// whether more follow. It costs what the page does, not what the
	// account holds: no store counts an account's charges. A
	// StartingAfter that is not a charge of the account is ErrNoSuchCharge.
	Charges(ctx context.Context, account string, page Page) (list []Charge, hasMore bool, err error)
}

// Page asks for one page of a list, as Stripe's lists do: at most Limit
// items, after the item StartingAfter (an id), or from the first.
type Page struct {
	Limit         int
	StartingAfter string
}

// Charge's refusals by the card network. Neither store here ever
// returns them (they have no card network to refuse); the sandbox's
// faults do, on request, and the API answers them as it would a real
// network's.
var (
	ErrDeclined    = errors.New("ledger: the card network declined the charge")
	ErrUnavailable = errors.New("ledger: the card network could not be reached")
)

// ErrNoSuchCharge is Charges' error for a cursor that names no charge of
// the account.
var ErrNoSuchCharge = errors.New("ledger: starting_after names no charge of this account")

// ErrNotWritten marks a store's error after which nothing was written:
// the statement never ran (SQLite answered SQLITE_BUSY, say). A caller
// may take it as nothing having happened.
var ErrNotWritten = errors.New("ledger: the store did not run the write; nothing was written")
