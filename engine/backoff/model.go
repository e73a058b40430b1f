package backoff

import (
	"errors"
	"math/bits"
	"slices"
	"strconv"
	"time"

	"github.com/retrylab/retrylab/engine/sim"
)

// Params are the knobs of the thundering-herd model.
type Params struct {
	Policy   Policy        // none | full | equal | decorrelated
	Clients  int           // clients that all call at t = 0
	Capacity int           // calls the server answers per slot; the rest fail
	Slot     time.Duration // the server's unit of work time
	Base     time.Duration // the first wait of the exponential
	Cap      time.Duration // the longest wait
}

// Bounds of the parameters (declared in Schema). The time bounds keep a
// slot and a wait far from the nanosecond resolution of the clock.
const (
	// MaxClients is what the page runs within about a second: 100,000
	// clients against 50 a slot take about 5.2 million calls jittered.
	MaxClients  = 100_000
	MaxCapacity = 10_000
	MinSlot     = time.Millisecond
	MaxSlot     = 10 * time.Second
	// MinBase is the shortest base and cap, of the model and of the
	// retry helper (Retry); MaxWait is the model's longest, and MaxCap the
	// retry helper's.
	MinBase = time.Millisecond
	MaxWait = 100 * time.Second
	MaxCap  = time.Hour
	// MaxWaitSlots bounds the longest wait, in slots: the run keeps a
	// bucket per slot a wait can reach, and 100,000 of them take 2.4 MB.
	// The declared bounds stay within it: MaxWait / MinSlot = 100 s /
	// 1 ms = 100,000.
	MaxWaitSlots = 100_000
)

// ErrTooLong is returned for a run whose parameters are within bounds but
// whose work is not: a million clients against one call per slot ask for
// billions of calls. A run stops with it rather than exhausting the machine
// once it passes maxSlots slots or maxPops queued calls.
var ErrTooLong = errors.New("backoff: the run is too long to simulate; use fewer clients, more capacity or a longer slot")

// The limits behind ErrTooLong (variables so that tests can lower them). At
// the defaults a run uses 1,328 slots and 10,500 calls.
var (
	maxSlots = 2_000_000  // the length of Summary.PerSlot: 16 MB of counts
	maxPops  = 50_000_000 // calls taken off the queue: a few seconds natively
)

// Summary is what a run comes to.
type Summary struct {
	Calls       int           `json:"calls"`         // every call, served or failed
	LastServed  time.Duration `json:"-"`             // when the last client was served
	LastServedS float64       `json:"last_served_s"` // LastServed in seconds, to one decimal
	Slots       int           `json:"slots"`         // len(PerSlot): from slot 0 to the last slot that saw a call
	Waves       int           `json:"waves"`         // slots that saw at least one call
	PerSlot     []int         `json:"per_slot"`      // calls that arrived in each slot
}

// Result is a run's summary and its trace. The trace has one event per busy
// slot (kind "slot", lane "server"), not one per call: a run of 100,000
// clients makes millions of calls, and the per-slot counts are what a widget
// draws. It is cut at sim.MaxEvents busy slots.
type Result struct {
	Summary
	Trace sim.Trace `json:"-"`
}

// Run simulates p with randomness from seed. Calls are processed in time
// order, ties by client number; a call at time t lands in slot t / Slot; the
// first Capacity calls of a slot are served and every later one fails, and
// its client waits per the policy and calls again.
func Run(p Params, seed uint64) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	var (
		res Result
		err error
	)
	if p.Policy == None {
		err = runLockstep(p, &res)
	} else {
		err = runJitter(p, sim.NewRand(seed), &res)
	}
	if err != nil {
		return Result{}, err
	}
	res.Slots = len(res.PerSlot)
	res.LastServedS = seconds1(res.LastServed)
	return res, nil
}

// runLockstep runs None. Without jitter every client that fails in a wave
// waits the same and calls again at the same instant as the others, so a
// wave is one count: 100,000 clients cost 2,000 steps, not 100 million calls.
func runLockstep(p Params, res *Result) error {
	waiting := p.Clients
	at := time.Duration(0)
	cur, used := -1, 0 // the slot being filled and the calls it has served
	for attempt := 0; waiting > 0; attempt++ {
		slot := int(at / p.Slot)
		if slot >= maxSlots {
			return ErrTooLong
		}
		if slot != cur {
			cur, used = slot, 0
		}
		served := min(waiting, p.Capacity-used)
		used += served
		res.count(p, slot, waiting, served)
		if served > 0 {
			res.LastServed = at
		}
		waiting -= served
		at += Ceiling(attempt, p.Base, p.Cap)
	}
	return nil
}

