package main

import "testing"

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{7}, 7},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5}, // the mean of the two middle values
		{[]float64{5, 5, 1, 9, 5}, 5},
	} {
		in := append([]float64(nil), c.xs...)
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.xs, got, c.want)
		}
		for i := range in {
			if in[i] != c.xs[i] {
				t.Fatalf("median reordered its input: %v, was %v", c.xs, in)
			}
		}
	}
}

func TestMedianIndex(t *testing.T) {
	// Scores of three Lighthouse runs: the run with 0.91 stands for them.
	if i := medianIndex([]float64{0.99, 0.78, 0.91}); i != 2 {
		t.Errorf("medianIndex = %d, want 2", i)
	}
	// An even count takes the lower middle: a real run, not a mean.
	if i := medianIndex([]float64{0.5, 0.9, 0.7, 0.6}); i != 3 {
		t.Errorf("medianIndex = %d, want 3 (0.6)", i)
	}
	if i := medianIndex(nil); i != -1 {
		t.Errorf("medianIndex(nil) = %d, want -1", i)
	}
	if m := maxOf([]float64{2, 9, 4}); m != 9 {
		t.Errorf("maxOf = %v, want 9", m)
	}
}
