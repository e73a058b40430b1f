package sim

import (
	"testing"
	"time"
)

func TestMoney(t *testing.T) {
	for cents, want := range map[int64]string{2500: "25.00", 9900: "99.00", 1: "0.01", 10: "0.10", 1234567: "12345.67", 0: "0.00", -205: "-2.05"} {
		if got := Money(cents); got != want {
			t.Errorf("Money(%d) = %q, want %q", cents, got, want)
		}
	}
}

func TestSeconds(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0.00 s", 1040 * time.Millisecond: "1.04 s", 132700 * time.Millisecond: "132.70 s"} {
		if got := Seconds(d); got != want {
			t.Errorf("Seconds(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestSpan(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0 s", 70 * time.Second: "70 s", 5 * time.Minute: "5 min", 48 * time.Hour: "48 h", 90 * time.Minute: "90 min",
	} {
		if got := Span(d); got != want {
			t.Errorf("Span(%v) = %q, want %q", d, got, want)
		}
	}
}
