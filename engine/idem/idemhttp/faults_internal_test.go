package idemhttp

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/retrylab/retrylab/engine/idem"
)

// slow=MS stops waiting when its context ends, on the clock or the
// system's timers.
func TestSlowStopsWhenItsContextEnds(t *testing.T) {
	clock := idem.NewManualClock(time.Unix(0, 0))
	for name, s := range map[string]faultStore{"manual clock": {clock: clock, slows: make(chan struct{}, 1)}, "no clock": {slows: make(chan struct{}, 1)}} {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			for clock.Sleepers() == 0 && name == "manual clock" {
				time.Sleep(time.Millisecond)
			}
			cancel()
		}()
		start := time.Now()
		err := s.slow(ctx, &injection{Faults: Faults{Slow: MaxSlow}}, true)
		if !errors.Is(err, context.Canceled) || time.Since(start) > MaxSlow/2 {
			t.Fatalf("%s: %v after %v; want context.Canceled at once", name, err, time.Since(start))
		}
	}
	if n := clock.Sleepers(); n != 0 {
		t.Fatalf("%d sleepers left on the clock", n)
	}
}
