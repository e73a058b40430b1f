package idemhttp

import (
	"sync"
	"time"
)

// Bounds of Retrylab-Fault: crash-after-charge. Each crash leaves its
// claim in flight until its lease ends (and a sweep or a retry finishes
// it), which no store may drop: unbounded, crashes from free tokens
// would fill a memory store with claims nothing can free for a lease.
const (
	// MaxCrashesPerAccount is how many crashed claims an account may have
	// waiting out their leases: 10, room for a reader to try the fault
	// again and again within one lease.
	MaxCrashesPerAccount = 10
	// MaxCrashes is how many the whole server may: 1,000, a hundredth of
	// a memory store's default 100,000 keys (idem.DefaultMaxRecords).
	MaxCrashes = 1000
)

// crashes counts the crashed claims whose leases have not ended, by
// account, as the crashes happen in this process (a Worker's instances
// count each their own: requests spread over them, so there it bounds
// little).
type crashes struct {
	mu         sync.Mutex
	until      []crash1 // by the end of their lease, earliest first
	perAccount map[string]int
}

// crash1 is one crash: its account, and when its claim's lease ends.
type crash1 struct {
	account string
	until   time.Time
}

// expire forgets the crashes whose leases ended by now. Under c.mu.
func (c *crashes) expire(now time.Time) {
	i := 0
	for ; i < len(c.until) && !c.until[i].until.After(now); i++ {
		if n := c.perAccount[c.until[i].account] - 1; n > 0 {
			c.perAccount[c.until[i].account] = n
		} else {
			delete(c.perAccount, c.until[i].account)
		}
	}
	c.until = c.until[i:]
}

// admit reports whether account may crash one more claim at now, and if
// not, when the first lease in the way ends.
func (c *crashes) admit(account string, now time.Time) (ok bool, free time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire(now)
	switch {
	case c.perAccount[account] >= MaxCrashesPerAccount:
		for _, e := range c.until {
			if e.account == account {
				return false, e.until
			}
		}
	case len(c.until) >= MaxCrashes:
		return false, c.until[0].until
	}
	return true, time.Time{}
}

// add counts a crash of account whose claim's lease ends at until, no
// earlier than any counted (every lease is the server's one length).
func (c *crashes) add(account string, until time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.perAccount == nil {
		c.perAccount = map[string]int{}
	}
	c.until = append(c.until, crash1{account, until})
	c.perAccount[account]++
}
