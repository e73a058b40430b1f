package widget

import (
	"slices"
	"testing"
)

// fakeClock is a virtual clock: After queues, Advance runs what is due.
type fakeClock struct {
	now     int
	pending []*timer
}

type timer struct {
	at   int
	fn   func()
	dead bool
}

func (c *fakeClock) After(ms int, fn func()) func() {
	t := &timer{at: c.now + ms, fn: fn}
	c.pending = append(c.pending, t)
	return func() { t.dead = true }
}

// Advance moves the clock ms on, running each timer due, in order.
func (c *fakeClock) Advance(ms int) {
	end := c.now + ms
	for {
		var next *timer
		for _, t := range c.pending {
			if !t.dead && t.at <= end && (next == nil || t.at < next.at) {
				next = t
			}
		}
		if next == nil {
			break
		}
		next.dead = true
		c.now = next.at
		next.fn()
	}
	c.now = end
}

// live counts timers neither run nor cancelled.
func (c *fakeClock) live() int {
	n := 0
	for _, t := range c.pending {
		if !t.dead {
			n++
		}
	}
	return n
}

func newReplay(steps int) (*Replay, *fakeClock, *[]int, *[]bool) {
	c := &fakeClock{}
	var shown []int
	var stops []bool
	r := &Replay{Clock: c, Show: func(s int) { shown = append(shown, s) }, Stopped: func(done bool) { stops = append(stops, done) }}
	r.Load(steps, steps)
	return r, c, &shown, &stops
}

// Play at the end starts over and steps every StepDelay to the end, then
// stops by itself.
func TestReplayPlaysToTheEnd(t *testing.T) {
	r, c, shown, stops := newReplay(3)
	r.Toggle()
	if !r.Playing() || r.Step() != 0 || !slices.Equal(*shown, []int{0}) {
		t.Fatalf("after Play: playing %v, step %d, shown %v", r.Playing(), r.Step(), *shown)
	}
	c.Advance(StepDelay - 1)
	if r.Step() != 0 {
		t.Fatalf("a step before its delay: %d", r.Step())
	}
	c.Advance(1)
	if r.Step() != 1 {
		t.Fatalf("after one delay: step %d", r.Step())
	}
	c.Advance(10 * StepDelay)
	if r.Playing() || r.Step() != 3 || !slices.Equal(*shown, []int{0, 1, 2, 3}) || !slices.Equal(*stops, []bool{true}) {
		t.Fatalf("at the end: playing %v, step %d, shown %v, stops %v", r.Playing(), r.Step(), *shown, *stops)
	}
	if c.live() != 0 {
		t.Fatalf("%d timers left once the replay ended", c.live())
	}
}

// Pause stops where it is, and nothing moves after; stepping and scrubbing
// stop a replay and cancel its timer.
func TestReplayPauseStepScrub(t *testing.T) {
	r, c, shown, stops := newReplay(5)
	r.GoTo(1)
	r.Play()
	c.Advance(StepDelay)
	r.Toggle() // pause at 2
	if r.Playing() || r.Step() != 2 || !slices.Equal(*stops, []bool{false}) {
		t.Fatalf("paused: playing %v, step %d, stops %v", r.Playing(), r.Step(), *stops)
	}
	c.Advance(10 * StepDelay)
	if r.Step() != 2 || c.live() != 0 {
		t.Fatalf("paused at 2, now at %d with %d timers", r.Step(), c.live())
	}
	r.Play()
	r.StepBy(-1)
	if r.Playing() || r.Step() != 1 || c.live() != 0 {
		t.Fatalf("a step back while playing: playing %v, step %d, %d timers", r.Playing(), r.Step(), c.live())
	}
	r.GoTo(99)
	r.StepBy(-99)
	if r.Step() != 0 || (*shown)[len(*shown)-2] != 5 {
		t.Fatalf("scrubbing past the ends: step %d, shown %v", r.Step(), *shown)
	}
	r.Load(0, 0)
	r.Play()
	if r.Playing() || c.live() != 0 {
		t.Fatal("a run without steps plays")
	}
}
