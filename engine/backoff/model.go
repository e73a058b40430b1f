package backoff

import (
	"errors"
	"math/bits"
	"slices"
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
	Seed     uint64        // the jittered policies' random draws
	// Compare is a second policy that the handbook runs beside Policy,
	// with the same herd and seed (the widget and the CLI), or Off. Run
	// runs Policy alone.
	Compare Policy
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

// Run simulates p with randomness from p.Seed. Calls are processed in time
// order, ties by client number; a call at time t lands in slot t / Slot; the
// first Capacity calls of a slot are served and every later one fails, and
// its client waits per the policy and calls again.
func Run(p Params) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	var (
		res Result
		err error
	)
	if !p.Policy.Jittered() {
		err = runLockstep(p, &res)
	} else {
		err = runJitter(p, sim.NewRand(p.Seed), &res)
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
	var refs sim.Arena // the busy slots' refs, slot-0, slot-1, ...
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
		res.count(p, slot, waiting, served, &refs)
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
// bucket is sorted through slotQueue, a calendar of the slot, into which a
// call that fails and comes back within the same slot is put back (it is
// later than the call that failed). Keys are distinct (each carries its
// client), so any correct order is the same order: the tests check
// slotQueue against a sorted slice merged with a heap, and the whole run,
// draw for draw, against a plain priority queue.
//
// The loop over the calls is written for WebAssembly, where it runs in
// the page: there a call of a function spills every live value to memory,
// and every jump goes through the function's dispatch table, so it makes
// no call and as few branches as it can, and it is written out here
// rather than as a method per call or per bucket.
func runJitter(p Params, r *sim.Rand, res *Result) error {
	// attempt[c] is client c's attempt, up to the first that reaches the
	// cap, whose span every later attempt shares (spans).
	attempt := make([]int32, p.Clients)
	var refs sim.Arena // the busy slots' refs, slot-0, slot-1, ...
	var spans []span
	for c := p.Base; ; c = min(2*c, p.Cap) {
		lo, hi := p.Policy.span(c, 0, p.Base)
		spans = append(spans, span{lo, hi})
		if c == p.Cap {
			break
		}
	}
	last := int32(len(spans) - 1)
	// Decorrelated's span is the client's own, from its previous wait.
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
	ring := newCalendar(int(p.Cap/p.Slot)+2, p.Clients)
	b := make([]uint64, 0, p.Clients) // the slot's keys, taken from the ring
	keyBits := bits.Len64(uint64(p.Slot-1)<<clientBits | clientMask)
	// Every failed call draws once, in the order of the calls: no span is
	// empty (Full's and Equal's end at a ceiling of at least Base,
	// Decorrelated's at three times a previous wait of at least Base). So
	// the run draws ahead, a buffer at a time, and calls nothing per call.
	draws := make([]float64, 1024)
	di := len(draws) // the next draw in draws
	q := newSlotQueue(p.Clients)
	slotLen := uint64(p.Slot)
	pending, pops := p.Clients, 0 // calls in the ring; calls taken so far
	for slot, idx := 0, 0; pending > 0; slot, idx = slot+1, idx+1 {
		if slot >= maxSlots {
			return ErrTooLong
		}
		if idx == len(ring.first) {
			idx = 0 // idx is slot % len(ring.first)
		}
		start := time.Duration(slot) * p.Slot
		b = ring.take(idx, b)
		pending -= len(b)
		if pops += len(b); pops > maxPops {
			return ErrTooLong
		}
		if len(b) == 0 {
			res.count(p, slot, 0, 0, &refs)
			continue
		}
		q.load(b, keyBits) // nothing lands in its own slot through the ring
		// The first Capacity calls are served (all of them, in a slot of
		// fewer), and fail none: no call has come back yet. Every other
		// call fails, and ends in the ring, now or after coming back into
		// this slot.
		served := min(len(b), p.Capacity)
		keys, shift := q.keys, q.shift
		res.LastServed = start + offset(keys[served-1])
		pending += len(b) - served
		calls := len(b) // and one per call come back
		// The failed calls in key order: bucket by bucket of q, with the
		// keys come back into it (q.merge); a key that comes back into the
		// bucket being taken goes into cur, in order (q.insert).
		lo := int32(served)
		for d, hi := range q.end {
			hi = max(hi, lo) // the buckets before lo are served
			cur := keys[lo:hi]
			lo = hi
			if q.head[d] >= 0 {
				cur = q.merge(cur, d)
			}
			for i := 0; i < len(cur); i++ {
				k := cur[i]
				c := k & clientMask
				a := attempt[c]
				attempt[c] = min(a+1, last)
				sp := spans[a]
				if prev != nil {
					sp.lo, sp.hi = decorrelatedSpan(prev[c], p.Base)
				}
				if di == len(draws) {
					draw(r, draws)
					di = 0
				}
				w := min(p.Cap, within(draws[di], sp.lo, sp.hi))
				di++
				if prev != nil {
					prev[c] = w
				}
				// The call lands ahead slots on, at off within its slot.
				// Unsigned: WebAssembly divides a signed 64-bit integer
				// through a runtime call, which checks for MinInt64 / -1.
				at := uint64(offset(k) + w)
				ahead := at / slotLen
				nk := (at-ahead*slotLen)<<clientBits | c
				if ahead == 0 {
					calls++
					if pops++; pops > maxPops {
						return ErrTooLong
					}
					if int(nk>>shift) > d {
						q.back(nk)
					} else {
						cur = q.insert(cur, i, nk)
						i = -1 // q.insert drops the keys taken: cur[0] is next
					}
					continue
				}
				j := idx + int(ahead)
				if j >= len(ring.first) {
					j -= len(ring.first)
				}
				// Last in slot j, in a new chunk when its last is full:
				// written out, as a method it would be a call per call.
				t := ring.tail[j]
				if t&ring.mask == 0 {
					t = ring.link(j)
				}
				ring.keys[t] = nk
				ring.tail[j] = t + 1
			}
		}
		res.count(p, slot, calls, served, &refs)
	}
	return nil
}

// calendar is the ring of slots in which calls wait for theirs: each
// slot a chain of chunks of keys, in the order they came, the chunks of
// all the slots from one pool. The ring holds at most one call per
// client, so a pool of clients/chunk + slots chunks, allocated with the
// calendar, always has room: every slot's chunks are full but its last.
// A chunk is about as long as a slot's share of the clients, so that the
// pool is a few times the clients' keys at most (a hundred thousand
// clients: 1.6 MB at the defaults' 102 slots, 7 MB at 100,002, the most).
type calendar struct {
	keys  []uint64 // the pool: chunk c is keys[c*chunk : (c+1)*chunk]
	next  []int32  // the chunk after each in its slot's chain or in free, or -1
	free  int32    // the first free chunk
	shift uint     // chunk is 1 << shift
	mask  int32    // chunk - 1
	first []int32  // each slot's first chunk, or -1
	tail  []int32  // where each slot's next key goes in keys; a multiple of chunk when its last chunk is full or it has none
}

// newCalendar is the herd's calendar at the start: every client's first
// call in slot 0, at offset 0 (everyone calls at t = 0), in the first
// chunks of the pool, which are chained in order like the free ones.
func newCalendar(slots, clients int) *calendar {
	shift := uint(min(max(bits.Len(uint(clients/slots)), 3), 10))
	chunks := clients>>shift + 1 + min(slots, clients)
	r := &calendar{keys: make([]uint64, chunks<<shift), next: make([]int32, chunks), shift: shift, mask: 1<<shift - 1,
		first: make([]int32, slots), tail: make([]int32, slots)}
	for c := range clients {
		r.keys[c] = uint64(c)
	}
	for c := range r.next {
		r.next[c] = int32(c + 1)
	}
	for j := range r.first {
		r.first[j] = -1
	}
	used := int32((clients + int(r.mask)) >> shift) // clients >= 1
	r.next[used-1], r.next[chunks-1] = -1, -1
	r.free, r.first[0], r.tail[0] = used, 0, int32(clients)
	return r
}

// link gives slot j a new last chunk, and returns where it starts.
//
// It, draw and the slot queue's back and insert are the rare paths of
// runJitter's loop, and insertionSort runs once a slot: inlined, each
// would copy its code into its callers, which the page's module pays for
// in bytes (they are small enough for the compiler to inline).
//
//go:noinline
func (r *calendar) link(j int) int32 {
	c := r.free
	r.free = r.next[c]
	r.next[c] = -1
	if r.first[j] < 0 {
		r.first[j] = c
	} else {
		r.next[(r.tail[j]-1)>>r.shift] = c
	}
	return c << r.shift
}

// take empties slot j into dst, in order, and returns dst with its keys.
// dst has room for every client's.
func (r *calendar) take(j int, dst []uint64) []uint64 {
	c := r.first[j]
	if c < 0 {
		return dst[:0]
	}
	n := 0
	for {
		lo, last := c<<r.shift, r.next[c] < 0
		hi := lo + r.mask + 1
		if last {
			hi = r.tail[j]
		}
		n += copy(dst[n:cap(dst)], r.keys[lo:hi])
		if last {
			break
		}
		c = r.next[c]
	}
	r.next[c] = r.free
	r.free, r.first[j], r.tail[j] = r.first[j], -1, 0
	return dst[:n]
}

// A span is the range a policy draws a wait from (Policy.span).
type span struct{ lo, hi time.Duration }

// draw fills draws with r's next draws, in order.
//
//go:noinline
func draw(r *sim.Rand, draws []float64) {
	for i := range draws {
		draws[i] = r.Float64()
	}
}

// slotQueue holds a slot's calls in key order, (time, client), while
// failed calls come back into the slot behind the one being taken. It is
// a calendar of the slot: keys go to buckets by their top bits and are
// sorted as they are loaded; a call that comes back goes into its bucket,
// which is then the bucket being taken or a later one (it is later than
// the call that failed). A jittered slot's offsets are spread over the
// slot, so a bucket holds a few keys and is sorted by insertion; keys that
// bunch up (everyone calls at t = 0) make a large bucket, which goes to
// slices.Sort. Its buffers are kept from slot to slot.
type slotQueue struct {
	shift uint     // a key's bucket is key >> shift
	keys  []uint64 // the slot's keys, sorted (so in bucket order)
	end   []int32  // where each bucket's keys end in keys
	head  []int32  // the client of each bucket's last key come back, or -1
	owned []uint64 // the bucket being taken, once keys come back into it
	// A key come back is its client's one call in flight, so the keys
	// come back are linked per bucket through per-client arrays.
	backKey  []uint64 // the client's key come back
	backNext []int32  // the client of the bucket's key come back before it, or -1
}

// newSlotQueue is a slotQueue for keys of clients below clients.
func newSlotQueue(clients int) *slotQueue {
	return &slotQueue{backKey: make([]uint64, clients), backNext: make([]int32, clients)}
}

// load starts a slot of keys, each below 2^keyBits.
func (q *slotQueue) load(b []uint64, keyBits int) {
	n := len(b)
	// Between a quarter and a half as many buckets as keys.
	bucketBits := min(max(bits.Len(uint(n))-2, 0), keyBits)
	shift := uint(keyBits - bucketBits)
	buckets := 1 << bucketBits
	q.shift = shift
	q.end = grow(q.end, buckets)
	q.head = grow(q.head, buckets)
	q.keys = grow(q.keys, n)
	count, head, keys := q.end, q.head, q.keys
	clear(count)
	for _, k := range b {
		count[k>>shift]++
	}
	sum, large := int32(0), false
	for d, c := range count {
		count[d] = sum // where bucket d starts
		sum += c
		head[d] = -1
		large = large || c > 16
	}
	for _, k := range b {
		d := k >> shift
		keys[count[d]] = k
		count[d]++ // where bucket d ends, once every key is placed
	}
	if large {
		lo := int32(0)
		for _, hi := range count {
			if hi-lo > 16 {
				slices.Sort(keys[lo:hi])
			}
			lo = hi
		}
	}
	insertionSort(keys)
}

// insertionSort sorts keys whose every key is at most a few places from
// its own: those of the slot's buckets, each of a few keys, in bucket
// order. Its work is the keys and the places they move.
//
//go:noinline
func insertionSort(keys []uint64) {
	for i := 1; i < len(keys); i++ {
		k := keys[i]
		j := i
		for ; j > 0 && keys[j-1] > k; j-- {
			keys[j] = keys[j-1]
		}
		keys[j] = k
	}
}

// back puts back a key into a bucket after the one being taken.
//
//go:noinline
func (q *slotQueue) back(k uint64) {
	d, c := k>>q.shift, k&clientMask
	q.backKey[c], q.backNext[c] = k, q.head[d]
	q.head[d] = int32(c)
}

// merge is bucket d, cur, with the keys come back into it, sorted, in
// q.owned.
func (q *slotQueue) merge(cur []uint64, d int) []uint64 {
	b := append(q.owned[:0], cur...)
	for c := q.head[d]; c >= 0; c = q.backNext[c] {
		b = append(b, q.backKey[c])
	}
	if len(b) > 16 {
		slices.Sort(b)
	} else {
		insertionSort(b)
	}
	q.owned = b
	return b
}

// insert puts k, a key later than cur[i], among the keys of cur after i,
// in order, and returns those keys with k, in q.owned. The keys are moved
// to the front of q.owned's array even when cur is already q.owned (cur[:i+1],
// taken, is dropped), so that its room is kept whole for the next bucket:
// a bucket holds a few keys, and a suffix kept in place instead would leave
// every later merge a shorter array, and make it allocate.
//
//go:noinline
func (q *slotQueue) insert(cur []uint64, i int, k uint64) []uint64 {
	b := append(q.owned[:0], cur[i+1:]...) // append moves overlapping keys safely
	b = append(b, k)
	j := len(b) - 1
	for ; j > 0 && b[j-1] > k; j-- {
		b[j] = b[j-1]
	}
	b[j] = k
	q.owned = b
	return b
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
// slots before it in PerSlot. The slot's ref is written into refs, and only
// for an event the trace keeps.
func (res *Result) count(p Params, slot, calls, served int, refs *sim.Arena) {
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
	ref := ""
	if res.Trace.Keeps(sim.MaxEvents) {
		ref = refs.Number(slot, "slot-")
	}
	res.Trace.Keep(sim.Event{At: time.Duration(slot) * p.Slot, Kind: Slot, Lane: "server", Ref: ref,
		N: slot, M: calls, Amount: int64(served)}, sim.MaxEvents)
}

// seconds1 is d in seconds rounded to one decimal: 132.7.
func seconds1(d time.Duration) float64 {
	tenths := (d + 50*time.Millisecond) / (100 * time.Millisecond)
	return float64(tenths) / 10
}
