package idem

import (
	"context"
	"sync"
	"time"
)

// Clock tells the key store's protocol what time it is. It is injected so
// that nothing in this package reads the wall clock: a simulation passes its
// virtual time, tests a ManualClock, a real server the system clock.
type Clock interface {
	Now() time.Time
}

// ClockFunc adapts a function to Clock.
type ClockFunc func() time.Time

// Now returns f().
func (f ClockFunc) Now() time.Time { return f() }

// ManualClock is a Clock that moves only when told to. It is safe for
// concurrent use.
type ManualClock struct {
	mu      sync.Mutex
	t       time.Time
	waiters []waiter
}

type waiter struct {
	until time.Time
	wake  chan struct{}
}

// NewManualClock returns a clock that reads t until moved.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{t: t} }

// Now returns the clock's current time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward by d, waking the Sleeps it ends.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.until.After(c.t) {
			kept = append(kept, w)
		} else {
			close(w.wake)
		}
	}
	c.waiters = kept
}

// Sleep blocks until the clock has been advanced d past the time it read
// when called, or ctx is done (its error is returned then).
func (c *ManualClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	if d <= 0 {
		c.mu.Unlock()
		return nil
	}
	w := waiter{until: c.t.Add(d), wake: make(chan struct{})}
	c.waiters = append(c.waiters, w)
	c.mu.Unlock()
	select {
	case <-w.wake:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, x := range c.waiters {
			if x.wake == w.wake {
				c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
				break
			}
		}
		return ctx.Err()
	}
}

// Sleepers returns how many Sleeps are waiting on the clock.
func (c *ManualClock) Sleepers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}
