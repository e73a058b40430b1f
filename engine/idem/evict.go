package idem

import "time"

// EvictLargest makes a full store, with nothing expired to drop, make
// room for a new key by dropping the oldest finished record of the
// account holding the most finished records: an account holding little
// then always gets in, however many live keys the others hold, and no
// account loses a live key while another holds more finished ones. A
// retry of a key dropped so is a new request, as after its TTL. Without
// it a full store refuses new keys until some expire. Call it before the
// store is used. It is its own file's code, which a store that does not
// evict (the page's simulators') does not carry.
func (m *MemoryStore) EvictLargest() {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := &largest{accounts: map[string]*account{}}
	for k, r := range m.records {
		l.stored(k, Record{}, false, r)
	}
	m.evict = l
}

// largest is EvictLargest's evictor: each account's finished records in
// the order they finished, and the accounts in a heap by how many they
// hold.
type largest struct {
	accounts map[string]*account
	byDone   accountHeap
}

// account is what largest knows of one account's records.
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

func (l *largest) stored(k storeKey, old Record, had bool, rec Record) {
	a := l.accounts[k.account]
	if a == nil {
		a = &account{name: k.account, index: -1}
		l.accounts[k.account] = a
	}
	if had {
		l.leave(a, old)
	} else {
		a.records++
	}
	if rec.State == Done {
		a.done++
		a.finished = append(a.finished, finishedRef{k.key, rec.ExpiresAt})
		l.byDone.update(a)
	}
}

func (l *largest) removed(k storeKey, r Record) {
	a := l.accounts[k.account]
	l.leave(a, r)
	if a.records--; a.records == 0 {
		l.byDone.remove(a)
		delete(l.accounts, k.account)
	}
}

// leave uncounts old, a record of a's, from its state.
func (l *largest) leave(a *account, old Record) {
	if old.State != Done {
		return
	}
	a.done--
	l.byDone.update(a)
	if a.head > len(a.finished)/2 { // compact once half is spent: amortised O(1)
		a.finished = append(a.finished[:0], a.finished[a.head:]...)
		a.head = 0
	}
}

func (l *largest) drop(m *MemoryStore) bool {
	if len(l.byDone) == 0 {
		return false
	}
	k, r, ok := l.byDone[0].oldest(m.records)
	if !ok {
		return false
	}
	m.remove(k, r)
	if m.dropped != nil {
		m.dropped([]Record{r})
	}
	return true
}

func (l *largest) earliest(account string, records map[storeKey]Record) time.Time {
	if a := l.accounts[account]; a != nil {
		if _, r, ok := a.oldest(records); ok {
			return r.ExpiresAt
		}
	}
	return time.Time{}
}

// oldest returns a's oldest finished record, dropping the stale entries
// before it.
func (a *account) oldest(records map[storeKey]Record) (storeKey, Record, bool) {
	for a.head < len(a.finished) {
		f := a.finished[a.head]
		k := storeKey{a.name, f.key}
		if r, ok := records[k]; ok && r.State == Done && r.ExpiresAt.Equal(f.expires) {
			return k, r, true
		}
		a.finished[a.head] = finishedRef{}
		a.head++
	}
	return storeKey{}, Record{}, false
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
