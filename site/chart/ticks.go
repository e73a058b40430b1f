package chart

import (
	"math"
	"strings"

	"github.com/retrylab/retrylab/engine/param"
)

// Ticks returns round values for an axis over [lo, hi]: equally spaced
// multiples of 1, 2, 2.5 or 5 times a power of ten, about n intervals
// (never more), from the largest multiple at or below lo to the smallest at
// or above hi. The first and last ticks are the axis's bounds.
func Ticks(lo, hi float64, n int) []float64 {
	if n < 1 {
		n = 1
	}
	if !(hi > lo) { // also NaN
		hi = lo + 1
	}
	step := niceStep((hi - lo) / float64(n))
	first := math.Floor(lo/step+1e-9) * step
	last := math.Ceil(hi/step-1e-9) * step
	count := int(math.Round((last-first)/step)) + 1
	ticks := make([]float64, count)
	for i := range ticks {
		// Multiply rather than add, so that errors do not accumulate, and
		// round away the float noise of steps like 0.1.
		ticks[i] = roundTo(first+float64(i)*step, step)
	}
	return ticks
}

// niceStep is the smallest of 1, 2, 2.5, 5 and 10 times a power of ten
// that is at least raw.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*pow >= raw*(1-1e-9) {
			return m * pow
		}
	}
	return 10 * pow
}

// roundTo rounds f to the decimals that step has (at most 6), so that
// 0.30000000000000004 becomes 0.3.
func roundTo(f, step float64) float64 {
	d := 0
	for s := step; d < 6 && math.Abs(s-math.Round(s)) > 1e-9; s *= 10 {
		d++
	}
	p := math.Pow(10, float64(d))
	return math.Round(f*p) / p
}

// Number writes a figure for a reader, in a label or a sentence: its
// thousands separated ("10,500"), at most two decimals, trailing zeros
// dropped ("0.5", "2.25"), a minus sign (not a hyphen) before a negative
// one and none before a figure that rounds to zero; "–" for no number
// (NaN, an infinity). Its digits are param.Number's, the exact form a
// parameter is written in, of f rounded to hundredths.
func Number(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "–"
	}
	return Group(param.Number(math.Round(f*100) / 100))
}

// Group separates the thousands of a number written in digits, a sign
// and a decimal point ("-1234.5" is "−1,234.5"), with a minus sign for the
// hyphen, and drops the sign of a number that is all zeros ("-0.0" is
// "0.0"), which rounding a small negative number leaves.
func Group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		s = s[1:]
		if strings.Trim(s, "0.") != "" {
			sign = "−"
		}
	}
	whole, frac, dot := strings.Cut(s, ".")
	var b strings.Builder
	b.WriteString(sign)
	for i := range len(whole) {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(whole[i])
	}
	if dot {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}
