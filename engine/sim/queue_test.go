package sim

import (
	"slices"
	"testing"
	"time"
)

// model is a queue written the plain way, for the heap to agree with: the
// scheduled handlers in a list, of which the earliest (then the first
// scheduled) runs next.
type model struct {
	t       *testing.T
	s       *Sim
	rand    *Rand
	pending []scheduled
	seq     int
	ran     int
}

type scheduled struct {
	at  time.Duration
	seq int // also the handler's id
}

// probe is a handler that checks it is the one the list runs next, at
// its time, and, as a model's handlers do, may schedule others (now,
// later, or in the past) while it runs.
type probe struct {
	m   *model
	seq int
}

func (p *probe) Handle() {
	m := p.m
	m.ran++
	want := m.next()
	if p.seq != want.seq || m.s.Now() != want.at {
		m.t.Fatalf("run %d: handler %d ran at %v; want handler %d at %v", m.ran, p.seq, m.s.Now(), want.seq, want.at)
	}
	for range m.rand.Intn(3) * m.rand.Intn(2) { // half a handler each, on average
		m.schedule(m.s.Now() + time.Duration(m.rand.Intn(6)-2))
	}
}

// schedule schedules a new probe at t on the Sim and in the list.
func (m *model) schedule(t time.Duration) {
	m.seq++
	m.s.Schedule(t, &probe{m: m, seq: m.seq})
	m.pending = append(m.pending, scheduled{at: max(t, m.s.Now()), seq: m.seq})
}

// first is the index in pending of what runs next.
func (m *model) first() int {
	i := 0
	for j, e := range m.pending {
		if e.at < m.pending[i].at || e.at == m.pending[i].at && e.seq < m.pending[i].seq {
			i = j
		}
	}
	return i
}

// next removes and returns what the list runs next.
func (m *model) next() scheduled {
	if len(m.pending) == 0 {
		m.t.Fatalf("run %d: a handler ran with none pending", m.ran)
	}
	i := m.first()
	e := m.pending[i]
	m.pending = slices.Delete(m.pending, i, i+1)
	return e
}

// The heap with its reused slots runs what a plain list runs, in the same
// order, at the same times, for any mix of scheduling from outside and
// from handlers as they run (in the past too), Step, RunUntil and
// Reserve: each step runs the handler scheduled for it, never another
// given its slot, and none is lost or run twice.
func TestQueueRunsAsAPlainList(t *testing.T) {
	for seed := range uint64(300) {
		s := New(seed)
		m := &model{t: t, s: s, rand: New(seed + 1000).Rand}
		for op := range 400 {
			switch r := m.rand.Intn(10); {
			case r < 4:
				m.schedule(s.Now() + time.Duration(m.rand.Intn(8)-2))
			case r < 8:
				if had := len(m.pending) > 0; s.Step() != had {
					t.Fatalf("seed %d, op %d: Step with %d pending reported %v", seed, op, len(m.pending), had)
				}
			case r < 9:
				until := s.Now() + time.Duration(m.rand.Intn(4))
				s.RunUntil(until)
				if len(m.pending) > 0 && m.pending[m.first()].at <= until {
					t.Fatalf("seed %d, op %d: RunUntil(%v) left %v due", seed, op, until, m.pending[m.first()])
				}
				if s.Now() != until {
					t.Fatalf("seed %d, op %d: RunUntil(%v) left the clock at %v", seed, op, until, s.Now())
				}
			default:
				s.Reserve(0, m.rand.Intn(4))
			}
			if s.Pending() != len(m.pending) {
				t.Fatalf("seed %d, op %d: %d pending, want %d", seed, op, s.Pending(), len(m.pending))
			}
		}
		s.Run()
		if len(m.pending) != 0 {
			t.Fatalf("seed %d: Run left %d of the list's handlers unrun", seed, len(m.pending))
		}
	}
}
