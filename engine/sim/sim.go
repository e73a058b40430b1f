// Package sim is the deterministic core every model in the engine runs on: a
// virtual clock, an event queue ordered by time (ties broken by the order in
// which events were scheduled), a seeded random generator and a trace of the
// events a reader should see.
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
}

// New returns a simulation at virtual time 0 whose randomness comes from seed.
func New(seed uint64) *Sim {
	s := &Sim{rand: seeded(seed)}
	s.Rand = &s.rand
	return s
}

// Reserve makes room for events more events in the trace and queued more
// in the queue, so that a model that knows or can bound the size of its run
// allocates each once.
func (s *Sim) Reserve(events, queued int) {
	s.Trace = slices.Grow(s.Trace, events)
	s.queue = slices.Grow(s.queue, queued)
}

// Now is the virtual time since the start of the run.
func (s *Sim) Now() time.Duration { return s.now }

// At schedules fn at virtual time t. A time in the past runs at the current
// time, after what is already due: the clock never goes backwards.
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
	s.seq++
	s.queue.push(item{at: t, seq: s.seq, h: h})
}

// Pending is the number of scheduled events not yet run.
func (s *Sim) Pending() int { return len(s.queue) }

// Step runs the earliest scheduled event, advancing the clock to its time.
// It reports false when nothing is scheduled.
func (s *Sim) Step() bool {
	if len(s.queue) == 0 {
		return false
	}
	it := s.queue.pop()
	s.now = it.at
	it.h.Handle()
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
	for len(s.queue) > 0 && s.queue[0].at <= t {
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

type item struct {
	at  time.Duration
	seq uint64
	h   Handler
}

// queue is a binary min-heap of items by time, then by the order they
// were scheduled in: container/heap's algorithm, typed, so that an item
// is not boxed into an interface (an allocation) on every push and pop.
type queue []item

func (q queue) less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}

func (q *queue) push(it item) {
	*q = append(*q, it)
	h := *q
	for j := len(h) - 1; j > 0; {
		i := (j - 1) / 2 // parent
		if !h.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func (q *queue) pop() item {
	h := *q
	n := len(h) - 1
	h[0], h[n] = h[n], h[0]
	for i := 0; ; {
		j := 2*i + 1 // left child
		if j >= n {
			break
		}
		if r := j + 1; r < n && h.less(r, j) {
			j = r
		}
		if !h.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
	it := h[n]
	h[n] = item{} // drop the handler, for the garbage collector
	*q = h[:n]
	return it
}
