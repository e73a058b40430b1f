package outbox

import (
	"testing"

	"github.com/retrylab/retrylab/engine/sim"
	"github.com/retrylab/retrylab/engine/sim/simtest"
)

// TestRunIntoReusesItsRoom runs a long run, a shorter one and the long one
// again into one Result: each is the run Run makes on its own, nothing of
// the last run left in it, and the shorter run's trace is in the long
// one's room.
func TestRunIntoReusesItsRoom(t *testing.T) {
	long, short := Defaults(), Defaults()
	long.Orders, long.Inbox = 5, false
	short.Orders, short.Inbox = 1, true
	err := simtest.RunInto([]Params{long, short, long}, RunInto, Run,
		func(r *Result) sim.Trace { return r.Trace })
	if err != nil {
		t.Fatal(err)
	}
}
