// Package sim is the deterministic core every model in the engine runs on: a
// virtual clock, an event queue ordered by time (ties broken by the order in
// which events were scheduled, or in an order drawn from a schedule seed), a
// seeded random generator and a trace of the events a reader should see.
//
// Nothing here reads the wall clock, sleeps or prints: a run is a pure
// function of its parameters and seed, so the same seed replays the same run
// exactly, in the generator, the CLI and the browser.
package sim

import (
	"slices"
	"time"
)

// Sim is one simulation run. The zero Sim is a run at virtual time 0 that
// draws no randomness (its Rand is nil): a model that needs none can keep
// it as a value, which costs no allocation.
type Sim struct {
	now   time.Duration
	seq   uint64
	queue queue
	Rand  *Rand
	Trace Trace
	rand  Rand // what Rand points at: one allocation for the run

	// order draws the order of simultaneous events when reorder is set
	// (Reorder); its draws are apart from Rand's, so that a model's own
	// randomness is the same whatever the order.
	order   Rand
	reorder bool
}

// New returns a simulation at virtual time 0 whose randomness comes from seed.
func New(seed uint64) *Sim {
	s := new(Sim)
	s.Seed(seed)
	return s
}

// Seed makes s's randomness come from seed, as New does: a model that
// keeps its Sim as a value in its own state seeds it there, without an
// allocation of its own.
func (s *Sim) Seed(seed uint64) {
	s.rand = seeded(seed)
	s.Rand = &s.rand
}

// Reserve makes room for events more events in the trace and queued more
// in the queue, so that a model that knows or can bound the size of its run
// allocates each once.
func (s *Sim) Reserve(events, queued int) {
	s.Trace = slices.Grow(s.Trace, events)
	s.queue.grow(queued)
}

// Now is the virtual time since the start of the run.
func (s *Sim) Now() time.Duration { return s.now }

// At schedules fn at virtual time t. A time in the past runs at the current
// time, after what is already due (among it, under a schedule seed:
// Reorder): the clock never goes backwards.
func (s *Sim) At(t time.Duration, fn func()) { s.Schedule(t, call(fn)) }

// After schedules fn d after the current virtual time.
func (s *Sim) After(d time.Duration, fn func()) { s.Schedule(s.now+d, call(fn)) }

// A Handler is something scheduled to happen. A model that keeps a value
// per thing that acts (a sender, a request in flight) can schedule a
// pointer into it, which allocates nothing, where a closure over the
// value is made on the heap each time.
type Handler interface{ Handle() }

// call is a func scheduled as a Handler. A func value is a pointer, so
// it goes into the interface as it is, without an allocation.
type call func()

func (fn call) Handle() { fn() }

// Schedule schedules h at virtual time t, as At does a func.
func (s *Sim) Schedule(t time.Duration, h Handler) {
	if t < s.now {
		t = s.now
	}
	if s.reorder {
		// A random place among the events due at t: the order of any
		// set of simultaneous events is a uniform permutation, and an
		// event still runs only after the one that scheduled it.
		s.queue.push(t, s.order.Uint64(), h)
		return
	}
	s.seq++
	s.queue.push(t, s.seq, h)
}

// Reorder makes the events due at one virtual time run in an order drawn
// from seed instead of the order they were scheduled in; 0 keeps that
// order, which every published figure is a run of. Time order and cause
// are kept: an event never runs before an earlier one, nor before the
// event that scheduled it. The same seed replays the same order. A model
// calls it before it schedules anything, with its Params' schedule seed,
// so that exploring orders is a matter of running it with other seeds.
func (s *Sim) Reorder(seed uint64) {
	s.reorder = seed != 0
	if s.reorder {
		s.order = seeded(seed)
	}
}

// Ties permutes n things that happen at one instant, which a model runs
// itself rather than through the queue (the handlers of one round), with
// swap, in an order drawn from the schedule seed; at seed 0 (Reorder) it
// leaves them as they are, and draws nothing.
func (s *Sim) Ties(n int, swap func(i, j int)) {
	if s.reorder {
		s.order.Shuffle(n, swap)
	}
}