// runJitter runs the policies that draw a wait per client, one call at a
// time in the order of a single priority queue of (time, client).
//
// The queue is a ring of per-slot buckets: one queue of a hundred
// thousand calls misses the cache on every pop, a bucket of a few thousand
// does not. A bucket holds keys, a call's offset within its slot above its
// client's number, so that ordering calls is ordering integers; a
// client's attempt and previous wait live in per-client arrays, since a
// client has one call in flight at a time. When its slot comes up, a
// bucket is taken in key order through slotQueue, a calendar of the slot,
// into which a call that fails and comes back within the same slot is put
// back (it is later than the call that failed). Keys are distinct (each
// carries its client), so any correct order is the same order: the tests
// check slotQueue against a sorted slice merged with a heap, and the whole
// run, draw for draw, against a plain priority queue.
func runJitter(p Params, r *sim.Rand, res *Result) error {
	attempt := make([]int32, p.Clients)
	var prev []time.Duration
	if p.Policy == Decorrelated {
		prev = make([]time.Duration, p.Clients)
		for i := range prev {
			prev[i] = p.Base // the first "previous wait" is base
		}
	}
	// A call in slot k waits at most Cap, so it lands at most
	// 1 + Cap/Slot slots ahead: a ring one longer never wraps onto itself.
	// Validate keeps Cap/Slot at most MaxWaitSlots.
	ring := make([][]uint64, int(p.Cap/p.Slot)+2)
	ring[0] = make([]uint64, p.Clients)
	for c := range ring[0] {
		ring[0][c] = uint64(c) // offset 0: everyone calls at t = 0
	}
	// ceilings[a] is Ceiling(a, Base, Cap), up to the first attempt that
	// reaches the cap, which every later attempt shares.
	ceilings := []time.Duration{p.Base}
	for c := p.Base; c < p.Cap; {
		c = min(2*c, p.Cap)
		ceilings = append(ceilings, c)
	}
	keyBits := bits.Len64(uint64(p.Slot-1)<<clientBits | clientMask)
	var q slotQueue
	pending, pops := p.Clients, 0 // calls in the ring; calls taken so far
	for slot := 0; pending > 0; slot++ {
		if slot >= maxSlots {
			return ErrTooLong
		}
		start := time.Duration(slot) * p.Slot
		idx := slot % len(ring)
		b := ring[idx]
		pending -= len(b)
		if pops += len(b); pops > maxPops {
			return ErrTooLong
		}
		if len(b) <= p.Capacity {
			// Everyone is served: no draws, and only the latest time matters.
			var last uint64
			for _, k := range b {
				last = max(last, k)
			}
			if len(b) > 0 {
				res.LastServed = start + offset(last)
			}
			res.count(p, slot, len(b), len(b))
			ring[idx] = b[:0]
			continue
		}
		q.load(b, keyBits)
		ring[idx] = b[:0] // nothing lands in its own slot through the ring
		calls := 0
		for q.nextBucket() {
			for q.i < len(q.cur) {
				k := q.cur[q.i]
				q.i++
				if calls++; calls <= p.Capacity {
					if calls == p.Capacity {
						res.LastServed = start + offset(k)
					}
					continue
				}
				c := int(k & clientMask)
				var before time.Duration
				if prev != nil {
					before = prev[c]
				}
				w := p.Policy.wait(ceilings[min(int(attempt[c]), len(ceilings)-1)], before, p.Base, p.Cap, r)
				attempt[c]++
				if prev != nil {
					prev[c] = w
				}
				at := start + offset(k) + w
				next := int(at / p.Slot)
				nk := uint64(at-time.Duration(next)*p.Slot)<<clientBits | uint64(c)
				if next == slot {
					q.push(nk)
					if pops++; pops > maxPops {
						return ErrTooLong
					}
					continue
				}
				j := next % len(ring)
				ring[j] = append(ring[j], nk)
				pending++
			}
		}
		res.count(p, slot, calls, p.Capacity)
	}
	return nil
}

// slotQueue gives a slot's calls in key order, (time, client), while
// failed calls come back into the slot behind the one being taken (see
// nextBucket for how to take them). It is a
// calendar of the slot: keys go to buckets by their top bits, a bucket is
// sorted when its turn comes, and a call that comes back goes into its
// bucket, which is then the current one or a later one (it is later than
// the call that failed). A jittered slot's offsets are spread over the
// slot, so a bucket holds a few keys and is sorted by insertion; keys that
// bunch up (everyone calls at t = 0) make a large bucket, which goes to
// slices.Sort. Its buffers are kept from slot to slot.
type slotQueue struct {
	shift  uint      // a key's bucket is key >> shift
	keys   []uint64  // the slot's keys, in bucket order
	end    []int32   // where each bucket's keys end in keys
	head   []int32   // each bucket's last key come back, in back, or -1
	back   []backKey // the keys come back, linked per bucket
	d      int       // the bucket being taken
	cur    []uint64  // its keys, sorted
	i      int       // the next key in cur
	owned  []uint64  // cur's own buffer, once a key comes back into it
	shared bool      // whether cur is a part of keys
}

