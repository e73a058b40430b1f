package sqlstore

import (
	"context"
	"sync"
)

// turns hands a pool of a few connections (SQLite's one writer, its
// readers) to the accounts in turn: one statement of each account that
// waits, round and round, each account's own in the order they came.
// database/sql alone hands a freed connection to a waiter chosen at
// random, so a client with a hundred payments under way would have a
// hundred chances for another client's one; here it has one, and an
// account waits for at most one statement of each other account that
// waits, however many each sends.
type turns struct {
	slots   int // the pool's connections: how many turns run at once
	mu      sync.Mutex
	held    int                        // turns running
	waiting map[string][]chan struct{} // each account's waiters, first come first
	ring    []string                   // the accounts waiting, in their turn's order
}

// enter waits for account's turn, or for ctx to end.
func (t *turns) enter(ctx context.Context, account string) error {
	t.mu.Lock()
	if t.held < t.slots {
		t.held++
		t.mu.Unlock()
		return nil
	}
	if t.waiting == nil {
		t.waiting = map[string][]chan struct{}{}
	}
	ch := make(chan struct{})
	if len(t.waiting[account]) == 0 {
		t.ring = append(t.ring, account)
	}
	t.waiting[account] = append(t.waiting[account], ch)
	t.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		t.mu.Lock()
		granted := !t.drop(account, ch)
		t.mu.Unlock()
		if granted { // the turn came as ctx ended: pass it on
			t.leave()
		}
		return ctx.Err()
	}
}

// drop takes ch out of account's waiters, and reports whether it was
// still there. Under t.mu.
func (t *turns) drop(account string, ch chan struct{}) bool {
	q := t.waiting[account]
	for i, c := range q {
		if c != ch {
			continue
		}
		q = append(q[:i:i], q[i+1:]...)
		if len(q) > 0 {
			t.waiting[account] = q
			return true
		}
		delete(t.waiting, account)
		for j, a := range t.ring {
			if a == account {
				t.ring = append(t.ring[:j:j], t.ring[j+1:]...)
				break
			}
		}
		return true
	}
	return false
}

// leave ends a turn: the next account in the ring gets the next one.
func (t *turns) leave() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.ring) == 0 {
		t.held--
		return
	}
	a := t.ring[0]
	t.ring = t.ring[1:]
	q := t.waiting[a]
	ch := q[0]
	if q = q[1:]; len(q) > 0 {
		t.waiting[a] = q
		t.ring = append(t.ring, a) // its next statement waits for the others' turns
	} else {
		delete(t.waiting, a)
	}
	close(ch) // held stays: the turn is handed over
}
