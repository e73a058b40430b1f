package sim

import "math/bits"

// Rand is a small, seeded pseudo-random generator (xoshiro256**, seeded with
// SplitMix64). It is written out here rather than taken from math/rand so
// that a seed replays exactly the same run on every Go version, natively and
// in WebAssembly alike.
type Rand struct {
	s [4]uint64
}

// NewRand returns a generator for seed. Equal seeds give equal sequences.
func NewRand(seed uint64) *Rand {
	r := seeded(seed)
	return &r
}

// seeded is the generator for seed, as a value.
func seeded(seed uint64) Rand {
	var r Rand
	x := seed
	for i := range r.s {
		// SplitMix64 spreads even adjacent seeds (1, 2, 3...) over the state.
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		r.s[i] = z ^ (z >> 31)
	}
	return r
}

// Uint64 returns the next 64 random bits.
func (r *Rand) Uint64() uint64 {
	s := &r.s
	result := bits.RotateLeft64(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = bits.RotateLeft64(s[3], 45)
	return result
}

// Float64 returns a number in [0, 1) with 53 random bits.
func (r *Rand) Float64() float64 {
	return float64(r.Uint64()>>11) / (1 << 53)
}

// Uniform returns a number in [lo, hi).
func (r *Rand) Uniform(lo, hi float64) float64 {
	return lo + (hi-lo)*r.Float64()
}

// Intn returns an integer in [0, n). It panics if n <= 0, as math/rand does.
func (r *Rand) Intn(n int) int {
	if n <= 0 {
		panic("sim: Intn with n <= 0")
	}
	// Lemire's multiply-shift; the bias for n far below 2^64 is negligible
	// and, more to the point here, deterministic.
	hi, _ := bits.Mul64(r.Uint64(), uint64(n))
	return int(hi)
}

// Shuffle permutes n elements with swap, Fisher-Yates.
func (r *Rand) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, r.Intn(i+1))
	}
}