// Jitter is a delay in [0, max] drawn from the schedule seed, in whole
// milliseconds, for a model whose messages may arrive a little late; at
// seed 0 (Reorder) it is 0, and draws nothing.
func (s *Sim) Jitter(max time.Duration) time.Duration {
	if !s.reorder || max < time.Millisecond {
		return 0
	}
	return time.Duration(s.order.Intn(int(max/time.Millisecond)+1)) * time.Millisecond
}

// Pending is the number of scheduled events not yet run.
func (s *Sim) Pending() int { return s.queue.n }

// Step runs the earliest scheduled event, advancing the clock to its time.
// It reports false when nothing is scheduled.
func (s *Sim) Step() bool {
	if s.queue.n == 0 {
		return false
	}
	at, h := s.queue.pop()
	s.now = at
	h.Handle()
	return true
}

// Run runs events until none is left.
func (s *Sim) Run() {
	for s.Step() {
	}
}

// RunUntil runs every event scheduled at or before t, then sets the clock to
// t. Events after t stay queued.
func (s *Sim) RunUntil(t time.Duration) {
	for s.queue.n > 0 && s.queue.e[0].at <= t {
		s.Step()
	}
	if t > s.now {
		s.now = t
	}
}

// Record appends e to the trace, stamped with the current virtual time.
func (s *Sim) Record(e Event) {
	e.At = s.now
	s.Trace = append(s.Trace, e)
}

// queue is the scheduled handlers, earliest first, then in the order
// they were scheduled: a binary min-heap (container/heap's algorithm,
// typed) of items that hold no pointers, each naming its handler by a
// slot. A heap of interfaces would move pointers on every push and pop,
// each move a write barrier while the collector runs (most of a run's
// life, for models that allocate their traces as fast as these do); here
// a handler is written once into its slot when scheduled and taken out
// when run. The heap and the slots share one array, so that a queue is
// one allocation: e[i].item is the heap's i-th item, for i < n, and e[j]'s
// handler is slot j's.
type queue struct {
	e    []entry
	n    int   // items in the heap
	free int32 // the first free slot + 1; 0: none, append one
}

type entry struct {
	item         // the heap's item at this index
	h    Handler // the handler in this slot
	next int32   // when the slot is free, the next free slot + 1
}

// An item is a scheduled handler, by time and then by the order it was
// scheduled in: seq.
type item struct {
	at   time.Duration
	seq  uint64
	slot int32 // the handler's slot
}

// grow makes room for n more scheduled handlers.
func (q *queue) grow(n int) { q.e = slices.Grow(q.e, n) }

func less(a, b item) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

func (q *queue) push(at time.Duration, seq uint64, h Handler) {
	var i int32
	if q.free > 0 {
		i = q.free - 1
		q.free = q.e[i].next
	} else {
		i = int32(len(q.e))
		q.e = append(q.e, entry{})
	}
	q.e[i].h = h
	// Every item's slot is in use, so the heap is never longer than the
	// slots: q.e[q.n] exists.
	it := item{at: at, seq: seq, slot: i}
	j := q.n
	q.n++
	for j > 0 {
		p := (j - 1) / 2 // parent
		if !less(it, q.e[p].item) {
			break
		}
		q.e[j].item = q.e[p].item
		j = p
	}
	q.e[j].item = it
}

// pop removes the earliest item and returns its time and handler.
func (q *queue) pop() (time.Duration, Handler) {
	top := q.e[0].item
	q.n--
	n := q.n
	last := q.e[n].item
	i := 0
	for {
		j := 2*i + 1 // left child
		if j >= n {
			break
		}
		if r := j + 1; r < n && less(q.e[r].item, q.e[j].item) {
			j = r
		}
		if !less(q.e[j].item, last) {
			break
		}
		q.e[i].item = q.e[j].item
		i = j
	}
	q.e[i].item = last
	s := &q.e[top.slot]
	h := s.h
	s.h, s.next = nil, q.free // drop the handler, for the garbage collector
	q.free = top.slot + 1
	return top.at, h
}
