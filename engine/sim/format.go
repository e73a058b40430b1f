package sim

import (
	"strconv"
	"time"
)

// Money writes cents as units with two decimals: 2500 -> "25.00". The
// engine's sentences and the widgets' views both write amounts with it.
func Money(cents int64) string {
	neg := cents < 0
	if neg {
		cents = -cents
	}
	s := strconv.FormatInt(cents/100, 10) + "." + strconv.FormatInt(cents%100/10, 10) + strconv.FormatInt(cents%10, 10)
	if neg {
		return "-" + s
	}
	return s
}

// Seconds writes a virtual time as seconds with two decimals: "1.04 s".
func Seconds(d time.Duration) string {
	ms := d.Milliseconds()
	return strconv.FormatInt(ms/1000, 10) + "." + strconv.FormatInt(ms%1000/100, 10) + strconv.FormatInt(ms%100/10, 10) + " s"
}

// Span writes a virtual time of whole seconds as a reader would, in the
// largest unit that divides it: "48 h", "5 min", "70 s".
func Span(d time.Duration) string {
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + " h"
	case d >= time.Minute && d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + " min"
	}
	return strconv.FormatInt(int64(d/time.Second), 10) + " s"
}
