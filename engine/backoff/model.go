package backoff

import (
	"errors"
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
		err = runJitter(p, sim.NewRand(seed), &res, radixSort)
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
// The queue is a ring of per-slot buckets, each sorted when its slot comes
// up: one queue of a hundred thousand calls misses the cache on every pop, a
// bucket of a few thousand does not. A bucket holds keys, a call's offset
// within its slot above its client's number, so that sorting is sorting
// integers; a client's attempt and previous wait live in per-client arrays,
// since a client has one call in flight at a time. A call that fails and
// comes back within its own slot finds the slot full (it is later than the
// call that failed), so it goes on a small heap of the slot's own, merged in
// key order. Keys are distinct (each carries its client), so any correct
// sort gives the same order: a radix sort, which takes a few passes over a
// bucket instead of a comparison sort's log n; sortKeys is radixSort but
// in a test, which passes slices.Sort to check that both give the same
// run. The tests check too that this gives the same run, draw for draw, as
// a plain priority queue.
func runJitter(p Params, r *sim.Rand, res *Result, sortKeys func(keys, scratch []uint64) []uint64) error {
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
	pending, pops := p.Clients, 0 // calls in the ring; calls taken so far
	var again keyHeap
	var scratch []uint64 // the radix sort's, reused from slot to slot
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
		scratch = sortKeys(b, scratch)
		res.LastServed = start + offset(b[p.Capacity-1])
		calls := p.Capacity
		for i := p.Capacity; i < len(b) || len(again) > 0; calls++ {
			var k uint64
			if len(again) > 0 && (i == len(b) || again[0] < b[i]) {
				k = again.pop()
				if pops++; pops > maxPops {
					return ErrTooLong
				}
			} else {
				k = b[i]
				i++
			}
			c := int(k & clientMask)
			var before time.Duration
			if prev != nil {
				before = prev[c]
			}
			w := p.Policy.Wait(int(attempt[c]), before, p.Base, p.Cap, r)
			attempt[c]++
			if prev != nil {
				prev[c] = w
			}
			at := start + offset(k) + w
			next := int(at / p.Slot)
			nk := uint64(at-time.Duration(next)*p.Slot)<<clientBits | uint64(c)
			if next == slot {
				again.push(nk)
				continue
			}
			j := next % len(ring)
			ring[j] = append(ring[j], nk)
			pending++
		}
		res.count(p, slot, calls, p.Capacity)
		ring[idx] = b[:0] // nothing lands in its own slot through the ring
	}
	return nil
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

// The radix sort's digit: 11 bits, five passes at most over a 54-bit key,
// and a table of counts that stays in the first-level cache.
const (
	radixBits = 11
	radixMask = 1<<radixBits - 1
)

// radixSort sorts keys in place, least significant digit first, through
// scratch, which it grows when it is shorter than keys and returns for the
// next call. A digit every key shares costs one counting pass and no move,
// so the passes above the largest key's top bit cost nothing. Short slices
// go to slices.Sort, for which a pass over a table of counts is too much.
func radixSort(keys, scratch []uint64) []uint64 {
	n := len(keys)
	if n < 256 {
		slices.Sort(keys)
		return scratch
	}
	if cap(scratch) < n {
		scratch = make([]uint64, n)
	}
	var all uint64
	for _, k := range keys {
		all |= k
	}
	src, dst := keys, scratch[:n]
	var count [1 << radixBits]int
	for shift := uint(0); shift < 64 && all>>shift != 0; shift += radixBits {
		clear(count[:])
		for _, k := range src {
			count[k>>shift&radixMask]++
		}
		if count[src[0]>>shift&radixMask] == n {
			continue // every key has this digit: the order stands
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, k := range src {
			d := k >> shift & radixMask
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
	return scratch
}

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
		N: slot, M: calls, Amount: int64(served), Say: sayer}, sim.MaxEvents)
}

// seconds1 is d in seconds rounded to one decimal: 132.7.
func seconds1(d time.Duration) float64 {
	tenths := (d + 50*time.Millisecond) / (100 * time.Millisecond)
	return float64(tenths) / 10
}

// keyHeap is a binary min-heap of keys.
type keyHeap []uint64

func (h *keyHeap) push(k uint64) {
	*h = append(*h, k)
	q := *h
	for i := len(q) - 1; i > 0; {
		parent := (i - 1) / 2
		if q[parent] <= q[i] {
			break
		}
		q[i], q[parent] = q[parent], q[i]
		i = parent
	}
}

func (h *keyHeap) pop() uint64 {
	q := *h
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q = q[:last]
	for i := 0; ; {
		m := 2*i + 1
		if m >= len(q) {
			break
		}
		if r := m + 1; r < len(q) && q[r] < q[m] {
			m = r
		}
		if q[i] <= q[m] {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	*h = q
	return top
}