type backKey struct {
	key  uint64
	next int32 // the bucket's key come back before it, or -1
}

// load starts a slot of keys, each below 2^keyBits.
func (q *slotQueue) load(b []uint64, keyBits int) {
	n := len(b)
	// Between a quarter and a half as many buckets as keys.
	bucketBits := min(max(bits.Len(uint(n))-2, 0), keyBits)
	q.shift = uint(keyBits - bucketBits)
	buckets := 1 << bucketBits
	q.end = grow(q.end, buckets)
	q.head = grow(q.head, buckets)
	q.keys = grow(q.keys, n)
	q.back = q.back[:0]
	count := q.end
	clear(count)
	for _, k := range b {
		count[k>>q.shift]++
	}
	sum := int32(0)
	for d, c := range count {
		count[d] = sum // where bucket d starts
		sum += c
		q.head[d] = -1
	}
	for _, k := range b {
		d := k >> q.shift
		q.keys[count[d]] = k
		count[d]++ // where bucket d ends, once every key is placed
	}
	q.d, q.cur, q.i = -1, nil, 0
}

// nextBucket makes the next bucket that has keys the current one, sorted,
// or reports that there is none: the slot's keys in order are each
// bucket's cur, from i on, while keys come back into it. The run takes
// them from cur itself, since a call costs more than taking a key in
// WebAssembly, and there are millions a run.
func (q *slotQueue) nextBucket() bool {
	for q.i == len(q.cur) {
		if q.d++; q.d == len(q.end) {
			return false
		}
		lo := int32(0)
		if q.d > 0 {
			lo = q.end[q.d-1]
		}
		q.cur, q.i, q.shared = q.keys[lo:q.end[q.d]], 0, true
		if h := q.head[q.d]; h >= 0 {
			q.own()
			for j := h; j >= 0; j = q.back[j].next {
				q.cur = append(q.cur, q.back[j].key)
			}
		}
		b := q.cur
		if len(b) > 16 {
			slices.Sort(b)
			continue
		}
		for i := 1; i < len(b); i++ { // by insertion, as nearly all are
			k := b[i]
			j := i
			for ; j > 0 && b[j-1] > k; j-- {
				b[j] = b[j-1]
			}
			b[j] = k
		}
	}
	return true
}

// push puts back a key later than the last one taken.
func (q *slotQueue) push(k uint64) {
	d := int(k >> q.shift)
	if d > q.d {
		q.back = append(q.back, backKey{key: k, next: q.head[d]})
		q.head[d] = int32(len(q.back) - 1)
		return
	}
	// Into the bucket being taken, in order among the keys not yet taken.
	if q.shared {
		q.own()
	}
	q.cur = append(q.cur, k)
	j := len(q.cur) - 1
	for ; j > q.i && q.cur[j-1] > k; j-- {
		q.cur[j] = q.cur[j-1]
	}
	q.cur[j] = k
}

// own moves cur into its own buffer, so that keys can be added to it.
func (q *slotQueue) own() {
	q.owned = append(q.owned[:0], q.cur...)
	q.cur, q.shared = q.owned, false
}

// grow returns s with length n, reallocated only when it is too short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// A key is a call's offset within its slot, in nanoseconds, above its
// client's number: ordering keys orders calls by (time, client) within a
// slot. An offset is below MaxSlot (10 s < 2^34 ns) and a client below
// 2^20 (more than MaxClients), so a key fits in 54 bits.
const (
	clientBits = 20
	clientMask = 1<<clientBits - 1
)

func offset(k uint64) time.Duration { return time.Duration(k >> clientBits) }

// count records a busy slot in the summary and the trace, and the empty
// slots before it in PerSlot.
func (res *Result) count(p Params, slot, calls, served int) {
	for len(res.PerSlot) <= slot {
		res.PerSlot = append(res.PerSlot, 0)
	}
	if calls == 0 {
		return
	}
	if res.PerSlot[slot] == 0 {
		res.Waves++
	}
	res.PerSlot[slot] += calls
	res.Calls += calls
	res.Trace.Keep(sim.Event{At: time.Duration(slot) * p.Slot, Kind: Slot, Lane: "server", Ref: "slot-" + strconv.Itoa(slot),
		N: slot, M: calls, Amount: int64(served)}, sim.MaxEvents)
}

// seconds1 is d in seconds rounded to one decimal: 132.7.
func seconds1(d time.Duration) float64 {
	tenths := (d + 50*time.Millisecond) / (100 * time.Millisecond)
	return float64(tenths) / 10
}
