package sim

import (
	"testing"
	"time"
)

// runOrder runs a, b and c due at 1 s (c scheduling d at that instant
// as it runs), and e at 2 s, under schedule seed, and returns the order.
func runOrder(seed uint64) string {
	s := New(1)
	s.Reorder(seed)
	var got []byte
	ran := func(b byte) func() { return func() { got = append(got, b) } }
	s.At(2*time.Second, ran('e'))
	s.At(time.Second, ran('a'))
	s.At(time.Second, ran('b'))
	s.At(time.Second, func() {
		got = append(got, 'c')
		s.At(0, ran('d')) // in the past: now, among what is still due
	})
	s.Run()
	return string(got)
}

// Seed 0 is the order of scheduling; other seeds permute the events due
// at one instant, every permutation of them in turn, and never run an
// event before an earlier one or before the event that scheduled it.
func TestReorderPermutesOnlyTies(t *testing.T) {
	if got := runOrder(0); got != "abcde" {
		t.Fatalf("schedule seed 0: order %q, want the order of scheduling, abcde", got)
	}
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 500; seed++ {
		got := runOrder(seed)
		if len(got) != 5 || got[4] != 'e' {
			t.Fatalf("schedule seed %d: order %q: e, due a second later, must run last", seed, got)
		}
		c, d := -1, -1
		for i, b := range got[:4] {
			switch b {
			case 'c':
				c = i
			case 'd':
				d = i
			}
		}
		if c < 0 || d < c {
			t.Fatalf("schedule seed %d: order %q: d ran before c, which scheduled it", seed, got)
		}
		seen[got[:4]] = true
	}
	// a, b and c in any order, d anywhere after c: 12 orders.
	if len(seen) != 12 {
		t.Errorf("500 schedule seeds gave %d orders of the four simultaneous events, want all 12: %v", len(seen), seen)
	}
}

// Ties and Jitter draw from the schedule seed alone: at 0 they change
// nothing and draw nothing, and the model's own Rand is the same
// whatever the schedule seed.
func TestTiesAndJitter(t *testing.T) {
	for _, seed := range []uint64{0, 9} {
		s := New(3)
		s.Reorder(seed)
		xs := []int{0, 1, 2, 3, 4, 5, 6, 7}
		moved, late := false, false
		for range 20 {
			s.Ties(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
			for i, x := range xs {
				moved = moved || x != i
			}
			j := s.Jitter(50 * time.Millisecond)
			if j < 0 || j > 50*time.Millisecond || j%time.Millisecond != 0 {
				t.Fatalf("schedule seed %d: jitter %v, want whole milliseconds in [0, 50ms]", seed, j)
			}
			late = late || j > 0
		}
		if want := seed != 0; moved != want || late != want {
			t.Errorf("schedule seed %d: ties permuted %v, jitter drawn %v; want %v", seed, moved, late, want)
		}
		if got, want := s.Rand.Uint64(), NewRand(3).Uint64(); got != want {
			t.Errorf("schedule seed %d: the model's Rand drew %d first, want seed 3's %d", seed, got, want)
		}
	}
}
